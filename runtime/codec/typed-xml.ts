// Values of the spec's types (TypeModel: scalars, enums, arrays, records) between handler/caller values,
// their wire form (WireValue: texts, nils and absences, shaped like the type) and XML, as .NET's XmlSerializer
// writes and reads them (document/literal): a scalar or enum is element text; an array is a wrapper element
// with one child per item, named itemElement; a record is one child per field, in field order. A null
// nullable value, a null string/base64Binary/record item of an array is `xsi:nil="true"`; a null string,
// base64Binary, array or record field is left out.
//
// Both halves use it: the server reads parameters (wireOf / the form, then readWire) and writes results
// (formatWire, then wireXml); the client writes parameters (formatWire, then wireXml or form fields) and
// reads results (wireOf, then readWire). Every walk follows the type and the input together: its depth is
// the model's nesting, or for a record that holds itself the input's, which the XML readers bound (32
// levels by default); its length is bounded by the input's elements.

import type { RecordModel, TypeModel } from "../model.js";
import { oneLine } from "../safe-error.js";
import { enumValueOf } from "./enum-text.js";
import { cannotConvert, ConversionError, formatValue, parseValue, XSI_NS } from "./values.js";
import type { XmlElement } from "../xml/tree.js";
import { XmlValueError, xmlValueOf } from "../xml/value.js";
import { escapeText } from "../xml/write.js";

/** A record's fields on the wire, index-aligned with RecordModel.fields. */
export interface WireFields {
  readonly fields: readonly WireValue[];
}

/** An XML value on the wire (xmlElement, xmlNode): the element, read or checked (xml/value.ts). */
export interface WireXml {
  readonly xml: XmlElement;
}

/**
 * A value on the wire: the text of a scalar or enum, null for xsi:nil, undefined for an absent element or
 * field, the items of an array, the fields of a record, or an XML element.
 */
export type WireValue = string | null | undefined | readonly WireValue[] | WireFields | WireXml;

/** Why a wire value does not read as its type: "missing" (a required value absent or nil) or "invalid". */
export class TypedValueError extends Error {
  readonly kind: "missing" | "invalid";
  constructor(kind: "missing" | "invalid", message: string) {
    super(message);
    this.name = "TypedValueError";
    this.kind = kind;
  }
}

/** Whether a null of the type is a value .NET writes by leaving the element out (a reference type). */
export function isReference(type: TypeModel): boolean {
  return (
    type.kind === "record" ||
    type.kind === "array" ||
    type.kind === "xml" ||
    (type.kind === "scalar" && (type.type === "string" || type.type === "base64Binary"))
  );
}

/** Whether an array of the type holds null items (`nillable="true"` items: strings, byte arrays, records). */
export function nullableItems(item: TypeModel): boolean {
  return isReference(item);
}

/** The name of a type in messages. */
export function typeName(type: TypeModel): string {
  switch (type.kind) {
    case "scalar":
      return type.type;
    case "enum":
      return type.enum.name;
    case "record":
      return type.record.name;
    case "array":
      return type.typeName;
    case "xml":
      return type.mixed ? "xmlNode" : "xmlElement";
  }
}

/** Whether the element says xsi:nil="true" (or "1"). */
export function isNilElement(el: XmlElement): boolean {
  const nil = xsiAttr(el, "nil");
  return nil === "true" || nil === "1";
}

/** The value of the element's xsi attribute `local` (nil, type), if any. */
const xsiAttr = (el: XmlElement, local: string): string | undefined =>
  el.attrs.find((a) => a.local === local && a.ns === XSI_NS)?.value;

function isFields(wire: WireValue): wire is WireFields {
  return typeof wire === "object" && wire !== null && !Array.isArray(wire) && "fields" in wire;
}

function isXml(wire: WireValue): wire is WireXml {
  return typeof wire === "object" && wire !== null && !Array.isArray(wire) && "xml" in wire;
}

/**
 * Why the members present break an xs:choice: two alternatives of one choice (consecutive members with the
 * same `choice`) are both present. Undefined when none does (always, without choices: one pass, no
 * allocation).
 */
