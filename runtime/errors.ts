// One error type for everything the service side answers with a fault or a 500 text, and the typed
// errors the client raises. Messages are one sentence, safe for the wire: no stack, no paths.

import type { BindingName } from "./protocol/binding.js";

/** Who is at fault: SOAP 1.1 Client/Server, SOAP 1.2 Sender/Receiver. */
export type FaultSide = "client" | "server";

/** Stable machine-readable codes the runtime itself produces; handlers may use their own. */
export const ErrorCodes = {
  MissingParameter: "MissingParameter",
  InvalidType: "InvalidType",
  RequiredParameter: "RequiredParameter",
  InvalidValue: "InvalidValue",
  InvalidFormat: "InvalidFormat",
  TooLong: "TooLong",
  OutOfRange: "OutOfRange",
  InvalidName: "InvalidName",
  InvalidUrl: "InvalidUrl",
  InvalidCsv: "InvalidCsv",
  InvalidDemographicFields: "InvalidDemographicFields",
  MissingIdentifier: "MissingIdentifier",
  InvalidInterval: "InvalidInterval",
  UnknownOperation: "UnknownOperation",
  UnknownSoapAction: "UnknownSoapAction",
  SoapActionMismatch: "SoapActionMismatch",
  MalformedXml: "MalformedXml",
  DoctypeRefused: "DoctypeRefused",
  TooDeep: "TooDeep",
  TooManyAttributes: "TooManyAttributes",
  TooManyElements: "TooManyElements",
  InvalidEnvelope: "InvalidEnvelope",
  BodyTooLarge: "BodyTooLarge",
  UnsupportedMediaType: "UnsupportedMediaType",
  MethodNotAllowed: "MethodNotAllowed",
  NotFound: "NotFound",
  RequestTimeout: "RequestTimeout",
  ServerBusy: "ServerBusy",
  InvalidEncoding: "InvalidEncoding",
  InternalError: "InternalError",
} as const;

export type RuntimeErrorCode = (typeof ErrorCodes)[keyof typeof ErrorCodes];

export interface ServiceErrorOptions {
  /** Defaults to "server": an operation that failed. */
  readonly side?: FaultSide;
  /** The .NET exception type named by the HTTP bindings' 500 text; defaults by side. */
  readonly exceptionType?: string;
  /** The parameter the error is about, when there is one. */
  readonly parameter?: string;
  /** HTTP status; ASMX answers every fault with 500, protocol refusals may differ (413, 405). */
  readonly status?: number;
}

/**
 * An error the server turns into a fault (SOAP) or a 500 text answer (HTTP GET/POST).
 * Throw it from a handler to choose the error code and message the caller sees.
 */
export class ServiceError extends Error {
  readonly code: string;
  readonly side: FaultSide;
  readonly exceptionType: string;
  readonly parameter: string | undefined;
  readonly status: number;

  constructor(code: string, message: string, options: ServiceErrorOptions = {}) {
    super(message);
    this.name = "ServiceError";
    this.code = code;
    this.side = options.side ?? "server";
    this.exceptionType =
      options.exceptionType ?? (this.side === "client" ? "System.ArgumentException" : "System.Exception");
    this.parameter = options.parameter;
    this.status = options.status ?? 500;
  }
}

/** A request-side error: the caller sent something the service will not take. */
export function clientError(
  code: string,
  message: string,
  options: Omit<ServiceErrorOptions, "side"> = {},
): ServiceError {
  return new ServiceError(code, message, { ...options, side: "client" });
}

/** Base of every error the generated client throws. */
export class ClientCallError extends Error {
  readonly binding: BindingName;
  readonly operation: string;
  constructor(message: string, binding: BindingName, operation: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "ClientCallError";
    this.binding = binding;
    this.operation = operation;
  }
}

