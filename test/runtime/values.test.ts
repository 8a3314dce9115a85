import { afterAll, beforeAll, describe, expect, it } from "vitest";
// The float, unsignedLong, guid, char and base64Binary codecs (the generated model registers them).
import "../../runtime/codec/values-extra.js";
import type { SoapType, TextFormat } from "../../runtime/model.js";
import {
  ConversionError,
  dotNetTypeName,
  formatValue,
  fromDotNetText,
  lenientDateTime,
  matchesTextFormat,
  parseValue,
  textFormatShape,
} from "../../runtime/codec/values.js";

function refusal(run: () => unknown): ConversionError {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(ConversionError);
    return error as ConversionError;
  }
  throw new Error("expected a ConversionError");
}

describe("parseValue", () => {
  it.each<{ type: SoapType; given: string; want: unknown }>([
    { type: "int", given: "2147483647", want: 2147483647 },
    { type: "int", given: "-2147483648", want: -2147483648 },
    { type: "int", given: "0", want: 0 },
    { type: "int", given: "-0", want: 0 },
    { type: "int", given: "+42", want: 42 },
    { type: "int", given: " 7 ", want: 7 },
    { type: "long", given: "9223372036854775807", want: 9223372036854775807n },
    { type: "long", given: "-9223372036854775808", want: -9223372036854775808n },
    { type: "long", given: "1234567890123", want: 1234567890123n },
    { type: "long", given: "9007199254740993", want: 9007199254740993n },
    { type: "double", given: "12.5", want: 12.5 },
    { type: "double", given: "INF", want: Infinity },
    { type: "double", given: "-INF", want: -Infinity },
    // .NET's spellings, which XmlConvert also reads (docs/asmx-evidence/http-details.md).
    { type: "double", given: "Infinity", want: Infinity },
    { type: "double", given: "-Infinity", want: -Infinity },
    { type: "double", given: "NaN", want: NaN },
    { type: "double", given: "-0", want: -0 },
    { type: "double", given: "1E+21", want: 1e21 },
    { type: "double", given: "1.5e-7", want: 1.5e-7 },
    { type: "double", given: ".5", want: 0.5 },
    { type: "decimal", given: "98.25", want: "98.25" },
    { type: "decimal", given: "1.5", want: "1.5" },
    { type: "decimal", given: "-0.10", want: "-0.10" },
    { type: "decimal", given: "12345678901234567890.123456789", want: "12345678901234567890.123456789" },
    { type: "boolean", given: "true", want: true },
    { type: "boolean", given: "false", want: false },
    { type: "boolean", given: "1", want: true },
    { type: "boolean", given: "0", want: false },
    { type: "string", given: " as sent ", want: " as sent " },
    { type: "string", given: "", want: "" },
  ])("$type $given", ({ type, given, want }) => {
    expect(parseValue(type, given)).toStrictEqual(want);
  });

  it.each<{ type: SoapType; given: string; reason: RegExp }>([
    { type: "int", given: "2147483648", reason: /32-bit/ },
    { type: "int", given: "-2147483649", reason: /32-bit/ },
    { type: "int", given: "1.0", reason: /whole number/ },
    { type: "int", given: "x", reason: /whole number/ },
    { type: "int", given: "", reason: /whole number/ },
    { type: "int", given: "1e3", reason: /whole number/ },
    { type: "long", given: "9223372036854775808", reason: /64-bit/ },
    { type: "long", given: "-9223372036854775809", reason: /64-bit/ },
    { type: "long", given: "12.0", reason: /whole number/ },
    { type: "double", given: "+Infinity", reason: /not a number/ },
    { type: "double", given: "inf", reason: /not a number/ },
    { type: "double", given: "1,5", reason: /not a number/ },
    { type: "double", given: "0x10", reason: /not a number/ },
    { type: "decimal", given: "1e5", reason: /decimal/ },
    { type: "decimal", given: "1,5", reason: /decimal/ },
    { type: "decimal", given: "NaN", reason: /decimal/ },
    { type: "decimal", given: "", reason: /decimal/ },
    { type: "boolean", given: "True", reason: /true or false/ },
    { type: "boolean", given: "yes", reason: /true or false/ },
  ])("refuses $type '$given'", ({ type, given, reason }) => {
    const error = refusal(() => parseValue(type, given));
    expect(error.soapType).toBe(type);
    expect(error.message).toMatch(reason);
  });
});

