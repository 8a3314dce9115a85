// The codecs of the scalar types few services use (float, byte, unsignedByte, short, unsignedShort,
// unsignedInt, unsignedLong, guid, char, base64Binary), kept out of values.ts so that a client bundle of a
// service without them carries none of their code: the generated model of a service that uses one passes
// extraScalarCodecs to registerScalarCodecs (importing this module also registers them). The value
// mapping table (easgen docs/generated-code.md) says what each becomes.

import {
  ConversionError,
  formatWhole,
  parseWhole,
  registerScalarCodecs,
  type ScalarCodecs,
} from "./values.js";

const INT_RE = /^[+-]?\d+$/;
const DOUBLE_RE = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$/;
const UINT64_MAX = 18446744073709551615n;

/** XML Schema collapses surrounding whitespace of non-string values. */
function trimXml(text: string): string {
  return text.trim();
}

function parseUInt64(text: string): bigint {
  const t = trimXml(text);
  if (!INT_RE.test(t)) throw new ConversionError("unsignedLong", "is not a whole number");
  const n = BigInt(t);
  if (n < 0n || n > UINT64_MAX)
    throw new ConversionError("unsignedLong", "is outside the unsigned 64-bit integer range");
  return n;
}

function formatUInt64(value: unknown): string {
  const n = typeof value === "number" && Number.isSafeInteger(value) ? BigInt(value) : value;
  if (typeof n !== "bigint") throw new ConversionError("unsignedLong", "is not a bigint or a safe integer");
  if (n < 0n || n > UINT64_MAX)
    throw new ConversionError("unsignedLong", "is outside the unsigned 64-bit integer range");
  return n.toString();
}

/** xs:float: a number holding the single-precision value (Math.fround); values past ±3.4028235E+38 are refused. */
function parseFloat32(text: string): number {
  const t = trimXml(text);
  // .NET's spellings too, as XmlConvert reads them (it falls back to Double.Parse).
  if (t === "INF" || t === "Infinity") return Infinity;
  if (t === "-INF" || t === "-Infinity") return -Infinity;
  if (t === "NaN") return NaN;
  if (!DOUBLE_RE.test(t)) throw new ConversionError("float", "is not a number");
  const n = Math.fround(Number(t));
  if (!Number.isFinite(n)) throw new ConversionError("float", "is outside the single-precision range");
  return n;
}

/**
 * .NET Framework's Single.ToString("R") (XmlConvert.ToString(float)): 7 significant digits when they read
 * back as the same single, else 9; exponent form (`1E+07`, `1.5E-05`) when the exponent is at least that
 * precision or below -4.
 */
function formatFloat32(value: unknown): string {
  if (typeof value !== "number") throw new ConversionError("float", "is not a number");
  if (Number.isNaN(value)) return "NaN";
  if (value === Infinity) return "INF";
  if (value === -Infinity) return "-INF";
  const single = Math.fround(value);
  if (!Number.isFinite(single)) throw new ConversionError("float", "is outside the single-precision range");
  if (single === 0) return Object.is(single, -0) ? "-0" : "0";
  let precision = 7;
  let text = single.toExponential(6);
  if (Math.fround(Number(text)) !== single) {
    precision = 9;
    text = single.toExponential(8);
  }
  const [mantissa, exponentText] = text.split("e") as [string, string];
  const exponent = Number(exponentText);
  const negative = mantissa.startsWith("-");
  const digits = mantissa.replace(/[-.]/g, "").replace(/0+$/, "") || "0";
  const sign = negative ? "-" : "";
  if (exponent >= precision || exponent < -4) {
    const rest = digits.length > 1 ? `.${digits.slice(1)}` : "";
    return `${sign}${digits[0]}${rest}E${exponent < 0 ? "-" : "+"}${String(Math.abs(exponent)).padStart(2, "0")}`;
  }
  if (exponent < 0) return `${sign}0.${"0".repeat(-exponent - 1)}${digits}`;
  const whole = digits.slice(0, exponent + 1).padEnd(exponent + 1, "0");
  const fraction = digits.slice(exponent + 1);
  return `${sign}${whole}${fraction === "" ? "" : `.${fraction}`}`;
}

const GUID_D_RE = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;
const GUID_N_RE = /^[0-9a-fA-F]{32}$/;

/**
 * A guid in the forms .NET's Guid(string) reads (`D` 8-4-4-4-12, `N` 32 digits, `B` {D}, `P` (D)), as
 * .NET writes it back: the D form in lower case.
 */
function parseGuid(text: string): string {
  let t = trimXml(text);
  if (t.length === 38 && ((t[0] === "{" && t[37] === "}") || (t[0] === "(" && t[37] === ")")))
    t = t.slice(1, 37);
  if (GUID_D_RE.test(t)) return t.toLowerCase();
  if (GUID_N_RE.test(t)) {
    const h = t.toLowerCase();
    return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
  }
  throw new ConversionError("guid", "is not a guid of the form xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx");
}

