import { describe, expect, it } from "vitest";
import { ErrorCodes, ServiceError } from "../../runtime/errors.js";
import type { CheckModel, RuleModel } from "../../runtime/model.js";
import {
  checkOperation,
  checkRule,
  PATTERN_MAX_CHARACTERS,
  validateParams,
} from "../../runtime/codec/rules.js";
import { csvSubscribers, demographicLists } from "../../spec/ExternalAPIService.extensions.js";
import { operation, param } from "./fixtures.js";

function expectClientError(
  error: ServiceError | undefined,
  code: string,
  parameter: string,
  mentions: string[],
): void {
  expect(error).toBeInstanceOf(ServiceError);
  expect(error!.code).toBe(code);
  expect(error!.side).toBe("client");
  expect(error!.exceptionType).toBe("System.ArgumentException");
  expect(error!.parameter).toBe(parameter);
  for (const word of mentions) expect(error!.message).toContain(word);
  // One sentence, no stack or paths.
  expect(error!.message).not.toMatch(/\n|\bat \/|\.ts\b/);
}

const enumRule: RuleModel = { kind: "enum", name: "format", values: ["HTML", "Text"] };
const dateRule: RuleModel = { kind: "format", name: "date", format: "date" };
const timeRule: RuleModel = { kind: "format", name: "hourMinute", format: "time" };
const intervalRule: RuleModel = { kind: "format", name: "intervalDateTime", format: "dateTimeSeconds" };
const senderRule: RuleModel = { kind: "maxLength", name: "senderName", max: 16 };
const fieldNumberRule: RuleModel = { kind: "intText", name: "demographicFieldNumber", min: 1, max: 100 };
const fieldNameRule: RuleModel = { kind: "xmlName", name: "fieldName", max: 64 };
const urlRule: RuleModel = { kind: "url", name: "csvFileUrl", schemes: ["http", "https", "ftp"] };
// ExternalAPIService's own rule and check, as its generated server model wires them: an extension rule
// carrying the validator of spec/ExternalAPIService.extensions.ts, run by the generic runtime.
const csvRule: RuleModel = {
  kind: "extension",
  name: "subscriberCsv",
  validator: "csvSubscribers",
  options: { delimiters: [",", "|"], maxDemographicFields: 100 },
  text: "CSV subscriber rows delimited by , or |: Email, Name, Format, then at most 100 demographic fields.",
  validate: csvSubscribers,
};

