// The one answer shape for errors outside a SOAP fault: the HTTP bindings' errors, and the refusals ASMX
// makes at the HTTP level on any binding (400, 405, 413, 415, 503 before a binding is known). One line
// `<ExceptionType>: <message>` as .NET writes it (a 415 has an empty body, as ASMX sends it), the error
// code in X-Error-Code, and nosniff: the line may echo a little of the request.

import { ErrorCodes } from "../errors.js";
import { oneLine } from "../safe-error.js";
import type { WireResponse } from "./binding.js";

export const ERROR_CODE_HEADER = "x-error-code";

export interface TextErrorFields {
  readonly status: number;
  readonly exceptionType: string;
  readonly message: string;
  readonly code: string;
}

export function textErrorResponse(error: TextErrorFields, extraHeaders?: Readonly<Record<string, string>>): WireResponse {
  return {
    status: error.status,
    headers: {
      "content-type": "text/plain; charset=utf-8",
      "x-content-type-options": "nosniff",
      [ERROR_CODE_HEADER]: error.code,
      ...extraHeaders,
    },
    body: error.status === 415 ? "" : `${error.exceptionType}: ${oneLine(error.message)}`,
  };
}

/** What the caller is told of an error that is not its own, in every form. */
export const LAST_RESORT_MESSAGE = "The server could not complete the request.";

/** The fixed answer when even building an error answer failed; built before any failure can happen. */
export const LAST_RESORT: WireResponse = textErrorResponse({
  status: 500,
  exceptionType: "System.Exception",
  message: LAST_RESORT_MESSAGE,
  code: ErrorCodes.InternalError,
});
