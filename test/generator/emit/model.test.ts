import { writeFileSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { emitAll } from "../../../generator/emit/index.js";
import { emitModel } from "../../../generator/emit/model.js";
import type { OperationModel, ServiceModel } from "../../../runtime/model.js";
import { docsOf, modelOf, REPO, removeTempDirs, SMALL_TEXT, tempDir } from "../fixtures/index.js";

afterAll(removeTempDirs);

interface ModelModule {
  service: ServiceModel;
  operations: Record<string, OperationModel>;
}

describe("emitModel", () => {
  const model = modelOf(SMALL_TEXT);

  async function load(): Promise<{ text: string; module: ModelModule }> {
    const ctx = {
      docs: docsOf(SMALL_TEXT),
      specFile: "spec/small.yaml", templatesDir: path.join(REPO, "templates"), runtimeDir: path.join(REPO, "runtime") };
    const [file] = (await emitAll(model, ctx, [{ name: "model", emit: emitModel }])).filter(
      (f) => f.path === "model.ts",
    );
    const target = path.join(tempDir(), "model.ts");
    writeFileSync(target, file!.content);
    return { text: file!.content, module: (await import(pathToFileURL(target).href)) as ModelModule };
  }

  it("evaluates to exactly the normalized model", async () => {
    const { module } = await load();
    expect(JSON.parse(JSON.stringify(module.service))).toEqual(JSON.parse(JSON.stringify(model)));
  });

  it("shares operations, records and credentials by reference", async () => {
    const { module } = await load();
    expect(module.operations.AddItem).toBe(module.service.operations[0]);
    const list = module.operations.ListItems!.result;
    expect(list.kind === "list" && list.record).toBe(module.service.records[0]);
    expect(module.operations.GetStock!.params[0]).toBe(module.operations.AddItem!.params[0]);
  });

  it("exports only the typed operations and the service; the shared pieces stay module-local", async () => {
    const { text, module } = await load();
    expect(Object.keys(module).sort()).toEqual(["operations", "service"]);
    expect(text).toContain("export const operations: Operations = {");
    expect(text).toContain("export const service: ServiceModel = {");
    expect(text).toMatch(/readonly AddItem: OperationModel<AddItemParams, AddItemResult>;/);
    expect(text).toMatch(/params: \[\s*\.\.\.credentials,\s*\{\s*name: "label"/);
    expect(text).toContain("rules: [rules.color]");
  });
});
