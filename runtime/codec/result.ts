// Operation results to and from XML, shared by every binding. The bindings differ only in the element
// that holds the result (SOAP `<OpResult>` vs. an HTTP root element) and in layout (compact vs. indented).

import { writeDataSet } from "./dataset.js";
import { UntypedDataSetShapeError, writeUntypedDataSet } from "./dataset-untyped.js";
import type {
  ArrayTypeModel,
  OperationModel,
  RecordModel,
  ResultModel,
  SoapType,
  TypeModel,
} from "../model.js";
import type { ParamValues } from "./params.js";
import { ConversionError, formatterOf, formatValue } from "./values.js";
import { escapeText } from "../xml/write.js";
import { enumExpected, enumText } from "./enum-text.js";
import { XmlOut } from "../xml/out.js";
import { isReference, type WireValue } from "./typed-xml.js";
import { formatTyped, typedXml } from "./typed-xml-write.js";
import { resultElementOf } from "../model.js";

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

// ---- Record writers ----------------------------------------------------------------------------
//
// One mechanism for every layout. A RecordLayout holds a record's markup, made once per record model,
// layout and depth: compact for SOAP bodies; indented for the HTTP bindings, where a list's records sit one
// level deeper than a record result's fields. A RecordWrite turns one record into its XML between that
// markup, as one string. The generator emits one RecordWrite per record (generated/writers.ts: direct
// property reads, one typed call per field); recordWrite() below makes the same from the model alone, for a
// service built at run time. Both use the field functions below, so the text and the refusals are the same.
//
// Strings, not bytes: on V8 a record concatenated from a few pieces and encoded once at the end (one native
// copy) measured ~3x faster than storing the same bytes into a Uint8Array from JavaScript (bench/README.md).

/** A record's markup in one layout. */
export interface RecordLayout {
  readonly record: string;
  /** The layout (indented or compact) and the depth of the record's fields, for records that are not flat. */
  readonly pretty: boolean;
  readonly fieldDepth: number;
  /** `<R />` with the line break and indentation before it ("" without tags): a record with no field written. */
  readonly empty: string;
  /** The record's own tags with the line break and indentation before them; "" for a record result, whose
   * fields go directly inside the element that holds the result. */
  readonly open: string;
  readonly close: string;
  /** Per field: its name, and `<F>`, `</F>`, `<F />` (the line break and indentation before the tags). */
  readonly names: readonly string[];
  readonly fieldOpen: readonly string[];
  readonly fieldClose: readonly string[];
  readonly fieldEmpty: readonly string[];
  /**
   * The markup between the field texts when every field has a non-empty text, adjacent tags merged:
   * `{open}<F0>`, `</F0><F1>`, ..., `</Fn>{close}`. A record is then one concatenation of 2n + 1 pieces
   * instead of 3n + 2: a third less to join and flatten, which is most of what a list answer costs.
   */
  readonly between: readonly string[];
}

/** One record (a handler's value, checked here) as XML in a layout; throws ResultShapeError. */
export type RecordWrite = (value: unknown, layout: RecordLayout) => string;

/** Generated record writers by record name (generated/writers.ts); a missing one is made from the model. */
export type RecordWriters = { readonly [record: string]: RecordWrite | undefined };

function separator(pretty: boolean, depth: number): string {
  return pretty ? `\n${"  ".repeat(depth)}` : "";
}

/**
 * A string of its own, flat: joined pieces make a sequential string where `+` and template literals make
 * a rope. Layout markup goes into every record written, and a rope there costs every flatten again.
 */
function flat(...pieces: string[]): string {
  return pieces.join("");
}

function makeLayout(record: RecordModel, pretty: boolean, depth: number, tags: boolean): RecordLayout {
  const outer = separator(pretty, depth);
  const inner = separator(pretty, tags ? depth + 1 : depth);
  const open = tags ? flat(outer, "<", record.name, ">") : "";
  const close = tags ? flat(outer, "</", record.name, ">") : "";
  const fieldOpen = record.fields.map((f) => flat(inner, "<", f.name, ">"));
  const fieldClose = record.fields.map((f) => flat("</", f.name, ">"));
  const between = [open, ...fieldClose].map((before, i) => flat(before, fieldOpen[i] ?? close));
  return {
    record: record.name,
    pretty,
    fieldDepth: tags ? depth + 1 : depth,
    empty: tags ? flat(outer, "<", record.name, " />") : "",
    open,
    close,
    names: record.fields.map((f) => f.name),
    fieldOpen,
    fieldClose,
    fieldEmpty: record.fields.map((f) => flat(inner, "<", f.name, " />")),
    between,
  };
}

