// What an ASMX host answers when it refuses or fails a call (docs/wire.md §2–4, docs/spec.md
// "Validation rules and error codes"): a SOAP fault with the error code in <detail>, or a 500 text/plain line
// `<ExceptionType>: <message>` with the code in X-Error-Code.

import { soapEnvelope } from "./request.js";
import type { RefBinding } from "./spec.js";
import { compact, el, leaf } from "./xml.js";

export type Side = "client" | "server";

export interface RefError {
  readonly code: string;
  readonly side: Side;
  readonly status: number;
  /** The .NET exception type the HTTP bindings' text names. */
  readonly exception: string;
  /**
   * How the refusal is carried: a SOAP fault, the text form (HTTP bindings), or bare: at the HTTP level
   * with no fault (docs/wire.md §1a: 400, 405, 415; ASMX's body is empty).
   */
  readonly answer: "fault" | "text" | "bare";
  readonly parameter?: string;
}

export interface ReferenceAnswer {
  readonly status: number;
  /** Lower-case header names. */
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
}

const INVALID_OPERATION = new Set([
  "MissingParameter",
  "UnknownOperation",
  "UnsupportedMediaType",
  "MethodNotAllowed",
]);

/** The exception type .NET names for a refusal of this code (§4's table), or for a failed operation. */
export function defaultException(code: string, side: Side): string {
  if (side === "server") return "System.Exception";
  if (INVALID_OPERATION.has(code)) return "System.InvalidOperationException";
  if (code === "BodyTooLarge") return "System.Web.HttpException";
  return "System.ArgumentException";
}

export function contentTypeOf(binding: RefBinding, answer: "fault" | "text" | "document"): string {
  if (answer === "text") return "text/plain; charset=utf-8";
  return binding === "soap12" ? "application/soap+xml; charset=utf-8" : "text/xml; charset=utf-8";
}

/** The refusal as bytes; `message` is free text (suites never compare wording). */
export function referenceFault(
  binding: RefBinding,
  error: RefError,
  namespace: string,
  message = "Refused.",
): ReferenceAnswer {
  if (error.answer === "bare") return { status: error.status, headers: {}, body: "" };
  if (error.answer === "text" || binding === "httpGet" || binding === "httpPost") {
    return {
      status: error.status,
      headers: { "content-type": contentTypeOf(binding, "text"), "x-error-code": error.code },
      body: `${error.exception}: ${message}`,
    };
  }
  const detailParts = [
    leaf("Code", error.code),
    ...(error.parameter ? [leaf("Parameter", error.parameter)] : []),
  ];
  const detail = el("Error", ` xmlns="${namespace}"`, detailParts);
  const client = error.side === "client";
  const fault =
    binding === "soap11"
      ? el("soap:Fault", "", [
          leaf("faultcode", client ? "soap:Client" : "soap:Server"),
          leaf("faultstring", message),
          el("detail", "", [detail]),
        ])
      : el("soap:Fault", "", [
          el("soap:Code", "", [leaf("soap:Value", client ? "soap:Sender" : "soap:Receiver")]),
          el("soap:Reason", "", [leaf("soap:Text", message, ' xml:lang="en"')]),
          el("soap:Detail", "", [detail]),
        ]);
  return {
    status: error.status,
    headers: { "content-type": contentTypeOf(binding, "fault") },
    body: soapEnvelope(binding, compact(fault)),
  };
}