describe("dateTime is kept as sent", () => {
  const savedTz = process.env.TZ;
  beforeAll(() => {
    process.env.TZ = "Pacific/Chatham";
  });
  afterAll(() => {
    if (savedTz === undefined) delete process.env.TZ;
    else process.env.TZ = savedTz;
  });

  it.each([
    "2024-05-06T07:08:09",
    "2024-05-06T07:08:09Z",
    "2024-05-06T07:08:09+02:00",
    "2024-05-06T07:08:09-05:30",
    "2024-05-06T07:08:09+00:00",
    "2024-05-06T07:08:09.5",
    "2024-05-06T07:08:09.1234567",
    "2024-05-06T07:08:09.120Z",
    "2024-05-06T07:08:09.1234567+14:00",
    "2024-02-29T00:00:00",
    "2000-02-29T23:59:59",
    "0001-01-01T00:00:00",
    "9999-12-31T23:59:59.9999999",
  ])("%s parses and formats to the identical text", (text) => {
    expect(parseValue("dateTime", text)).toBe(text);
    expect(formatValue("dateTime", text)).toBe(text);
  });

  it("trims surrounding whitespace only", () => {
    expect(parseValue("dateTime", "\n  2024-05-06T07:08:09 \n")).toBe("2024-05-06T07:08:09");
  });

  it.each([
    { given: "2023-02-29T00:00:00", reason: /calendar/ },
    { given: "1900-02-29T00:00:00", reason: /calendar/ },
    { given: "2024-04-31T00:00:00", reason: /calendar/ },
    { given: "2024-13-01T00:00:00", reason: /calendar/ },
    { given: "2024-00-10T00:00:00", reason: /calendar/ },
    { given: "2024-05-00T00:00:00", reason: /calendar/ },
    { given: "2024-05-06T24:00:00", reason: /calendar/ },
    { given: "2024-05-06T23:60:00", reason: /calendar/ },
    { given: "2024-05-06T23:59:60", reason: /calendar/ },
    { given: "2024-05-06T07:08:09+15:00", reason: /time zone/ },
    { given: "2024-05-06T07:08:09+02:60", reason: /time zone/ },
    { given: "2024-05-06", reason: /yyyy-MM-ddTHH:mm:ss/ },
    { given: "2024-05-06 07:08:09", reason: /yyyy-MM-ddTHH:mm:ss/ },
    { given: "2024-05-06T07:08", reason: /yyyy-MM-ddTHH:mm:ss/ },
    { given: "2024-05-06T07:08:09+0200", reason: /yyyy-MM-ddTHH:mm:ss/ },
    { given: "6/5/2024 07:08:09", reason: /yyyy-MM-ddTHH:mm:ss/ },
    // .NET's DateTime holds the years 0001-9999 and offsets up to ±14:00 (issue 7, item 8).
    { given: "0000-01-01T00:00:00", reason: /years 0001 to 9999/ },
    { given: "-0001-01-01T00:00:00", reason: /years 0001 to 9999/ },
    { given: "10000-01-01T00:00:00", reason: /years 0001 to 9999/ },
    { given: "2024-05-06T07:08:09+14:59", reason: /-14:00 to \+14:00/ },
    { given: "2024-05-06T07:08:09-14:01", reason: /-14:00 to \+14:00/ },
  ])("refuses $given", ({ given, reason }) => {
    expect(refusal(() => parseValue("dateTime", given)).message).toMatch(reason);
  });

  it.each([
    { given: new Date(Date.UTC(2024, 4, 6, 7, 8, 9)), want: "2024-05-06T07:08:09Z" },
    { given: new Date(Date.UTC(2024, 4, 6, 7, 8, 9, 120)), want: "2024-05-06T07:08:09.120Z" },
    { given: new Date("2024-05-06T09:08:09+02:00"), want: "2024-05-06T07:08:09Z" },
    { given: new Date(Date.UTC(2024, 11, 31, 23, 59, 59)), want: "2024-12-31T23:59:59Z" },
    { given: new Date(Date.UTC(9999, 11, 31, 23, 59, 59, 999)), want: "9999-12-31T23:59:59.999Z" },
    { given: new Date("0001-01-01T00:00:00Z"), want: "0001-01-01T00:00:00Z" },
  ])("a Date is sent in UTC: $want", ({ given, want }) => {
    expect(formatValue("dateTime", given)).toBe(want);
  });

  it("refuses an invalid Date and other kinds", () => {
    expect(refusal(() => formatValue("dateTime", new Date("nope"))).message).toMatch(/invalid Date/);
    expect(refusal(() => formatValue("dateTime", new Date(Date.UTC(10000, 0, 1)))).message).toMatch(
      /years 1 to 9999/,
    );
    expect(refusal(() => formatValue("dateTime", new Date(Date.UTC(-1, 0, 1)))).message).toMatch(
      /years 1 to 9999/,
    );
    expect(refusal(() => formatValue("dateTime", 1714979289000)).message).toMatch(/string or a Date/);
    expect(refusal(() => formatValue("dateTime", "2023-02-29T00:00:00")).message).toMatch(/calendar/);
  });
});