describe("checkRule", () => {
  it.each<{ rule: RuleModel; given: string }>([
    { rule: enumRule, given: "HTML" },
    { rule: enumRule, given: "Text" },
    { rule: dateRule, given: "2024-02-29" },
    { rule: timeRule, given: "23:59" },
    { rule: intervalRule, given: "2024-01-01T00:00:00" },
    { rule: senderRule, given: "Sixteen chars ok" },
    { rule: senderRule, given: "😀".repeat(16) },
    { rule: fieldNumberRule, given: "1" },
    { rule: fieldNumberRule, given: "100" },
    { rule: fieldNameRule, given: "DD3" },
    { rule: fieldNameRule, given: "_custom_1" },
    { rule: fieldNameRule, given: "a".repeat(64) },
    { rule: urlRule, given: "https://example.com/dir/file.csv" },
    { rule: urlRule, given: "ftp://files.example.com/a.csv" },
    { rule: urlRule, given: "HTTP://Example.com/a.csv" },
    { rule: csvRule, given: "a@b,N,HTML" },
  ])("$rule.name accepts '$given'", ({ rule, given }) => {
    expect(checkRule(rule, "strParam", given)).toBeUndefined();
  });

  /** Inputs `rule` refuses for the same reason: with `code`, the message mentioning `mentions`. */
  const refused = (rule: RuleModel, code: string, mentions: string[], ...givens: string[]) =>
    givens.map((given) => ({ rule, given, code, mentions }));

  it.each<{ rule: RuleModel; given: string; code: string; mentions: string[] }>([
    ...refused(enumRule, ErrorCodes.InvalidValue, ["must be HTML or Text."], "html"),
    ...refused(dateRule, ErrorCodes.InvalidFormat, ["yyyy-MM-dd"], "2023-02-29"),
    ...refused(timeRule, ErrorCodes.InvalidFormat, ["HH:mm"], "24:00"),
    ...refused(intervalRule, ErrorCodes.InvalidFormat, ["yyyy-MM-ddTHH:mm:ss"], "2024-01-01"),
    ...refused(senderRule, ErrorCodes.TooLong, ["at most 16", "it has 17"], "Seventeen chars!!"),
    ...refused(senderRule, ErrorCodes.TooLong, ["it has 17"], "😀".repeat(17)),
    ...refused(fieldNumberRule, ErrorCodes.OutOfRange, ["from 1 to 100"], "0", "101"),
    ...refused(fieldNumberRule, ErrorCodes.OutOfRange, ["whole number"], "1.5", "DD3"),
    ...refused(fieldNameRule, ErrorCodes.InvalidName, ["at most 64"], "3DD", "a".repeat(65)),
    ...refused(fieldNameRule, ErrorCodes.InvalidName, ["field name"], "a-b", "xmlField", "<x/>"),
    ...refused(urlRule, ErrorCodes.InvalidUrl, ["http, https or ftp"], "mailto:a@b"),
    ...refused(
      urlRule,
      ErrorCodes.InvalidUrl,
      ["forward slashes"],
      "file:///etc/passwd",
      "http:\\\\host\\a.csv",
    ),
    ...refused(
      urlRule,
      ErrorCodes.InvalidUrl,
      ["complete"],
      "example.com/a.csv",
      "http://host/a b.csv",
      "http:/host/a.csv",
      "http:host/a.csv",
      "http:///host/a.csv",
      "http://",
    ),
  ])("$rule.kind refuses '$given' with $code", ({ rule, given, code, mentions }) => {
    expectClientError(checkRule(rule, "strParam", given), code, "strParam", ["strParam", ...mentions]);
  });
});

