// import → validate → generate into a temp folder → the generated client talks to a server built from the
// same spec on every binding the WSDL has, and the WSDL that server publishes is equivalent to the
// imported one (operations, messages, types; compared as normalized structure, not bytes).

import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generateCommand, validateCommand } from "../../generator/commands.js";
import { importToYaml } from "../../generator/import/index.js";
import type { ImportedSpec } from "../../generator/import/wsdl.js";
import { wsdlStructure } from "./wsdl-structure.js";

const HERE = path.dirname(fileURLToPath(import.meta.url));
const FIXTURES = path.join(HERE, "fixtures");
/** Inside the repository, so the generated code resolves node_modules as the project does. */
const TEMP_ROOT = path.join(HERE, ".tmp");

const SHAPES = ["calculator", "lookup", "registry", "notifier"] as const;
/** Public WSDLs of the corpus (corpus/<name>/service.wsdl) that take the same round trip: derived types. */
const CORPUS_SHAPES = ["taxcloud", "sefaz-sp-nfestatusservico2", "sefaz-mt-nfeautorizacao"] as const;
const wsdlFile = (name: string) =>
  (CORPUS_SHAPES as readonly string[]).includes(name)
    ? path.join(HERE, "corpus", name, "service.wsdl")
    : path.join(FIXTURES, `${name}.wsdl`);

// ---- sample values per spec type -------------------------------------------------------------------

const SCALAR_SAMPLES: Record<string, readonly unknown[]> = {
  string: ["héllo <&> ]]>", "second"],
  boolean: [true, false],
  float: [0.5, -2.25],
  double: [1.5, -1e300],
  decimal: ["12.34", "-0.000001"],
  dateTime: ["2024-05-06T07:08:09Z", "2024-12-31T23:59:59+02:00"],
  byte: [-128, 127],
  unsignedByte: [200, 0],
  short: [-300, 32767],
  unsignedShort: [60000, 1],
  int: [-2147483648, 7],
  unsignedInt: [4000000000, 3],
  long: [9007199254740993n, -5n],
  unsignedLong: [18446744073709551615n, 2n],
  base64Binary: [new Uint8Array([0, 1, 2, 250, 255]), new Uint8Array([])],
  guid: ["0f8fad5b-d9cb-469f-a165-70867728950e", "7c9e6679-7425-40de-944b-e07fc1f90ae7"],
  char: ["A", "é"],
};

/** `depth`: records around it; a record that holds itself (lookup's City.Districts) stops after 3. */
function sample(spec: ImportedSpec, type: string, variant: number, depth = 0): unknown {
  if (type.endsWith("[]")) {
    const item = type.slice(0, -2);
    return [sample(spec, item, 0, depth), sample(spec, item, 1, depth)];
  }
  // An XML value (xmlNode, xmlElement): one element, as the runtime's tree holds it.
  if (type === "xmlNode" || type === "xmlElement")
    return {
      ns: "urn:sample",
      local: `v${variant}`,
      prefix: "",
      attrs: [{ ns: "", local: "a", value: "<&>" }],
      children: [{ ns: "urn:sample", local: "c", prefix: "", attrs: [], children: [], text: "t" }],
      text: "",
    };
  const scalar = SCALAR_SAMPLES[type];
  if (scalar !== undefined) return scalar[variant % scalar.length];
  const e = spec.enums?.[type];
  if (e !== undefined) return e.values[variant % e.values.length];
  const r = spec.records?.[type];
  if (r === undefined) throw new Error(`no sample for ${type}`);
  const value: Record<string, unknown> = {};
  // A derived record's base fields come first (a base chain is short and acyclic: validate holds it).
  const chain = [r];
  while (chain[0]!.base !== undefined) chain.unshift(spec.records![chain[0]!.base!]!);
  // A choice record (the items of a repeated choice) holds one of its fields: the variant's.
  const fields = r.choice === true ? [r.fields[variant % r.fields.length]!] : chain.flatMap((c) => c.fields);
  const chosen = new Set<string>();
  fields.forEach((f, k) => {
    // One alternative of each choice (the first); a record field (or array of records) is left out
    // (absent, as null reads) three records down.
    if (f.choice !== undefined && chosen.has(f.choice)) return;
    if (f.choice !== undefined) chosen.add(f.choice);
    if (depth >= 2 && spec.records?.[f.type.replace(/\[\]$/, "")] !== undefined) return;
    value[f.name] =
      f.nullable === true && (k + variant) % 2 === 1 ? null : sample(spec, f.type, variant, depth + 1);
  });
  return value;
}

