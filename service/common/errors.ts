// The service's own fault codes (docs/service.md "Errors of the service"), beside the generated validation codes. Every
// message is one sentence safe for the wire: it names the parameter or rule, never an internal detail.

import { type ServiceError, clientError } from "../../generated/server.js";

export const ServiceCodes = {
  InvalidCredentials: "InvalidCredentials",
  TooManyAttempts: "TooManyAttempts",
  NotFound: "NotFound",
  FieldNotActivated: "FieldNotActivated",
  TooManyFields: "TooManyFields",
  InvalidCsv: "InvalidCsv",
  ImportUrlRefused: "ImportUrlRefused",
} as const;

export function invalidCredentials(): ServiceError {
  return clientError(ServiceCodes.InvalidCredentials, "The user name or password is wrong.", {
    parameter: "strUsername",
  });
}

/**
 * A sign-in refused without a password check: during a delay after failed sign-ins ("failures"), or while
 * the caller's source already has as many checks running or waiting as it may ("source").
 */
export function tooManyAttempts(seconds: number, why: "failures" | "source"): ServiceError {
  const wait = seconds === 1 ? "1 second" : `${seconds} seconds`;
  return clientError(
    ServiceCodes.TooManyAttempts,
    why === "failures"
      ? `Too many failed sign-ins; try again in ${wait}.`
      : `Too many sign-ins at once from this address; try again in ${wait}.`,
    { parameter: "strUsername" },
  );
}

/** A user name or password longer than any account can have: refused before any work. */
export function credentialTooLong(parameter: "strUsername" | "strPassword", max: number): ServiceError {
  return clientError("TooLong", `${parameter} must be at most ${max} characters.`, { parameter });
}

/** Missing and "belongs to another account" are the same answer: nothing is revealed. */
export function notFound(what: string, parameter: string): ServiceError {
  return clientError(ServiceCodes.NotFound, `No ${what} with that ${parameter} exists.`, { parameter });
}

export function fieldNotActivated(field: number, activated: number, parameter: string): ServiceError {
  return clientError(
    ServiceCodes.FieldNotActivated,
    `DD${field} is not activated on this account (DD1 to DD${activated} are).`,
    { parameter },
  );
}

export function invalidCsv(line: number, why: string): ServiceError {
  return clientError(ServiceCodes.InvalidCsv, `strCsvData line ${line}: ${why}.`, {
    parameter: "strCsvData",
  });
}

export function importUrlRefused(reason: string): ServiceError {
  return clientError(ServiceCodes.ImportUrlRefused, `strCSVUrl is refused: ${reason}.`, {
    parameter: "strCSVUrl",
  });
}
