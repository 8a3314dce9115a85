// One error type for everything the service side answers with a fault or a 500 text, and the typed
// errors the client raises. Messages are one sentence, safe for the wire: no stack, no paths.

import type { BindingName } from "./model.js";

/** Who is at fault: SOAP 1.1 Client/Server, SOAP 1.2 Sender/Receiver. */
export type FaultSide = "client" | "server";

/**
 * Stable machine-readable codes the runtime itself produces; handlers and a spec's extension validators
 * return their own (any string).
 */
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
  /** A SOAP header marked mustUnderstand that the operation does not understand (SOAP's MustUnderstand fault). */
  MustUnderstand: "MustUnderstand",
  BodyTooLarge: "BodyTooLarge",
  UnsupportedMediaType: "UnsupportedMediaType",
  MethodNotAllowed: "MethodNotAllowed",
  NotFound: "NotFound",
  RequestTimeout: "RequestTimeout",
  ServerBusy: "ServerBusy",
  InvalidEncoding: "InvalidEncoding",
  InternalError: "InternalError",
} as const;

/** A known code (completed by editors) or any other string a service sends. */
export type ErrorCode = keyof typeof ErrorCodes | (string & {});

export interface ServiceErrorOptions {
  /** Defaults to "server": an operation that failed. */
  readonly side?: FaultSide | undefined;
  /** The .NET exception type named by the HTTP bindings' 500 text; defaults by side. */
  readonly exceptionType?: string | undefined;
  /** The parameter the error is about, when there is one. */
  readonly parameter?: string | undefined;
  /** HTTP status; ASMX answers every fault with 500, protocol refusals may differ (413, 405). */
  readonly status?: number | undefined;
}

/**
 * An error the server turns into a fault (SOAP) or a 500 text answer (HTTP GET/POST).
 * Throw it from a handler to choose the error code and message the caller sees.
 */
export class ServiceError extends Error {
  readonly code: ErrorCode;
  readonly side: FaultSide;
  readonly exceptionType: string;
  readonly parameter: string | undefined;
  readonly status: number;