function paramsOf(
  spec: ImportedSpec,
  op: ImportedSpec["groups"][number]["operations"][number],
): Record<string, unknown> {
  const params: Record<string, unknown> = {};
  const chosen = new Set<string>();
  (op.params ?? []).forEach((p, k) => {
    // One alternative of each choice (the first).
    if (p.choice !== undefined && chosen.has(p.choice)) return;
    if (p.choice !== undefined) chosen.add(p.choice);
    params[p.name] = p.nullable === true && k % 2 === 1 ? null : sample(spec, p.type, k);
  });
  return params;
}

/** As ASMX (and offeredOnHttp): an operation with a record, guid or nullable parameter is SOAP only. */
function httpCarries(spec: ImportedSpec, op: ImportedSpec["groups"][number]["operations"][number]): boolean {
  return [...(spec.service.credentials ?? []), ...(op.params ?? [])].every((p) => {
    const item = p.type.replace(/\[\]$/, "");
    return p.nullable !== true && item !== "guid" && spec.records?.[item] === undefined;
  });
}

// ---- the round trip --------------------------------------------------------------------------------

interface Loaded {
  readonly spec: ImportedSpec;
  readonly wsdl: string;
  readonly baseUrl: string;
  readonly endpointUrl: string;
  readonly client: {
    createClient(config: Record<string, unknown>): Record<string, (params?: unknown) => Promise<unknown>>;
  };
  readonly calls: { operation: string; params: Record<string, unknown> }[];
  readonly server: Server;
  readonly warnings: readonly string[];
}

mkdirSync(TEMP_ROOT, { recursive: true });

describe.each([...SHAPES, ...CORPUS_SHAPES])("%s.wsdl: import → generate → client ↔ server", (name) => {
  let loaded: Loaded;
  let dir: string;

  beforeAll(async () => {
    dir = mkdtempSync(path.join(TEMP_ROOT, `${name}-`));
    const wsdl = readFileSync(wsdlFile(name), "utf8");
    const imported = await importToYaml(wsdlFile(name));
    const specFile = path.join(dir, `${name}.yaml`);
    writeFileSync(specFile, imported.yaml);
    const lines: string[] = [];
    const io = { out: (l: string) => lines.push(l), err: (l: string) => lines.push(l) };
    const code = await generateCommand({ spec: specFile, out: path.join(dir, "out") }, io);
    expect(lines.join("\n"), "generate").not.toMatch(/error/i);
    expect(code).toBe(0);
    const serverModule = (await import(pathToFileURL(path.join(dir, "out", "server.ts")).href)) as {
      createServer(impl: unknown): Server;
    };
    const client = (await import(pathToFileURL(path.join(dir, "out", "client.ts")).href)) as Loaded["client"];
    const spec = imported.spec;
    const calls: Loaded["calls"] = [];
    const impl: Record<string, unknown> = {};
    for (const op of spec.groups[0]!.operations) {
      impl[op.name] = async (params: Record<string, unknown>) => {
        calls.push({ operation: op.name, params });
        return op.result?.type === undefined ? undefined : sample(spec, op.result.type, 0);
      };
    }
    const server = serverModule.createServer(impl);
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    loaded = {
      spec,
      wsdl,
      baseUrl,
      endpointUrl: `${baseUrl}/${spec.service.endpoint}`,
      client,
      calls,
      server,
      warnings: imported.warnings,
    };
  }, 120_000);

  afterAll(async () => {
    if (loaded !== undefined) {
      loaded.server.closeAllConnections();
      await new Promise((resolve) => loaded.server.close(resolve));
    }
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  });

  it("every operation on every binding of the WSDL", async () => {
    const { spec } = loaded;
    for (const binding of spec.service.bindings) {
      const client = loaded.client.createClient({ baseUrl: loaded.baseUrl, binding });
      for (const op of spec.groups[0]!.operations) {
        if (binding.startsWith("http") && !httpCarries(spec, op)) continue;
        const params = paramsOf(spec, op);
        const before = loaded.calls.length;
        const result = await client[op.name]!(params);
        if (op.oneWay === true) {
          // The server answers 202 before the handler is done; wait for it.
          for (let k = 0; k < 100 && loaded.calls.length === before; k++)
            await new Promise((r) => setTimeout(r, 10));
        }
        expect(loaded.calls.length, `${binding} ${op.name} reached the handler`).toBe(before + 1);
        expect(loaded.calls[before]!.params, `${binding} ${op.name} params`).toEqual(params);
        const want = op.result?.type === undefined ? undefined : sample(spec, op.result.type, 0);
        expect(result, `${binding} ${op.name} result`).toEqual(want);
      }
    }
  });

  it("is a fixed point: importing the generated server's ?WSDL gives the same spec", async () => {
    const again = await importToYaml(`${loaded.endpointUrl}?WSDL`);
    expect(again.spec).toEqual(loaded.spec);
    expect(again.warnings).toEqual([]);
  });

  it("publishes a WSDL equivalent to the imported one", async () => {
    const response = await fetch(`${loaded.endpointUrl}?WSDL`);
    expect(response.status).toBe(200);
    const ours = wsdlStructure(await response.text());
    const theirs = wsdlStructure(loaded.wsdl);
    expect(ours.tns).toBe(theirs.tns);
    // Every fixture imports without a warning: the generator offers exactly the operations the WSDL's
    // bindings list (ASMX leaves record, guid and nullable parameters off HTTP GET/POST, and so do we).
    expect(loaded.warnings).toEqual([]);
    expect(ours.schemaItems).toEqual(theirs.schemaItems);
    expect(ours.messages).toEqual(theirs.messages);
    expect(ours.portTypes).toEqual(theirs.portTypes);
    expect(ours.bindings).toEqual(theirs.bindings);
    if (name === "registry")
      expect(Object.keys(theirs.schemaItems)).toEqual(
        expect.arrayContaining(["{ms} simpleType guid", "{ms} simpleType char"]),
      );
  });
});

