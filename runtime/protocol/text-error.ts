// The one answer shape for errors outside a SOAP fault: the HTTP bindings' errors, and the refusals ASMX
// makes at the HTTP level on any binding (400, 405, 413, 415, 503 before a binding is known). One line
// `<ExceptionType>: <message>` as .NET writes it (a 415 has an empty body, as ASMX sends it), the error
// code in X-Error-Code, the parameter it is about (when there is one) in X-Error-Parameter, and nosniff:
// the line may echo a little of the request. The two X-Error headers are ours (ASMX sends neither); they
// give the HTTP bindings' errors what a fault's <detail> carries.

import type { ErrorCodes } from "../errors.js";
import { oneLine } from "../safe-error.js";
import type { WireResponse } from "./binding.js";

export const ERROR_CODE_HEADER = "x-error-code";
export const ERROR_PARAMETER_HEADER = "x-error-parameter";

/** A parameter name that is safe as a header value; anything else is left off rather than sent mangled. */
const HEADER_TOKEN = /^[A-Za-z0-9_.-]{1,64}$/;

export interface TextErrorFields {
  readonly status: number;
  readonly exceptionType: string;
  readonly message: string;
  readonly code: string;
  readonly parameter?: string | undefined;
}

export function textErrorResponse(
  error: TextErrorFields,
  extraHeaders?: Readonly<Record<string, string>>,
): WireResponse {
  return {
    status: error.status,
    headers: {
      "content-type": "text/plain; charset=utf-8",
      "x-content-type-options": "nosniff",
      [ERROR_CODE_HEADER]: error.code,
      ...(error.parameter !== undefined && HEADER_TOKEN.test(error.parameter)
        ? { [ERROR_PARAMETER_HEADER]: error.parameter }
        : {}),
      ...extraHeaders,
    },
    body: error.status === 415 ? "" : `${error.exceptionType}: ${oneLine(error.message)}`,
  };
}

/** What the caller is told of an error that is not its own, in every form. */
export const LAST_RESORT_MESSAGE = "The server could not complete the request.";

/**
 * The fixed answer when even building an error answer failed; built before any failure can happen.
 * Marked pure (its arguments free of property reads) so that a client bundle, which takes only the
 * header names from this module, leaves it out.
 */
export const LAST_RESORT: WireResponse = /* @__PURE__ */ textErrorResponse({
  status: 500,
  exceptionType: "System.Exception",
  message: LAST_RESORT_MESSAGE,
  // A literal, not ErrorCodes.InternalError: a property read in the arguments would keep the call.
  code: "InternalError" satisfies (typeof ErrorCodes)["InternalError"],
});
