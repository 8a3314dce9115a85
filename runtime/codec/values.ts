// Text <-> value conversion for every SOAP type, lossless by rule (the value mapping table, easgen docs/generated-code.md):
// long is bigint, decimal stays exact text, dateTime stays the text that was sent (never shifted).
// float is a number holding a single-precision value, unsignedLong a bigint, guid lower-case text, char a
// one-UTF-16-unit string (its wire text is the code as a number), base64Binary a Uint8Array.

import type { SoapType, TextFormat, TypeModel } from "../model.js";
import { oneLine } from "../safe-error.js";

/** The XML Schema instance namespace (xsi:nil, xsi:type), as every binding's documents declare it. */
export const XSI_NS = "http://www.w3.org/2001/XMLSchema-instance";
/** The XML Schema namespace: the SOAP types are its types (xsd:int, ...). */
export const XSD_NS = "http://www.w3.org/2001/XMLSchema";

/** Thrown when text does not parse as its SOAP type; `reason` completes "the value ...". */
export class ConversionError extends Error {
  // Declared, set in the constructor: a bundle carries no field definition.
  declare readonly soapType: SoapType;
  constructor(soapType: SoapType, reason: string) {
    super(reason);
    this.name = "ConversionError";
    this.soapType = soapType;
  }
}

/** The .NET names that are not the SOAP type's name capitalized (an unsigned one adds a U to its signed one's). */
const DOT_NET: Partial<Record<string, string>> = {
  float: "Single",
  byte: "SByte",
  unsignedByte: "Byte",
  short: "Int16",
  int: "Int32",
  long: "Int64",
  base64Binary: "Byte[]",
};

/**
 * The .NET type name ASMX uses in "Cannot convert x to System.Int32." messages: System.Int32 for int,
 * System.UInt64 for unsignedLong, System.Byte[] for base64Binary. Derived rather than tabled, so that a
 * client bundle carries no table of every type.
 */
export function dotNetTypeName(type: SoapType): string {
  // Groups: "unsigned" (but for unsignedByte), then the first letter and the rest of the signed name.
  const [, unsigned, first, rest] = /^(unsigned(?!Byte))?(.)(.*)$/.exec(type)!;
  return `System.${unsigned ? "U" : ""}${DOT_NET[first!.toLowerCase() + rest] ?? first!.toUpperCase() + rest}`;
}

/** ASMX's words for a text that does not convert to `type`; `label` names the value (`OpResult[2].Id`). */
export function cannotConvert(type: SoapType, text: string, label: string, error: ConversionError): string {
  return `Cannot convert '${oneLine(text, 40)}' to ${dotNetTypeName(type)} for ${label}: the value ${error.message}.`;
}

/** What a decoded value of each SOAP type is in TypeScript. */
export interface SoapValueTypes {
  string: string;
  boolean: boolean;
  float: number;
  double: number;
  decimal: string;
  dateTime: string;
  byte: number;
  unsignedByte: number;
  short: number;
  unsignedShort: number;
  int: number;
  unsignedInt: number;
  long: bigint;
  unsignedLong: bigint;
  base64Binary: Uint8Array;
  guid: string;
  char: string;
}

/**
 * True for the types .NET holds as value types (every scalar but string and base64Binary, and enums): the
 * wire always carries them (minOccurs="1") unless they are nullable. Strings, byte arrays, records and
 * arrays are reference types: optional on the wire (minOccurs="0").
 */
export function isValueType(type: TypeModel): boolean {
  if (type.kind === "enum") return true;
  return type.kind === "scalar" && type.type !== "string" && type.type !== "base64Binary";
}

/**
 * The scalar type of a parameter or field type; throws for the other kinds. For code that reads scalars
 * only (the encoders of enums, records and arrays are separate).
 */
export function scalarTypeOf(type: TypeModel): SoapType {
  if (type.kind !== "scalar") throw new TypeError(`a ${type.kind} type is not a scalar`);
  return type.type;
}

const INT_RE = /^[+-]?\d+$/;
const DOUBLE_RE = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$/;
const DECIMAL_RE = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)$/;
/** Groups: year, month, day, hour, minute, second, fraction, zone, the zone's hours and minutes. */
const DATETIME_RE = /^(-?\d{4,})-(\d\d)-(\d\d)T(\d\d):(\d\d):(\d\d)(\.\d+)?(Z|[+-](\d\d):(\d\d))?$/;
const INT32_MIN = -2147483648;
const INT32_MAX = 2147483647;
const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