/** The service answered with a SOAP fault. */
export class SoapFaultError extends ClientCallError {
  /** "Client"/"Server" (SOAP 1.1) or "Sender"/"Receiver" (SOAP 1.2), without prefix. */
  readonly faultCode: string;
  readonly side: FaultSide;
  readonly reason: string;
  /** Error code from the fault's detail, when the service sent one. */
  readonly errorCode: string | undefined;
  readonly parameter: string | undefined;
  constructor(
    fields: { faultCode: string; reason: string; errorCode?: string; parameter?: string },
    binding: BindingName,
    operation: string,
  ) {
    super(`${operation}: ${fields.faultCode} fault: ${fields.reason}`, binding, operation);
    this.name = "SoapFaultError";
    this.faultCode = fields.faultCode;
    this.side = fields.faultCode === "Client" || fields.faultCode === "Sender" ? "client" : "server";
    this.reason = fields.reason;
    this.errorCode = fields.errorCode;
    this.parameter = fields.parameter;
  }
}

/** An HTTP GET/POST binding answered with an error (500 text/plain, `<ExceptionType>: <message>`). */
export class HttpBindingError extends ClientCallError {
  readonly status: number;
  readonly exceptionType: string;
  readonly reason: string;
  readonly errorCode: string | undefined;
  constructor(
    fields: { status: number; exceptionType: string; reason: string; errorCode?: string },
    binding: BindingName,
    operation: string,
  ) {
    super(`${operation}: HTTP ${fields.status} ${fields.exceptionType}: ${fields.reason}`, binding, operation);
    this.name = "HttpBindingError";
    this.status = fields.status;
    this.exceptionType = fields.exceptionType;
    this.reason = fields.reason;
    this.errorCode = fields.errorCode;
  }
}

/** The answer could not be read: not XML, truncated, wrong root, a value that does not convert. */
export class ResponseFormatError extends ClientCallError {
  constructor(message: string, binding: BindingName, operation: string, options?: { cause?: unknown }) {
    super(`${operation}: ${message}`, binding, operation, options);
    this.name = "ResponseFormatError";
  }
}

/** The request never got an answer: connection refused, reset, DNS. */
export class TransportError extends ClientCallError {
  constructor(message: string, binding: BindingName, operation: string, options?: { cause?: unknown }) {
    super(`${operation}: ${message}`, binding, operation, options);
    this.name = "TransportError";
  }
}

/** The call took longer than the client's timeoutMs. */
export class TimeoutError extends ClientCallError {
  readonly timeoutMs: number;
  constructor(timeoutMs: number, binding: BindingName, operation: string) {
    super(`${operation}: no answer within ${timeoutMs} ms`, binding, operation);
    this.name = "TimeoutError";
    this.timeoutMs = timeoutMs;
  }
}

/** The answer was larger than the client's maxResponseBytes (counted after decompression); reading stopped there. */
export class ResponseTooLargeError extends ClientCallError {
  readonly maxResponseBytes: number;
  constructor(maxResponseBytes: number, binding: BindingName, operation: string) {
    super(`${operation}: the answer is larger than maxResponseBytes (${maxResponseBytes} bytes)`, binding, operation);
    this.name = "ResponseTooLargeError";
    this.maxResponseBytes = maxResponseBytes;
  }
}

/**
 * The service answered with a redirect, which the client does not follow: following it would send the
 * request, credentials included, to wherever the answer points. Set baseUrl to the new address instead.
 */
export class RedirectError extends ClientCallError {
  /** The 3xx status; undefined in a browser, which hides it (an opaque redirect). */
  readonly status: number | undefined;
  /** The origin the redirect points to (scheme, host, port); undefined when the answer does not say or a browser hides it. */
  readonly targetOrigin: string | undefined;
  constructor(status: number | undefined, targetOrigin: string | undefined, binding: BindingName, operation: string) {
    const what = status === undefined ? "a redirect" : `HTTP ${status}`;
    const where = targetOrigin === undefined ? "" : ` to ${targetOrigin.length > 80 ? `${targetOrigin.slice(0, 80)}...` : targetOrigin}`;
    super(`${operation}: the answer is ${what}${where}, which the client does not follow`, binding, operation);
    this.name = "RedirectError";
    this.status = status;
    this.targetOrigin = targetOrigin;
  }
}
