// The value mapping (generated/types.ts and generated/README.md are emitted from it) given/want per SOAP type,
// and held to what runtime/values.ts really produces, so the table cannot drift from the codec.

import { describe, expect, it } from "vitest";
import { VALUE_MAPPING } from "../../../generator/emit/value-mapping.js";
import type { SoapType } from "../../../runtime/model.js";
import { formatValue, parseValue } from "../../../runtime/values.js";

describe("VALUE_MAPPING", () => {
  it.each<{ type: SoapType; result: string; param: string; wire: string; paramValues: unknown[] }>([
    { type: "string", result: "string", param: "string", wire: "x", paramValues: ["x"] },
    { type: "int", result: "number", param: "number", wire: "-5", paramValues: [-5] },
    { type: "long", result: "bigint", param: "bigint", wire: "9223372036854775807", paramValues: [9223372036854775807n] },
    { type: "double", result: "number", param: "number", wire: "INF", paramValues: [Infinity] },
    { type: "decimal", result: "string", param: "string", wire: "98.25", paramValues: ["98.25"] },
    { type: "dateTime", result: "string", param: "string | Date", wire: "2024-05-06T07:08:09+02:00", paramValues: ["2024-05-06T07:08:09", new Date(0)] },
    { type: "boolean", result: "boolean", param: "boolean", wire: "true", paramValues: [true] },
  ])("$type: decoded as $result, passed as $param", ({ type, result, param, wire, paramValues }) => {
    expect({ result: VALUE_MAPPING[type].result, param: VALUE_MAPPING[type].param }).toEqual({ result, param });
    // What the codec decodes has the result type's runtime type.
    expect(typeof parseValue(type, wire)).toBe(result);
    // Every member of the param type is accepted by the encoder.
    for (const value of paramValues) expect(typeof formatValue(type, value)).toBe("string");
  });

  it("says each type's rule in these exact sentences (generated/README.md prints them)", () => {
    const notes = Object.fromEntries(Object.entries(VALUE_MAPPING).map(([type, m]) => [type, [m.resultNote, m.paramNote]]));
    expect(notes).toEqual({
      string: ['A null string (element omitted) is an absent property, distinct from "".', 'A null string (element omitted) is an absent property, distinct from "".'],
      int: ["A 32-bit whole number; values outside that range are refused.", "A 32-bit whole number; values outside that range are refused."],
      long: ["Every 64-bit value round-trips exactly, 9223372036854775807 included.", "Every 64-bit value round-trips exactly, 9223372036854775807 included."],
      double: ["INF, -INF and NaN are Infinity, -Infinity and NaN.", "INF, -INF and NaN are Infinity, -Infinity and NaN."],
      decimal: ["The decimal text exactly as on the wire (98.25), never a binary float.", "The decimal text exactly as on the wire (98.25), never a binary float."],
      dateTime: [
        "The xs:dateTime text exactly as on the wire, never shifted to another time zone.",
        "xs:dateTime text, sent as given (never shifted), or a Date, sent as its UTC instant.",
      ],
      boolean: ["true or false.", "true or false."],
    });
  });
});