// XML Schema collapses surrounding whitespace of non-string values: every parser but parseString trims.

/**
 * A whole number of a type (a bigint for long; int here, and byte, unsignedByte, short, unsignedShort and
 * unsignedInt in values-extra.ts, as a number) within [min, max]; `range` words the range error.
 */
function whole<T extends number | bigint>(
  type: SoapType,
  text: string,
  min: T,
  max: T,
  range: string,
  of: (t: string) => T,
): T {
  const t = text.trim();
  if (!INT_RE.test(t)) throw new ConversionError(type, "is not a whole number");
  const n = of(t);
  if (n < min || n > max) throw new ConversionError(type, `is outside the ${range} range`);
  return n;
}

/** A whole number of a type held in a JavaScript number within [min, max] (never -0). */
export function parseWhole(type: SoapType, text: string, min: number, max: number, range: string): number {
  return whole(type, text, min, max, range, Number) || 0;
}

/** The text of a whole number within [min, max], as parseWhole reads it. */
export function formatWhole(type: SoapType, value: unknown, min: number, max: number, range: string): string {
  if (typeof value !== "number" || !Number.isInteger(value))
    throw new ConversionError(type, "is not a whole number");
  if (value < min || value > max) throw new ConversionError(type, `is outside the ${range} range`);
  return String(value === 0 ? 0 : value);
}

/** @codegen generated code imports it (test/repo/knip.test.ts) */
export function parseInt32(text: string): number {
  return parseWhole("int", text, INT32_MIN, INT32_MAX, "32-bit integer");
}

export function parseInt64(text: string): bigint {
  return whole("long", text, INT64_MIN, INT64_MAX, "64-bit integer", BigInt);
}

/** @codegen generated code imports it (test/repo/knip.test.ts) */
export function parseDouble(text: string): number {
  const t = text.trim();
  if (t === "INF") return Infinity;
  if (t === "-INF") return -Infinity;
  if (t === "NaN") return NaN;
  if (!DOUBLE_RE.test(t)) throw new ConversionError("double", "is not a number");
  return Number(t);
}

/** `Infinity`/`-Infinity` (.NET's spelling, surrounding whitespace allowed) as xs:double's INF/-INF; else the text. */
function dotNetInfinity(text: string): string {
  if (text.length > 16) return text;
  const t = text.trim();
  return t === "Infinity" ? "INF" : t === "-Infinity" ? "-INF" : text;
}

/** @codegen generated code imports it (test/repo/knip.test.ts) */
export function parseDecimal(text: string): string {
  const t = text.trim();
  if (!DECIMAL_RE.test(t)) throw new ConversionError("decimal", "is not a decimal number");
  return t;
}

/**
 * A real date: month 1-12, day 1 to the month's last. February has 29 days in a leap year (divisible by 4,
 * and by 400 when by 100); of the others, the odd months to July and the even ones from August have 31
 * (the low bit of month ^ (month >> 3)), the rest 30.
 */
function isCalendarDate(year: number, month: number, day: number): boolean {
  return (
    month >= 1 &&
    month <= 12 &&
    day >= 1 &&
    day <= (month === 2 ? (year % (year % 100 ? 4 : 400) ? 28 : 29) : 30 + ((month ^ (month >> 3)) & 1))
  );
}

function isClockTime(hour: number, minute: number, second: number): boolean {
  return hour <= 23 && minute <= 59 && second <= 59;
}

/** The two-digit number at i, or -1 when the two characters there are not both digits. */
function twoDigits(t: string, i: number): number {
  const a = t.charCodeAt(i) - 48;
  const b = t.charCodeAt(i + 1) - 48;
  return a >= 0 && a <= 9 && b >= 0 && b <= 9 ? a * 10 + b : -1;
}

/**
 * True for a valid dateTime in the shapes nearly every value has (`yyyy-MM-ddTHH:mm:ss`, then nothing,
 * `Z` or `+hh:mm`), checked without a regex, allocation or call (dateTime fields are in every list record,
 * and a list's writer has used up V8's inlining budget by the time it gets here: seven twoDigits calls
 * measured a third of the check). False means "not decided here": the full check below gives the verdict
 * and the message.
 */