describe("formatValue", () => {
  it.each<{ type: SoapType; given: unknown; want: string }>([
    { type: "int", given: 2147483647, want: "2147483647" },
    { type: "int", given: -2147483648, want: "-2147483648" },
    { type: "int", given: -0, want: "0" },
    { type: "long", given: 9223372036854775807n, want: "9223372036854775807" },
    { type: "long", given: -9223372036854775808n, want: "-9223372036854775808" },
    { type: "long", given: 42, want: "42" },
    { type: "double", given: 12.5, want: "12.5" },
    { type: "double", given: Infinity, want: "INF" },
    { type: "double", given: -Infinity, want: "-INF" },
    { type: "double", given: NaN, want: "NaN" },
    { type: "double", given: -0, want: "-0" },
    { type: "double", given: 0, want: "0" },
    { type: "double", given: 1e21, want: "1E+21" },
    { type: "double", given: 1.5e-7, want: "1.5E-07" },
    { type: "double", given: 1e15, want: "1E+15" },
    { type: "double", given: 1e14, want: "100000000000000" },
    { type: "double", given: 12345678901234568, want: "12345678901234568" },
    { type: "double", given: 0.0001, want: "0.0001" },
    { type: "double", given: -0.00001, want: "-1E-05" },
    { type: "double", given: 5e-324, want: "5E-324" },
    { type: "double", given: 0.1 + 0.2, want: "0.30000000000000004" },
    { type: "decimal", given: "98.25", want: "98.25" },
    { type: "decimal", given: "1.5", want: "1.5" },
    { type: "decimal", given: 12n, want: "12" },
    { type: "boolean", given: true, want: "true" },
    { type: "boolean", given: false, want: "false" },
    { type: "string", given: "a & b", want: "a & b" },
  ])("$type $given -> $want", ({ type, given, want }) => {
    expect(formatValue(type, given)).toBe(want);
  });

  it.each<{ type: SoapType; given: unknown; reason: RegExp }>([
    { type: "int", given: 2147483648, reason: /32-bit/ },
    { type: "int", given: -2147483649, reason: /32-bit/ },
    { type: "int", given: 1.5, reason: /whole number/ },
    { type: "int", given: "1", reason: /whole number/ },
    { type: "int", given: NaN, reason: /whole number/ },
    { type: "long", given: 9223372036854775808n, reason: /64-bit/ },
    { type: "long", given: -9223372036854775809n, reason: /64-bit/ },
    { type: "long", given: 2 ** 53, reason: /bigint/ },
    { type: "long", given: "1", reason: /bigint/ },
    { type: "double", given: "1.5", reason: /not a number/ },
    { type: "decimal", given: 98.25, reason: /decimal string/ },
    { type: "decimal", given: "1e5", reason: /decimal/ },
    { type: "boolean", given: "true", reason: /boolean/ },
    { type: "string", given: 5, reason: /string/ },
  ])("refuses $type $given", ({ type, given, reason }) => {
    expect(refusal(() => formatValue(type, given)).message).toMatch(reason);
  });

  it.each<{ type: SoapType; text: string }>([
    { type: "long", text: "9223372036854775807" },
    { type: "long", text: "-9223372036854775808" },
    { type: "decimal", text: "98.25" },
    { type: "decimal", text: "0.1000000000000000000000000001" },
    { type: "double", text: "INF" },
    { type: "double", text: "-INF" },
    { type: "double", text: "NaN" },
    { type: "double", text: "-0" },
    { type: "double", text: "1E+21" },
    { type: "dateTime", text: "2024-05-06T07:08:09.1234567-03:00" },
  ])("$type $text round-trips exactly", ({ type, text }) => {
    expect(formatValue(type, parseValue(type, text))).toBe(text);
  });
});