describe("csvSubscribers", () => {
  const dd = (n: number) => Array.from({ length: n }, (_, i) => `v${i + 1}`).join(",");

  it.each([
    { name: "LF rows", given: "a@b,N,HTML\nc@d,M,Text" },
    { name: "CRLF rows with a trailing newline", given: "a@b,N,HTML\r\nc@d,M,Text\r\n" },
    { name: "pipe rows", given: "a@b|N|HTML\nc@d|M|Text" },
    { name: "pipe rows", given: "a@b|N|HTML\nc@d|M, Jr|Text" },
    { name: "a quoted Name holding the delimiter", given: 'a@b,"Smith, J",HTML' },
    {
      name: "a quoted Name holding a line break and a quote",
      given: 'a@b,"Line\nTwo ""Q""",HTML\nc@d,M,Text',
    },
    { name: "quoted fields everywhere, CRLF", given: '"a@b","N","HTML","SE"\r\n"c@d","M","Text"\r\n' },
    { name: "blank lines between rows", given: "a@b,N,HTML\n\n  \nc@d,M,Text" },
    { name: "spaces around Format", given: "a@b,N, HTML " },
    { name: "empty Name", given: "a@b,,Text" },
    { name: "100 demographic fields", given: `a@b,N,HTML,${dd(100)}` },
  ])("accepts $name", ({ given }) => {
    expect(checkRule(csvRule, "strCsvData", given)).toBeUndefined();
  });

  it.each([
    {
      name: "bad Format",
      given: "a@b,N,HTML\nc@d,M,Html",
      mentions: ["line 2", "Format must be HTML or Text"],
    },
    { name: "bad Format with CRLF", given: "a@b,N,HTML\r\nc@d,M,PDF\r\n", mentions: ["line 2", "Format"] },
    {
      name: "101 demographic fields",
      given: `a@b,N,HTML,${dd(101)}`,
      mentions: ["line 1", "101", "at most 100"],
    },
    { name: "too few fields", given: "a@b,N", mentions: ["line 1", "at least Email, Name and Format"] },
    { name: "no delimiter", given: "a@b N HTML", mentions: ["line 1", "separated by , or |"] },
    {
      name: "no delimiter after blank lines",
      given: "\n\na@b N HTML",
      mentions: ["line 3", "separated by , or |"],
    },
    { name: "empty Email", given: " ,N,HTML", mentions: ["line 1", "empty Email"] },
    { name: "lines counted with blank lines", given: "a@b,N,HTML\n\nc@d,M", mentions: ["line 3"] },
    {
      name: "one delimiter per text: a pipe row after comma rows",
      given: "a@b,N,HTML\nc@d|M|Text",
      mentions: ["line 2", "separated by ,"],
    },
    {
      name: "lines counted past a quoted line break",
      given: 'a@b,"N\nN",HTML\nc@d,M,PDF',
      mentions: ["line 3", "Format"],
    },
    {
      name: "a quoted field never closed",
      given: 'a@b,N,HTML\nc@d,"M,Text',
      mentions: ["line 2", "never closed"],
    },
    { name: "text after a closing quote", given: 'a@b,"N"x,HTML', mentions: ["line 1", "followed by text"] },
    { name: "only blank lines", given: "\r\n \n", mentions: ["holds no subscriber rows"] },
  ])("refuses $name", ({ given, mentions }) => {
    expectClientError(checkRule(csvRule, "strCsvData", given), "InvalidCsv", "strCsvData", [
      "strCsvData",
      ...mentions,
    ]);
  });

  it("refuses the row past maxRows, naming its line, and reads no further", () => {
    const capped: RuleModel = {
      ...csvRule,
      options: { delimiters: [",", "|"], maxDemographicFields: 100, maxRows: 2 },
    };
    expect(checkRule(capped, "strCsvData", "a@b,N,HTML\n\nc@d,M,Text\n")).toBeUndefined();
    // Row 3 is on line 4; the broken quote after it is never read.
    expectClientError(
      checkRule(capped, "strCsvData", 'a@b,N,HTML\n\nc@d,M,Text\ne@f,O,HTML\ng@h,"never closed'),
      "InvalidCsv",
      "strCsvData",
      ["line 4", "is row 3; one call takes at most 2 rows"],
    );
  });

  it("leaves empty data to the required check: rules skip empty values", () => {
    const op = operation("Csv", [param("strCsvData", "string", { required: true, rules: [csvRule] })]);
    expect(validateParams(op, { strCsvData: "" })).toBeUndefined();
  });
});