function isPlainDateTime(t: string): boolean {
  const n = t.length;
  if (n !== 19 && n !== 20 && n !== 25) return false;
  if (
    t.charCodeAt(4) !== 45 ||
    t.charCodeAt(7) !== 45 ||
    t.charCodeAt(10) !== 84 ||
    t.charCodeAt(13) !== 58 ||
    t.charCodeAt(16) !== 58
  ) {
    return false;
  }
  // Each digit is its code unit minus '0'; `>>> 0` makes a code below '0' a large number, so one
  // comparison per digit refuses anything but 0-9.
  const y0 = t.charCodeAt(0) - 48,
    y1 = t.charCodeAt(1) - 48,
    y2 = t.charCodeAt(2) - 48,
    y3 = t.charCodeAt(3) - 48;
  const mo0 = t.charCodeAt(5) - 48,
    mo1 = t.charCodeAt(6) - 48,
    d0 = t.charCodeAt(8) - 48,
    d1 = t.charCodeAt(9) - 48;
  const h0 = t.charCodeAt(11) - 48,
    h1 = t.charCodeAt(12) - 48,
    mi0 = t.charCodeAt(14) - 48,
    mi1 = t.charCodeAt(15) - 48;
  const s0 = t.charCodeAt(17) - 48,
    s1 = t.charCodeAt(18) - 48;
  if (
    y0 >>> 0 > 9 ||
    y1 >>> 0 > 9 ||
    y2 >>> 0 > 9 ||
    y3 >>> 0 > 9 ||
    mo0 >>> 0 > 9 ||
    mo1 >>> 0 > 9 ||
    d0 >>> 0 > 9 ||
    d1 >>> 0 > 9 ||
    h0 >>> 0 > 9 ||
    h1 >>> 0 > 9 ||
    mi0 >>> 0 > 9 ||
    mi1 >>> 0 > 9 ||
    s0 >>> 0 > 9 ||
    s1 >>> 0 > 9
  ) {
    return false;
  }
  if (n === 20 && t.charCodeAt(19) !== 90) return false;
  if (n === 25) {
    const sign = t.charCodeAt(19);
    if ((sign !== 43 && sign !== 45) || t.charCodeAt(22) !== 58) return false;
    const zh = twoDigits(t, 20);
    const zm = twoDigits(t, 23);
    if (zh < 0 || zm < 0 || !isZoneOffset(zh, zm)) return false;
  }
  const year = y0 * 1000 + y1 * 100 + y2 * 10 + y3;
  return (
    year >= 1 &&
    isCalendarDate(year, mo0 * 10 + mo1, d0 * 10 + d1) &&
    isClockTime(h0 * 10 + h1, mi0 * 10 + mi1, s0 * 10 + s1)
  );
}

/** .NET's offsets run from -14:00 to +14:00 (DateTimeOffset); minutes 0-59. */
function isZoneOffset(hours: number, minutes: number): boolean {
  return minutes <= 59 && hours * 60 + minutes <= 14 * 60;
}

/** Validates an xs:dateTime and returns it as sent (trimmed): no zone is added, none is removed. */
export function parseDateTime(text: string): string {
  // A plain dateTime starts with a digit and ends with a digit or Z, so trimming would not change it:
  // checked first, the usual value skips the trim call.
  if (isPlainDateTime(text)) return text;
  const t = text.trim();
  if (isPlainDateTime(t)) return t;
  return checkDateTime(t);
}

/**
 * The client's parseDateTime: the same verdicts and messages without the allocation-free check of plain
 * values (isPlainDateTime, the server's hot path, which a client bundle then leaves out).
 */
export function clientParseDateTime(text: string): string {
  return checkDateTime(text.trim());
}