function formatGuid(value: unknown): string {
  if (typeof value !== "string") throw new ConversionError("guid", "is not a string");
  return parseGuid(value);
}

/** .NET writes a char as its UTF-16 code (an unsignedShort); the value is the one-unit string. */
function parseChar(text: string): string {
  const t = trimXml(text);
  if (!INT_RE.test(t)) throw new ConversionError("char", "is not a character code (a whole number)");
  const n = Number(t);
  if (n < 0 || n > 0xffff)
    throw new ConversionError("char", "is outside the character code range 0 to 65535");
  return String.fromCharCode(n);
}

function formatChar(value: unknown): string {
  if (typeof value !== "string" || value.length !== 1) {
    throw new ConversionError("char", "is not a string of one UTF-16 unit");
  }
  return String(value.charCodeAt(0));
}

const BASE64_ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
/** Character code -> 6-bit value; -1 for a character that is not in the alphabet. */
const BASE64_VALUES = (() => {
  const table = new Int8Array(128).fill(-1);
  for (let i = 0; i < 64; i++) table[BASE64_ALPHABET.charCodeAt(i)] = i;
  return table;
})();

function isXmlSpace(code: number): boolean {
  return code === 32 || code === 9 || code === 10 || code === 13;
}

/**
 * xs:base64Binary: the standard alphabet in groups of four, `=` padding only at the end, XML whitespace
 * allowed anywhere (XML Schema's lexical space collapses it). One pass, no intermediate string.
 */
function parseBase64(text: string): Uint8Array {
  let count = 0;
  let padding = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (isXmlSpace(c)) continue;
    if (c === 61 /* = */) {
      padding++;
    } else if (padding > 0 || c >= 128 || BASE64_VALUES[c]! < 0) {
      throw new ConversionError(
        "base64Binary",
        padding > 0 ? "has base64 text after its = padding" : "is not base64 text",
      );
    }
    count++;
  }
  if (count % 4 !== 0 || padding > 2)
    throw new ConversionError("base64Binary", "is not base64 text (its length is not a multiple of 4)");
  const out = new Uint8Array((count / 4) * 3 - padding);
  let bits = 0;
  let held = 0;
  let at = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (isXmlSpace(c) || c === 61) continue;
    bits = (bits << 6) | BASE64_VALUES[c]!;
    held += 6;
    if (held >= 8) {
      held -= 8;
      out[at++] = (bits >> held) & 0xff;
    }
  }
  return out;
}

function formatBase64(value: unknown): string {
  if (!(value instanceof Uint8Array)) throw new ConversionError("base64Binary", "is not a Uint8Array");
  const parts: string[] = [];
  let chunk = "";
  const n = value.length;
  for (let i = 0; i < n; i += 3) {
    const a = value[i]!;
    const b = i + 1 < n ? value[i + 1]! : 0;
    const c = i + 2 < n ? value[i + 2]! : 0;
    chunk +=
      BASE64_ALPHABET[a >> 2]! +
      BASE64_ALPHABET[((a & 3) << 4) | (b >> 4)]! +
      (i + 1 < n ? BASE64_ALPHABET[((b & 15) << 2) | (c >> 6)]! : "=") +
      (i + 2 < n ? BASE64_ALPHABET[c & 63]! : "=");
    if (chunk.length >= 4096) {
      parts.push(chunk);
      chunk = "";
    }
  }
  parts.push(chunk);
  return parts.join("");
}

/** The codec of a whole-number type held in a number: its range and the words of the range error. */
function whole(
  type: "byte" | "unsignedByte" | "short" | "unsignedShort" | "unsignedInt",
  min: number,
  max: number,
  range: string,
) {
  return {
    parse: (text: string) => parseWhole(type, text, min, max, range),
    format: (value: unknown) => formatWhole(type, value, min, max, range),
  };
}

/**
 * The codecs of float, the small and unsigned integers, unsignedLong, guid, char and base64Binary, for registerScalarCodecs.
 *
 * @codegen generated code imports it (test/repo/knip.test.ts)
 */
export const extraScalarCodecs: ScalarCodecs = {
  float: { parse: parseFloat32, format: formatFloat32 },
  byte: whole("byte", -128, 127, "8-bit integer"),
  unsignedByte: whole("unsignedByte", 0, 255, "unsigned 8-bit integer"),
  short: whole("short", -32768, 32767, "16-bit integer"),
  unsignedShort: whole("unsignedShort", 0, 65535, "unsigned 16-bit integer"),
  unsignedInt: whole("unsignedInt", 0, 4294967295, "unsigned 32-bit integer"),
  unsignedLong: { parse: parseUInt64, format: formatUInt64 },
  guid: { parse: parseGuid, format: formatGuid },
  char: { parse: parseChar, format: formatChar },
  base64Binary: { parse: parseBase64, format: formatBase64 },
};

registerScalarCodecs(extraScalarCodecs);
