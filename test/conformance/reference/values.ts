// Wire text to the value a typed caller sees (docs/wire.md §6, docs/generated-code.md "Value mapping"): int → number,
// long → bigint, double → number (INF, -INF, NaN), decimal and dateTime → the text itself. Throws for
// text that is not a value of its type, which is also how the remote mode checks that values convert.

import type { RefType } from "./spec.js";

const INTEGER = /^-?\d+$/;
const DOUBLE = /^-?(\d+(\.\d*)?|\.\d+)([eE][-+]?\d+)?$/;
const DECIMAL = /^-?(\d+(\.\d*)?|\.\d+)$/;
const DATE_TIME =
  /^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])T([01]\d|2[0-3]):[0-5]\d:[0-5]\d(\.\d+)?(Z|[-+](0\d|1[0-4]):[0-5]\d)?$/;

export type TypedValue = string | number | bigint | boolean;

class NotConvertible extends Error {}

function integer(text: string, min: bigint, max: bigint, type: RefType): bigint {
  const n = INTEGER.test(text) ? BigInt(text) : undefined;
  if (n === undefined || n < min || n > max)
    throw new NotConvertible(`'${text}' does not convert to ${type}`);
  return n;
}

export function typedValue(type: RefType, text: string): TypedValue {
  switch (type) {
    case "string":
      return text;
    case "int":
      return Number(integer(text, -(2n ** 31n), 2n ** 31n - 1n, type));
    case "long":
      return integer(text, -(2n ** 63n), 2n ** 63n - 1n, type);
    case "double":
      if (text === "INF") return Infinity;
      if (text === "-INF") return -Infinity;
      if (text === "NaN") return NaN;
      if (!DOUBLE.test(text)) throw new NotConvertible(`'${text}' does not convert to double`);
      return Number(text);
    case "decimal":
      if (!DECIMAL.test(text)) throw new NotConvertible(`'${text}' does not convert to decimal`);
      return text;
    case "dateTime":
      if (!DATE_TIME.test(text)) throw new NotConvertible(`'${text}' does not convert to dateTime`);
      return text;
    case "boolean":
      if (text === "true" || text === "1") return true;
      if (text === "false" || text === "0") return false;
      throw new NotConvertible(`'${text}' does not convert to boolean`);
  }
}