describe("demographicLists", () => {
  const lists: CheckModel = {
    kind: "extension",
    validator: "demographicLists",
    params: ["strDatafields", "strDatavalues"],
    options: { maxField: 100 },
    text: "DD lists",
    validate: demographicLists,
  };
  const split: CheckModel = {
    kind: "extension",
    validator: "demographicLists",
    params: ["strDataFields", "strDataValues"],
    options: { maxField: 25, splitLength: 500 },
    text: "DD lists, split",
    validate: demographicLists,
  };
  /** The check's two parameters: the field names, then the values. */
  const namesOf = (check: CheckModel) => {
    const [fields, values] = (check as Extract<CheckModel, { kind: "extension" }>).params;
    return { fields: fields!, values: values! };
  };

  it.each([
    { name: "; lists", check: lists, fields: "DD1;DD2", values: "a;b" },
    { name: "| lists", check: lists, fields: "DD1|DD2", values: "a|b" },
    { name: "both empty", check: lists, fields: "", values: "" },
    { name: "both absent", check: lists, fields: undefined, values: undefined },
    { name: "one field, empty value", check: lists, fields: "DD7", values: "" },
    { name: "DD100 and lower case dd", check: lists, fields: "DD100;dd5", values: "a;b" },
    { name: "spaces around names", check: lists, fields: " DD1 ; DD2 ", values: "a;b" },
    { name: "a value with the other delimiter", check: lists, fields: "DD1;DD2", values: "a|x;b" },
    { name: "1200 characters at DD20 (DD20..DD22)", check: split, fields: "DD20", values: "x".repeat(1200) },
    { name: "500 characters at DD25", check: split, fields: "DD25", values: "x".repeat(500) },
    { name: "500 emoji count as 500 characters", check: split, fields: "DD25", values: "😀".repeat(500) },
    {
      name: "split parts next to other fields",
      check: split,
      fields: "DD1;DD3",
      values: `${"x".repeat(1000)};y`,
    },
  ])("accepts $name", ({ check, fields, values }) => {
    const names = namesOf(check);
    expect(checkOperation(check, { [names.fields]: fields, [names.values]: values })).toBeUndefined();
  });

  it.each([
    {
      name: "mixed delimiters",
      check: lists,
      fields: "DD1;DD2|DD3",
      values: "a;b;c",
      mentions: ["one delimiter"],
    },
    {
      name: "count mismatch",
      check: lists,
      fields: "DD1;DD2",
      values: "a",
      mentions: ["2 fields", "1 values"],
    },
    {
      name: "count mismatch, other delimiter",
      check: lists,
      fields: "DD1;DD2",
      values: "a|b",
      mentions: ["strDatavalues"],
    },
    {
      name: "values without fields",
      check: lists,
      fields: "",
      values: "a",
      mentions: ["strDatavalues", "empty"],
    },
    { name: "DD0", check: lists, fields: "DD0", values: "a", mentions: ["DD1 to DD100"] },
    { name: "DD101", check: lists, fields: "DD1;DD101", values: "a;b", mentions: ["item 2", "DD1 to DD100"] },
    { name: "not a DD name", check: lists, fields: "Name", values: "a", mentions: ["DD1 to DD100"] },
    { name: "duplicates", check: lists, fields: "DD4;dd4", values: "a;b", mentions: ["DD4 twice"] },
    {
      name: "split parts overlap the next field",
      check: split,
      fields: "DD1;DD2",
      values: `${"x".repeat(501)};y`,
      mentions: ["DD2 twice"],
    },
    { name: "DD26 with maxField 25", check: split, fields: "DD26", values: "a", mentions: ["DD1 to DD25"] },
  ])("refuses $name", ({ check, fields, values, mentions }) => {
    const names = namesOf(check);
    expectClientError(
      checkOperation(check, { [names.fields]: fields, [names.values]: values }),
      "InvalidDemographicFields",
      names.fields,
      mentions,
    );
  });

  it.each([
    {
      name: "1200 characters at DD24 (DD24..DD26)",
      fields: "DD24",
      values: "x".repeat(1200),
      mentions: ["too long", "past DD25"],
    },
    { name: "501 characters at DD25", fields: "DD25", values: "x".repeat(501), mentions: ["past DD25"] },
  ])(
    "refuses a split that runs past the last field as TooManyFields: $name",
    ({ fields, values, mentions }) => {
      const names = namesOf(split);
      expectClientError(
        checkOperation(split, { [names.fields]: fields, [names.values]: values }),
        "TooManyFields",
        names.values,
        mentions,
      );
    },
  );
});

