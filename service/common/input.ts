// Input as the operations and the admin CLI take it: e-mail addresses and ids given as text.

import { ErrorCodes, clientError } from "../../generated/server.js";
import { MAX_EMAIL } from "./limits.js";

const EMAIL_RE = /^[^\s@"<>(),;:\\[\]]+@[^\s@"<>(),;:\\[\]]+\.[^\s@"<>(),;:\\[\]]+$/;

/** Why a text is not an e-mail address, or undefined. Deliberately plain: one @, a dotted domain. */
export function emailProblem(email: string): string | undefined {
  if (email.length > MAX_EMAIL) return `is longer than ${MAX_EMAIL} characters`;
  return EMAIL_RE.test(email) ? undefined : "is not an e-mail address like name@example.com";
}

export function checkEmail(email: string, parameter: string): string {
  const trimmed = email.trim();
  const problem = emailProblem(trimmed);
  if (problem !== undefined)
    throw clientError(ErrorCodes.InvalidFormat, `${parameter} ${problem}.`, { parameter });
  return trimmed;
}

/** An id given as text: a whole positive number, or undefined (which then is NotFound). */
export function idFromText(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const trimmed = text.trim();
  if (!/^\d{1,15}$/.test(trimmed)) return undefined;
  const id = Number(trimmed);
  return id > 0 ? id : undefined;
}