/** A trimmed xs:dateTime checked by the regular expression: the text, or ConversionError. */
function checkDateTime(t: string): string {
  const m = DATETIME_RE.exec(t);
  if (!m) throw new ConversionError("dateTime", "is not a date and time of the form yyyy-MM-ddTHH:mm:ss");
  // .NET's DateTime holds the years 0001 to 9999; xs:dateTime's year 0000, negative years and five-digit
  // years have no .NET value, so ASMX refuses them.
  if (m[1]!.length !== 4 || m[1] === "0000")
    throw new ConversionError("dateTime", "is outside the years 0001 to 9999");
  if (!isCalendarDate(+m[1]!, +m[2]!, +m[3]!) || !isClockTime(+m[4]!, +m[5]!, +m[6]!)) {
    throw new ConversionError("dateTime", "is not a valid calendar date and time");
  }
  if (m[9] && !isZoneOffset(+m[9], +m[10]!)) {
    throw new ConversionError("dateTime", "has a time zone offset outside -14:00 to +14:00");
  }
  return t;
}

/** @codegen generated code imports it (test/repo/knip.test.ts) */
export function parseBoolean(text: string): boolean {
  const t = text.trim();
  if (t === "true" || t === "1") return true;
  if (t === "false" || t === "0") return false;
  throw new ConversionError("boolean", "is not true or false");
}

/**
 * The scalar types whose codecs live in values-extra.ts (float, byte, unsignedByte, short, unsignedShort,
 * unsignedInt, unsignedLong, guid, char, base64Binary):
 * registered by the generated model of a service that uses them, so a client bundle of a service that
 * does not carries none of their code.
 */
export type ExtraScalarType =
  | "float"
  | "byte"
  | "unsignedByte"
  | "short"
  | "unsignedShort"
  | "unsignedInt"
  | "unsignedLong"
  | "guid"
  | "char"
  | "base64Binary";

/** Text <-> value for some scalar types, as registerScalarCodecs takes them. */
export type ScalarCodecs = {
  readonly [K in SoapType]?: {
    readonly parse: (text: string) => SoapValueTypes[K];
    readonly format: (value: unknown) => string;
  };
};

/**
 * A string's text is its value.
 *
 * @codegen generated code imports it (test/repo/knip.test.ts)
 */
export function parseString(text: string): string {
  return text;
}

const parsers: { [K in SoapType]?: (text: string) => SoapValueTypes[K] } = {
  string: parseString,
  boolean: parseBoolean,
  // The server also reads .NET's spellings, as XmlConvert does (it falls back to Double.Parse; the host
  // answers Twice(Infinity) with INF: docs/asmx-evidence/http-details.md). A client's table (registered
  // codecs) keeps to xs:double, which is all a .NET service writes.
  double: (text) => parseDouble(dotNetInfinity(text)),
  decimal: parseDecimal,
  dateTime: parseDateTime,
  int: parseInt32,
  long: parseInt64,
};

/** Adds codecs (values-extra.ts's extraScalarCodecs); the generated model calls it when the spec needs them. */
export function registerScalarCodecs(codecs: ScalarCodecs): void {
  for (const type of Object.keys(codecs) as SoapType[]) {
    const codec = codecs[type]!;
    (parsers as Record<string, unknown>)[type] = codec.parse;
    (formatters as Record<string, unknown>)[type] = codec.format;
    // The client's tables too (below): a service using these types reads and writes them.
    (clientParsers as Record<string, unknown>)[type] = codec.parse;
    (clientFormatters as Record<string, unknown>)[type] = codec.format;
  }
}

function noCodec(type: SoapType): TypeError {
  return new TypeError(`no codec for ${type}: registerScalarCodecs(extraScalarCodecs) of values-extra.js`);
}

/** Parses wire text as a SOAP type; throws ConversionError. */
export function parseValue<T extends SoapType>(type: T, text: string): SoapValueTypes[T] {
  const parse = parsers[type];
  if (parse === undefined) throw noCodec(type);
  return parse(text);
}

export function formatDateTime(value: unknown): string {
  if (typeof value === "string") return parseDateTime(value);
  return dateText(value);
}

/** The client's formatDateTime: its strings checked by clientParseDateTime (the same verdicts). */
export function clientFormatDateTime(value: unknown): string {
  if (typeof value === "string") return clientParseDateTime(value);
  return dateText(value);
}

/** A Date as xs:dateTime text in UTC; anything else that is not a string is refused. */
function dateText(value: unknown): string {
  if (value instanceof Date) {
    if (Number.isNaN(value.getTime())) throw new ConversionError("dateTime", "is an invalid Date");
    // toISOString writes other years as +010000 / -000001, which is not xs:dateTime text.
    const year = value.getUTCFullYear();
    if (year < 1 || year > 9999)
      throw new ConversionError("dateTime", "is a Date outside the years 1 to 9999");
    // A Date is an instant: send it in UTC so no machine's zone leaks onto the wire.
    return value.toISOString().replace(/\.000Z$/, "Z");
  }
  throw new ConversionError("dateTime", "is not a string or a Date");
}