describe("extension rules and checks", () => {
  const echo: RuleModel = {
    kind: "extension",
    name: "echo",
    validator: "echo",
    options: { code: "Custom" },
    text: "Echo.",
    validate: (value, parameter, options) =>
      value === "bad" ? { code: String(options["code"]), message: `${parameter} is bad.` } : undefined,
  };

  it("turns a returned problem into a client error with the validator's code, naming the rule's parameter", () => {
    expectClientError(checkRule(echo, "strX", "bad"), "Custom", "strX", ["strX is bad."]);
    expect(checkRule(echo, "strX", "good")).toBeUndefined();
  });

  it("names the parameter the validator returns, else the check's first parameter", () => {
    const pair = (parameter: string | undefined): CheckModel => ({
      kind: "extension",
      validator: "pair",
      params: ["a", "b"],
      options: {},
      text: "Pair.",
      validate: (values, params) =>
        values[params[0]!] === values[params[1]!]
          ? {
              code: "Same",
              message: "a and b are the same.",
              ...(parameter === undefined ? {} : { parameter }),
            }
          : undefined,
    });
    expectClientError(checkOperation(pair(undefined), { a: "1", b: "1" }), "Same", "a", ["the same"]);
    expectClientError(checkOperation(pair("b"), { a: "1", b: "1" }), "Same", "b", ["the same"]);
    expect(checkOperation(pair(undefined), { a: "1", b: "2" })).toBeUndefined();
  });

  it("refuses with a server error naming the validator when the model carries no function", () => {
    const { validate: _rule, ...unwired } = echo as Extract<RuleModel, { kind: "extension" }>;
    const error = checkRule(unwired, "strX", "good");
    expect(error).toBeInstanceOf(ServiceError);
    expect(error!.code).toBe(ErrorCodes.InternalError);
    expect(error!.side).toBe("server");
    expect(error!.message).toContain("echo");
    const unwiredCheck: CheckModel = {
      kind: "extension",
      validator: "demographicLists",
      params: ["a", "b"],
      options: {},
      text: "DD lists",
    };
    expect(checkOperation(unwiredCheck, {})!.code).toBe(ErrorCodes.InternalError);
    expect(checkOperation(unwiredCheck, {})!.message).toContain("demographicLists");
  });
});

describe("atLeastOne", () => {
  const check: CheckModel = { kind: "atLeastOne", params: ["strSubscriberId", "strEmail"] };

  it.each([
    { given: { strSubscriberId: "1" } },
    { given: { strEmail: "a@b" } },
    { given: { strSubscriberId: "", strEmail: "a@b" } },
    { given: { strSubscriberId: "1", strEmail: "a@b" } },
  ])("accepts $given", ({ given }) => {
    expect(checkOperation(check, given)).toBeUndefined();
  });

  it.each([
    { given: {} },
    { given: { strSubscriberId: "", strEmail: "" } },
    { given: { strEmail: undefined } },
  ])("refuses $given", ({ given }) => {
    expectClientError(checkOperation(check, given), ErrorCodes.MissingIdentifier, "strSubscriberId", [
      "strSubscriberId or strEmail",
    ]);
  });
});

describe("ordered", () => {
  const check: CheckModel = { kind: "ordered", from: "datIntervalFrom", to: "datIntervalTo" };

  it.each([
    { from: "2024-01-01T00:00:00", to: "2024-02-01T00:00:00" },
    { from: "2024-01-01T00:00:00", to: "2024-01-01T00:00:00" },
    { from: "", to: "2024-01-01T00:00:00" },
    { from: "2024-01-01T00:00:00", to: undefined },
  ])("accepts $from .. $to", ({ from, to }) => {
    expect(checkOperation(check, { datIntervalFrom: from, datIntervalTo: to })).toBeUndefined();
  });

  it("refuses from after to", () => {
    expectClientError(
      checkOperation(check, { datIntervalFrom: "2024-02-01T00:00:00", datIntervalTo: "2024-01-31T23:59:59" }),
      ErrorCodes.InvalidInterval,
      "datIntervalFrom",
      ["datIntervalFrom must not be after datIntervalTo."],
    );
  });
});

describe("columnName", () => {
  const check: CheckModel = {
    kind: "columnName",
    param: "ddField",
    reserved: ["SubscriberId", "Email", "Name", "ViewTime"],
  };

  it.each([
    { name: "a demographic field", given: "DD3" },
    { name: "a name that only contains a fixed one", given: "EmailAddress" },
    { name: "a fixed name with a suffix", given: "Name_1" },
    { name: "empty (left to the required check)", given: "" },
    { name: "absent", given: undefined },
  ])("accepts $name", ({ given }) => {
    expect(checkOperation(check, { ddField: given })).toBeUndefined();
  });

  it.each([
    { given: "SubscriberId" },
    { given: "Email" },
    { given: "Name" },
    { given: "ViewTime" },
    { given: "email" },
    { given: "EMAIL" },
    { given: "viewtime" },
    { given: "subscriberID" },
  ])("refuses '$given'", ({ given }) => {
    expectClientError(checkOperation(check, { ddField: given }), ErrorCodes.InvalidName, "ddField", [
      "ddField must not name a fixed column of the result (SubscriberId, Email, Name, ViewTime).",
    ]);
  });

  it("runs in validateParams after the parameter rules", () => {
    const fieldName = param("ddField", "string", { required: true, rules: [fieldNameRule] });
    const op = operation("Views", [fieldName], undefined, [check]);
    expect(validateParams(op, { ddField: "Email" })?.message).toContain("fixed column");
    expect(validateParams(op, { ddField: "3DD" })?.message).toContain("letters, digits and underscores");
    expect(validateParams(op, { ddField: "DD3" })).toBeUndefined();
  });
});

