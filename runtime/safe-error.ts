// Whatever a handler throws, the wire gets a well-formed answer: a ServiceError's fields are copied into
// a clean one (a code that is a token, a status a client understands, a message of one printable line),
// and anything else becomes InternalError. Every read of a thrown value is guarded: a Proxy whose traps
// throw, a getter that throws, or an object without a prototype must not escape as a second error.

import { ErrorCodes, ServiceError, type FaultSide } from "./errors.js";

/** Longest code, exception type or parameter name kept; longer ones are cut. */
const MAX_NAME = 64;
/** Longest message kept (characters); a fault says what was wrong in one sentence. */
const MAX_MESSAGE = 1000;

/** A value read from a thrown object, or undefined when reading it threw. */
function read(target: object, key: string): unknown {
  try {
    return (target as Record<string, unknown>)[key];
  } catch {
    return undefined;
  }
}

function isServiceError(value: unknown): value is ServiceError {
  try {
    return value instanceof ServiceError;
  } catch {
    return false;
  }
}

/** Keeps the characters of a code or .NET type name that are safe in a header and in XML text. */
function token(value: unknown, allowed: RegExp): string | undefined {
  if (typeof value !== "string") return undefined;
  const kept = value.replace(allowed, "").slice(0, MAX_NAME);
  return kept === "" ? undefined : kept;
}

const NOT_CODE = /[^A-Za-z0-9_.-]/g;
const NOT_TYPE_NAME = /[^A-Za-z0-9_.]/g;

/**
 * One printable line: control characters, unpaired surrogates and U+FFFE/U+FFFF (which XML and a
 * header cannot carry) become a space or U+FFFD; cut to MAX_MESSAGE characters.
 */
export function oneLine(value: string, max: number = MAX_MESSAGE): string {
  const cut = value.length > max ? `${value.slice(0, max)}...` : value;
  return cut
    .replace(/[\u0000-\u001f\u007f]+/g, " ")
    .replace(
      /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]|[\ufffe\uffff]/g,
      "\ufffd",
    )
    .trim();
}

function cleanStatus(value: unknown): number {
  return typeof value === "number" && Number.isInteger(value) && value >= 400 && value <= 599 ? value : 500;
}

/**
 * The ServiceError to put on the wire for a thrown value, or undefined when the value is not a
 * ServiceError (the caller answers InternalError and logs it). Never throws.
 */
export function wireServiceError(thrown: unknown): ServiceError | undefined {
  if (!isServiceError(thrown)) return undefined;
  const side: FaultSide = read(thrown, "side") === "client" ? "client" : "server";
  const message = read(thrown, "message");
  const exceptionType = token(read(thrown, "exceptionType"), NOT_TYPE_NAME);
  const parameter = token(read(thrown, "parameter"), NOT_CODE);
  return new ServiceError(
    token(read(thrown, "code"), NOT_CODE) ?? ErrorCodes.InternalError,
    oneLine(typeof message === "string" ? message : ""),
    {
      side,
      status: cleanStatus(read(thrown, "status")),
      ...(exceptionType === undefined ? {} : { exceptionType }),
      ...(parameter === undefined ? {} : { parameter }),
    },
  );
}

/** A short description of any thrown value for a log line. Never throws. */
export function describeThrown(value: unknown): string {
  try {
    if (value instanceof Error) {
      const stack = read(value, "stack");
      if (typeof stack === "string") return stack;
      return `${String(read(value, "name"))}: ${String(read(value, "message"))}`;
    }
    if (typeof value === "symbol") return value.toString();
    if (typeof value === "object" && value !== null && Object.getPrototypeOf(value) === null)
      return "[object with no prototype]";
    return String(value);
  } catch {
    return "[a value that cannot be described]";
  }
}
