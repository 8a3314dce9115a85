// The import baseline (run.ts): every public corpus WSDL and every construct fixture's WSDL through import →
// generate → tsc. It reports the table and fails only when an outcome differs from expected-status.json:
// today's refusals are the baseline, but a WSDL that imports today must not stop importing, and one that
// starts importing must be recorded (npx tsx test/import/corpus/run.ts --write).

import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { attributeErrors, corpusEntries, EXPECTED_FILE, formatTable, runAll, type Status } from "./run.js";

describe("import baseline over the public corpus and the construct fixtures", () => {
  it("has at least 12 public WSDLs, each with its SOURCE.md, and every fixture", () => {
    const entries = corpusEntries();
    expect(entries.filter((e) => e.id.startsWith("corpus/")).length).toBeGreaterThanOrEqual(12);
    for (const e of entries.filter((x) => x.id.startsWith("corpus/"))) expect(e.source, e.id).toMatch(/^[\w.-]+\/[\w.-]+$/);
    expect(entries.filter((e) => e.id.startsWith("fixture/")).length).toBe(12);
  });

  it("every outcome is the expected one (expected-status.json)", async () => {
    const expected = JSON.parse(readFileSync(EXPECTED_FILE, "utf8")) as Record<string, Status>;
    const outcomes = await runAll();
    console.log(formatTable(outcomes));
    const actual = Object.fromEntries(outcomes.map((o) => [o.id, o.status]));
    const changed = Object.keys({ ...expected, ...actual })
      .filter((id) => expected[id] !== actual[id])
      .map((id) => `${id}: expected ${expected[id] ?? "(no entry)"}, got ${actual[id] ?? "(no WSDL)"}${outcomes.find((o) => o.id === id)?.messages[0] ? ` — ${outcomes.find((o) => o.id === id)!.messages[0]}` : ""}`);
    expect(changed, "outcomes changed: if on purpose, run npx tsx test/import/corpus/run.ts --write and commit BASELINE.md and expected-status.json").toEqual([]);
  }, 30 * 60_000);

  it("gives tsc's errors to the generated folder they name", () => {
    const out = [
      "test/import/corpus/.tmp/corpus-a/out/client.ts(3,7): error TS2322: Type 'string' is not assignable to type 'number'.",
      "corpus-b/out/types.ts(1,1): error TS1005: ';' expected.",
    ].join("\n");
    const byFolder = attributeErrors(["corpus-a", "corpus-b", "corpus-c"], 2, out);
    expect([...byFolder.keys()]).toEqual(["corpus-a", "corpus-b"]);
    expect(byFolder.get("corpus-a")![0]).toContain("TS2322");
    expect(attributeErrors(["corpus-a"], 0, "").size).toBe(0);
    expect(attributeErrors(["corpus-a", "corpus-b"], 1, "error TS5058: The specified path does not exist").get("corpus-b")).toEqual(["error TS5058: The specified path does not exist"]);
  });
});