export function choiceClash(
  members: readonly { readonly name: string; readonly choice?: string }[],
  present: (index: number) => boolean,
): string | undefined {
  let group: string | undefined;
  let first = -1;
  for (let i = 0; i < members.length; i++) {
    const choice = members[i]!.choice;
    if (choice !== group) {
      group = choice;
      first = -1;
    }
    if (choice === undefined || !present(i)) continue;
    if (first >= 0)
      return `${members[first]!.name} and ${members[i]!.name} are alternatives of one choice (${choice}): at most one may be present`;
    first = i;
  }
  return undefined;
}

/** The one field a choice record's value holds (RecordModel.choice), or why it holds another number. */
export function choiceField(
  fields: readonly { readonly name: string }[],
  present: (index: number) => boolean,
): number | string {
  let found = -1;
  for (let i = 0; i < fields.length; i++) {
    if (!present(i)) continue;
    if (found >= 0) return `holds both ${fields[found]!.name} and ${fields[i]!.name}: exactly one is allowed`;
    found = i;
  }
  return found >= 0 ? found : `holds none of ${fields.map((f) => f.name).join(", ")}: exactly one is needed`;
}

/** Sets a key on a plain object, `__proto__` included (as an own property, never the prototype). */
export function setKey(target: Record<string, unknown>, key: string, value: unknown): void {
  if (key === "__proto__")
    Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  else target[key] = value;
}

// ---- XML -> wire ------------------------------------------------------------------------------------

const fieldIndexes = new WeakMap<RecordModel, Map<string, number>>();

/** Field name -> position, made once per record (the first field of a name wins). */
function fieldIndex(record: RecordModel): Map<string, number> {
  let index = fieldIndexes.get(record);
  if (index === undefined) {
    index = new Map();
    for (let i = 0; i < record.fields.length; i++)
      if (!index.has(record.fields[i]!.name)) index.set(record.fields[i]!.name, i);
    fieldIndexes.set(record, index);
  }
  return index;
}

/**
 * The text of an element holding a scalar or enum value. One holding elements is refused, as XmlSerializer
 * refuses it (ReadElementString reads text only): its text alone would be a value nobody sent.
 */
export function textOf(el: XmlElement): string {
  if (el.children.length > 0)
    throw new TypedValueError("invalid", `${el.local} holds XML elements where a text value is expected.`);
  return el.text;
}

/**
 * The wire form of an element holding a value of `type`: its text, null when nil, its items or fields.
 * Children in another namespace or of another name are skipped, as XmlSerializer skips unknown elements;
 * a field that repeats counts once (the first).
 */
export function wireOf(type: TypeModel, el: XmlElement, ns: string): WireValue {
  if (el.attrs.length > 0 && isNilElement(el)) return null;
  switch (type.kind) {
    case "scalar":
    case "enum":
      return textOf(el);
    case "array": {
      const items: WireValue[] = [];
      const children = el.children;
      if (type.item.kind === "record" && type.item.record.choice) {
        // A repeated choice: each child named as one of the alternatives is an item holding that one.
        const record = type.item.record;
        const index = fieldIndex(record);
        for (let k = 0; k < children.length; k++) {
          const c = children[k]!;
          const i = c.ns === ns ? index.get(c.local) : undefined;
          if (i === undefined) continue;
          const fields: WireValue[] = new Array(record.fields.length);
          const value = wireOf(record.fields[i]!.type, c, ns);
          if (value === null)
            throw new TypedValueError(
              "invalid",
              `${c.local} is nil, but an item of ${type.typeName} holds one of its alternatives.`,
            );
          fields[i] = value;
          items.push({ fields });
        }
        return items;
      }
      for (let i = 0; i < children.length; i++) {
        const c = children[i]!;
        if (c.local === type.itemElement && c.ns === ns) items.push(wireOf(type.item, c, ns));
      }
      return items;
    }
    case "record":
      return recordWire(type.record, el, ns);
    case "xml": {
      let xml: XmlElement | null;
      try {
        xml = xmlValueOf(el, el.local);
      } catch (error) {
        if (error instanceof XmlValueError) throw new TypedValueError("invalid", error.message);
        throw error;
      }
      return xml === null ? null : { xml };
    }
  }
}

