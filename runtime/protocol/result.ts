// Operation results to and from XML, shared by every binding. The bindings differ only in the element
// that holds the result (SOAP `<OpResult>` vs. an HTTP root element) and in layout (compact vs. indented).

import { readDataSet, writeDataSet, type DataSetResult } from "../dataset.js";
import type { OperationModel, RecordModel, ResultModel, SoapType } from "../model.js";
import type { ParamValues } from "../params.js";
import { ConversionError, formatterOf, formatValue, parseValue } from "../values.js";
import { escapeText } from "../xml/write.js";
import type { XmlElement } from "../xml/tree.js";
import { tagMarkup, XmlOut, type TagMarkup } from "../xml/out.js";

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

/** A field value to its element text, escaped; throws (ConversionError, RangeError) for a wrong value. */
type TextOf = (value: unknown) => string;

function stringText(value: unknown): string {
  if (typeof value !== "string") throw new ConversionError("string", "is not a string");
  return escapeText(value);
}

const formatInt = formatterOf("int");

/** Ints are most of a record's fields: a whole number in the 32-bit range (`v | 0` keeps exactly those)
 * is written directly; anything else goes through the formatter, which gives the verdict and message. */
function intText(value: unknown): string {
  return typeof value === "number" && (value | 0) === value ? String(value) : formatInt(value);
}

/** The text function of a field type, chosen once per field. Only strings can hold markup characters:
 * the other types' texts are validated numbers, dates and booleans, so they are not escaped. */
function textOf(type: SoapType): TextOf {
  if (type === "string") return stringText;
  if (type === "int") return intText;
  return formatterOf(type);
}

interface FieldWriter {
  readonly name: string;
  /** A null/undefined string field is omitted, as .NET does; any other field must be there. */
  readonly optional: boolean;
  readonly text: TextOf;
  readonly tag: TagMarkup;
}

/** A record's element markup and field formatters, made once per record model (list results write
 * them for every item). */
interface RecordWriter {
  readonly name: string;
  readonly tag: TagMarkup;
  readonly fields: readonly FieldWriter[];
  /**
   * The compact markup between field texts when every field has a non-empty text, adjacent tags merged:
   * `<R><F0>`, `</F0><F1>`, ..., `</Fn></R>`. Half as many pieces to concatenate as tag by tag, which
   * is most of the time a list answer takes.
   */
  readonly between: readonly string[];
}

const recordWriters = new WeakMap<RecordModel, RecordWriter>();

function recordWriter(record: RecordModel): RecordWriter {
  let writer = recordWriters.get(record);
  if (writer === undefined) {
    const tag = tagMarkup(record.name);
    const fields = record.fields.map((f) => ({
      name: f.name,
      optional: f.type === "string",
      text: textOf(f.type),
      tag: tagMarkup(f.name),
    }));
    const between = [tag.open];
    fields.forEach((f, i) => {
      between[i] += f.tag.open;
      between.push(f.tag.close);
    });
    between[fields.length] += tag.close;
    writer = { name: record.name, tag, fields, between };
    recordWriters.set(record, writer);
  }
  return writer;
}

/** One field's element text, or undefined when the field is omitted. */
function fieldText(record: RecordWriter, field: FieldWriter, fields: Fields): string | undefined {
  const v = fields[field.name];
  if (v === undefined || v === null) {
    if (field.optional) return undefined;
    throw new ResultShapeError(`${record.name}.${field.name} is missing`);
  }
  try {
    return field.text(v);
  } catch (error) {
    throw new ResultShapeError(`${record.name}.${field.name} ${(error as Error).message}`);
  }
}

function writeFields(out: XmlOut, record: RecordWriter, value: unknown): void {
  const fields = asFields(value, record.name);
  const writers = record.fields;
  for (let i = 0; i < writers.length; i++) {
    const field = writers[i];
    const text = fieldText(record, field, fields);
    if (text !== undefined) out.rawLeafTag(field.tag, text);
  }
}

/** Writes a record's fields as child elements; a null/undefined string field is omitted, as .NET does. */
export function writeRecordFields(out: XmlOut, record: RecordModel, value: unknown): void {
  writeFields(out, recordWriter(record), value);
}

/**
 * A record element in the compact layout (no whitespace), the SOAP bodies' shape. Written without
 * XmlOut: a list answer writes hundreds of records, and its time goes into joining strings. The usual
 * record, every field with a non-empty text, is one concatenation over `between`; a record with an
 * omitted or empty field is written again tag by tag (taken only by such records).
 */
function compactRecord(record: RecordWriter, value: unknown): string {
  const fields = asFields(value, record.name);
  const writers = record.fields;
  const between = record.between;
  let xml = between[0];
  for (let i = 0; i < writers.length; i++) {
    const text = fieldText(record, writers[i], fields);
    if (text === undefined || text === "") return compactRecordByTag(record, fields);
    xml += text + between[i + 1];
  }
  return xml;
}

/** compactRecord for a record with an omitted (null string) or empty field: `<F />` or nothing. */
function compactRecordByTag(record: RecordWriter, fields: Fields): string {
  const writers = record.fields;
  let xml = record.tag.open;
  for (let i = 0; i < writers.length; i++) {
    const text = fieldText(record, writers[i], fields);
    const tag = writers[i].tag;
    if (text !== undefined) xml += text === "" ? tag.empty : tag.open + text + tag.close;
  }
  return xml + record.tag.close;
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
        writeFields(out, writer, value[i]);
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

/**
 * writeResultChildren in the compact layout, as one string: what a SOAP body holds. Returns undefined
 * when there is nothing to write (an empty list), so the caller can write `<x />`.
 */
export function compactResultChildren(result: ResultModel, value: unknown, request: ParamValues): string | undefined {
  switch (result.kind) {
    case "list": {
      if (!Array.isArray(value)) throw new ResultShapeError(`the result is not an array of ${result.record.name}`);
      if (value.length === 0) return undefined;
      const writer = recordWriter(result.record);
      // One string per record, joined once: join builds the answer flat, where `+=` over hundreds of
      // records would leave a deep rope for the socket write to flatten.
      const parts = new Array<string>(value.length);
      for (let i = 0; i < value.length; i++) parts[i] = compactRecord(writer, value[i]);
      return parts.join("");
    }
    case "record": {
      // The fields go directly inside the result element: the record's own tags are cut off.
      const writer = recordWriter(result.record);
      return compactRecord(writer, value).slice(writer.tag.open.length, -writer.tag.close.length);
    }
    default: {
      const out = new XmlOut(false);
      return writeResultChildren(out, result, value, request) ? out.toString() : undefined;
    }
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
