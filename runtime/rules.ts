// The spec's rules, applied to decoded parameters before a handler runs. Each rule kind has one
// validator and one error code; a failure is a client error naming the parameter and the rule.

import { detectDelimiter, isCsvProblem, readCsvRows } from "./csv.js";
import { clientError, ErrorCodes, type ServiceError } from "./errors.js";
import type { CheckModel, OperationModel, RuleModel } from "./model.js";
import { matchesTextFormat, textFormatShape } from "./values.js";

const XML_NAME_RE = /^[A-Za-z_][A-Za-z0-9_]*$/;
const DD_FIELD_RE = /^DD([1-9]\d{0,2})$/i;
const INT_TEXT_RE = /^[+-]?\d+$/;

/** `a, b or c` (or `and`): how messages and the help pages list names. */
export function listInWords(items: readonly string[], conjunction: "and" | "or" = "or"): string {
  return items.length <= 1 ? items.join("") : `${items.slice(0, -1).join(", ")} ${conjunction} ${items[items.length - 1]}`;
}

/** Counts characters as code points, so an emoji is one character, not two UTF-16 units. */
function characterCount(text: string): number {
  let count = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0xd800 || c > 0xdbff) count++;
  }
  return count;
}

function checkCsvRows(rule: Extract<RuleModel, { kind: "csvSubscribers" }>, name: string, text: string): ServiceError | undefined {
  const fail = (line: number, why: string) =>
    clientError(ErrorCodes.InvalidCsv, `${name} line ${line}: ${why}.`, { parameter: name });
  const delimiter = detectDelimiter(text, rule.delimiters);
  if (delimiter === undefined) {
    return text.trim() === ""
      ? clientError(ErrorCodes.InvalidCsv, `${name} holds no subscriber rows.`, { parameter: name })
      : fail(1 + countLines(text.slice(0, text.search(/\S/))), `needs Email, Name and Format separated by ${listInWords(rule.delimiters)}`);
  }
  for (const row of readCsvRows(text, delimiter, delimiter === ",")) {
    if (isCsvProblem(row)) return fail(row.line, row.problem);
    const problem = subscriberRowProblem(row.fields, delimiter, rule.maxDemographicFields);
    if (problem !== undefined) return fail(row.line, problem);
  }
  return undefined;
}

function countLines(text: string): number {
  let count = 0;
  for (let at = text.indexOf("\n"); at >= 0; at = text.indexOf("\n", at + 1)) count++;
  return count;
}

/** Why a row of Email, Name, Format, dd1.. is not one, or undefined when it is. */
export function subscriberRowProblem(fields: readonly string[], delimiter: string, maxDemographicFields: number): string | undefined {
  if (fields.length < 3) return `needs at least Email, Name and Format separated by ${delimiter}`;
  if (fields[0]!.trim() === "") return "has an empty Email";
  const format = fields[2]!.trim();
  if (format !== "HTML" && format !== "Text") return "Format must be HTML or Text";
  if (fields.length - 3 > maxDemographicFields) {
    return `has ${fields.length - 3} demographic fields, at most ${maxDemographicFields} are allowed`;
  }
  return undefined;
}

/** Compiled pattern rules, one RegExp per rule object (unicode mode, as validate compiles them). */
const compiledPatterns = new WeakMap<object, RegExp>();

function patternOf(rule: Extract<RuleModel, { kind: "pattern" }>): RegExp {
  let re = compiledPatterns.get(rule);
  if (re === undefined) {
    re = new RegExp(rule.pattern, "u");
    compiledPatterns.set(rule, re);
  }
  return re;
}

/** `[+-]digits[.digits]` as sign, integer digits without leading zeros, fraction digits without trailing ones. */
function decimalParts(text: string): { negative: boolean; whole: string; fraction: string } {
  let t = text.trim();
  let negative = false;
  if (t.startsWith("-") || t.startsWith("+")) {
    negative = t.startsWith("-");
    t = t.slice(1);
  }
  const dot = t.indexOf(".");
  const whole = (dot < 0 ? t : t.slice(0, dot)).replace(/^0+/, "");
  const fraction = dot < 0 ? "" : t.slice(dot + 1).replace(/0+$/, "");
  // -0 and -0.000 are zero, which has no sign.
  return { negative: negative && (whole !== "" || fraction !== ""), whole, fraction };
}

/** Compares two plain decimal texts exactly: negative, zero or positive as a < b, a = b, a > b. */
export function compareDecimalText(a: string, b: string): number {
  const x = decimalParts(a);
  const y = decimalParts(b);
  if (x.negative !== y.negative) return x.negative ? -1 : 1;
  const sign = x.negative ? -1 : 1;
  if (x.whole.length !== y.whole.length) return sign * (x.whole.length - y.whole.length);
  if (x.whole !== y.whole) return sign * (x.whole < y.whole ? -1 : 1);
  const n = Math.max(x.fraction.length, y.fraction.length);
  const xf = x.fraction.padEnd(n, "0");
  const yf = y.fraction.padEnd(n, "0");
  return xf === yf ? 0 : sign * (xf < yf ? -1 : 1);
}

