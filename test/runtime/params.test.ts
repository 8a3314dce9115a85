import { describe, expect, it } from "vitest";
import { ErrorCodes, ServiceError } from "../../runtime/errors.js";
import {
  readParams,
  writeParams,
  type ParamTexts,
  type ParamValues,
  type Presence,
} from "../../runtime/codec/params.js";
import { mixedOp } from "./fixtures.js";
import { registerAllClientCodecs } from "../../runtime/codec/values.js";

// The client's codecs of every scalar type (a generated model registers those its service uses).
registerAllClientCodecs();

// mixedOp: strUsername, strPassword (required), intNewsletterId, lngSubscriberId, dblRate, decAmount, datWhen,
// blnFlag, strFormat (default HTML, HTML|Text), strNote.
const names = mixedOp.params.map((p) => p.name);

const validTexts: Record<string, string> = {
  strUsername: "u",
  strPassword: "p",
  intNewsletterId: "12",
  lngSubscriberId: "9223372036854775807",
  dblRate: "INF",
  decAmount: "98.25",
  datWhen: "2024-05-06T07:08:09",
  blnFlag: "true",
  strFormat: "Text",
  strNote: "n",
};

function texts(overrides: Record<string, string | undefined> = {}): ParamTexts {
  const merged: Record<string, string | undefined> = { ...validTexts, ...overrides };
  return names.map((name) => merged[name]);
}

function readError(given: ParamTexts, presence: Presence): ServiceError {
  try {
    readParams(mixedOp, given, presence);
  } catch (error) {
    expect(error).toBeInstanceOf(ServiceError);
    return error as ServiceError;
  }
  throw new Error("expected readParams to throw");
}

