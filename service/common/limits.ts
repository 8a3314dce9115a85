// The longest value each stored text field takes, checked before anything is written, on every path
// that writes it (single inserts, the CSV bulk insert and the queued file import share rowToSubscriber's
// checks; operations check their parameters). Lengths are characters counted as code points, as the
// generated rules count them (an emoji is one). A longer value is refused, never cut: `TooLong` naming the
// parameter (and the DD field), or in CSV and import rows the line's problem.
//
// Why these numbers: an e-mail address is at most 254 characters (RFC 5321's path limit less the angle
// brackets); a data field holds at most 500 characters, the length at which InsertTransactionWithSplit
// continues a value in the next field, which is what the interface says a field holds; names, subjects and
// identifiers 255, as the usual VARCHAR(255) of mail systems; a country calling code and a phone number the
// few characters they take with the separators people write (E.164 numbers are at most 15 digits).
//
// With these, a message's size is bounded by its templates: a merge tag adds at most 500 characters (an
// address 254, a name 255), and a newsletter's modules, merged at their longest, at most
// MAX_NEWSLETTER_MODULES characters (newsletters.ts checks it when a module is placed).

import { ErrorCodes, clientError, type ServiceError } from "../../generated/server.js";

export const MAX_EMAIL = 254;
export const MAX_NAME = 255;
export const MAX_FIELD_VALUE = 500;
export const MAX_COUNTRY_CODE = 10;
export const MAX_PHONE = 32;
export const MAX_IDENTIFIER = 255;
export const MAX_SUBJECT = 255;
/** A mailing list's description (UpdateMailingList). */
export const MAX_DESCRIPTION = 1000;
/** A character set name: IANA's are at most 40 characters. */
export const MAX_CHARSET = 40;
/** One module's code (InsertActiveTemplateModule strModuleCode). */
export const MAX_MODULE_CODE = 65_536;
/**
 * All modules placed in one newsletter, counted merged at their longest: each module's length plus
 * MAX_FIELD_VALUE for every merge tag in it.
 */
export const MAX_NEWSLETTER_MODULES = 262_144;

const HIGH_SURROGATE = /[\ud800-\udbff]/;
/** Past this many UTF-16 units a refusal names a lower bound instead of counting every character. */
const COUNTED_UP_TO = 1 << 20;

/** Characters as code points: a surrogate pair is one. */
export function characterCount(text: string): number {
  // A text without surrogates (found by the engine at once for one-byte text) has as many as its length.
  const first = text.search(HIGH_SURROGATE);
  if (first < 0) return text.length;
  let count = first;
  for (let i = first; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0xd800 || c > 0xdbff) count++;
  }
  return count;
}

/**
 * Whether `text` has more than `max` characters, looking at no more than 2 × max of it: code points never
 * outnumber UTF-16 units, nor are fewer than half of them.
 */
export function longerThan(text: string | undefined, max: number): boolean {
  if (text === undefined || text.length <= max) return false;
  return text.length > 2 * max || characterCount(text) > max;
}

/** How many characters a refused text has, for the message: exact, or a lower bound for a huge text with surrogates. */
function countText(text: string): string {
  if (text.length > COUNTED_UP_TO && HIGH_SURROGATE.test(text))
    return `at least ${Math.ceil(text.length / 2)}`;
  return String(characterCount(text));
}

function tooLong(parameter: string, what: string, max: number, text: string): ServiceError {
  return clientError(
    ErrorCodes.TooLong,
    `${what} must be at most ${max} characters; it has ${countText(text)}.`,
    { parameter },
  );
}

/** TooLong naming `parameter` when `value` has more than `max` characters. */
export function checkLength(value: string | undefined, max: number, parameter: string): void {
  if (value !== undefined && longerThan(value, max)) throw tooLong(parameter, parameter, max, value);
}

/** TooLong naming `parameter` and the field when a data field's value has more than MAX_FIELD_VALUE characters. */
export function checkFieldValues(fields: ReadonlyMap<number, string>, parameter: string): void {
  for (const [n, value] of fields) {
    if (longerThan(value, MAX_FIELD_VALUE))
      throw tooLong(parameter, `${parameter}: the value of DD${n}`, MAX_FIELD_VALUE, value);
  }
}

/** Why a CSV or import row's Name or data field is too long, or undefined. */
export function rowLengthProblem(name: string, fields: ReadonlyMap<number, string>): string | undefined {
  if (longerThan(name, MAX_NAME))
    return `Name is longer than ${MAX_NAME} characters (it has ${countText(name)})`;
  for (const [n, value] of fields) {
    if (longerThan(value, MAX_FIELD_VALUE))
      return `DD${n} is longer than ${MAX_FIELD_VALUE} characters (it has ${countText(value)})`;
  }
  return undefined;
}
