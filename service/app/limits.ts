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

/** Characters as code points: a surrogate pair is one. */
export function characterCount(text: string): number {
  let count = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0xd800 || c > 0xdbff) count++;
  }
  return count;
}

/** Whether `text` has more than `max` characters (cheap for short text: code points never outnumber UTF-16 units). */
export function longerThan(text: string | undefined, max: number): boolean {
  return text !== undefined && text.length > max && characterCount(text) > max;
}

function tooLong(parameter: string, what: string, max: number, count: number): ServiceError {
  return clientError(ErrorCodes.TooLong, `${what} must be at most ${max} characters; it has ${count}.`, { parameter });
}

/** TooLong naming `parameter` when `value` has more than `max` characters. */
export function checkLength(value: string | undefined, max: number, parameter: string): void {
  if (value !== undefined && longerThan(value, max)) throw tooLong(parameter, parameter, max, characterCount(value));
}

/** TooLong naming `parameter` and the field when a data field's value has more than MAX_FIELD_VALUE characters. */
export function checkFieldValues(fields: ReadonlyMap<number, string>, parameter: string): void {
  for (const [n, value] of fields) {
    if (longerThan(value, MAX_FIELD_VALUE)) throw tooLong(parameter, `${parameter}: the value of DD${n}`, MAX_FIELD_VALUE, characterCount(value));
  }
}

/** Why a CSV or import row's Name or data field is too long, or undefined. */
export function rowLengthProblem(name: string, fields: ReadonlyMap<number, string>): string | undefined {
  if (longerThan(name, MAX_NAME)) return `Name is longer than ${MAX_NAME} characters (it has ${characterCount(name)})`;
  for (const [n, value] of fields) {
    if (longerThan(value, MAX_FIELD_VALUE)) return `DD${n} is longer than ${MAX_FIELD_VALUE} characters (it has ${characterCount(value)})`;
  }
  return undefined;
}
