// How each SOAP type appears in generated TypeScript, in one table: generated/types.ts is emitted from it
// and generated/README.md prints it, so the two cannot disagree. It matches runtime/codec/values.ts.

import type { SoapType, TypeModel } from "../../runtime/model.js";
import { isValueType } from "../../runtime/codec/values.js";
import { typeScriptTypeName } from "../reserved-names.js";

export interface ValueMapping {
  /** Type of a decoded value: record fields, DataSet cells, scalar results. */
  readonly result: string;
  /** Type a caller passes as a parameter. */
  readonly param: string;
  /** The rule for decoded values, one sentence. */
  readonly resultNote: string;
  /** The rule for parameters, one sentence. */
  readonly paramNote: string;
}

const same = (result: string, note: string) => ({ result, param: result, resultNote: note, paramNote: note });

export const VALUE_MAPPING: Readonly<Record<SoapType, ValueMapping>> = {
  string: same("string", 'A null string (element omitted) is an absent property, distinct from "".'),
  int: same("number", "A 32-bit whole number; values outside that range are refused."),
  long: same("bigint", "Every 64-bit value round-trips exactly, 9223372036854775807 included."),
  double: same("number", "INF, -INF and NaN are Infinity, -Infinity and NaN."),
  decimal: same("string", "The decimal text exactly as on the wire (98.25), never a binary float."),
  dateTime: {
    result: "string",
    param: "string | Date",
    resultNote: "The xs:dateTime text exactly as on the wire, never shifted to another time zone.",
    paramNote: "xs:dateTime text, sent as given (never shifted), or a Date, sent as its UTC instant.",
  },
  boolean: same("boolean", "true or false."),
  float: same(
    "number",
    "A single-precision value (Math.fround), written as .NET writes it (R format); INF, -INF and NaN are Infinity, -Infinity and NaN.",
  ),
  byte: same("number", "A signed 8-bit whole number (xs:byte, .NET sbyte): -128 to 127."),
  unsignedByte: same("number", "An unsigned 8-bit whole number (.NET byte): 0 to 255."),
  short: same("number", "A 16-bit whole number: -32768 to 32767."),
  unsignedShort: same("number", "An unsigned 16-bit whole number: 0 to 65535."),
  unsignedInt: same("number", "An unsigned 32-bit whole number: 0 to 4294967295."),
  unsignedLong: same(
    "bigint",
    "Every unsigned 64-bit value round-trips exactly, 18446744073709551615 included.",
  ),
  base64Binary: same(
    "Uint8Array",
    "The bytes (.NET byte[]), base64 on the wire; a null array (element omitted) is an absent property.",
  ),
  guid: same(
    "string",
    "The guid as text, lower case in the 8-4-4-4-12 form as .NET writes it; other .NET forms are read.",
  ),
  char: same("string", "One UTF-16 unit (.NET char); the wire carries its code as a number (65 for A)."),
};

/**
 * The TypeScript type of a value of a TypeModel: `side` "result" for what is read (record fields, results),
 * "param" for what a caller passes (dateTime also takes a Date; arrays are readonly).
 */
export function tsType(type: TypeModel, side: "result" | "param"): string {
  switch (type.kind) {
    case "scalar":
      return VALUE_MAPPING[type.type][side];
    case "enum":
      return typeScriptTypeName(type.enum.name);
    case "record":
      return typeScriptTypeName(type.record.name);
    case "xml":
      return "XmlElement";
    case "array": {
      // A string, byte-array or record item can be nil (`nillable="true"` items); typed-xml reads it as null.
      const item = tsType(type.item, side) + (isValueType(type.item) ? "" : " | null");
      const element = /^[A-Za-z_$][\w$]*$/.test(item) ? `${item}[]` : `(${item})[]`;
      return side === "param" ? `readonly ${element}` : element;
    }
  }
}