/** @codegen generated code imports it (test/repo/knip.test.ts) */
export function formatDouble(value: unknown): string {
  if (typeof value !== "number") throw new ConversionError("double", "is not a number");
  if (Number.isNaN(value)) return "NaN";
  if (value === Infinity) return "INF";
  if (value === -Infinity) return "-INF";
  if (value === 0) return Object.is(value, -0) ? "-0" : "0";
  // .NET's XmlConvert writes double.ToString("R"): the shortest round-trip digits, in exponent form
  // (`1E+15`, `1.5E-07`: two exponent digits at least) when the point would sit more than 15 digits
  // (or than the digit count) right of the first digit, or more than 4 zeros left of it.
  const [mantissa, exponentText] = value.toExponential().split("e") as [string, string];
  const exponent = Number(exponentText);
  const digitCount = mantissa.replace(/[-.]/g, "").length;
  if (exponent + 1 > Math.max(digitCount, 15) || exponent < -4) {
    return `${mantissa}E${exponent < 0 ? "-" : "+"}${String(Math.abs(exponent)).padStart(2, "0")}`;
  }
  return String(value);
}

/** @codegen generated code imports it (test/repo/knip.test.ts) */
export function formatString(value: unknown): string {
  if (typeof value !== "string") throw new ConversionError("string", "is not a string");
  return value;
}

/** @codegen generated code imports it (test/repo/knip.test.ts) */
export function formatInt32(value: unknown): string {
  return formatWhole("int", value, INT32_MIN, INT32_MAX, "32-bit integer");
}

/** @codegen generated code imports it (test/repo/knip.test.ts) */
export function formatInt64(value: unknown): string {
  const n = typeof value === "number" && Number.isSafeInteger(value) ? BigInt(value) : value;
  if (typeof n !== "bigint") throw new ConversionError("long", "is not a bigint or a safe integer");
  if (n < INT64_MIN || n > INT64_MAX)
    throw new ConversionError("long", "is outside the 64-bit integer range");
  return n.toString();
}

/** @codegen generated code imports it (test/repo/knip.test.ts) */
export function formatDecimal(value: unknown): string {
  if (typeof value === "bigint") return value.toString();
  if (typeof value !== "string") throw new ConversionError("decimal", "is not a decimal string");
  return parseDecimal(value);
}

/** @codegen generated code imports it (test/repo/knip.test.ts) */
export function formatBoolean(value: unknown): string {
  if (typeof value !== "boolean") throw new ConversionError("boolean", "is not a boolean");
  return value ? "true" : "false";
}

const formatters: { [K in SoapType]?: (value: unknown) => string } = {
  string: formatString,
  int: formatInt32,
  long: formatInt64,
  double: formatDouble,
  decimal: formatDecimal,
  dateTime: formatDateTime,
  boolean: formatBoolean,
};

/** Formats a value of a SOAP type as wire text; throws ConversionError for a value of the wrong kind. */
export function formatValue(type: SoapType, value: unknown): string {
  const format = formatters[type];
  if (format === undefined) throw noCodec(type);
  return format(value);
}

/**
 * formatValue for one type, looked up once (writers of many values call it directly). A type whose codec
 * is not registered yet (module order) gets a formatter that looks it up when called.
 */
export function formatterOf(type: SoapType): (value: unknown) => string {
  return formatters[type] ?? ((value) => formatValue(type, value));
}

// ---- The client's codecs ------------------------------------------------------------------------------
//
// The client reads results and writes parameters through tables of its own, which hold only what it was
// given: the generated model registers the readers of its results' types and the writers of its
// parameters' (registerClientCodecs), and registerScalarCodecs adds its codecs here too. A client bundle
// then carries only those codecs (a double result pulls in parseDouble, never formatDouble); the tables
// above, which parseValue and formatValue (the server) use, hold every core codec and are left out.