describe("dotNetTypeName", () => {
  it.each<[SoapType, string]>([
    ["int", "System.Int32"],
    ["long", "System.Int64"],
    ["double", "System.Double"],
    ["decimal", "System.Decimal"],
    ["dateTime", "System.DateTime"],
    ["boolean", "System.Boolean"],
    ["string", "System.String"],
    ["float", "System.Single"],
    ["byte", "System.SByte"],
    ["unsignedByte", "System.Byte"],
    ["short", "System.Int16"],
    ["unsignedShort", "System.UInt16"],
    ["unsignedInt", "System.UInt32"],
    ["unsignedLong", "System.UInt64"],
    ["guid", "System.Guid"],
    ["char", "System.Char"],
    ["base64Binary", "System.Byte[]"],
  ])("%s is %s", (type, name) => {
    expect(dotNetTypeName(type)).toBe(name);
  });
});

describe("text formats", () => {
  it.each<{ format: TextFormat; given: string; want: boolean }>([
    { format: "date", given: "2024-02-29", want: true },
    { format: "date", given: "2023-02-29", want: false },
    { format: "date", given: "2024-12-31", want: true },
    { format: "date", given: "2024-13-01", want: false },
    { format: "date", given: "2024-5-6", want: false },
    { format: "date", given: "2024-05-06T00:00:00", want: false },
    { format: "time", given: "23:59", want: true },
    { format: "time", given: "00:00", want: true },
    { format: "time", given: "24:00", want: false },
    { format: "time", given: "12:60", want: false },
    { format: "time", given: "9:30", want: false },
    { format: "time", given: "09:30:00", want: false },
    { format: "dateTimeMinutes", given: "2024-05-06 07:08", want: true },
    { format: "dateTimeMinutes", given: "2024-05-06 23:59", want: true },
    { format: "dateTimeMinutes", given: "2024-05-06 24:00", want: false },
    { format: "dateTimeMinutes", given: "2023-02-29 10:00", want: false },
    { format: "dateTimeMinutes", given: "2024-05-06T07:08", want: false },
    { format: "dateTimeMinutes", given: "2024-05-06 07:08:09", want: false },
    { format: "dateTimeSeconds", given: "2024-05-06T07:08:09", want: true },
    { format: "dateTimeSeconds", given: "2024-05-06T23:59:59", want: true },
    { format: "dateTimeSeconds", given: "2024-05-06T23:59:60", want: false },
    { format: "dateTimeSeconds", given: "2024-05-06T24:00:00", want: false },
    { format: "dateTimeSeconds", given: "2023-02-29T07:08:09", want: false },
    { format: "dateTimeSeconds", given: "2024-05-06 07:08:09", want: false },
    { format: "dateTimeSeconds", given: "2024-05-06T07:08:09Z", want: false },
    { format: "dateTimeSeconds", given: "2024-05-06T07:08:09.5", want: false },
  ])("$format '$given' -> $want", ({ format, given, want }) => {
    expect(matchesTextFormat(format, given)).toBe(want);
  });

  it.each<[TextFormat, string]>([
    ["date", "yyyy-MM-dd"],
    ["time", "HH:mm"],
    ["dateTimeMinutes", "yyyy-MM-dd HH:mm"],
    ["dateTimeSeconds", "yyyy-MM-ddTHH:mm:ss"],
  ])("%s has the shape %s", (format, shape) => {
    expect(textFormatShape(format)).toBe(shape);
  });
});

