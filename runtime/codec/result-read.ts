// The client's reading of results, in one pass from the element that holds the result to the typed value:
// scalars, flat records (every field a scalar that is not nullable) and lists of them, and DataSets are
// read here directly; enums, arrays and the other records by the generic reader of typed values
// (typed-xml-read.ts, through typed-xml.ts), which the generated model registers (registerTypedReaders)
// only when a result needs it, so a client of a service whose results are of those kinds carries none of its code.
// Labels for messages ("OpResult[2].Id") are built only when an error is reported. Scalars are read by the
// client's codecs (clientParse: the readers the generated model registered).

import { readDataSet, type DataSetResult } from "./dataset.js";
import type {
  ClientOperationModel,
  FieldModel,
  RecordModel,
  ResultModel,
  SoapType,
  TypeModel,
} from "../model.js";
import { wireName } from "../model.js";
import type { ParamValues } from "./params.js";
import { clientParse, ConversionError } from "./values.js";
import { child, type XmlElement } from "../xml/tree.js";
import { isNilElement, isReference, otherRecordType } from "./typed-xml.js";

/**
 * The results the generic reader reads: enums, arrays, lists and records that are not flat, XML values, and
 * DataSets whose columns the spec does not name (their cells are of any scalar type).
 */
export type TypedResult = Extract<
  ResultModel,
  { kind: "enum" | "array" | "list" | "record" | "xml" | "untypedDataSet" | "response" }
>;

/** Reads such a result from its (present, not nil) holder; `label` names it in messages. */
export type TypedResultReader = (
  result: TypedResult,
  holder: XmlElement,
  ns: string,
  label: string,
) => unknown;

let typedReader: TypedResultReader | undefined;

/** Adds the generic reader (typed-xml-read.ts's typedResultReader); the generated model calls it when a result needs it. */
export function registerTypedReaders(reader: TypedResultReader): void {
  typedReader = reader;
}

/** A value's label: the result's, the item's index in a list (when not negative) and the field. */
const at = (label: string, index: number, field?: string): string =>
  (index < 0 ? label : `${label}[${index}]`) + (field === undefined ? "" : `.${field}`);

/** Characters of the answer's text a message quotes at most (then "..."). */
const SHOWN_MAX = 40;

/**
 * A scalar element's text as its type; a text that does not convert throws naming the value (`at`'s
 * label), and so does an element holding elements, as XmlSerializer refuses it (typed-xml.ts textOf).
 * The message names the type as the spec does (`int`, not .NET's `System.Int32`, which only the server's
 * messages use: they are ASMX's words on the wire) and quotes the text cut short, so that a client bundle
 * carries neither the table of .NET names nor the server's message cleaner.
 */
function scalar(type: SoapType, el: XmlElement, label: string, index: number, field?: string): unknown {
  if (el.children.length > 0)
    throw new Error(`${el.local} holds XML elements where a text value is expected.`);
  const text = el.text;
  try {
    return clientParse(type, text);
  } catch (error) {
    if (!(error instanceof ConversionError)) throw error;
    const shown = text.length > SHOWN_MAX ? `${text.slice(0, SHOWN_MAX)}...` : text;
    throw new Error(
      `Cannot convert '${shown}' to ${type} for ${at(label, index, field)}: the value ${error.message}.`,
    );
  }
}

/**
 * A flat record's fields from its element's children in the service's namespace (the first of a name; others
 * are skipped, as XmlSerializer skips unknown elements). An absent or nil string or base64Binary field is
 * left out (null in .NET); any other is missing.
 */
function flatRecord(
  record: RecordModel,
  el: XmlElement,
  ns: string,
  label: string,
  index: number,
): Record<string, unknown> {
  const other = otherRecordType(el, record);
  if (other !== undefined) throw new Error(other);
  const fields = record.fields;
  // Entries, made an object by Object.fromEntries, which defines each key as an own property (`__proto__` too).
  return Object.fromEntries(
    fields.flatMap((field): [string, unknown][] => {
      const found = child(el, ns, field.name);
      if (found === undefined || isNilElement(found)) {
        if (isReference(field.type)) return [];
        throw new Error(`${at(label, index, field.name)} is missing.`);
      }
      return [
        [
          field.name,
          scalar((field.type as { readonly type: SoapType }).type, found, label, index, field.name),
        ],
      ];
    }),
  );
}

const isFlat = (fields: readonly FieldModel[]): boolean =>
  fields.every((f) => f.type.kind === "scalar" && !f.nullable && f.choice === undefined);

/**
 * Reads a result from the element that holds it (`<OpResult>` or the HTTP root). `holder` is undefined
 * when the element is absent, which .NET writes for a null result; a nil holder (`xsi:nil`, the HTTP root
 * of a null) reads the same: an empty array for an array or list, null for a string, byte array or record.
 * Void and one-way read as undefined. Throws Error with a reason.
 */
export function readResult(
  op: ClientOperationModel,
  holder: XmlElement | undefined,
  ns: string,
  request: ParamValues,
): unknown {
  const result = op.result;
  if (result.kind === "void" || result.kind === "oneWay") return undefined;
  const label = op.soap?.resultElement ?? `${wireName(op)}Result`;
  // (Out and ref parameters: `holder` is the response element itself, present, never nil; the typed
  // reader reads it as a record.)
  if (holder === undefined || (result.kind !== "dataSet" && isNilElement(holder))) {
    if (result.kind === "list" || result.kind === "array") return [];
    // A record, string or byte array (a reference type, as a type model of the same shape says), or a
    // nullable value type or enum (.NET writes its null `<OpResult xsi:nil="true" />`).
    if (isReference(result as TypeModel)) return null;
    if ((result.kind === "scalar" || result.kind === "enum") && result.nullable === true) return null;
    throw new Error(
      holder === undefined
        ? `the answer holds no ${label}`
        : `the answer's ${label} is nil (xsi:nil), but the ${result.kind === "scalar" ? result.type : result.kind} result is not nullable`,
    );
  }
  switch (result.kind) {
    case "dataSet":
      return readDataSet(holder, result.dataSet, request) satisfies DataSetResult<unknown>;
    case "scalar":
      return scalar(result.type, holder, label, -1);
    case "record":
      if (isFlat(result.record.fields)) return flatRecord(result.record, holder, ns, label, -1);
      break;
    case "list": {
      const { name, fields } = result.record;
      if (!isFlat(fields)) break;
      // A nil item is a null record, as .NET reads it.
      return holder.children
        .filter((c) => c.local === name && c.ns === ns)
        .map((c, i) => (isNilElement(c) ? null : flatRecord(result.record, c, ns, label, i)));
    }
  }
  if (typedReader === undefined) {
    throw new TypeError(`no reader of ${result.kind} results (registerTypedReaders with typed-xml-read.js)`);
  }
  return typedReader(result, holder, ns, label);
}
