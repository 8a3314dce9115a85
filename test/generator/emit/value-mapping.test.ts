// The value mapping (generated/types.ts and generated/README.md are emitted from it) given/want per SOAP type,
// and held to what runtime/codec/values.ts really produces, so the table cannot drift from the codec.

import { describe, expect, it } from "vitest";
// The float, unsignedLong, guid, char and base64Binary codecs (the generated model registers them).
import "../../../runtime/codec/values-extra.js";
import { VALUE_MAPPING } from "../../../generator/emit/value-mapping.js";
import type { SoapType } from "../../../runtime/model.js";
import { formatValue, parseValue } from "../../../runtime/codec/values.js";

describe("VALUE_MAPPING", () => {
  it.each<{ type: SoapType; result: string; param: string; wire: string; paramValues: unknown[] }>([
    { type: "string", result: "string", param: "string", wire: "x", paramValues: ["x"] },
    { type: "int", result: "number", param: "number", wire: "-5", paramValues: [-5] },
    {
      type: "long",
      result: "bigint",
      param: "bigint",
      wire: "9223372036854775807",
      paramValues: [9223372036854775807n],
    },
    { type: "double", result: "number", param: "number", wire: "INF", paramValues: [Infinity] },
    { type: "decimal", result: "string", param: "string", wire: "98.25", paramValues: ["98.25"] },
    {
      type: "dateTime",
      result: "string",
      param: "string | Date",
      wire: "2024-05-06T07:08:09+02:00",
      paramValues: ["2024-05-06T07:08:09", new Date(0)],
    },
    { type: "boolean", result: "boolean", param: "boolean", wire: "true", paramValues: [true] },
    { type: "float", result: "number", param: "number", wire: "0.1", paramValues: [0.1, Math.fround(0.1)] },
    { type: "byte", result: "number", param: "number", wire: "-128", paramValues: [-128] },
    { type: "unsignedByte", result: "number", param: "number", wire: "255", paramValues: [255] },
    { type: "short", result: "number", param: "number", wire: "-32768", paramValues: [-32768] },
    { type: "unsignedShort", result: "number", param: "number", wire: "65535", paramValues: [65535] },
    { type: "unsignedInt", result: "number", param: "number", wire: "4294967295", paramValues: [4294967295] },
    {
      type: "unsignedLong",
      result: "bigint",
      param: "bigint",
      wire: "18446744073709551615",
      paramValues: [18446744073709551615n],
    },
    {
      type: "guid",
      result: "string",
      param: "string",
      wire: "0f8fad5b-d9cb-469f-a165-70867728950e",
      paramValues: ["0F8FAD5B-D9CB-469F-A165-70867728950E"],
    },
    { type: "char", result: "string", param: "string", wire: "65", paramValues: ["A"] },
  ])("$type: decoded as $result, passed as $param", ({ type, result, param, wire, paramValues }) => {
    expect({ result: VALUE_MAPPING[type].result, param: VALUE_MAPPING[type].param }).toEqual({
      result,
      param,
    });
    // What the codec decodes has the result type's runtime type.
    expect(typeof parseValue(type, wire)).toBe(result);
    // Every member of the param type is accepted by the encoder.
    for (const value of paramValues) expect(typeof formatValue(type, value)).toBe("string");
  });

  it("says each type's rule in these exact sentences (generated/README.md prints them)", () => {
    const notes = Object.fromEntries(
      Object.entries(VALUE_MAPPING).map(([type, m]) => [type, [m.resultNote, m.paramNote]]),
    );
    expect(notes).toEqual({
      string: [
        'A null string (element omitted) is an absent property, distinct from "".',
        'A null string (element omitted) is an absent property, distinct from "".',
      ],
      int: [
        "A 32-bit whole number; values outside that range are refused.",
        "A 32-bit whole number; values outside that range are refused.",
      ],
      long: [
        "Every 64-bit value round-trips exactly, 9223372036854775807 included.",
        "Every 64-bit value round-trips exactly, 9223372036854775807 included.",
      ],
      double: [
        "INF, -INF and NaN are Infinity, -Infinity and NaN.",
        "INF, -INF and NaN are Infinity, -Infinity and NaN.",
      ],
      decimal: [
        "The decimal text exactly as on the wire (98.25), never a binary float.",
        "The decimal text exactly as on the wire (98.25), never a binary float.",
      ],
      dateTime: [
        "The xs:dateTime text exactly as on the wire, never shifted to another time zone.",
        "xs:dateTime text, sent as given (never shifted), or a Date, sent as its UTC instant.",
      ],
      boolean: ["true or false.", "true or false."],
      float: [
        "A single-precision value (Math.fround), written as .NET writes it (R format); INF, -INF and NaN are Infinity, -Infinity and NaN.",
        "A single-precision value (Math.fround), written as .NET writes it (R format); INF, -INF and NaN are Infinity, -Infinity and NaN.",
      ],
      byte: [
        "A signed 8-bit whole number (xs:byte, .NET sbyte): -128 to 127.",
        "A signed 8-bit whole number (xs:byte, .NET sbyte): -128 to 127.",
      ],
      unsignedByte: [
        "An unsigned 8-bit whole number (.NET byte): 0 to 255.",
        "An unsigned 8-bit whole number (.NET byte): 0 to 255.",
      ],
      short: ["A 16-bit whole number: -32768 to 32767.", "A 16-bit whole number: -32768 to 32767."],
      unsignedShort: [
        "An unsigned 16-bit whole number: 0 to 65535.",
        "An unsigned 16-bit whole number: 0 to 65535.",
      ],
      unsignedInt: [
        "An unsigned 32-bit whole number: 0 to 4294967295.",
        "An unsigned 32-bit whole number: 0 to 4294967295.",
      ],
      unsignedLong: [
        "Every unsigned 64-bit value round-trips exactly, 18446744073709551615 included.",
        "Every unsigned 64-bit value round-trips exactly, 18446744073709551615 included.",
      ],
      base64Binary: [
        "The bytes (.NET byte[]), base64 on the wire; a null array (element omitted) is an absent property.",
        "The bytes (.NET byte[]), base64 on the wire; a null array (element omitted) is an absent property.",
      ],
      guid: [
        "The guid as text, lower case in the 8-4-4-4-12 form as .NET writes it; other .NET forms are read.",
        "The guid as text, lower case in the 8-4-4-4-12 form as .NET writes it; other .NET forms are read.",
      ],
      char: [
        "One UTF-16 unit (.NET char); the wire carries its code as a number (65 for A).",
        "One UTF-16 unit (.NET char); the wire carries its code as a number (65 for A).",
      ],
    });
  });

  it("decodes base64Binary as a Uint8Array, the type the table names", () => {
    expect(VALUE_MAPPING.base64Binary).toMatchObject({ result: "Uint8Array", param: "Uint8Array" });
    expect(parseValue("base64Binary", "AAE=")).toBeInstanceOf(Uint8Array);
    expect(formatValue("base64Binary", new Uint8Array([0, 1]))).toBe("AAE=");
  });
});