/**
 * Why an element of a record cannot be read as it: its xsi:type names another type (a derived one, which the
 * spec cannot read as such; read as the declared record it would lose the derived fields). Undefined when
 * there is none or it names the record itself, compared by local name (the tree keeps no namespace
 * declarations to resolve a prefix with).
 */
export function otherRecordType(el: XmlElement, record: RecordModel): string | undefined {
  const type = xsiAttr(el, "type");
  return type === undefined || type.slice(type.indexOf(":") + 1) === record.name
    ? undefined
    : `xsi:type ${type} is not ${record.name}`;
}

/** The fields of a record element (its children by name), index-aligned with the record's fields. */
export function recordWire(record: RecordModel, el: XmlElement, ns: string): WireFields {
  const other = otherRecordType(el, record);
  if (other !== undefined) throw new TypedValueError("invalid", other);
  const fields = record.fields;
  const out: WireValue[] = new Array(fields.length);
  const seen: boolean[] = new Array(fields.length).fill(false);
  const index = fieldIndex(record);
  const children = el.children;
  for (let k = 0; k < children.length; k++) {
    const c = children[k]!;
    if (c.ns !== ns) continue;
    const i = index.get(c.local);
    if (i === undefined || seen[i]) continue;
    seen[i] = true;
    out[i] = wireOf(fields[i]!.type, c, ns);
  }
  return { fields: out };
}

// ---- wire -> values ---------------------------------------------------------------------------------

/** A value for a message: one line, at most 40 characters and "...". */
function shown(text: string): string {
  return oneLine(text, 40);
}

function convert(type: TypeModel & { kind: "scalar" }, text: string, label: string): unknown {
  if (type.type === "string") return text;
  try {
    return parseValue(type.type, text);
  } catch (error) {
    if (!(error instanceof ConversionError)) throw error;
    throw new TypedValueError("invalid", cannotConvert(type.type, text, label, error));
  }
}

/** `label` names the value in messages ("parameter ids[2]", "Address.Zip"). */
function enumValue(type: TypeModel & { kind: "enum" }, text: string, label: string): string | string[] {
  return enumValueOf(
    type.enum,
    text,
    (bad) =>
      new TypedValueError(
        "invalid",
        `Instance validation error: '${shown(bad)}' is not a valid value for ${type.enum.name} (${label}).`,
      ),
  );
}

/**
 * The value of a present wire value (not null or undefined: the caller decides what absence means for the
 * value itself) of `type`. Items and fields inside follow .NET's rules. Throws TypedValueError; `label`
 * names the value in its messages.
 */
export function readWire(type: TypeModel, wire: WireValue, label: string): unknown {
  switch (type.kind) {
    case "scalar":
      if (typeof wire !== "string")
        throw new TypedValueError("invalid", `${label} is not a ${type.type} value.`);
      return convert(type, wire, label);
    case "enum":
      if (typeof wire !== "string")
        throw new TypedValueError("invalid", `${label} is not a ${type.enum.name} value.`);
      return enumValue(type, wire, label);
    case "array": {
      if (!Array.isArray(wire))
        throw new TypedValueError("invalid", `${label} is not an array of ${typeName(type.item)}.`);
      const items = wire as readonly WireValue[];
      const out: unknown[] = new Array(items.length);
      for (let i = 0; i < items.length; i++) {
        const item = items[i];
        if (item === null || item === undefined) {
          if (!nullableItems(type.item)) {
            throw new TypedValueError(
              "invalid",
              `${label}[${i}] is nil, but ${typeName(type.item)} items cannot be null.`,
            );
          }
          out[i] = null;
        } else {
          out[i] = readWire(type.item, item, `${label}[${i}]`);
        }
      }
      return out;
    }
    case "record": {
      if (!isFields(wire)) throw new TypedValueError("invalid", `${label} is not a ${type.record.name}.`);
      return readFields(type.record, wire, label);
    }
    case "xml":
      // An empty holder reads as null (.NET's null XmlElement).
      if (wire === null) return null;
      if (!isXml(wire)) throw new TypedValueError("invalid", `${label} is not an XML element.`);
      return wire.xml;
  }
}