/** A number bound as plain decimal text: its shortest round-trip digits, without an exponent. */
function plainDecimal(n: number): string {
  const text = String(n);
  const m = /^(-?)(\d)(?:\.(\d+))?e([+-]\d+)$/.exec(text);
  if (!m) return text;
  const digits = m[2]! + (m[3] ?? "");
  const exponent = Number(m[4]);
  if (exponent >= 0) {
    const whole = digits.padEnd(exponent + 1, "0");
    return `${m[1]}${whole.slice(0, exponent + 1)}${whole.length > exponent + 1 ? `.${whole.slice(exponent + 1)}` : ""}`;
  }
  return `${m[1]}0.${"0".repeat(-exponent - 1)}${digits}`;
}

/**
 * Compares a numeric parameter value with a bound exactly: a number as is, a bigint (long, unsignedLong)
 * as a whole number, a decimal's text digit by digit. Undefined for anything else (NaN included).
 */
function compareWithBound(value: unknown, bound: number): number | undefined {
  if (typeof value === "number") return Number.isNaN(value) ? undefined : value < bound ? -1 : value > bound ? 1 : 0;
  if (typeof value === "bigint") {
    // A whole number v is below a fractional bound b exactly when it is below ceil(b).
    if (!Number.isInteger(bound)) return value < BigInt(Math.ceil(bound)) ? -1 : 1;
    const b = BigInt(bound);
    return value < b ? -1 : value > b ? 1 : 0;
  }
  if (typeof value === "string") return compareDecimalText(value, plainDecimal(bound));
  return undefined;
}

function rangeInWords(min: number | undefined, max: number | undefined): string {
  if (min !== undefined && max !== undefined) return `from ${min} to ${max}`;
  return min !== undefined ? `at least ${min}` : `at most ${max}`;
}

/**
 * Checks one value against one rule; returns the error or undefined. String rules take a non-empty
 * string (other values pass: validate puts them on string parameters only); range takes a number, a
 * bigint or decimal text.
 */
export function checkRule(rule: RuleModel, name: string, value: unknown): ServiceError | undefined {
  const fail = (code: string, sentence: string) => clientError(code, sentence, { parameter: name });
  if (rule.kind === "range") {
    const low = rule.min === undefined ? 1 : compareWithBound(value, rule.min);
    const high = rule.max === undefined ? -1 : compareWithBound(value, rule.max);
    return low !== undefined && high !== undefined && low >= 0 && high <= 0
      ? undefined
      : fail(ErrorCodes.OutOfRange, `${name} must be ${rangeInWords(rule.min, rule.max)}.`);
  }
  if (typeof value !== "string") return undefined;
  switch (rule.kind) {
    case "pattern":
      return patternOf(rule).test(value)
        ? undefined
        : fail(ErrorCodes.InvalidFormat, `${name} must match the pattern ${rule.pattern}.`);
    case "length": {
      const count = characterCount(value);
      if (rule.min !== undefined && count < rule.min) {
        return fail(ErrorCodes.InvalidValue, `${name} must be at least ${rule.min} characters; it has ${count}.`);
      }
      if (rule.max !== undefined && count > rule.max) {
        return fail(ErrorCodes.TooLong, `${name} must be at most ${rule.max} characters; it has ${count}.`);
      }
      return undefined;
    }
    case "enum":
      return rule.values.includes(value) ? undefined : fail(ErrorCodes.InvalidValue, `${name} must be ${listInWords(rule.values)}.`);
    case "format":
      return matchesTextFormat(rule.format, value)
        ? undefined
        : fail(ErrorCodes.InvalidFormat, `${name} must have the form ${textFormatShape(rule.format)} and name a real date or time.`);
    case "maxLength": {
      const count = characterCount(value);
      return count <= rule.max
        ? undefined
        : fail(ErrorCodes.TooLong, `${name} must be at most ${rule.max} characters; it has ${count}.`);
    }
    case "intText": {
      const ok = INT_TEXT_RE.test(value) && Number(value) >= rule.min && Number(value) <= rule.max;
      return ok ? undefined : fail(ErrorCodes.OutOfRange, `${name} must be a whole number from ${rule.min} to ${rule.max}.`);
    }
    case "xmlName":
      return XML_NAME_RE.test(value) && value.length <= rule.max && !/^xml/i.test(value)
        ? undefined
        : fail(ErrorCodes.InvalidName, `${name} must be a field name of letters, digits and underscores, at most ${rule.max} characters.`);
    case "url":
      return isAbsoluteUrl(value, rule.schemes)
        ? undefined
        : fail(ErrorCodes.InvalidUrl, `${name} must be a complete ${listInWords(rule.schemes)} address with forward slashes.`);
    case "csvSubscribers":
      return checkCsvRows(rule, name, value);
  }
}