/** Readers of some scalar types, as registerClientCodecs takes them. */
export type ScalarParsers = { readonly [K in SoapType]?: (text: string) => SoapValueTypes[K] };
/** Writers of some scalar types, as registerClientCodecs takes them. */
export type ScalarFormatters = { readonly [K in SoapType]?: (value: unknown) => string };

const clientParsers: { [K in SoapType]?: (text: string) => unknown } = {};
const clientFormatters: { [K in SoapType]?: (value: unknown) => string } = {};

/** Adds the client's readers and writers of scalar types; the generated model calls it with the ones it uses. */
export function registerClientCodecs(parse: ScalarParsers, format: ScalarFormatters): void {
  Object.assign(clientParsers, parse);
  Object.assign(clientFormatters, format);
}

/**
 * Registers every codec parseValue and formatValue have (the core types and any registered) for the client:
 * for a client of a model built at run time, which no generated model registered codecs for.
 */
export function registerAllClientCodecs(): void {
  registerClientCodecs(parsers, formatters);
}

/** The codec of `type` in one of the client's tables, or a TypeError naming what registers it. */
function clientCodec<F>(table: { [K in SoapType]?: F }, type: SoapType): F {
  const codec = table[type];
  if (codec === undefined) {
    throw new TypeError(
      `no client codec for ${type} (registerClientCodecs; registerAllClientCodecs for a run-time model)`,
    );
  }
  return codec;
}

/** The client's parseValue: wire text as a SOAP type, by the registered readers; throws ConversionError. */
export function clientParse(type: SoapType, text: string): unknown {
  return clientCodec(clientParsers, type)(text);
}

/** The client's formatValue: a value as wire text, by the registered writers; throws ConversionError. */
export function clientFormat(type: SoapType, value: unknown): string {
  return clientCodec(clientFormatters, type)(value);
}

const TEXT_FORMATS: Record<TextFormat, { re: RegExp; shape: string }> = {
  date: { re: /^(\d{4})-(\d\d)-(\d\d)$/, shape: "yyyy-MM-dd" },
  time: { re: /^()()()(\d\d):(\d\d)$/, shape: "HH:mm" },
  dateTimeMinutes: { re: /^(\d{4})-(\d\d)-(\d\d) (\d\d):(\d\d)$/, shape: "yyyy-MM-dd HH:mm" },
  dateTimeSeconds: { re: /^(\d{4})-(\d\d)-(\d\d)T(\d\d):(\d\d):(\d\d)$/, shape: "yyyy-MM-ddTHH:mm:ss" },
};

/** The human shape of a text format, as the spec writes it. */
export function textFormatShape(format: TextFormat): string {
  return TEXT_FORMATS[format].shape;
}

/** True when text has the format's shape and names a real date/time (no 2024-02-30, no 24:00). */
export function matchesTextFormat(format: TextFormat, text: string): boolean {
  const m = TEXT_FORMATS[format].re.exec(text);
  if (!m) return false;
  if (m[1] !== "" && !isCalendarDate(Number(m[1]), Number(m[2]), Number(m[3]))) return false;
  if (m[4] !== undefined && !isClockTime(Number(m[4]), Number(m[5]), Number(m[6] ?? 0))) return false;
  return true;
}

// ---- HTTP GET and HTTP POST: text as .NET converts it ----------------------------------------------
//
// ASMX converts GET/POST values with .NET's invariant-culture parsing, which takes more forms than the xs:
// lexical space, and real clients rely on it (zeep's HTTP ports send `2024-01-02 03:04:05` and `True`).
// The forms below (easgen docs/wire.md §1a) are rewritten to the xs: text the strict parsers read, so a
// handler sees one form whatever the caller sent. SOAP stays strict: XmlSerializer reads only xs: forms.

/** Longest dateTime text rewritten; anything longer is left to the strict parser (and refused there). */
const MAX_LENIENT_DATETIME = 64;

function pad2(n: number): string {
  return n < 10 ? `0${n}` : String(n);
}

/**
 * `yyyy-M-d` or `M/d/yyyy` (month first, as the invariant culture reads it), then optionally a `T` or
 * spaces and `H:mm[:ss[.fff]]`, then optionally `Z` or `±hh:mm`, as xs:dateTime text; undefined when
 * the text is none of those. One pass over at most 64 characters; no regex.
 */
