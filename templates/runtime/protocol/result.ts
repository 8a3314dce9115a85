// Operation results to and from XML, shared by every binding. The bindings differ only in the element
// that holds the result (SOAP `<OpResult>` vs. an HTTP root element) and in layout (compact vs. indented).

import { readDataSet, writeDataSet, type DataSetResult } from "../dataset.js";
import type { OperationModel, RecordModel, ResultModel, SoapType } from "../model.js";
import type { ParamValues } from "../params.js";
import { formatValue, parseValue } from "../values.js";
import type { XmlElement } from "../xml/tree.js";
import { tagMarkup, XmlOut, type TagMarkup } from "./xml-out.js";

type Fields = Readonly<Record<string, unknown>>;

/** A handler returned something the result type does not allow; a server-side bug, never the caller's. */
export class ResultShapeError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ResultShapeError";
  }
}

function asFields(value: unknown, what: string): Fields {
  if (typeof value !== "object" || value === null) throw new ResultShapeError(`${what} is not an object`);
  return value as Fields;
}

interface FieldWriter {
  readonly name: string;
  readonly type: SoapType;
  readonly tag: TagMarkup;
}

/** A record's element markup, made once per record model (list results write it for every item). */
interface RecordWriter {
  readonly tag: TagMarkup;
  readonly fields: readonly FieldWriter[];
}

const recordWriters = new WeakMap<RecordModel, RecordWriter>();

function recordWriter(record: RecordModel): RecordWriter {
  let writer = recordWriters.get(record);
  if (writer === undefined) {
    writer = {
      tag: tagMarkup(record.name),
      fields: record.fields.map((f) => ({ name: f.name, type: f.type, tag: tagMarkup(f.name) })),
    };
    recordWriters.set(record, writer);
  }
  return writer;
}

function writeFields(out: XmlOut, record: RecordModel, fieldWriters: readonly FieldWriter[], value: unknown): void {
  const fields = asFields(value, record.name);
  for (let i = 0; i < fieldWriters.length; i++) {
    const field = fieldWriters[i];
    const v = fields[field.name];
    if (v === undefined || v === null) {
      if (field.type === "string") continue;
      throw new ResultShapeError(`${record.name}.${field.name} is missing`);
    }
    try {
      const text = formatValue(field.type, v);
      // Only string values can hold markup characters: the other types' texts are validated numbers,
      // dates and booleans (and escaping still refuses what XML cannot carry in a string).
      if (field.type === "string") out.leafTag(field.tag, text);
      else out.rawLeafTag(field.tag, text);
    } catch (error) {
      throw new ResultShapeError(`${record.name}.${field.name} ${(error as Error).message}`);
    }
  }
}

/** Writes a record's fields as child elements; a null/undefined string field is omitted, as .NET does. */
export function writeRecordFields(out: XmlOut, record: RecordModel, value: unknown): void {
  writeFields(out, record, recordWriter(record).fields, value);
}

/** The rows of a DataSet handler result: an array of rows or a DataSetResult. */
export function dataSetRows(value: unknown): readonly Fields[] {
  if (Array.isArray(value)) return value as Fields[];
  const rows = asFields(value, "DataSet result").rows;
  if (!Array.isArray(rows)) throw new ResultShapeError("DataSet result has no rows array");
  return rows as Fields[];
}

/**
 * Writes the children of the element that holds a list, record or DataSet result.
 * Returns false when there is nothing to write (an empty list), so the caller can write `<x />`.
 */
export function writeResultChildren(out: XmlOut, result: ResultModel, value: unknown, request: ParamValues): boolean {
  switch (result.kind) {
    case "scalar":
      throw new ResultShapeError("a scalar result has no children");
    case "list": {
      if (!Array.isArray(value)) throw new ResultShapeError(`the result is not an array of ${result.record.name}`);
      const writer = recordWriter(result.record);
      for (let i = 0; i < value.length; i++) {
        out.openTag(writer.tag);
        writeFields(out, result.record, writer.fields, value[i]);
        out.closeTag(writer.tag);
      }
      return value.length > 0;
    }
    case "record":
      writeRecordFields(out, result.record, value);
      return true;
    case "dataSet":
      writeDataSet(out, result.dataSet, dataSetRows(value), request);
      return true;
  }
}

/** Formats a scalar result; throws ResultShapeError when the handler returned the wrong kind of value. */
export function scalarText(result: Extract<ResultModel, { kind: "scalar" }>, value: unknown): string {
  try {
    return formatValue(result.type, value);
  } catch (error) {
    throw new ResultShapeError(`the ${result.type} result ${(error as Error).message}`);
  }
}

function readRecord(el: XmlElement, record: RecordModel, ns: string): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const field of record.fields) {
    const fieldEl = el.children.find((c) => c.local === field.name && c.ns === ns);
    if (fieldEl === undefined) {
      if (field.type !== "string") throw new Error(`${record.name}.${field.name} is missing`);
      continue;
    }
    try {
      out[field.name] = parseValue(field.type, fieldEl.text);
    } catch (error) {
      throw new Error(`${record.name}.${field.name}: the value ${(error as Error).message}`);
    }
  }
  return out;
}

/**
 * Reads a result from the element that holds it (`<OpResult>` or the HTTP root). `holder` is undefined
 * when the element is absent, which .NET writes for a null list. Throws Error with a reason.
 */
export function readResult(op: OperationModel, holder: XmlElement | undefined, ns: string, request: ParamValues): unknown {
  const result = op.result;
  if (holder === undefined) {
    if (result.kind === "list") return [];
    throw new Error(`the answer holds no ${op.name}Result`);
  }
  switch (result.kind) {
    case "scalar":
      return parseValue(result.type, holder.text);
    case "list":
      return holder.children
        .filter((c) => c.local === result.record.name && c.ns === ns)
        .map((c) => readRecord(c, result.record, ns));
    case "record":
      return readRecord(holder, result.record, ns);
    case "dataSet":
      return readDataSet(holder, result.dataSet, request) satisfies DataSetResult<unknown>;
  }
}
