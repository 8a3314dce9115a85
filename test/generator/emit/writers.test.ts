// generator/emit/writers.ts: the exact module it writes for a small model (given/want), and that the
// writers it emits for the committed spec are the committed generated/writers.ts.

import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { emitWriters } from "../../../generator/emit/writers.js";
import type { ServiceModel } from "../../../runtime/model.js";

const MODEL = {
  name: "S",
  namespace: "http://tempuri.org/",
  endpoint: "S.asmx",
  groups: [],
  records: [
    {
      name: "Item",
      fields: [
        { name: "Id", type: { kind: "scalar", type: "int" } },
        { name: "Label", type: { kind: "scalar", type: "string" } },
        { name: "odd-name", type: { kind: "scalar", type: "dateTime" } },
        { name: "Price", type: { kind: "scalar", type: "decimal" } },
      ],
    },
    // Not flat (a nested record, a nullable value, bytes): the runtime writes these, no writer is emitted.
    {
      name: "Box",
      fields: [{ name: "Item", type: { kind: "record", record: { name: "Item", fields: [] } } }],
    },
    { name: "Maybe", fields: [{ name: "N", type: { kind: "scalar", type: "int" }, nullable: true }] },
    { name: "Blob", fields: [{ name: "B", type: { kind: "scalar", type: "base64Binary" } }] },
  ],
  dataSets: [],
  operations: [],
} as unknown as ServiceModel;

const WANT = [
  'import { type RecordLayout, type RecordWriters, intText, recordByTag, recordFields, stringText, valueText } from "./runtime/codec/result.js";',
  'import { formatterOf } from "./runtime/codec/values.js";',
  "",
  'const formatDateTime = formatterOf("dateTime");',
  'const formatDecimal = formatterOf("decimal");',
  "/** Item as XML in a layout: Id, Label, odd-name, Price. */",
  "function writeItem(value: unknown, m: RecordLayout): string {",
  "  const r = recordFields(value, m);",
  '  const t0 = intText(m, 0, r["Id"]);',
  '  const t1 = stringText(m, 1, r["Label"]);',
  '  const t2 = valueText(m, 2, r["odd-name"], formatDateTime);',
  '  const t3 = valueText(m, 3, r["Price"], formatDecimal);',
  "  const b = m.between;",
  "  // The usual record, every text non-empty, is one concatenation over the merged markup.",
  "  return t0 && t1 && t2 && t3 ? b[0]! + t0 + b[1]! + t1 + b[2]! + t2 + b[3]! + t3 + b[4]! : recordByTag(m, [t0, t1, t2, t3]);",
  "}",
  "/** The record writers by record name, for the server's bindings (createHandler passes them on). */",
  "export const recordWriters: RecordWriters = {",
  '  "Item": writeItem,',
  "};",
  "",
  "",
  "",
  "",
].join("\n");

describe("emitWriters", () => {
  it("writes one function per record and the table of them (before formatting)", () => {
    const [file] = emitWriters(MODEL);
    expect(file?.path).toBe("writers.ts");
    expect(file?.content).toBe(WANT);
  });

  it("generated/writers.ts has a writer for every record of the committed model", () => {
    const text = readFileSync(new URL("../../../generated/writers.ts", import.meta.url), "utf8");
    for (const name of ["TriggerResult", "RoiResult", "NewsletterFilterResult", "SmsSingleMessageResult"]) {
      expect(text).toContain(`  ${name}: write${name},`);
    }
  });
});