describe("validateParams", () => {
  const op = operation(
    "Report",
    [
      param("strFormat", "string", { rules: [enumRule] }),
      param("datIntervalFrom", "string", { rules: [intervalRule] }),
      param("datIntervalTo", "string", { rules: [intervalRule] }),
      param("intId", "int"),
    ],
    undefined,
    [{ kind: "ordered", from: "datIntervalFrom", to: "datIntervalTo" }],
  );

  it.each([
    {
      name: "all valid",
      given: {
        strFormat: "HTML",
        datIntervalFrom: "2024-01-01T00:00:00",
        datIntervalTo: "2024-01-02T00:00:00",
        intId: 1,
      },
      want: undefined,
    },
    {
      name: "empty strings skip their rules",
      given: { strFormat: "", datIntervalFrom: "", datIntervalTo: "", intId: 1 },
      want: undefined,
    },
    {
      name: "the first parameter at fault wins",
      given: { strFormat: "pdf", datIntervalFrom: "bad", intId: 1 },
      want: "strFormat",
    },
    {
      name: "parameter rules before checks",
      given: { datIntervalFrom: "2024-02-01T00:00:00", datIntervalTo: "bad" },
      want: "datIntervalTo",
    },
    {
      name: "checks after parameters",
      given: { datIntervalFrom: "2024-02-01T00:00:00", datIntervalTo: "2024-01-01T00:00:00" },
      want: "datIntervalFrom",
    },
  ])("$name", ({ given, want }) => {
    expect(validateParams(op, given)?.parameter).toBe(want);
  });
});