const layouts = new WeakMap<RecordModel, Map<number, RecordLayout>>();

/** The layout of a record at `depth` (its fields at depth + 1 with its tags, at depth without), made once. */
export function recordLayout(
  record: RecordModel,
  pretty: boolean,
  depth: number,
  tags: boolean,
): RecordLayout {
  let byKey = layouts.get(record);
  if (byKey === undefined) layouts.set(record, (byKey = new Map()));
  const key = (pretty ? depth * 4 + 2 : 0) + (tags ? 1 : 0);
  let layout = byKey.get(key);
  if (layout === undefined) byKey.set(key, (layout = makeLayout(record, pretty, depth, tags)));
  return layout;
}

/**
 * The handler's value as a record's fields; throws ResultShapeError when it is not an object.
 *
 * @codegen generated code imports it (test/repo/knip.test.ts)
 */
export function recordFields(value: unknown, layout: RecordLayout): Fields {
  return asFields(value, layout.record);
}

function missing(layout: RecordLayout, i: number): ResultShapeError {
  return new ResultShapeError(`${layout.record}.${layout.names[i]} is missing`);
}

function refused(layout: RecordLayout, i: number, error: unknown): ResultShapeError {
  return new ResultShapeError(`${layout.record}.${layout.names[i]} ${(error as Error).message}`);
}

// Field texts: the element text of field i, escaped, "" for an empty element (`<F />`), undefined for an
// omitted one (a null/undefined string, as .NET omits it). They throw ResultShapeError naming the field.

/** @codegen generated code imports it (test/repo/knip.test.ts) */
export function stringText(layout: RecordLayout, i: number, value: unknown): string | undefined {
  if (typeof value === "string") {
    try {
      return escapeText(value);
    } catch (error) {
      throw refused(layout, i, error);
    }
  }
  if (value === undefined || value === null) return undefined;
  throw refused(layout, i, new ConversionError("string", "is not a string"));
}

const formatInt = formatterOf("int");

/** A whole number in the 32-bit range (`v | 0` keeps exactly those) is written directly; anything else
 *
 * @codegen generated code imports it (test/repo/knip.test.ts)
 * goes through the formatter, which gives the verdict and message. */
export function intText(layout: RecordLayout, i: number, value: unknown): string {
  return typeof value === "number" && (value | 0) === value
    ? String(value)
    : valueText(layout, i, value, formatInt);
}

/** A field of another type, through its formatter (which validates). Only strings can hold markup
 *
 * @codegen generated code imports it (test/repo/knip.test.ts)
 * characters: the other types' texts are validated numbers, dates and booleans, not escaped again. */
export function valueText(
  layout: RecordLayout,
  i: number,
  value: unknown,
  format: (value: unknown) => string,
): string {
  if (value === undefined || value === null) throw missing(layout, i);
  try {
    return format(value);
  } catch (error) {
    throw refused(layout, i, error);
  }
}

/**
 * A record from its field texts, for a record with an omitted or empty field (the writers join the usual
 * record, every text non-empty, over `between` themselves): nothing for an omitted field, `<F />` for "".
 *
 * @codegen generated code imports it (test/repo/knip.test.ts)
 */
export function recordByTag(layout: RecordLayout, texts: readonly (string | undefined)[]): string {
  let xml = layout.open;
  for (let i = 0; i < texts.length; i++) {
    const text = texts[i];
    if (text !== undefined)
      xml += text === "" ? layout.fieldEmpty[i] : layout.fieldOpen[i] + text + layout.fieldClose[i];
  }
  return xml + layout.close;
}

type FieldText = (layout: RecordLayout, i: number, value: unknown) => string | undefined;

/** The text function of a field type, for recordWrite. */
function fieldText(type: SoapType): FieldText {
  if (type === "string") return stringText;
  if (type === "int") return intText;
  const format = formatterOf(type);
  return (layout, i, value) => valueText(layout, i, value, format);
}

const flatRecords = new WeakMap<RecordModel, boolean>();