export function lenientDateTime(text: string): string | undefined {
  const t = text.trim();
  const n = t.length;
  if (n === 0 || n > MAX_LENIENT_DATETIME) return undefined;
  let i = 0;
  /** Reads min to max digits at i; -1 when there are fewer than min. */
  const digits = (min: number, max: number): number => {
    let value = 0;
    let count = 0;
    while (count < max && i < n) {
      const d = t.charCodeAt(i) - 48;
      if (d < 0 || d > 9) break;
      value = value * 10 + d;
      i++;
      count++;
    }
    return count >= min ? value : -1;
  };
  const take = (code: number): boolean => {
    if (t.charCodeAt(i) !== code) return false;
    i++;
    return true;
  };
  let year: string;
  let month: number;
  let day: number;
  const first = digits(1, 4);
  if (first < 0) return undefined;
  if (i === 4 && take(45 /* - */)) {
    year = t.slice(0, 4);
    month = digits(1, 2);
    if (month < 0 || !take(45)) return undefined;
    day = digits(1, 2);
  } else if (i <= 2 && take(47 /* / */)) {
    month = first;
    day = digits(1, 2);
    if (day < 0 || !take(47)) return undefined;
    const start = i;
    if (digits(4, 4) < 0) return undefined;
    year = t.slice(start, i);
  } else {
    return undefined;
  }
  if (day < 0) return undefined;
  let time = "00:00:00";
  let zone = "";
  if (i < n) {
    if (!take(84 /* T */)) {
      if (!take(32)) return undefined;
      while (take(32));
    }
    const hour = digits(1, 2);
    if (hour < 0 || !take(58 /* : */)) return undefined;
    const minute = digits(2, 2);
    if (minute < 0) return undefined;
    let second = 0;
    let fraction = "";
    if (take(58)) {
      second = digits(2, 2);
      if (second < 0) return undefined;
      if (t.charCodeAt(i) === 46 /* . */) {
        const start = i;
        i++;
        if (digits(1, n) < 0) return undefined;
        fraction = t.slice(start, i);
      }
    }
    time = `${pad2(hour)}:${pad2(minute)}:${pad2(second)}${fraction}`;
    if (take(90 /* Z */)) {
      zone = "Z";
    } else if (t.charCodeAt(i) === 43 || t.charCodeAt(i) === 45) {
      const sign = t[i];
      i++;
      const zh = digits(2, 2);
      if (zh < 0 || !take(58)) return undefined;
      const zm = digits(2, 2);
      if (zm < 0) return undefined;
      zone = `${sign}${pad2(zh)}:${pad2(zm)}`;
    }
    if (i !== n) return undefined;
  }
  return `${year}-${pad2(month)}-${pad2(day)}T${time}${zone}`;
}

/**
 * HTTP GET/POST: the xs: text for a value as .NET's invariant-culture conversion reads it (easgen
 * docs/wire.md §1a): dateTime in the forms lenientDateTime takes, `True`/`FALSE` in any case,
 * `Infinity`/`-Infinity`. Integers need nothing (the strict parser already takes a sign and surrounding
 * whitespace). Undefined for a text the strict parser takes but .NET refuses: `INF`/`-INF` for a float or
 * double, `1`/`0` for a boolean (docs/asmx-evidence/http-details.md). Any other text comes back unchanged, for the strict parser
 * to accept or refuse (a decimal has no INF, NaN or Infinity in either).
 */
export function fromDotNetText(type: SoapType, text: string): string | undefined {
  switch (type) {
    case "dateTime":
      return isPlainDateTime(text) ? text : (lenientDateTime(text) ?? text);
    case "boolean": {
      if (text.length > 16) return text;
      const lower = text.trim().toLowerCase();
      // Boolean.Parse takes True and False in any case, never XML Schema's 1 and 0.
      if (lower === "1" || lower === "0") return undefined;
      return lower === "true" || lower === "false" ? lower : text;
    }
    case "float":
    case "double": {
      if (text.length > 16) return text;
      const t = text.trim();
      // XML Schema's INF and -INF are not .NET's spellings: Double.Parse refuses them (NaN it takes).
      if (t === "INF" || t === "-INF" || t === "+INF") return undefined;
      return t === "Infinity" || t === "+Infinity" ? "INF" : t === "-Infinity" ? "-INF" : text;
    }
    default:
      return text;
  }
}
