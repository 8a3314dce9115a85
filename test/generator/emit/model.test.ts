import { writeFileSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { emitAll } from "../../../generator/emit/index.js";
import { emitModel } from "../../../generator/emit/model.js";
import type {
  ClientOperationModel,
  ClientServiceModel,
  OperationModel,
  ServiceModel,
} from "../../../runtime/model.js";
import { docsOf, modelOf, REPO, removeTempDirs, SMALL_TEXT, tempDir } from "../fixtures/index.js";

afterAll(removeTempDirs);

interface ModelModule {
  service: ClientServiceModel;
  operations: Record<string, ClientOperationModel>;
  recordModels: ServiceModel["records"];
  dataSetModels: ServiceModel["dataSets"];
}

interface ServerModelModule {
  serverModel: ServiceModel;
  serverOperations: Record<string, OperationModel>;
}

/** The model without what only the server reads: required, rules, defaults, checks, groups, the lists. */
function clientPart(model: ServiceModel): unknown {
  return {
    service: { namespace: model.namespace, endpoint: model.endpoint },
    operations: model.operations.map(({ name, params, result }) => ({
      name,
      params: params.map(({ name, type, credential }) =>
        credential ? { name, type, credential } : { name, type },
      ),
      result,
    })),
  };
}

describe("emitModel", () => {
  const model = modelOf(SMALL_TEXT);

  async function load(): Promise<{
    text: string;
    module: ModelModule;
    serverText: string;
    server: ServerModelModule;
  }> {
    const ctx = {
      docs: docsOf(SMALL_TEXT),
      specFile: "spec/small.yaml",
      templatesDir: path.join(REPO, "templates"),
      runtimeDir: path.join(REPO, "runtime"),
    };
    const files = await emitAll(model, ctx, [{ name: "model", emit: emitModel }]);
    const dir = tempDir();
    const text = (name: string): string => {
      const content = files.find((f) => f.path === name)!.content;
      writeFileSync(path.join(dir, name), content);
      return content;
    };
    const [clientText, serverText] = [text("model.ts"), text("server-model.ts")];
    const server = (await import(pathToFileURL(path.join(dir, "server-model.ts")).href)) as ServerModelModule;
    const module = (await import(pathToFileURL(path.join(dir, "model.ts")).href)) as ModelModule;
    return { text: clientText, module, serverText, server };
  }

  it("the server's model evaluates to exactly the normalized model", async () => {
    const { server } = await load();
    expect(JSON.parse(JSON.stringify(server.serverModel))).toEqual(JSON.parse(JSON.stringify(model)));
  });

  it("the client's model evaluates to the normalized model without rules, defaults, checks and groups", async () => {
    const { module } = await load();
    const client = { service: module.service, operations: Object.values(module.operations) };
    expect(JSON.parse(JSON.stringify(client))).toEqual(JSON.parse(JSON.stringify(clientPart(model))));
    expect(JSON.stringify(client)).not.toMatch(/"(required|rules|default|checks|groups|group)":/);
  });

  it("the server's operations share the client's results, records and data sets", async () => {
    const { module, server } = await load();
    expect(server.serverOperations.AddItem).toBe(server.serverModel.operations[0]);
    expect(server.serverOperations.ListItems!.result).toBe(module.operations.ListItems!.result);
    expect(server.serverModel.records).toBe(module.recordModels);
    expect(server.serverModel.dataSets).toBe(module.dataSetModels);
  });

  it("shares operations, records and credentials by reference", async () => {
    const { module } = await load();
    const list = module.operations.ListItems!.result;
    expect(list.kind === "list" && list.record).toBe(module.recordModels[0]);
    expect(module.operations.GetStock!.params[0]).toBe(module.operations.AddItem!.params[0]);
  });

  it("exports the typed operations, the service and the record, enum and data set lists; the shared pieces stay module-local", async () => {
    const { text, module, serverText, server } = await load();
    expect(Object.keys(module).sort()).toEqual([
      "dataSetModels",
      "enumModels",
      "operations",
      "recordModels",
      "service",
    ]);
    expect(text).toContain(
      "export const operations: Operations = /* @__PURE__ */ clientOperations<Operations>({",
    );
    expect(text).toContain("export const service: ClientServiceModel = {");
    expect(text).toMatch(/readonly AddItem: ClientOperationModel<AddItemParams, AddItemResult>;/);
    // The compact form (runtime/model-compact.ts): [params, result], a string parameter by its name.
    expect(text).toMatch(
      /AddItem: \[\s*\[\.\.\.credentials, "label", "color", \["quantity", scalars\.int\], "digit"\]/,
    );
    expect(module.operations.AddItem!.name).toBe("AddItem");
    expect(module.operations.AddItem!.params.find((p) => p.name === "label")).toEqual({
      name: "label",
      type: { kind: "scalar", type: "string" },
    });
    expect(text).not.toContain("rules");
    expect(Object.keys(server).sort()).toEqual(["serverModel", "serverOperations"]);
    expect(serverText).toContain("export const serverModel: ServiceModel = {");
    expect(serverText).toMatch(/params: \[\s*\.\.\.credentials,\s*\{\s*name: "label"/);
    expect(serverText).toContain("rules: [rules.color]");
  });
});
