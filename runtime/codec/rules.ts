// The spec's rules, applied to decoded parameters before a handler runs. Each rule kind has one
// validator and one error code; a failure is a client error naming the parameter and the rule. A service's
// own rules and checks (kind "extension") run the validator its spec's extension module exports, which the
// generated server model puts into the rule; this file knows none of them.

import { clientError, ErrorCodes, ServiceError } from "../errors.js";
import type { CheckModel, ExtensionProblem, OperationModel, RuleModel } from "../model.js";
import { matchesTextFormat, textFormatShape } from "./values.js";

const XML_NAME_RE = /^[A-Za-z_][A-Za-z0-9_]*$/;
const INT_TEXT_RE = /^[+-]?\d+$/;

/** `a, b or c` (or `and`): how messages and the help pages list names. */
export function listInWords(items: readonly string[], conjunction: "and" | "or" = "or"): string {
  return items.length <= 1
    ? items.join("")
    : `${items.slice(0, -1).join(", ")} ${conjunction} ${items[items.length - 1]}`;
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

/** A problem an extension validator returned, as the client error the caller gets. */
function extensionError(problem: ExtensionProblem, parameter: string | undefined): ServiceError {
  return clientError(problem.code, problem.message, { parameter: problem.parameter ?? parameter });
}

/** A model built without the extension module has no validator: refuse rather than let the value pass. */
function missingValidator(validator: string): ServiceError {
  return new ServiceError(
    ErrorCodes.InternalError,
    `The extension validator ${validator} is not loaded; the server model must come from the generated server-model.ts.`,
  );
}

/**
 * The longest value (in UTF-16 units) a pattern rule is matched against; a longer one fails the rule before
 * matching. validate admits only patterns recheck proves linear, so a match costs at most this many steps
 * times a constant; the cap keeps that true for a pattern the analyser misjudged (one request must not hold
 * the event loop: 10,000 units take well under a millisecond on a linear pattern).
 */
export const PATTERN_MAX_CHARACTERS = 10_000;

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
function compareDecimalText(a: string, b: string): number {
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
  if (typeof value === "number")
    return Number.isNaN(value) ? undefined : value < bound ? -1 : value > bound ? 1 : 0;
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
      if (value.length > PATTERN_MAX_CHARACTERS) {
        return fail(
          ErrorCodes.TooLong,
          `${name} must be at most ${PATTERN_MAX_CHARACTERS} characters to be matched against its pattern.`,
        );
      }
      return patternOf(rule).test(value)
        ? undefined
        : fail(ErrorCodes.InvalidFormat, `${name} must match the pattern ${rule.pattern}.`);
    case "length": {
      const count = characterCount(value);
      if (rule.min !== undefined && count < rule.min) {
        return fail(
          ErrorCodes.InvalidValue,
          `${name} must be at least ${rule.min} characters; it has ${count}.`,
        );
      }
      if (rule.max !== undefined && count > rule.max) {
        return fail(ErrorCodes.TooLong, `${name} must be at most ${rule.max} characters; it has ${count}.`);
      }
      return undefined;
    }
    case "enum":
      return rule.values.includes(value)
        ? undefined
        : fail(ErrorCodes.InvalidValue, `${name} must be ${listInWords(rule.values)}.`);
    case "format":
      return matchesTextFormat(rule.format, value)
        ? undefined
        : fail(
            ErrorCodes.InvalidFormat,
            `${name} must have the form ${textFormatShape(rule.format)} and name a real date or time.`,
          );
    case "maxLength": {
      const count = characterCount(value);
      return count <= rule.max
        ? undefined
        : fail(ErrorCodes.TooLong, `${name} must be at most ${rule.max} characters; it has ${count}.`);
    }
    case "intText": {
      const ok = INT_TEXT_RE.test(value) && Number(value) >= rule.min && Number(value) <= rule.max;
      return ok
        ? undefined
        : fail(ErrorCodes.OutOfRange, `${name} must be a whole number from ${rule.min} to ${rule.max}.`);
    }
    case "xmlName":
      return XML_NAME_RE.test(value) && value.length <= rule.max && !/^xml/i.test(value)
        ? undefined
        : fail(
            ErrorCodes.InvalidName,
            `${name} must be a field name of letters, digits and underscores, at most ${rule.max} characters.`,
          );
    case "url":
      return isAbsoluteUrl(value, rule.schemes)
        ? undefined
        : fail(
            ErrorCodes.InvalidUrl,
            `${name} must be a complete ${listInWords(rule.schemes)} address with forward slashes.`,
          );
    case "extension": {
      if (rule.validate === undefined) return missingValidator(rule.validator);
      const problem = rule.validate(value, name, rule.options);
      return problem === undefined ? undefined : extensionError(problem, name);
    }
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
        ? clientError(ErrorCodes.InvalidInterval, `${check.from} must not be after ${check.to}.`, {
            parameter: check.from,
          })
        : undefined;
    }
    case "extension": {
      if (check.validate === undefined) return missingValidator(check.validator);
      const problem = check.validate(values, check.params, check.options);
      return problem === undefined ? undefined : extensionError(problem, check.params[0]);
    }
    case "columnName": {
      const value = values[check.param];
      // .NET compares DataTable column names ignoring case; a duplicate name breaks the DataSet schema.
      const taken =
        typeof value === "string" &&
        check.reserved.some((name) => name.toLowerCase() === value.toLowerCase());
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
export function validateParams(
  op: OperationModel,
  values: Record<string, unknown>,
): ServiceError | undefined {
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