describe("HTTP GET/POST text as .NET converts it (fromDotNetText)", () => {
  it.each([
    ["2024-01-02T03:04:05", "2024-01-02T03:04:05"],
    ["2024-01-02 03:04:05", "2024-01-02T03:04:05"],
    ["2024-01-02   03:04:05", "2024-01-02T03:04:05"],
    ["2024-01-02", "2024-01-02T00:00:00"],
    ["2024-1-2", "2024-01-02T00:00:00"],
    ["01/02/2024", "2024-01-02T00:00:00"],
    ["1/2/2024 3:04:05 ", "2024-01-02T03:04:05"],
    ["2024-01-02T03:04", "2024-01-02T03:04:00"],
    ["2024-01-02 03:04:05Z", "2024-01-02T03:04:05Z"],
    ["2024-01-02 03:04:05.1234567-05:30", "2024-01-02T03:04:05.1234567-05:30"],
    ["2024-01-02T03:04:05+02:00", "2024-01-02T03:04:05+02:00"],
  ])("dateTime %j is read as %j", (sent, canonical) => {
    const text = fromDotNetText("dateTime", sent);
    expect(text).toBe(canonical);
    expect(parseValue("dateTime", text!)).toBe(canonical);
  });

  it.each([
    "yesterday",
    "2024/01/02",
    "2024-01-02T",
    "2024-01-02 3",
    "2024-01-02 03:04:5",
    "01/02/24",
    "2024-01-02 03:04:05 +02:00",
    "2024-01-02T03:04:05+0200",
    "12024-01-02",
    "",
  ])("leaves %j to the strict parser (refused there)", (sent) => {
    expect(lenientDateTime(sent)).toBeUndefined();
    expect(fromDotNetText("dateTime", sent)).toBe(sent);
    expect(() => parseValue("dateTime", fromDotNetText("dateTime", sent)!)).toThrow(ConversionError);
  });

  it.each([
    ["0000-01-01", /years 0001 to 9999/],
    ["02/30/2024", /calendar/],
    ["13/01/2024", /calendar/],
    ["2024-01-02 03:04:05+14:59", /-14:00 to \+14:00/],
  ])("rewrites %j but the strict parser still refuses it", (sent, reason) => {
    expect(refusal(() => parseValue("dateTime", fromDotNetText("dateTime", sent)!)).message).toMatch(reason);
  });

  it("reads a long dateTime text in linear time: it looks at no more than 64 characters", () => {
    const long = `2024-01-02 ${"1".repeat(5_000_000)}`;
    expect(lenientDateTime(long)).toBeUndefined();
    expect(fromDotNetText("dateTime", long)).toBe(long);
  });

  it.each([
    ["boolean", "True", "true"],
    ["boolean", " FALSE ", "false"],
    ["double", "Infinity", "INF"],
    ["double", "-Infinity", "-INF"],
    ["int", "+42", "+42"],
    ["string", "2024-01-02 03:04:05", "2024-01-02 03:04:05"],
  ] as const)("%s %j is read as %j", (type, sent, want) => {
    expect(fromDotNetText(type, sent)).toBe(want);
  });

  it.each([
    ["double", "INF"],
    ["double", "-INF"],
    ["float", " INF "],
    ["float", "+INF"],
    ["boolean", "1"],
    ["boolean", " 0"],
  ] as const)("refuses %s %j: XML Schema's spelling, which .NET's Parse refuses", (type, sent) => {
    expect(fromDotNetText(type, sent)).toBeUndefined();
  });

  it.each([
    ["double", "NaN"],
    ["decimal", "NaN"],
    ["decimal", "INF"],
  ] as const)("leaves %s %j to the strict parser", (type, sent) => {
    expect(fromDotNetText(type, sent)).toBe(sent);
  });
});