describe("validate", () => {
  const run = (spec: string) => {
    const lines: string[] = [];
    const code = validateCommand({ spec }, { out: (l) => lines.push(l), err: (l) => lines.push(l) });
    return { code, lines };
  };

  it.each(SHAPES)("accepts the spec imported from %s.wsdl", (name) => {
    const { code, lines } = run(path.join(FIXTURES, `${name}.expected.yaml`));
    expect(lines.join("\n")).toMatch(/is valid/);
    expect(code).toBe(0);
  });

  it("accepts ExternalAPIService's import as it is: its DataSet results are untyped", async () => {
    const repo = path.resolve(HERE, "../..");
    const imported = await importToYaml(path.join(repo, "generated/ExternalAPIService.wsdl"), {
      credentials: ["strUsername", "strPassword"],
    });
    const dir = mkdtempSync(path.join(TEMP_ROOT, "eas-"));
    try {
      const specFile = path.join(dir, "eas.yaml");
      writeFileSync(specFile, imported.yaml);
      const { code, lines } = run(specFile);
      expect(lines.join("\n")).toMatch(/is valid/);
      expect(code).toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("ExternalAPIService.wsdl: import → generate, without a hand edit", () => {
  it("publishes a WSDL equivalent to generated/ExternalAPIService.wsdl", async () => {
    const repo = path.resolve(HERE, "../..");
    const original = readFileSync(path.join(repo, "generated/ExternalAPIService.wsdl"), "utf8");
    const imported = await importToYaml(path.join(repo, "generated/ExternalAPIService.wsdl"), {
      credentials: ["strUsername", "strPassword"],
    });
    const dir = mkdtempSync(path.join(TEMP_ROOT, "eas-"));
    try {
      const specFile = path.join(dir, "ExternalAPIService.yaml");
      // The DataSet results stay untyped: their WSDL shape is the same as a typed one's.
      writeFileSync(specFile, imported.yaml);
      const lines: string[] = [];
      const code = await generateCommand(
        { spec: specFile, out: path.join(dir, "out") },
        { out: (l) => lines.push(l), err: (l) => lines.push(l) },
      );
      expect(code, lines.join("\n")).toBe(0);
      const ours = wsdlStructure(readFileSync(path.join(dir, "out", "ExternalAPIService.wsdl"), "utf8"));
      expect(ours).toEqual(wsdlStructure(original));
      // The comparison sees a change of one attribute.
      expect(ours).not.toEqual(
        wsdlStructure(original.replace('name="triggerId" type="s:int"', 'name="triggerId" type="s:long"')),
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);
});