  constructor(code: ErrorCode, message: string, options: ServiceErrorOptions = {}) {
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
  code: ErrorCode,
  message: string,
  options: Omit<ServiceErrorOptions, "side"> = {},
): ServiceError {
  return new ServiceError(code, message, { ...options, side: "client" });
}

/**
 * Base of every error the generated client throws. The client's error classes declare their fields
 * (`declare readonly`) and set them in the constructor, so a bundle carries no field definitions.
 */
export class ClientCallError extends Error {
  declare readonly binding: BindingName;
  declare readonly operation: string;
  constructor(message: string, binding: BindingName, operation: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "ClientCallError";
    this.binding = binding;
    this.operation = operation;
  }
}

/** What a ServiceFaultError carries besides its binding and operation; subclasses add their raw fields. */
export interface ServiceFaultFields {
  readonly reason: string;
  readonly side: FaultSide;
  readonly errorCode?: ErrorCode | undefined;
  readonly parameter?: string | undefined;
  readonly status?: number | undefined;
}

/**
 * The service refused the call: a SOAP fault or an HTTP GET/POST error text. Catch this one type to read
 * the same four facts on every binding (the model is connect-es's ConnectError); the subclasses keep what
 * only their wire has (SoapFaultError.faultCode, HttpBindingError.exceptionType).
 *
 * @codegen generated code imports it (test/repo/knip.test.ts)
 */
export class ServiceFaultError extends ClientCallError {
  /** The service's error code (the fault's detail, the X-Error-Code header); undefined when it sent none. */
  declare readonly errorCode: ErrorCode | undefined;
  /** Whose fault: "client" when the request was refused, "server" when the operation failed. */
  declare readonly side: FaultSide;
  /** The parameter the error is about (detail's Parameter, the X-Error-Parameter header), when the service names one. */
  declare readonly parameter: string | undefined;
  /** The answer's HTTP status (500 for faults and ASMX error texts; 4xx for refusals at the HTTP level). */
  declare readonly status: number | undefined;
  /** The service's one-sentence reason. */
  declare readonly reason: string;
  constructor(message: string, fields: ServiceFaultFields, binding: BindingName, operation: string) {
    super(message, binding, operation);
    this.name = "ServiceFaultError";
    this.errorCode = fields.errorCode;
    this.side = fields.side;
    this.parameter = fields.parameter;
    this.status = fields.status;
    this.reason = fields.reason;
  }
}

/** The service answered with a SOAP fault. */
export class SoapFaultError extends ServiceFaultError {
  /** "Client"/"Server" (SOAP 1.1) or "Sender"/"Receiver" (SOAP 1.2), or "MustUnderstand", without prefix. */
  declare readonly faultCode: string;
  constructor(
    fields: {
      readonly faultCode: string;
      readonly reason: string;
      readonly errorCode?: ErrorCode | undefined;
      readonly parameter?: string | undefined;
      readonly status?: number | undefined;
    },
    binding: BindingName,
    operation: string,
  ) {
    // MustUnderstand: the request carried a header the service does not understand, the caller's to fix.
    const code = fields.faultCode;
    const side: FaultSide =
      code === "Client" || code === "Sender" || code === "MustUnderstand" ? "client" : "server";
    super(
      `${operation}: ${fields.faultCode} fault: ${fields.reason}`,
      { ...fields, side },
      binding,
      operation,
    );
    this.name = "SoapFaultError";
    this.faultCode = fields.faultCode;
  }
}

/**
 * Whose fault an HTTP binding's error text is. The text names no side, so it comes from what ASMX sends:
 * a 4xx status, an Argument*Exception (a value that does not convert or breaks a rule) or an
 * InvalidOperationException (a missing parameter, an unknown method, a wrong request format) is the
 * request's fault; anything else (System.Exception, an operation that failed) the server's.
 *
 * @public users of the generated runtime import it (test/repo/knip.test.ts)
 */
export function httpErrorSide(status: number, exceptionType: string): FaultSide {
  if (status >= 400 && status < 500) return "client";
  return /(?:^|\.)(?:Argument\w*Exception|InvalidOperationException)$/.test(exceptionType)
    ? "client"
    : "server";
}

/** An HTTP GET/POST binding answered with an error (500 text/plain, `<ExceptionType>: <message>`). */
export class HttpBindingError extends ServiceFaultError {
  /** The .NET exception type the text starts with (`System.ArgumentException`); "" when the text names none. */
  declare readonly exceptionType: string;
  declare readonly status: number;
  constructor(
    fields: {
      readonly status: number;
      readonly exceptionType: string;
      readonly reason: string;
      readonly errorCode?: ErrorCode | undefined;
      readonly parameter?: string | undefined;
    },
    binding: BindingName,
    operation: string,
  ) {
    super(
      `${operation}: HTTP ${fields.status} ${fields.exceptionType}: ${fields.reason}`,
      { ...fields, side: httpErrorSide(fields.status, fields.exceptionType) },
      binding,
      operation,
    );
    this.name = "HttpBindingError";
    this.exceptionType = fields.exceptionType;
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
  declare readonly timeoutMs: number;
  constructor(timeoutMs: number, binding: BindingName, operation: string) {
    super(`${operation}: no answer within ${timeoutMs} ms`, binding, operation);
    this.name = "TimeoutError";
    this.timeoutMs = timeoutMs;
  }
}

/** The answer was larger than the client's maxResponseBytes (counted after decompression); reading stopped there. */
export class ResponseTooLargeError extends ClientCallError {
  declare readonly maxResponseBytes: number;
  constructor(maxResponseBytes: number, binding: BindingName, operation: string) {
    super(
      `${operation}: the answer is larger than maxResponseBytes (${maxResponseBytes} bytes)`,
      binding,
      operation,
    );
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
  declare readonly status: number | undefined;
  /** The origin the redirect points to (scheme, host, port); undefined when the answer does not say or a browser hides it. */
  declare readonly targetOrigin: string | undefined;
  constructor(
    status: number | undefined,
    targetOrigin: string | undefined,
    binding: BindingName,
    operation: string,
  ) {
    const what = status === undefined ? "a redirect" : `HTTP ${status}`;
    const where =
      targetOrigin === undefined
        ? ""
        : ` to ${targetOrigin.length > 80 ? `${targetOrigin.slice(0, 80)}...` : targetOrigin}`;
    super(
      `${operation}: the answer is ${what}${where}, which the client does not follow`,
      binding,
      operation,
    );
    this.name = "RedirectError";
    this.status = status;
    this.targetOrigin = targetOrigin;
  }
}