describe("the scalars of issue 11", () => {
  it.each<{ type: SoapType; given: string; want: unknown }>([
    { type: "byte", given: "-128", want: -128 },
    { type: "byte", given: "127", want: 127 },
    { type: "byte", given: "-0", want: 0 },
    { type: "unsignedByte", given: "0", want: 0 },
    { type: "unsignedByte", given: "255", want: 255 },
    { type: "unsignedByte", given: "-0", want: 0 },
    { type: "short", given: "-32768", want: -32768 },
    { type: "short", given: "32767", want: 32767 },
    { type: "unsignedShort", given: "65535", want: 65535 },
    { type: "unsignedInt", given: "4294967295", want: 4294967295 },
    { type: "unsignedInt", given: " +7 ", want: 7 },
    { type: "unsignedLong", given: "18446744073709551615", want: 18446744073709551615n },
    { type: "unsignedLong", given: "0", want: 0n },
    { type: "float", given: "3.4028235E+38", want: 3.4028234663852886e38 },
    { type: "float", given: "0.1", want: Math.fround(0.1) },
    { type: "float", given: "-0", want: -0 },
    { type: "float", given: "INF", want: Infinity },
    { type: "float", given: "NaN", want: NaN },
    { type: "float", given: "1e-50", want: 0 },
    {
      type: "guid",
      given: "0F8FAD5B-D9CB-469F-A165-70867728950E",
      want: "0f8fad5b-d9cb-469f-a165-70867728950e",
    },
    {
      type: "guid",
      given: "{0f8fad5b-d9cb-469f-a165-70867728950e}",
      want: "0f8fad5b-d9cb-469f-a165-70867728950e",
    },
    {
      type: "guid",
      given: "(0f8fad5b-d9cb-469f-a165-70867728950e)",
      want: "0f8fad5b-d9cb-469f-a165-70867728950e",
    },
    { type: "guid", given: "0f8fad5bd9cb469fa16570867728950e", want: "0f8fad5b-d9cb-469f-a165-70867728950e" },
    {
      type: "guid",
      given: " 00000000-0000-0000-0000-000000000000 ",
      want: "00000000-0000-0000-0000-000000000000",
    },
    { type: "char", given: "65", want: "A" },
    { type: "char", given: "0", want: "\u0000" },
    { type: "char", given: "65535", want: "\uffff" },
    { type: "char", given: "55357", want: "\ud83d" },
  ])("parses $type '$given'", ({ type, given, want }) => {
    expect(parseValue(type, given)).toStrictEqual(want);
  });

  it.each<{ type: SoapType; given: string; reason: RegExp }>([
    { type: "byte", given: "128", reason: /is outside the 8-bit integer range/ },
    { type: "byte", given: "-129", reason: /is outside the 8-bit integer range/ },
    { type: "unsignedByte", given: "256", reason: /is outside the unsigned 8-bit integer range/ },
    { type: "unsignedByte", given: "-1", reason: /is outside the unsigned 8-bit integer range/ },
    { type: "short", given: "32768", reason: /is outside the 16-bit integer range/ },
    { type: "short", given: "-32769", reason: /is outside the 16-bit integer range/ },
    { type: "unsignedShort", given: "65536", reason: /is outside the unsigned 16-bit integer range/ },
    { type: "unsignedInt", given: "4294967296", reason: /is outside the unsigned 32-bit integer range/ },
    { type: "unsignedInt", given: "-1", reason: /is outside the unsigned 32-bit integer range/ },
    {
      type: "unsignedLong",
      given: "18446744073709551616",
      reason: /is outside the unsigned 64-bit integer range/,
    },
    { type: "unsignedLong", given: "-1", reason: /is outside the unsigned 64-bit integer range/ },
    { type: "short", given: "1.0", reason: /is not a whole number/ },
    { type: "unsignedLong", given: "0x10", reason: /is not a whole number/ },
    { type: "float", given: "3.4028236E+38", reason: /is outside the single-precision range/ },
    { type: "float", given: "-1e39", reason: /is outside the single-precision range/ },
    { type: "float", given: "1,5", reason: /is not a number/ },
    { type: "guid", given: "0f8fad5b-d9cb-469f-a165-70867728950", reason: /is not a guid/ },
    { type: "guid", given: "0f8fad5b-d9cb-469f-a165-70867728950g", reason: /is not a guid/ },
    { type: "guid", given: "{0f8fad5b-d9cb-469f-a165-70867728950e)", reason: /is not a guid/ },
    { type: "char", given: "65536", reason: /is outside the character code range 0 to 65535/ },
    { type: "char", given: "-1", reason: /is outside the character code range/ },
    { type: "char", given: "A", reason: /is not a character code/ },
    { type: "base64Binary", given: "AAA", reason: /length is not a multiple of 4/ },
    { type: "base64Binary", given: "AA=A", reason: /after its = padding/ },
    { type: "base64Binary", given: "A===", reason: /length is not a multiple of 4|not base64/ },
    { type: "base64Binary", given: "AA-_", reason: /is not base64 text/ },
    { type: "base64Binary", given: "ÿÿÿÿ", reason: /is not base64 text/ },
  ])("refuses $type '$given'", ({ type, given, reason }) => {
    const error = refusal(() => parseValue(type, given));
    expect(error.message).toMatch(reason);
    expect(error.soapType).toBe(type);
  });

  it("reads base64 in groups of four with padding, XML whitespace anywhere", () => {
    expect(parseValue("base64Binary", "")).toStrictEqual(new Uint8Array());
    expect(parseValue("base64Binary", "AA==")).toStrictEqual(new Uint8Array([0]));
    expect(parseValue("base64Binary", "AAE=")).toStrictEqual(new Uint8Array([0, 1]));
    expect(parseValue("base64Binary", "AAEC")).toStrictEqual(new Uint8Array([0, 1, 2]));
    expect(parseValue("base64Binary", " AA\r\nEC\t/w== ")).toStrictEqual(new Uint8Array([0, 1, 2, 255]));
    const all = new Uint8Array(256).map((_, i) => i);
    expect(parseValue("base64Binary", Buffer.from(all).toString("base64"))).toStrictEqual(all);
  });

  it.each<{ type: SoapType; given: unknown; want: string }>([
    { type: "byte", given: -128, want: "-128" },
    { type: "unsignedByte", given: 255, want: "255" },
    { type: "short", given: -0, want: "0" },
    { type: "unsignedShort", given: 65535, want: "65535" },
    { type: "unsignedInt", given: 4294967295, want: "4294967295" },
    { type: "unsignedLong", given: 18446744073709551615n, want: "18446744073709551615" },
    { type: "unsignedLong", given: 42, want: "42" },
    // float as .NET Framework's Single.ToString("R"): 7 digits when they read back, else 9.
    { type: "float", given: 0.1, want: "0.1" },
    { type: "float", given: Math.fround(0.1), want: "0.1" },
    { type: "float", given: 1 / 3, want: "0.333333343" },
    { type: "float", given: 3.4028234663852886e38, want: "3.40282347E+38" },
    { type: "float", given: 1.401298464324817e-45, want: "1.401298E-45" },
    { type: "float", given: 16777216, want: "16777216" },
    { type: "float", given: 1e7, want: "1E+07" },
    { type: "float", given: 1234567, want: "1234567" },
    { type: "float", given: 123456.7, want: "123456.7" },
    { type: "float", given: -2.5, want: "-2.5" },
    { type: "float", given: 0.0001, want: "0.0001" },
    { type: "float", given: 0.00001, want: "1E-05" },
    { type: "float", given: -0, want: "-0" },
    { type: "float", given: 0, want: "0" },
    { type: "float", given: Infinity, want: "INF" },
    { type: "float", given: NaN, want: "NaN" },
    { type: "guid", given: "0F8FAD5BD9CB469FA16570867728950E", want: "0f8fad5b-d9cb-469f-a165-70867728950e" },
    { type: "char", given: "A", want: "65" },
    { type: "char", given: "\u0000", want: "0" },
    { type: "char", given: "\ud83d", want: "55357" },
    { type: "base64Binary", given: new Uint8Array([0, 1, 2, 255]), want: "AAEC/w==" },
    { type: "base64Binary", given: new Uint8Array([251, 255]), want: "+/8=" },
    { type: "base64Binary", given: new Uint8Array(), want: "" },
  ])("formats $type $given -> $want", ({ type, given, want }) => {
    expect(formatValue(type, given)).toBe(want);
  });

  it.each<{ type: SoapType; given: unknown; reason: RegExp }>([
    { type: "byte", given: 128, reason: /8-bit integer range/ },
    { type: "unsignedByte", given: -1, reason: /unsigned 8-bit integer range/ },
    { type: "unsignedShort", given: 1.5, reason: /whole number/ },
    { type: "unsignedInt", given: 2 ** 32, reason: /unsigned 32-bit integer range/ },
    { type: "unsignedLong", given: -1n, reason: /unsigned 64-bit integer range/ },
    { type: "unsignedLong", given: 2 ** 64, reason: /bigint or a safe integer/ },
    { type: "float", given: 1e39, reason: /single-precision range/ },
    { type: "float", given: "1", reason: /not a number/ },
    { type: "guid", given: "nope", reason: /not a guid/ },
    { type: "guid", given: 5, reason: /not a string/ },
    { type: "char", given: "AB", reason: /one UTF-16 unit/ },
    { type: "char", given: "", reason: /one UTF-16 unit/ },
    { type: "char", given: "😀", reason: /one UTF-16 unit/ },
    { type: "base64Binary", given: [1, 2], reason: /Uint8Array/ },
    { type: "base64Binary", given: "AAEC", reason: /Uint8Array/ },
  ])("refuses to format $type $given", ({ type, given, reason }) => {
    expect(refusal(() => formatValue(type, given)).message).toMatch(reason);
  });

  it("round-trips every float through its text (1,000 values across the range)", () => {
    let x = 1.1754943508222875e-38; // the smallest normal single
    for (let i = 0; i < 1000; i++) {
      const single = Math.fround(x * (i % 2 === 0 ? 1 : -1));
      expect(parseValue("float", formatValue("float", single))).toBe(single);
      x *= 1.19;
    }
  });

  it("round-trips base64 of every length up to 70 bytes", () => {
    for (let n = 0; n <= 70; n++) {
      const bytes = new Uint8Array(n).map((_, i) => (i * 37 + n) & 255);
      const text = formatValue("base64Binary", bytes);
      expect(text).toBe(Buffer.from(bytes).toString("base64"));
      expect(parseValue("base64Binary", text)).toStrictEqual(bytes);
    }
  });
});