describe("readParams", () => {
  it.each<Presence>(["field", "element"])("converts every type (%s)", (presence) => {
    expect(readParams(mixedOp, texts(), presence)).toStrictEqual({
      strUsername: "u",
      strPassword: "p",
      intNewsletterId: 12,
      lngSubscriberId: 9223372036854775807n,
      dblRate: Infinity,
      decAmount: "98.25",
      datWhen: "2024-05-06T07:08:09",
      blnFlag: true,
      strFormat: "Text",
      strNote: "n",
    });
  });

  it.each<{
    name: string;
    presence: Presence;
    given: Record<string, string | undefined>;
    want: Partial<ParamValues>;
  }>([
    {
      name: "absent optional string element stays undefined",
      presence: "element",
      given: { strNote: undefined },
      want: { strNote: undefined },
    },
    {
      name: "empty optional string stays empty",
      presence: "element",
      given: { strNote: "" },
      want: { strNote: "" },
    },
    {
      name: "empty optional string field stays empty",
      presence: "field",
      given: { strNote: "" },
      want: { strNote: "" },
    },
    {
      name: "absent defaulted string takes its default",
      presence: "element",
      given: { strFormat: undefined },
      want: { strFormat: "HTML" },
    },
    {
      name: "empty defaulted string takes its default",
      presence: "element",
      given: { strFormat: "" },
      want: { strFormat: "HTML" },
    },
    {
      name: "empty defaulted field takes its default",
      presence: "field",
      given: { strFormat: "" },
      want: { strFormat: "HTML" },
    },
    {
      name: "string text is kept as sent",
      presence: "field",
      given: { strNote: "  a & b  " },
      want: { strNote: "  a & b  " },
    },
    {
      name: "value types are trimmed",
      presence: "field",
      given: { intNewsletterId: " 7\n" },
      want: { intNewsletterId: 7 },
    },
    {
      name: "dateTime with zone is kept",
      presence: "field",
      given: { datWhen: "2024-05-06T07:08:09.5+02:00" },
      want: { datWhen: "2024-05-06T07:08:09.5+02:00" },
    },
  ])("$name", ({ presence, given, want }) => {
    const values = readParams(mixedOp, texts(given), presence);
    for (const [name, value] of Object.entries(want)) {
      expect(name in values).toBe(true);
      expect(values[name]).toStrictEqual(value);
    }
  });

  it.each<{ presence: Presence; absent: string }>([
    { presence: "field", absent: "strNote" },
    { presence: "field", absent: "strFormat" },
    { presence: "field", absent: "strUsername" },
    { presence: "field", absent: "intNewsletterId" },
    { presence: "element", absent: "intNewsletterId" },
    { presence: "element", absent: "datWhen" },
  ])("missing $absent ($presence) is MissingParameter", ({ presence, absent }) => {
    const error = readError(texts({ [absent]: undefined }), presence);
    expect(error.code).toBe(ErrorCodes.MissingParameter);
    expect(error.side).toBe("client");
    expect(error.exceptionType).toBe("System.InvalidOperationException");
    expect(error.parameter).toBe(absent);
    expect(error.message).toBe(`Missing parameter: ${absent}.`);
  });

  it.each<{ param: string; given: string; message: string }>([
    {
      param: "intNewsletterId",
      given: "x",
      message:
        "Cannot convert 'x' to System.Int32 for parameter intNewsletterId: the value is not a whole number.",
    },
    {
      param: "intNewsletterId",
      given: "2147483648",
      message:
        "Cannot convert '2147483648' to System.Int32 for parameter intNewsletterId: the value is outside the 32-bit integer range.",
    },
    {
      param: "intNewsletterId",
      given: "",
      message:
        "Cannot convert '' to System.Int32 for parameter intNewsletterId: the value is not a whole number.",
    },
    {
      param: "lngSubscriberId",
      given: "9223372036854775808",
      message:
        "Cannot convert '9223372036854775808' to System.Int64 for parameter lngSubscriberId: the value is outside the 64-bit integer range.",
    },
    {
      param: "decAmount",
      given: "1e5",
      message:
        "Cannot convert '1e5' to System.Decimal for parameter decAmount: the value is not a decimal number.",
    },
    {
      param: "datWhen",
      given: "2023-02-29T00:00:00",
      message:
        "Cannot convert '2023-02-29T00:00:00' to System.DateTime for parameter datWhen: the value is not a valid calendar date and time.",
    },
    {
      param: "blnFlag",
      given: "yes",
      message:
        "Cannot convert 'yes' to System.Boolean for parameter blnFlag: the value is not true or false.",
    },
    {
      param: "dblRate",
      given: "a\nb",
      message: "Cannot convert 'a b' to System.Double for parameter dblRate: the value is not a number.",
    },
    {
      param: "intNewsletterId",
      given: "1".repeat(50),
      message: `Cannot convert '${"1".repeat(40)}...' to System.Int32 for parameter intNewsletterId: the value is outside the 32-bit integer range.`,
    },
  ])("$param '$given' is InvalidType", ({ param, given, message }) => {
    const error = readError(texts({ [param]: given }), "field");
    expect(error.code).toBe(ErrorCodes.InvalidType);
    expect(error.side).toBe("client");
    expect(error.exceptionType).toBe("System.ArgumentException");
    expect(error.parameter).toBe(param);
    expect(error.message).toBe(message);
  });

  it.each<{ presence: Presence; given: string | undefined }>([
    { presence: "field", given: "" },
    { presence: "element", given: "" },
    { presence: "element", given: undefined },
  ])("required strPassword '$given' ($presence) is RequiredParameter", ({ presence, given }) => {
    const error = readError(texts({ strPassword: given }), presence);
    expect(error.code).toBe(ErrorCodes.RequiredParameter);
    expect(error.side).toBe("client");
    expect(error.parameter).toBe("strPassword");
    expect(error.message).toBe("Parameter strPassword is required and must not be empty.");
  });

  it("runs the spec's rules after conversion", () => {
    const error = readError(texts({ strFormat: "PDF" }), "field");
    expect(error.code).toBe(ErrorCodes.InvalidValue);
    expect(error.parameter).toBe("strFormat");
    expect(error.message).toBe("strFormat must be HTML or Text.");
  });

  it("reports the first parameter at fault", () => {
    const error = readError(texts({ intNewsletterId: "x", strFormat: "PDF", strNote: undefined }), "field");
    expect(error.parameter).toBe("intNewsletterId");
  });
});

