// generated/writers.ts (server only): one record writer per record type, the markup in a layout the runtime
// makes once (runtime/codec/result.ts RecordLayout), the fields read by name and written by a typed
// call each. A list answer of hundreds of records is where the server spends its time; these replace the
// runtime's loop over the field models (recordWrite), which writes the same bytes for a service without them.

import type { RecordModel, ServiceModel, SoapType } from "../../runtime/model.js";
import { scalarTypeOf } from "../../runtime/codec/values.js";
import type { GeneratedFile } from "../generated-file.js";
import { importSymbol, importType } from "../import-symbol.js";
import { TypeScriptFile } from "../typescript-file.js";
import { literal } from "./literal.js";

const RESULT = "runtime/codec/result.ts";
const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;

/**
 * `r["Name"]`: the fields are an index signature (Record<string, unknown>), and a vendor may compile with
 * noPropertyAccessFromIndexSignature, which refuses `r.Name` there. V8 compiles both alike.
 */
function read(object: string, name: string): string {
  return `${object}[${literal(name)}]`;
}

/** The module-local name of a type's formatter constant. */
function formatterName(type: SoapType): string {
  return `format${type.charAt(0).toUpperCase()}${type.slice(1)}`;
}

export function emitWriters(model: ServiceModel): GeneratedFile[] {
  const file = new TypeScriptFile("writers.ts");
  const source = file.source;
  const writersType = file.use(importType("RecordWriters", RESULT));
  // Imported only where a writer uses them: a service without plain records gets neither (noUnusedLocals).
  const layout = () => file.use(importType("RecordLayout", RESULT));
  const fields = () => file.use(importSymbol("recordFields", RESULT));
  const formatters = new Set<SoapType>();

  /** The text of field i: an escaped string, "" (`<F />`) or undefined (omitted); see result.ts. */
  const text = (record: RecordModel, i: number): string => {
    const field = record.fields[i]!;
    const value = read("r", field.name);
    const type = scalarTypeOf(field.type);
    if (type === "string") return `${file.use(importSymbol("stringText", RESULT))}(m, ${i}, ${value})`;
    if (type === "int") return `${file.use(importSymbol("intText", RESULT))}(m, ${i}, ${value})`;
    formatters.add(type);
    return `${file.use(importSymbol("valueText", RESULT))}(m, ${i}, ${value}, ${formatterName(type)})`;
  };

  // Records of plain scalar fields only (string and value types, none nullable, no base64Binary); the
  // others (nested records, arrays, enums, nullable fields) are written by the runtime's recordWrite.
  const plain = model.records.filter((record) =>
    record.fields.every((f) => f.type.kind === "scalar" && !f.nullable && f.type.type !== "base64Binary"),
  );
  const functions = plain.map((record, index) => {
    const name = IDENTIFIER.test(record.name) ? `write${record.name}` : `writeRecord${index}`;
    const texts = record.fields.map((_, i) => `t${i}`);
    const usual = ["b[0]!", ...texts.flatMap((t, i) => [t, `b[${i + 1}]!`])].join(" + ");
    const byTag = `${file.use(importSymbol("recordByTag", RESULT))}(m, [${texts.join(", ")}])`;
    const body =
      texts.length === 0
        ? `  ${fields()}(value, m);\n  return m.between[0]!;\n`
        : texts.map((t, i) => `  const ${t} = ${text(record, i)};\n`).join("") +
          `  const b = m.between;\n` +
          `  // The usual record, every text non-empty, is one concatenation over the merged markup.\n` +
          `  return ${texts.join(" && ")} ? ${usual} : ${byTag};\n`;
    const fn =
      `/** ${record.name} as XML in a layout: ${record.fields.map((f) => f.name).join(", ")}. */\n` +
      `function ${name}(value: unknown, m: ${layout()}): string {\n` +
      (texts.length === 0 ? "" : `  const r = ${fields()}(value, m);\n`) +
      body +
      `}\n`;
    return { record, name, text: fn };
  });

  if (formatters.size > 0) {
    const formatterOf = file.use(importSymbol("formatterOf", "runtime/codec/values.ts"));
    source.addStatements(
      `${[...formatters]
        .sort()
        .map((type) => `const ${formatterName(type)} = ${formatterOf}(${literal(type)});`)
        .join("\n")}\n`,
    );
  }
  source.addStatements(`${functions.map((f) => f.text).join("\n")}\n`);
  source.addStatements(
    `/** The record writers by record name, for the server's bindings (createHandler passes them on). */\n` +
      `export const recordWriters: ${writersType} = {\n` +
      functions.map((f) => `  ${literal(f.record.name)}: ${f.name},`).join("\n") +
      `\n};\n`,
  );
  return [file.toGeneratedFile("Per-record XML writers for the server's answers (server only).")];
}