describe("generic rules (pattern, length, range)", () => {
  const code: RuleModel = { kind: "pattern", name: "code", pattern: "^[A-Z]{3}$" };
  const name: RuleModel = { kind: "length", name: "name", min: 2, max: 5 };
  const atMost: RuleModel = { kind: "length", name: "short", max: 3 };
  const percent: RuleModel = { kind: "range", name: "percent", min: 0, max: 100 };
  const positive: RuleModel = { kind: "range", name: "positive", min: 0.5 };
  const small: RuleModel = { kind: "range", name: "small", max: -0.25 };

  it("pattern matches the whole value in unicode mode", () => {
    expect(checkRule(code, "cur", "EUR")).toBeUndefined();
    expectClientError(checkRule(code, "cur", "EURO"), ErrorCodes.InvalidFormat, "cur", [
      "must match the pattern ^[A-Z]{3}$.",
    ]);
    expectClientError(checkRule(code, "cur", "eur"), ErrorCodes.InvalidFormat, "cur", ["^[A-Z]{3}$"]);
    // Unicode mode: one code point is one character of the pattern.
    const emoji: RuleModel = { kind: "pattern", name: "one", pattern: "^.$" };
    expect(checkRule(emoji, "x", "😀")).toBeUndefined();
  });

  it("pattern refuses a value over PATTERN_MAX_CHARACTERS before matching it", () => {
    const any: RuleModel = { kind: "pattern", name: "any", pattern: "^[a-z]*$" };
    expect(checkRule(any, "v", "a".repeat(PATTERN_MAX_CHARACTERS))).toBeUndefined();
    expectClientError(checkRule(any, "v", "a".repeat(PATTERN_MAX_CHARACTERS + 1)), ErrorCodes.TooLong, "v", [
      `must be at most ${PATTERN_MAX_CHARACTERS} characters to be matched against its pattern.`,
    ]);
    // The exponential pattern of the issue (validate refuses it now): the cap alone would not save it, but a
    // value over the cap is refused before the engine sees it.
    const evil: RuleModel = { kind: "pattern", name: "evil", pattern: "^(\\w|\\d)+$" };
    expect(checkRule(evil, "v", `A${"0".repeat(PATTERN_MAX_CHARACTERS)}\u0000`)?.code).toBe(
      ErrorCodes.TooLong,
    );
  });

  it("length counts code points and names the bound and the count", () => {
    expect(checkRule(name, "n", "ab")).toBeUndefined();
    expect(checkRule(name, "n", "😀😀😀😀😀")).toBeUndefined();
    expectClientError(checkRule(name, "n", "a"), ErrorCodes.InvalidValue, "n", [
      "at least 2 characters; it has 1.",
    ]);
    expectClientError(checkRule(name, "n", "abcdef"), ErrorCodes.TooLong, "n", [
      "at most 5 characters; it has 6.",
    ]);
    expect(checkRule(atMost, "s", "abc")).toBeUndefined();
    expectClientError(checkRule(atMost, "s", "abcd"), ErrorCodes.TooLong, "s", ["at most 3"]);
  });

  it.each<{ rule: RuleModel; given: unknown; ok: boolean }>([
    { rule: percent, given: 0, ok: true },
    { rule: percent, given: 100, ok: true },
    { rule: percent, given: -0, ok: true },
    { rule: percent, given: -1, ok: false },
    { rule: percent, given: 100.0001, ok: false },
    { rule: percent, given: NaN, ok: false },
    { rule: percent, given: Infinity, ok: false },
    { rule: percent, given: 100n, ok: true },
    { rule: percent, given: 101n, ok: false },
    { rule: percent, given: -1n, ok: false },
    // Exact for bigints beyond 2^53 and for decimal text.
    { rule: percent, given: 18446744073709551615n, ok: false },
    { rule: percent, given: "100.000", ok: true },
    { rule: percent, given: "100.0000000000000000001", ok: false },
    { rule: percent, given: "-0.00", ok: true },
    { rule: percent, given: "-0.0000000000000000001", ok: false },
    { rule: percent, given: "+99.99", ok: true },
    { rule: positive, given: 1n, ok: true },
    { rule: positive, given: 0n, ok: false },
    { rule: positive, given: "0.5", ok: true },
    { rule: positive, given: "0.4999999999999999999", ok: false },
    { rule: small, given: "-0.25", ok: true },
    { rule: small, given: "-0.24", ok: false },
    { rule: small, given: -1n, ok: true },
    { rule: small, given: 0n, ok: false },
  ])("range $rule.name with $given: $ok", ({ rule, given, ok }) => {
    const error = checkRule(rule, "p", given);
    if (ok) expect(error).toBeUndefined();
    else expectClientError(error, ErrorCodes.OutOfRange, "p", ["p must be"]);
  });

  it("words the range as given: both bounds, only min, only max", () => {
    expect(checkRule(percent, "p", 101)?.message).toBe("p must be from 0 to 100.");
    expect(checkRule(positive, "p", 0)?.message).toBe("p must be at least 0.5.");
    expect(checkRule(small, "p", 0)?.message).toBe("p must be at most -0.25.");
  });

  it("validateParams runs range rules on numbers and skips absent and nil values", () => {
    const op = operation("Rate", [
      param("pct", "int", { rules: [percent] }),
      param("amount", "decimal", { rules: [percent] }),
    ]);
    expect(validateParams(op, { pct: 50, amount: "1.5" })).toBeUndefined();
    expect(validateParams(op, { pct: 150, amount: "1.5" })?.parameter).toBe("pct");
    expect(validateParams(op, { pct: 5, amount: "100.01" })?.parameter).toBe("amount");
    expect(validateParams(op, { pct: null, amount: undefined })).toBeUndefined();
  });
});