function isAbsoluteUrl(value: string, schemes: readonly string[]): boolean {
  if (value.includes("\\") || /\s/.test(value)) return false;
  // WHATWG URL repairs "http:host" and "http:///host"; a complete address spells "scheme://host".
  if (!/^[A-Za-z][A-Za-z0-9+.-]*:\/\/[^/]/.test(value)) return false;
  try {
    const url = new URL(value);
    return schemes.includes(url.protocol.slice(0, -1)) && url.hostname !== "";
  } catch {
    return false;
  }
}

function splitDemographic(text: string): { delimiter: string; items: string[] } | "mixed" {
  const semi = text.includes(";");
  const pipe = text.includes("|");
  if (semi && pipe) return "mixed";
  const delimiter = pipe ? "|" : ";";
  return { delimiter, items: text.split(delimiter) };
}

function checkDemographicLists(check: Extract<CheckModel, { kind: "demographicLists" }>, values: Record<string, unknown>) {
  const fieldsText = (values[check.fields] as string | undefined) ?? "";
  const valuesText = (values[check.values] as string | undefined) ?? "";
  const fail = (sentence: string) =>
    clientError(ErrorCodes.InvalidDemographicFields, sentence, { parameter: check.fields });
  if (fieldsText === "") {
    return valuesText === "" ? undefined : fail(`${check.values} is given but ${check.fields} is empty.`);
  }
  const fields = splitDemographic(fieldsText);
  if (fields === "mixed") return fail(`${check.fields} must use one delimiter, ; or |, not both.`);
  const items = valuesText === "" ? [""] : valuesText.split(fields.delimiter);
  if (items.length !== fields.items.length) {
    return fail(
      `${check.fields} names ${fields.items.length} fields but ${check.values} holds ${items.length} values (delimiter ${fields.delimiter}).`,
    );
  }
  const taken = new Set<number>();
  for (let i = 0; i < fields.items.length; i++) {
    const m = DD_FIELD_RE.exec(fields.items[i]!.trim());
    const n = m ? Number(m[1]) : 0;
    if (n < 1 || n > check.maxField) {
      return fail(`${check.fields} item ${i + 1} must be a field name DD1 to DD${check.maxField}.`);
    }
    const parts = check.splitLength ? Math.max(1, Math.ceil(characterCount(items[i]!) / check.splitLength)) : 1;
    for (let p = 0; p < parts; p++) {
      if (n + p > check.maxField) {
        return clientError(
          ErrorCodes.TooManyFields,
          `${check.values} item ${i + 1} is too long: split into ${check.splitLength}-character parts it needs fields past DD${check.maxField}.`,
          { parameter: check.values },
        );
      }
      if (taken.has(n + p)) return fail(`${check.fields} uses DD${n + p} twice.`);
      taken.add(n + p);
    }
  }
  return undefined;
}

function isGiven(value: unknown): boolean {
  return value !== undefined && value !== "";
}

/** Checks one operation-level rule over the decoded parameters. */
export function checkOperation(check: CheckModel, values: Record<string, unknown>): ServiceError | undefined {
  switch (check.kind) {
    case "atLeastOne":
      return check.params.some((p) => isGiven(values[p]))
        ? undefined
        : clientError(ErrorCodes.MissingIdentifier, `Give ${listInWords(check.params)}; all are empty.`, {
            parameter: check.params[0],
          });
    case "ordered": {
      const from = values[check.from];
      const to = values[check.to];
      return typeof from === "string" && typeof to === "string" && from !== "" && to !== "" && from > to
        ? clientError(ErrorCodes.InvalidInterval, `${check.from} must not be after ${check.to}.`, { parameter: check.from })
        : undefined;
    }
    case "demographicLists":
      return checkDemographicLists(check, values);
    case "columnName": {
      const value = values[check.param];
      // .NET compares DataTable column names ignoring case; a duplicate name breaks the DataSet schema.
      const taken = typeof value === "string" && check.reserved.some((name) => name.toLowerCase() === value.toLowerCase());
      return taken
        ? clientError(
            ErrorCodes.InvalidName,
            `${check.param} must not name a fixed column of the result (${check.reserved.join(", ")}).`,
            { parameter: check.param },
          )
        : undefined;
    }
  }
}

/** Runs every parameter rule and operation check; the first failure is returned. */
export function validateParams(op: OperationModel, values: Record<string, unknown>): ServiceError | undefined {
  for (const param of op.params) {
    const value = values[param.name];
    // Absent, nil and empty values have no rules to meet (required/atLeastOne say whether they may be so).
    if (value === undefined || value === null || value === "") continue;
    for (const rule of param.rules) {
      const error = checkRule(rule, param.name, value);
      if (error) return error;
    }
  }
  for (const check of op.checks) {
    const error = checkOperation(check, values);
    if (error) return error;
  }
  return undefined;
}

