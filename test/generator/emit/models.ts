// Models for the emitter tests: the real spec through the real pipeline, and a small hand-built model whose
// text tries to break out of XML and HTML.

import { fileURLToPath } from "node:url";
import { loadSpecFile } from "../../../generator/load.js";
import { normalize } from "../../../generator/normalize.js";
import type { SpecDocument } from "../../../generator/spec.js";
import type { ServiceModel } from "../../../runtime/model.js";

const SPEC = fileURLToPath(new URL("../../../spec/ExternalAPIService.yaml", import.meta.url));

export function serviceModel(): ServiceModel {
  // Validation has its own tests; the emitters only need the normalized model of the committed spec.
  const spec = loadSpecFile(SPEC);
  if (spec.syntaxErrors.length > 0) throw new Error(spec.syntaxErrors.map((d) => d.message).join("\n"));
  return normalize(spec.value as SpecDocument);
}

export const HOSTILE = `<script>alert("x")</script> & 'quotes' <!--@base-url--> ]]> \${injected} \` \\`;

/** One operation of each result kind, every text field hostile. */
export function hostileModel(): ServiceModel {
  const record = { name: "Thing", doc: HOSTILE, fields: [{ name: "Id", type: "int" as const }] };
  const dataSet = {
    name: "Rows",
    doc: HOSTILE,
    dataSetName: "NewDataSet",
    table: "Table",
    columns: [{ property: "Id", name: "Id", type: "long" as const, doc: HOSTILE }],
  };
  const param = {
    name: "strText",
    type: "string" as const,
    required: false,
    default: HOSTILE,
    rules: [{ kind: "enum" as const, name: "evil", values: [HOSTILE, "plain"] }],
    doc: HOSTILE,
    credential: false,
  };
  return {
    name: "EvilService",
    namespace: "http://example.com/a&b/",
    endpoint: "EvilService.asmx",
    doc: HOSTILE,
    groups: [{ name: "g", title: HOSTILE, operations: ["Scalar", "List", "Record", "Table"] }],
    records: [record],
    dataSets: [dataSet],
    operations: [
      {
        name: "Scalar",
        group: "g",
        doc: HOSTILE,
        params: [param],
        checks: [],
        result: { kind: "scalar", type: "int", doc: HOSTILE },
      },
      {
        name: "List",
        group: "g",
        doc: HOSTILE,
        params: [param],
        checks: [],
        result: { kind: "list", record, doc: HOSTILE },
      },
      {
        name: "Record",
        group: "g",
        doc: HOSTILE,
        params: [param],
        checks: [],
        result: { kind: "record", record, doc: HOSTILE },
      },
      {
        name: "Table",
        group: "g",
        doc: HOSTILE,
        params: [param],
        checks: [{ kind: "atLeastOne", params: [HOSTILE, "strText"] }],
        result: { kind: "dataSet", dataSet, doc: HOSTILE },
      },
    ],
  };
}
