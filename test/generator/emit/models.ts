// Models for the emitter tests: the real spec through the real pipeline, and a small hand-built model whose
// text tries to break out of XML and HTML.

import { fileURLToPath } from "node:url";
import { loadSpecFile } from "../../../generator/load.js";
import { normalize, type Normalized } from "../../../generator/normalize.js";
import type { SpecDocument } from "../../../generator/spec.js";
import type { ServiceDocTexts } from "../../../runtime/server/docs.js";
import type { ServiceModel } from "../../../runtime/model.js";

const SPEC = fileURLToPath(new URL("../../../spec/ExternalAPIService.yaml", import.meta.url));

export function serviceModel(): ServiceModel {
  return normalized().model;
}

/** The doc texts of the committed spec. */
export function serviceDocs(): ServiceDocTexts {
  return normalized().docs;
}

function normalized(): Normalized {
  // Validation has its own tests; the emitters only need the normalized model of the committed spec.
  const spec = loadSpecFile(SPEC);
  if (spec.syntaxErrors.length > 0) throw new Error(spec.syntaxErrors.map((d) => d.message).join("\n"));
  return normalize(spec.value as SpecDocument);
}

export const HOSTILE = `<script>alert("x")</script> & 'quotes' <!--@base-url--> ]]> \${injected} \` \\`;

/** Every doc text of hostileModel(), each hostile. */
export function hostileDocs(): ServiceDocTexts {
  const op = { doc: HOSTILE, result: HOSTILE, params: { strText: HOSTILE } };
  return {
    doc: HOSTILE,
    operations: { Scalar: op, List: op, Record: op, Table: op },
    records: { Thing: HOSTILE },
    dataSets: { Rows: { doc: HOSTILE, columns: { Id: HOSTILE } } },
  };
}

/** One operation of each result kind, every text field hostile (the doc texts are hostileDocs()). */
export function hostileModel(): ServiceModel {
  const record = {
    name: "Thing",
    fields: [{ name: "Id", type: { kind: "scalar" as const, type: "int" as const } }],
  };
  const dataSet = {
    name: "Rows",
    dataSetName: "NewDataSet",
    table: "Table",
    columns: [{ property: "Id", name: "Id", type: "long" as const }],
  };
  const param = {
    name: "strText",
    type: { kind: "scalar" as const, type: "string" as const },
    required: false,
    default: HOSTILE,
    rules: [{ kind: "enum" as const, name: "evil", values: [HOSTILE, "plain"] }],
    credential: false,
  };
  return {
    name: "EvilService",
    namespace: "http://example.com/a&b/",
    endpoint: "EvilService.asmx",
    groups: [{ name: "g", title: HOSTILE, operations: ["Scalar", "List", "Record", "Table"] }],
    records: [record],
    enums: [],
    dataSets: [dataSet],
    operations: [
      {
        name: "Scalar",
        group: "g",
        params: [param],
        checks: [],
        result: { kind: "scalar", type: "int" },
      },
      {
        name: "List",
        group: "g",
        params: [param],
        checks: [],
        result: { kind: "list", record },
      },
      {
        name: "Record",
        group: "g",
        params: [param],
        checks: [],
        result: { kind: "record", record },
      },
      {
        name: "Table",
        group: "g",
        params: [param],
        checks: [{ kind: "atLeastOne", params: [HOSTILE, "strText"] }],
        result: { kind: "dataSet", dataSet },
      },
    ],
  };
}
