// The writing half of typed-xml.ts for enums, arrays and records: their checked wire form
// (formatTyped) and their markup (typedXml). The server's result writers call these directly; a client
// needs them only for parameters of such types, so typed-xml.ts's formatWire and wireXml reach them through
// registerTypedWriters, which the generated model calls (with typedWriters) only when a parameter has such
// a type: a client of scalar parameters carries none of this code. Walks follow the type (depth is the
// model's nesting, at most MAX_VALUE_DEPTH for a record that holds itself), lengths the value's items.

import type { TypeModel } from "../model.js";
import {
  choiceClash,
  choiceField,
  formatWire,
  isReference,
  lineBefore,
  nullableItems,
  typeName,
  wireXml,
  type FormatFailure,
  type TypedWriters,
  type WireFields,
  type WireValue,
  type WireXml,
} from "./typed-xml.js";
import { checkXmlValue, xmlValueMarkup } from "../xml/value.js";
import { enumExpected, enumText } from "./enum-text.js";

/**
 * How deep arrays and records may nest in a value written: a record may hold itself (a tree of items), so a
 * value built in a loop, or one that holds itself, would otherwise never end. Far deeper than any reader
 * takes (their XML nesting limit is 32 by default).
 */
const MAX_VALUE_DEPTH = 64;

/**
 * The wire form of a present value (not null or undefined) of any type, checked: a value of the wrong kind
 * throws `fail` with a message naming `label`. Null items and fields inside follow .NET's rules. `depth`:
 * the arrays and records around it (at most MAX_VALUE_DEPTH).
 */
export function formatTyped(
  type: TypeModel,
  value: unknown,
  label: string,
  fail: FormatFailure,
  depth = 0,
): WireValue {
  if (depth > MAX_VALUE_DEPTH && (type.kind === "array" || type.kind === "record"))
    throw fail(`${label} nests arrays and records more than ${MAX_VALUE_DEPTH} deep (does it hold itself?)`);
  switch (type.kind) {
    case "scalar":
      return formatWire(type, value, label, fail);
    case "enum": {
      const text = enumText(type.enum, value);
      if (text !== undefined) return text;
      throw fail(`${label} is not a valid value for ${type.enum.name} (${enumExpected(type.enum)})`);
    }
    case "array": {
      if (!Array.isArray(value)) throw fail(`${label} is not an array`);
      const out: WireValue[] = new Array(value.length);
      for (let i = 0; i < value.length; i++) {
        const item: unknown = value[i];
        if (item === null || item === undefined) {
          if (type.item.kind === "record" && type.item.record.choice)
            throw fail(
              `${label}[${i}] is null, but an item of ${type.typeName} holds one of its alternatives`,
            );
          if (!nullableItems(type.item))
            throw fail(`${label}[${i}] is null, but ${typeName(type.item)} items cannot be null`);
          out[i] = null;
        } else {
          out[i] = formatTyped(type.item, item, `${label}[${i}]`, fail, depth + 1);
        }
      }
      return out;
    }
    case "record": {
      if (typeof value !== "object" || value === null || Array.isArray(value))
        throw fail(`${label} is not a ${type.record.name} object`);
      const source = value as Readonly<Record<string, unknown>>;
      const fields = type.record.fields;
      const out: WireValue[] = new Array(fields.length);
      for (let i = 0; i < fields.length; i++) {
        const field = fields[i]!;
        const v = Object.hasOwn(source, field.name) ? source[field.name] : undefined;
        if (v === null || v === undefined) {
          if (isReference(field.type)) out[i] = undefined;
          else if (field.nullable) out[i] = null;
          else throw fail(`${label}.${field.name} is missing`);
        } else {
          out[i] = formatTyped(field.type, v, `${label}.${field.name}`, fail, depth + 1);
        }
      }
      if (type.record.choice) {
        const one = choiceField(fields, (i) => out[i] !== undefined);
        if (typeof one === "string") throw fail(`${label} ${one}`);
      } else {
        const clash = choiceClash(fields, (i) => out[i] !== undefined);
        if (clash !== undefined) throw fail(`${label}: ${clash}`);
      }
      return { fields: out };
    }
    case "xml":
      return { xml: checkXmlValue(value, label, fail) };
  }
}

/**
 * The element `name` holding a wire value of any type, as typed-xml.ts's wireXml describes it, arrays and
 * records included (one child per item, one per field in field order).
 */
export function typedXml(
  name: string,
  type: TypeModel,
  wire: WireValue,
  pretty: boolean,
  depth: number,
  attrs = "",
): string {
  if (wire === undefined || wire === null || typeof wire === "string")
    return wireXml(name, type, wire, pretty, depth, attrs);
  const before = depth === 0 ? "" : lineBefore(pretty, depth);
  if (type.kind === "xml") {
    // The element holding the value, the value inside it (checked by formatTyped).
    const value = xmlValueMarkup((wire as WireXml).xml, name, pretty, depth + 1, (m) => new RangeError(m));
    return `${before}<${name}${attrs}>${lineBefore(pretty, depth + 1)}${value}${lineBefore(pretty, depth)}</${name}>`;
  }
  let inner = "";
  if (type.kind === "array") {
    const items = wire as readonly WireValue[];
    const item = type.item;
    if (item.kind === "record" && item.record.choice) {
      // A repeated choice: each item is the element of the one alternative it holds.
      const fields = item.record.fields;
      for (let i = 0; i < items.length; i++) {
        const values = (items[i] as WireFields).fields;
        for (let f = 0; f < fields.length; f++)
          inner += typedXml(fields[f]!.name, fields[f]!.type, values[f], pretty, depth + 1);
      }
    } else {
      for (let i = 0; i < items.length; i++)
        inner += typedXml(type.itemElement, item, items[i], pretty, depth + 1);
    }
  } else if (type.kind === "record") {
    const fields = type.record.fields;
    const values = (wire as WireFields).fields;
    for (let i = 0; i < fields.length; i++)
      inner += typedXml(fields[i]!.name, fields[i]!.type, values[i], pretty, depth + 1);
  } else {
    throw new RangeError(`${name} holds a ${typeName(type)}, not items or fields.`);
  }
  if (inner === "") return `${before}<${name}${attrs} />`;
  return `${before}<${name}${attrs}>${inner}${lineBefore(pretty, depth)}</${name}>`;
}

/** The writers for registerTypedWriters (typed-xml.ts). */
export const typedWriters: TypedWriters = { format: formatTyped, xml: typedXml };
