// Case data (wire texts) as the typed values the generated code deals in: what a typed client passes,
// what a handler receives and returns, what a typed client gets back. Uses the reference's own
// conversions (reference/values.ts), never the runtime's.

import type { WireRecord, WireResult } from "../reference/response.js";
import { columnNames, type RefField, type RefOperation } from "../reference/spec.js";
import { typedValue, type TypedValue } from "../reference/values.js";

function typedRecord(
  fields: readonly RefField[],
  record: WireRecord,
  where: string,
): Record<string, TypedValue> {
  const out: Record<string, TypedValue> = {};
  for (const key of Object.keys(record)) {
    if (!fields.some((f) => f.name === key)) throw new Error(`${where}: ${key} is not a field`);
  }
  for (const field of fields) {
    const text = record[field.name];
    if (text !== undefined) out[field.name] = typedValue(field.type, text);
    else if (field.type !== "string")
      throw new Error(`${where}: ${field.name} (${field.type}) cannot be null`);
  }
  return out;
}

/** The typed result a client returns and a handler gives back for a case's wire result. */
export function typedResult(
  op: RefOperation,
  result: WireResult,
  input: Readonly<Record<string, string>>,
): unknown {
  const shape = op.result;
  switch (shape.kind) {
    case "scalar":
      return typedValue(shape.type, result as string);
    case "list":
      return (result as readonly WireRecord[]).map((r, i) =>
        typedRecord(shape.fields, r, `${op.name} result[${i}]`),
      );
    case "record":
      return typedRecord(shape.fields, result as WireRecord, `${op.name} result`);
    case "dataSet": {
      const names = columnNames(shape, input);
      const rows = (result as { rows: readonly WireRecord[] }).rows.map((row) =>
        Object.fromEntries(
          shape.columns.map((c, i) => [
            c.property,
            row[names[i]] === undefined ? null : typedValue(c.type, row[names[i]]),
          ]),
        ),
      );
      const columns = shape.columns.map((c, i) => ({ name: names[i], type: c.type }));
      return { dataSetName: shape.dataSetName, table: shape.table, columns, rows };
    }
  }
}

/** The params a typed client is called with: every parameter, "" for a string the case leaves out. */
export function clientParams(
  op: RefOperation,
  input: Readonly<Record<string, string>>,
): Record<string, TypedValue> {
  const params: Record<string, TypedValue> = {};
  for (const p of op.params) {
    if (p.credential) continue;
    const text = input[p.name];
    if (text === undefined && p.type !== "string")
      throw new Error(`${op.name}: the case must give ${p.name}`);
    params[p.name] = typedValue(p.type, text ?? "");
  }
  return params;
}

/**
 * What the handler must receive: every parameter as sent ("" when the case leaves it out, absent when
 * omitted), converted, with the spec's default for an empty or absent optional string.
 */
export function handlerParams(
  op: RefOperation,
  input: Readonly<Record<string, string>>,
  omit: readonly string[],
): Record<string, TypedValue> {
  const params: Record<string, TypedValue> = {};
  for (const p of op.params) {
    if (p.credential) continue;
    let text: string | undefined = omit.includes(p.name) ? undefined : (input[p.name] ?? "");
    if ((text === undefined || text === "") && p.default !== undefined) text = p.default;
    if (text !== undefined) params[p.name] = typedValue(p.type, text);
  }
  return params;
}