/**
 * Whether every field of the record is a scalar that is not nullable: such records are written by the
 * layouts above (and by generated/writers.ts, which the generator emits for them alone); the others (enum,
 * array, record or nullable fields) by typed-xml.ts, field by field.
 */
export function isFlatRecord(record: RecordModel): boolean {
  let flatRecord = flatRecords.get(record);
  if (flatRecord === undefined) {
    flatRecord = record.fields.every((f) => f.type.kind === "scalar" && !f.nullable);
    flatRecords.set(record, flatRecord);
  }
  return flatRecord;
}

/** A ResultShapeError for a message of typed-xml's formatter. */
const shapeFailure = (message: string): ResultShapeError => new ResultShapeError(message);

/** typed-xml's markup, its RangeError (a string XML cannot carry) as a ResultShapeError naming `what`. */
function markup(what: string, make: () => string): string {
  try {
    return make();
  } catch (error) {
    if (error instanceof RangeError) throw new ResultShapeError(`${what} ${error.message}`);
    throw error;
  }
}

/** A record with enum, array, record or nullable fields, in a layout (its tags, then each field element). */
function nestedRecordWrite(record: RecordModel): RecordWrite {
  const type: TypeModel = { kind: "record", record };
  const fields = record.fields;
  return (value, layout) => {
    recordFields(value, layout);
    const wire = formatTyped(type, value, record.name, shapeFailure) as {
      readonly fields: readonly WireValue[];
    };
    const inner = markup(record.name, () => {
      let xml = "";
      for (let i = 0; i < fields.length; i++) {
        xml += typedXml(fields[i]!.name, fields[i]!.type, wire.fields[i], layout.pretty, layout.fieldDepth);
      }
      return xml;
    });
    return inner === "" ? layout.empty : layout.open + inner + layout.close;
  };
}

const modelWriters = new WeakMap<RecordModel, RecordWrite>();

/** A RecordWrite made from the model: what generated/writers.ts holds, for a record without one there. */
export function recordWrite(record: RecordModel): RecordWrite {
  let write = modelWriters.get(record);
  if (write === undefined && !isFlatRecord(record)) {
    write = nestedRecordWrite(record);
    modelWriters.set(record, write);
  }
  if (write === undefined) {
    const names = record.fields.map((f) => f.name);
    const texts = record.fields.map((f) => fieldText((f.type as { readonly type: SoapType }).type));
    write = (value, layout) => {
      const fields = recordFields(value, layout);
      const between = layout.between;
      const got: (string | undefined)[] = [];
      let xml = between[0]!;
      let usual = true;
      for (let i = 0; i < texts.length; i++) {
        const text = texts[i]!(layout, i, fields[names[i]!]);
        got.push(text);
        if (text === undefined || text === "") usual = false;
        else if (usual) xml += text + between[i + 1];
      }
      return usual ? xml : recordByTag(layout, got);
    };
    modelWriters.set(record, write);
  }
  return write;
}

/** The generated writer of a flat record, else the model's (a generated one for another shape is not used). */
function writerOf(record: RecordModel, writers: RecordWriters | undefined): RecordWrite {
  return (isFlatRecord(record) ? writers?.[record.name] : undefined) ?? recordWrite(record);
}

/** The layout for records written next into `out`, at its depth. */
function layoutIn(out: XmlOut, record: RecordModel, tags: boolean): RecordLayout {
  return recordLayout(record, out.pretty, out.depth, tags);
}

/** Appends records' markup to `out`; at the very start of a document without the line break before it,
 * as XmlOut writes a first element. */
function append(out: XmlOut, xml: string): void {
  out.raw(out.pretty && out.atStart ? xml.slice(xml.indexOf("<")) : xml);
}

/** Writes a record's fields as child elements; a null/undefined string field is omitted, as .NET does. */
export function writeRecordFields(
  out: XmlOut,
  record: RecordModel,
  value: unknown,
  writers?: RecordWriters,
): void {
  append(out, writerOf(record, writers)(value, layoutIn(out, record, false)));
}

/** A list's records in a layout, as one string: `+=` leaves one rope that the send flattens once
 * (Buffer.byteLength); joining an array flattened each record's rope on its own first, measured ~3 µs more
 * per 100-record SOAP answer (whole node handler, same process). */
