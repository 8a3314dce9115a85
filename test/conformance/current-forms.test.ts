// The spec's current forms work everywhere: spec/ExternalAPIService.yaml rewritten to use only the current
// result form `{ type, doc }` (docs/spec.md "Results"; a DataSet has no other form than `kind: dataSet`),
// plus an operation returning `{ type: boolean }`, is generated into a scratch folder and the whole
// conformance suite runs against that generated code, in both roles, on every binding.

import { copyFileSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse, stringify } from "yaml";
import { generate } from "../../generator/index.js";
import { loadReferenceService, SPEC_PATH } from "./reference/spec.js";
import { CASES_DIR, expandCases, loadCases, type Role } from "./suite/cases.js";
import { startClientRole, type ClientRole, type GeneratedClient } from "./suite/client-role.js";
import { startServerRole, type GeneratedServer, type ServerRole } from "./suite/server-role.js";

const WORK = fileURLToPath(new URL(`../../.tmp/conformance-current-forms-${process.pid}/`, import.meta.url));
const SPEC = path.join(WORK, "spec", "ExternalAPIService.yaml");
const OUT = path.join(WORK, "generated");
const CASES = path.join(WORK, "cases");

type Raw = Record<string, unknown>;

/** The older `kind` forms as the current `{ type }` form; a DataSet result has no other form. */
export function toCurrentForm(result: Raw): Raw {
  const { kind, record, type, dataSet: _dataSet, ...rest } = result;
  switch (kind) {
    case "scalar":
      return { type, ...rest };
    case "list":
      return { type: `${String(record)}[]`, ...rest };
    case "record":
      return { type: record, ...rest };
    default:
      return result;
  }
}

/** The spec with every result in its current form, and a boolean-returning operation added. */
function currentFormsSpec(): { text: string; kinds: string[] } {
  const spec = parse(readFileSync(SPEC_PATH, "utf8")) as { groups: { name: string; operations: Raw[] }[] };
  for (const group of spec.groups) {
    for (const op of group.operations) if (op.result) op.result = toCurrentForm(op.result as Raw);
  }
  spec.groups[0]!.operations.push({
    name: "HasSubscribers",
    doc: "Whether a mailing list has active subscribers.",
    params: [{ name: "strMailingListID", type: "string", required: true, doc: "Id of the mailing list." }],
    result: { type: "boolean", doc: "True when the list has at least one active subscriber." },
  });
  const kinds = spec.groups.flatMap((g) =>
    g.operations.flatMap((op) => ((op.result as Raw)?.kind ? [String((op.result as Raw).kind)] : [])),
  );
  return { text: stringify(spec, { lineWidth: 0 }), kinds };
}

const HAS_SUBSCRIBERS_CASES = `HasSubscribers:
  - name: success
    input: { strMailingListID: "1" }
    result: "true"
  - name: none
    input: { strMailingListID: "2" }
    result: "false"
  - name: missing-list
    input: { strMailingListID: "" }
    error: { code: RequiredParameter }
    profile: service
`;

/** Writes the rewritten spec (its extension module beside it) and the added operation's cases. */
function prepare(): string[] {
  rmSync(WORK, { recursive: true, force: true });
  mkdirSync(path.dirname(SPEC), { recursive: true });
  mkdirSync(CASES, { recursive: true });
  const { text, kinds } = currentFormsSpec();
  writeFileSync(SPEC, text);
  const extensions = "ExternalAPIService.extensions.ts";
  copyFileSync(path.join(path.dirname(SPEC_PATH), extensions), path.join(path.dirname(SPEC), extensions));
  writeFileSync(path.join(CASES, "has-subscribers.yaml"), HAS_SUBSCRIBERS_CASES);
  return kinds;
}

// Written at collection time: the tests are named after the cases the reference reads from it.
const kinds = prepare();
const service = loadReferenceService({ specPath: SPEC });
const runs = expandCases(loadCases(service, [CASES_DIR, CASES]));
let generated: { server: GeneratedServer; client: GeneratedClient } | undefined;

beforeAll(async () => {
  const result = await generate({ spec: SPEC, out: OUT });
  if (!result.ok)
    throw new Error(result.diagnostics.map((d) => `${d.line}:${d.col} ${d.message}`).join("\n"));
  generated = {
    server: (await import(pathToFileURL(path.join(OUT, "server.ts")).href)) as GeneratedServer,
    client: (await import(pathToFileURL(path.join(OUT, "client.ts")).href)) as GeneratedClient,
  };
}, 180_000);

afterAll(() => rmSync(WORK, { recursive: true, force: true }));

describe("a spec written in the current forms only", () => {
  it("uses no `kind` result form but the DataSets' (which have no other)", () => {
    expect(new Set(kinds)).toEqual(new Set(["dataSet"]));
  });

  it("reads as the same operations as spec/ExternalAPIService.yaml, plus the boolean one", () => {
    const original = loadReferenceService();
    const current = new Map(service.operations);
    expect(current.get("HasSubscribers")?.result).toEqual({ kind: "scalar", type: "boolean" });
    current.delete("HasSubscribers");
    expect(current).toEqual(original.operations);
  });
});

for (const role of ["server", "client"] as Role[]) {
  describe(`${role} role on code generated from the current forms`, () => {
    let peer: ServerRole | ClientRole;
    beforeAll(async () => {
      peer =
        role === "server"
          ? await startServerRole(service, generated!.server)
          : await startClientRole(service, generated!.client);
    });
    afterAll(() => peer?.close());
    for (const run of runs.filter((r) => r.role === role)) it(run.path, () => peer.run(run));
  });
}