describe("writeParams", () => {
  const validValues: ParamValues = {
    strUsername: "u",
    strPassword: "p",
    intNewsletterId: 12,
    lngSubscriberId: 9223372036854775807n,
    dblRate: -Infinity,
    decAmount: "98.25",
    datWhen: new Date(Date.UTC(2024, 4, 6, 7, 8, 9)),
    blnFlag: false,
    strFormat: "HTML",
    strNote: "a & b",
  };

  function write(overrides: ParamValues): ParamTexts {
    return writeParams(mixedOp, { ...validValues, ...overrides });
  }

  it("formats every type in parameter order", () => {
    expect(write({})).toStrictEqual([
      "u",
      "p",
      "12",
      "9223372036854775807",
      "-INF",
      "98.25",
      "2024-05-06T07:08:09Z",
      "false",
      "HTML",
      "a & b",
    ]);
  });

  it.each<{ name: string; given: ParamValues; param: string; want: string | undefined }>([
    {
      name: "absent optional string stays undefined",
      given: { strNote: undefined },
      param: "strNote",
      want: undefined,
    },
    {
      name: "null optional string stays undefined",
      given: { strNote: null },
      param: "strNote",
      want: undefined,
    },
    { name: "empty string is sent empty", given: { strNote: "" }, param: "strNote", want: "" },
    {
      name: "long from a bigint",
      given: { lngSubscriberId: -9223372036854775808n },
      param: "lngSubscriberId",
      want: "-9223372036854775808",
    },
    {
      name: "long from a safe number",
      given: { lngSubscriberId: 1234567890123 },
      param: "lngSubscriberId",
      want: "1234567890123",
    },
    {
      name: "dateTime text as given",
      given: { datWhen: "2024-05-06T07:08:09" },
      param: "datWhen",
      want: "2024-05-06T07:08:09",
    },
    {
      name: "dateTime Date in UTC",
      given: { datWhen: new Date("2024-05-06T09:08:09.250+02:00") },
      param: "datWhen",
      want: "2024-05-06T07:08:09.250Z",
    },
    { name: "double NaN", given: { dblRate: NaN }, param: "dblRate", want: "NaN" },
  ])("$name", ({ given, param, want }) => {
    expect(write(given)[names.indexOf(param)]).toBe(want);
  });

  it.each<{ given: ParamValues; message: string }>([
    { given: { intNewsletterId: undefined }, message: "Mixed: parameter intNewsletterId is required." },
    { given: { lngSubscriberId: null }, message: "Mixed: parameter lngSubscriberId is required." },
    { given: { intNewsletterId: "12" }, message: "Mixed: parameter intNewsletterId is not a whole number." },
    {
      given: { intNewsletterId: 2 ** 31 },
      message: "Mixed: parameter intNewsletterId is outside the 32-bit integer range.",
    },
    {
      given: { lngSubscriberId: 2 ** 53 },
      message: "Mixed: parameter lngSubscriberId is not a bigint or a safe integer.",
    },
    {
      given: { lngSubscriberId: 2n ** 63n },
      message: "Mixed: parameter lngSubscriberId is outside the 64-bit integer range.",
    },
    { given: { decAmount: 98.25 }, message: "Mixed: parameter decAmount is not a decimal string." },
    { given: { datWhen: 0 }, message: "Mixed: parameter datWhen is not a string or a Date." },
    {
      given: { datWhen: "yesterday" },
      message: "Mixed: parameter datWhen is not a date and time of the form yyyy-MM-ddTHH:mm:ss.",
    },
    { given: { datWhen: new Date(NaN) }, message: "Mixed: parameter datWhen is an invalid Date." },
    { given: { blnFlag: "true" }, message: "Mixed: parameter blnFlag is not a boolean." },
    { given: { strNote: 5 }, message: "Mixed: parameter strNote is not a string." },
  ])("refuses $given", ({ given, message }) => {
    expect(() => write(given)).toThrow(new TypeError(message));
  });

  it("round-trips through readParams", () => {
    const sent = write({ strNote: undefined });
    expect(readParams(mixedOp, sent, "element")).toStrictEqual({
      ...validValues,
      datWhen: "2024-05-06T07:08:09Z",
      strNote: undefined,
    });
  });
});