function listXml(
  record: RecordModel,
  value: unknown,
  layout: RecordLayout,
  writers: RecordWriters | undefined,
): string {
  if (!Array.isArray(value)) throw new ResultShapeError(`the result is not an array of ${record.name}`);
  const write = writerOf(record, writers);
  let xml = "";
  for (let i = 0; i < value.length; i++) {
    const item: unknown = value[i];
    // A null record in a list is `<R xsi:nil="true" />`, as .NET writes it (xsi is declared above).
    xml +=
      item === null || item === undefined
        ? `${layout.empty.slice(0, -3)} xsi:nil="true" />`
        : write(item, layout);
  }
  return xml;
}

/** The rows of a DataSet handler result: an array of rows or a DataSetResult. */
export function dataSetRows(value: unknown): readonly Fields[] {
  if (Array.isArray(value)) return value as Fields[];
  const rows = asFields(value, "DataSet result")["rows"];
  if (!Array.isArray(rows)) throw new ResultShapeError("DataSet result has no rows array");
  return rows as Fields[];
}

/**
 * Writes the children of the element that holds a list, record or DataSet result, in the writer's layout.
 * Returns false when there is nothing to write (an empty list), so the caller can write `<x />`.
 */
export function writeResultChildren(
  out: XmlOut,
  result: ResultModel,
  value: unknown,
  request: ParamValues,
  writers?: RecordWriters,
): boolean {
  switch (result.kind) {
    case "scalar":
    case "enum":
    case "array":
    case "xml":
    case "void":
    case "oneWay":
      throw new ResultShapeError(`a ${result.kind} result has no children`);
    case "list": {
      const xml = listXml(result.record, value, layoutIn(out, result.record, true), writers);
      append(out, xml);
      return xml !== "";
    }
    case "record":
    case "response":
      writeRecordFields(out, result.record, value, writers);
      return true;
    case "dataSet":
      writeDataSet(out, result.dataSet, dataSetRows(value), request);
      return true;
    case "untypedDataSet":
      try {
        // Checked whole before anything is written.
        writeUntypedDataSet(out, value, result.dataTable === true);
      } catch (error) {
        if (error instanceof UntypedDataSetShapeError) throw new ResultShapeError(error.message);
        throw error;
      }
      return true;
  }
}

/**
 * writeResultChildren in the compact layout, as one string: what a SOAP body holds. Returns undefined
 * when there is nothing to write (an empty list), so the caller can write `<x />`.
 */
