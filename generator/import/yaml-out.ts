// Writes an imported spec as YAML in the hand-written style of spec/ExternalAPIService.yaml: block maps
// for the structure, one flow map per parameter and field. Scalars are written plain only when they are
// unmistakably text; everything else is double-quoted with JSON escapes (a subset of YAML's). The result
// is parsed back and compared with the object before it is returned, so a quoting mistake can never
// produce a spec that means something else.

import { isDeepStrictEqual } from "node:util";
import { parse } from "yaml";
import type { ImportedSpec, SpecField, SpecParam } from "./wsdl.js";

const RESERVED = new Set(["true", "false", "null", "yes", "no", "on", "off", "y", "n", "~"]);

/** A scalar as YAML text, plain when safe in both block and flow context. */
export function scalar(s: string): string {
  const plain =
    /^[A-Za-z_][A-Za-z0-9_ .;()/'-]*$/.test(s) &&
    !s.endsWith(" ") &&
    !RESERVED.has(s.toLowerCase()) &&
    !/^(?:[-+]?\.?[0-9]|\.(?:inf|nan)$)/i.test(s);
  return plain ? s : JSON.stringify(s);
}

function flow(entries: [string, string | boolean | undefined][]): string {
  const parts = entries
    .filter((e): e is [string, string | boolean] => e[1] !== undefined)
    .map(([k, v]) => `${k}: ${typeof v === "boolean" ? String(v) : scalar(v)}`);
  return `{ ${parts.join(", ")} }`;
}

function paramLine(p: SpecParam): string {
  return flow([
    ["name", p.name],
    ["type", p.type],
    ["nullable", p.nullable],
    ["itemName", p.itemName],
    ["choice", p.choice],
    ["direction", p.direction],
    ["doc", p.doc],
  ]);
}

function fieldLine(f: SpecField): string {
  return flow([
    ["name", f.name],
    ["type", f.type],
    ["nullable", f.nullable],
    ["itemName", f.itemName],
    ["choice", f.choice],
  ]);
}

export interface YamlHeader {
  readonly source: string;
  readonly warnings: readonly string[];
  /**
   * The JSON Schema reference for editors (`# yaml-language-server: $schema=…`), relative to the YAML file;
   * default ./service.schema.json (a spec beside the schema, as in easgen's repository).
   */
  readonly schema?: string | undefined;
}

export function specToYaml(spec: ImportedSpec, header: YamlHeader): string {
  const out: string[] = [];
  const line = (indent: number, text: string) => out.push(`${" ".repeat(indent)}${text}`);
  line(0, `# yaml-language-server: $schema=${header.schema ?? "./service.schema.json"}`);
  line(0, "#");
  line(0, `# Imported by \`easgen import\` from ${oneLine(header.source)}.`);
  line(0, '# This file is now the source of truth: replace the placeholder docs ("Imported; describe it."),');
  line(0, "# add rules, and mark required string parameters by hand.");
  if (spec.groups.some((g) => g.operations.some((op) => op.result?.kind === "dataSet"))) {
    line(
      0,
      "# The DataSet results are untyped ({ kind: dataSet } without a dataSet): a WSDL never describes a",
    );
    line(0, "# DataSet's tables and columns, its answers do. To type one's rows, describe its columns under");
    line(0, "# dataSets: and name that entry in the result (dataSet: Name).");
  }
  if (header.warnings.length > 0) {
    line(0, "#");
    line(0, "# The import warned:");
    for (const w of header.warnings) line(0, `# - ${oneLine(w)}`);
  }
  line(0, "");

  const s = spec.service;
  line(0, "service:");
  line(2, `name: ${scalar(s.name)}`);
  line(2, `namespace: ${scalar(s.namespace)}`);
  line(2, `endpoint: ${scalar(s.endpoint)}`);
  line(2, `doc: ${scalar(s.doc)}`);
  if (s.credentials !== undefined) {
    line(2, "credentials:");
    for (const c of s.credentials) line(4, `- ${paramLine(c)}`);
  }
  line(2, `bindings: [${s.bindings.join(", ")}]`);

  if (spec.enums !== undefined) {
    line(0, "");
    line(0, "enums:");
    for (const [name, e] of Object.entries(spec.enums)) {
      line(2, `${scalar(name)}:`);
      line(4, `doc: ${scalar(e.doc)}`);
      line(4, `values: [${e.values.map(scalar).join(", ")}]`);
      if (e.flags === true) line(4, "flags: true");
    }
  }

  if (spec.records !== undefined) {
    line(0, "");
    line(0, "records:");
    for (const [name, r] of Object.entries(spec.records)) {
      line(2, `${scalar(name)}:`);
      line(4, `doc: ${scalar(r.doc)}`);
      if (r.base !== undefined) line(4, `base: ${scalar(r.base)}`);
      if (r.abstract === true) line(4, "abstract: true");
      if (r.choice === true) line(4, "choice: true");
      if (r.fields.length === 0) {
        line(4, "fields: []");
        continue;
      }
      line(4, "fields:");
      for (const f of r.fields) line(6, `- ${fieldLine(f)}`);
    }
  }

  line(0, "");
  line(0, "groups:");
  for (const g of spec.groups) {
    line(2, `- name: ${scalar(g.name)}`);
    line(4, `title: ${scalar(g.title)}`);
    line(4, "operations:");
    for (const op of g.operations) {
      line(6, `- name: ${scalar(op.name)}`);
      if (op.messageName !== undefined) line(8, `messageName: ${scalar(op.messageName)}`);
      line(8, `doc: ${scalar(op.doc)}`);
      if (op.params !== undefined) {
        line(8, "params:");
        for (const p of op.params) line(10, `- ${paramLine(p)}`);
      }
      if (op.headers !== undefined) {
        // The WSDL cannot say which headers are required: add `required: true` where the service needs one.
        line(8, "headers:");
        for (const h of op.headers)
          line(
            10,
            `- ${flow([
              ["record", h.record],
              ["direction", h.direction],
            ])}`,
          );
      }
      if (op.result !== undefined) {
        const r = op.result;
        line(
          8,
          `result: ${
            r.kind === "dataSet"
              ? flow([
                  ["kind", "dataSet"],
                  ["dataTable", r.dataTable],
                  ["doc", r.doc],
                ])
              : flow([
                  ["type", r.type],
                  ["nullable", r.nullable],
                  ["doc", r.doc],
                ])
          }`,
        );
      }
      if (op.oneWay === true) line(8, "oneWay: true");
      if (op.soap !== undefined) {
        line(
          8,
          `soap: ${flow([
            ["parameterStyle", op.soap.parameterStyle],
            ["requestElement", op.soap.requestElement],
            ["responseElement", op.soap.responseElement],
            ["resultElement", op.soap.resultElement],
            ["namespace", op.soap.namespace],
            ["action", op.soap.action],
          ])}`,
        );
      }
    }
  }
  const text = `${out.join("\n")}\n`;
  const back: unknown = parse(text);
  if (!isDeepStrictEqual(back, JSON.parse(JSON.stringify(spec)))) {
    throw new Error("internal: the YAML written does not read back as the imported spec");
  }
  return text;
}

/** Comment text on one line, without characters that could end the comment. */
function oneLine(s: string): string {
  return s.replace(/[\r\n\u2028\u2029\u0085]+/g, " ");
}