function readFields(record: RecordModel, wire: WireFields, label: string): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const fields = record.fields;
  const clash = choiceClash(fields, (i) => wire.fields[i] !== undefined);
  if (clash !== undefined) throw new TypedValueError("invalid", `${label}: ${clash}.`);
  for (let i = 0; i < fields.length; i++) {
    const field = fields[i]!;
    const value = wire.fields[i];
    if (value === undefined || value === null) {
      if (isReference(field.type)) continue;
      if (field.nullable) {
        setKey(out, field.name, null);
        continue;
      }
      throw new TypedValueError("missing", `${label}.${field.name} is missing.`);
    }
    setKey(out, field.name, readWire(field.type, value, `${label}.${field.name}`));
  }
  return out;
}

// ---- values -> wire ---------------------------------------------------------------------------------

/** Makes the error a formatter throws (a TypeError on the client, a ResultShapeError on the server). */
export type FormatFailure = (message: string) => Error;

/**
 * The wire form of a present value (not null or undefined) of `type`, checked: a value of the wrong kind
 * throws `fail` with a message naming `label`. Scalars are formatted here; enums, arrays and records by
 * the writers of typed-xml-write.ts, which the generated model registers (registerTypedWriters) when a
 * parameter has such a type (the server's result writers call them directly), so a client of scalar
 * parameters carries none of their code.
 */
export function formatWire(type: TypeModel, value: unknown, label: string, fail: FormatFailure): WireValue {
  if (type.kind !== "scalar") return registeredWriters(type).format(type, value, label, fail);
  try {
    return formatValue(type.type, value);
  } catch (error) {
    if (!(error instanceof ConversionError)) throw error;
    throw fail(`${label} ${error.message}`);
  }
}

/** formatWire and wireXml for enums, arrays and records (typed-xml-write.ts's typedWriters). */
export interface TypedWriters {
  readonly format: (type: TypeModel, value: unknown, label: string, fail: FormatFailure) => WireValue;
  readonly xml: (
    name: string,
    type: TypeModel,
    wire: WireValue,
    pretty: boolean,
    depth: number,
    attrs?: string,
  ) => string;
}

let registered: TypedWriters | undefined;

/** Adds the writers of enums, arrays and records; the generated model calls it when a parameter needs them. */
export function registerTypedWriters(typed: TypedWriters): void {
  registered = typed;
}

/**
 * The registered writers of enum, array and record values (the client's writeParams and SOAP request call
 * them for such a parameter; scalars need none), or a TypeError naming what to register. All a client of
 * scalar parameters carries of them.
 */
export function registeredWriters(type: TypeModel): TypedWriters {
  if (registered === undefined)
    throw new TypeError(`no writer of ${type.kind} values (registerTypedWriters with typed-xml-write.js)`);
  return registered;
}

// ---- wire -> XML ------------------------------------------------------------------------------------

const NIL = ' xsi:nil="true" />';

/** The line break and indentation before an element at `depth` (indented layout), "" compact. */
export function lineBefore(pretty: boolean, depth: number): string {
  return pretty ? `\n${"  ".repeat(depth)}` : "";
}

/**
 * The element `name` holding a wire value of `type`, in the compact (SOAP) or indented (HTTP) layout, the
 * element at `depth`; "" for an absent value (left out). `attrs` go on this element only (raw markup
 * starting with a space). xsi must be declared by an ancestor or in `attrs`. Throws RangeError for a string
 * XML cannot carry.
 */
export function wireXml(
  name: string,
  type: TypeModel,
  wire: WireValue,
  pretty: boolean,
  depth: number,
  attrs = "",
): string {
  if (wire === undefined) return "";
  const before = depth === 0 ? "" : lineBefore(pretty, depth);
  if (wire === null) return `${before}<${name}${attrs}${NIL}`;
  if (typeof wire === "string") {
    return wire === ""
      ? `${before}<${name}${attrs} />`
      : `${before}<${name}${attrs}>${escapeText(wire)}</${name}>`;
  }
  return registeredWriters(type).xml(name, type, wire, pretty, depth, attrs);
}