function compactResultChildren(
  result: ResultModel,
  value: unknown,
  request: ParamValues,
  writers?: RecordWriters,
): string | undefined {
  switch (result.kind) {
    case "list": {
      const xml = listXml(result.record, value, recordLayout(result.record, false, 0, true), writers);
      return xml === "" ? undefined : xml;
    }
    case "record":
      return writerOf(result.record, writers)(value, recordLayout(result.record, false, 0, false));
    default: {
      const out = new XmlOut(false);
      return writeResultChildren(out, result, value, request, writers) ? out.toString() : undefined;
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

/** The text of a scalar or enum result; throws ResultShapeError. */
function resultText(result: Extract<ResultModel, { kind: "scalar" | "enum" }>, value: unknown): string {
  if (result.kind === "scalar") return scalarText(result, value);
  const text = enumText(result.enum, value);
  if (text !== undefined) return text;
  throw new ResultShapeError(`the ${result.enum.name} result is not one of ${enumExpected(result.enum)}`);
}

const listTypes = new WeakMap<RecordModel, ArrayTypeModel>();

/**
 * A list result's type: an array of the record, items named after it. Its typeName serves messages only
 * (the HTTP root is httpRootName's, ArrayOf{Record}), so the SOAP client carries no HTTP naming.
 */
function listType(record: RecordModel): ArrayTypeModel {
  let type = listTypes.get(record);
  if (type === undefined) {
    type = {
      kind: "array",
      item: { kind: "record", record },
      itemElement: record.name,
      typeName: `${record.name}[]`,
    };
    listTypes.set(record, type);
  }
  return type;
}

type TypedResult = Extract<ResultModel, { kind: "scalar" | "enum" | "array" | "list" | "record" | "xml" }>;

/** The type of a scalar, enum, array, list, record or XML result, for typed-xml. */
export function resultType(result: TypedResult): TypeModel {
  switch (result.kind) {
    case "scalar":
      return { kind: "scalar", type: result.type };
    case "enum":
      return { kind: "enum", enum: result.enum };
    case "array":
      return result;
    case "list":
      return listType(result.record);
    case "record":
      return { kind: "record", record: result.record };
    case "xml":
      return result;
  }
}

/**
 * Whether a null/undefined handler value is a null result, which .NET writes by leaving `<OpResult>` out
 * (SOAP) or as an `xsi:nil` root (HTTP): a string, byte array, array, list or record; and a nullable value
 * type or enum (`int?`), which SOAP writes `<OpResult xsi:nil="true" />`. Other value types and enums
 * cannot be null; void and one-way have no value.
 */
export function isNullResult(result: ResultModel, value: unknown): boolean {
  if (value !== null && value !== undefined) return false;
  switch (result.kind) {
    case "scalar":
      return result.nullable === true || isReference({ kind: "scalar", type: result.type });
    case "enum":
      return result.nullable === true;
    case "array":
    case "list":
    case "record":
    case "xml":
      return true;
    default:
      return false;
  }
}

/**
 * A result's element `name` with its content, for a value that is not null, in the indented layout (HTTP:
 * the root element, `attrs` on it) or the compact one (SOAP `<OpResult>`): scalars and enums as text, flat
 * records and lists by the record writers, other arrays and records by typed-xml. Throws ResultShapeError.
 */
export function resultElement(
  name: string,
  result: TypedResult,
  value: unknown,
  pretty: boolean,
  attrs: string,
  writers?: RecordWriters,
): string {
  if (result.kind === "scalar" || result.kind === "enum") {
    const text = resultText(result, value);
    return text === ""
      ? `<${name}${attrs} />`
      : `<${name}${attrs}>${markup(`the ${name} result`, () => escapeText(text))}</${name}>`;
  }
  if ((result.kind === "list" || result.kind === "record") && isFlatRecord(result.record)) {
    const out = new XmlOut(pretty).open(name, attrs);
    return writeResultChildren(out, result, value, {}, writers)
      ? out.close(name).toString()
      : `<${name}${attrs} />`;
  }
  const type = resultType(result);
  const wire = formatTyped(type, value, name, shapeFailure);
  return markup(`the ${name} result`, () => typedXml(name, type, wire, pretty, 0, attrs));
}

/**
 * What a SOAP response element holds: `<OpResult>...</OpResult>`, or "" when it holds nothing (void, or a
 * null string, byte array, array, list or record, which .NET leaves out). One-way operations have no
 * response at all (the binding answers 202).
 */
export function soapResultXml(
  op: OperationModel,
  value: unknown,
  request: ParamValues,
  writers?: RecordWriters,
): string {
  const result = op.result;
  const tag = resultElementOf(op);
  switch (result.kind) {
    case "void":
    case "oneWay":
      return "";
    case "response":
      // Out and ref parameters: the response element's children are OpResult and them, a record's fields.
      return writerOf(result.record, writers)(value, recordLayout(result.record, false, 0, false));
    case "dataSet":
    case "untypedDataSet": {
      const children = compactResultChildren(result, value, request, writers);
      return children === undefined ? `<${tag} />` : `<${tag}>${children}</${tag}>`;
    }
    case "list":
    case "record":
      if (isNullResult(result, value)) return "";
      if (isFlatRecord(result.record)) {
        // The hot path of list answers: the record writers' one string, between the tags.
        const children = compactResultChildren(result, value, request, writers);
        return children === undefined || children === "" ? `<${tag} />` : `<${tag}>${children}</${tag}>`;
      }
      return resultElement(tag, result, value, false, "", writers);
    case "scalar":
      // A null nullable value type is written, nil (.NET: `<NextResult xsi:nil="true" />`).
      if (result.nullable === true && isNullResult(result, value)) return `<${tag} xsi:nil="true" />`;
      // The usual scalar (an id): its text between the tags, as before.
      if (result.type !== "string" && result.type !== "base64Binary")
        return `<${tag}>${scalarText(result, value)}</${tag}>`;
      return isNullResult(result, value) ? "" : resultElement(tag, result, value, false, "", writers);
    case "enum":
      if (isNullResult(result, value)) return `<${tag} xsi:nil="true" />`;
      return resultElement(tag, result, value, false, "", writers);
    default:
      return isNullResult(result, value) ? "" : resultElement(tag, result, value, false, "", writers);
  }
}
