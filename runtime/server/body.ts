// A request body from bytes to text, as both transport adapters need it: decoded in the charset the
// request declares (Content-Type, BOM, XML declaration), and refused when it does not decode, never
// passed on with U+FFFD where a byte was wrong.

import { clientError, ErrorCodes, type ServiceError } from "../errors.js";
import type { WireResponse } from "../protocol/binding.js";
import { CharsetError, decodeBody } from "../codec/charset.js";
import { textErrorResponse } from "../protocol/text-error.js";
import type { ServiceCore } from "./core.js";

/**
 * The answer to a body that fell behind (bodyTimeoutMs, minBodyBytesPerSecond): 408 as a line of text,
 * as Node answers a request past requestTimeoutMs; the connection is closed after it.
 */
export const SLOW_BODY: WireResponse = textErrorResponse({
  status: 408,
  exceptionType: "System.Web.HttpException",
  message: "The request body did not arrive in time.",
  code: ErrorCodes.RequestTimeout,
});

/** SOAP bodies (posted to the endpoint itself) are XML; HTTP POST bodies (to /{Op}) are form text. */
export function bodyKind(path: string): "xml" | "text" {
  return path === "" ? "xml" : "text";
}

function decodingError(error: CharsetError, kind: "xml" | "text"): ServiceError {
  if (error.reason === "unsupported") {
    return clientError(
      ErrorCodes.UnsupportedMediaType,
      `The request's character encoding is not supported: ${error.message}`,
      {
        status: 415,
        exceptionType: "System.InvalidOperationException",
      },
    );
  }
  return clientError(
    kind === "xml" ? ErrorCodes.MalformedXml : ErrorCodes.InvalidEncoding,
    `The request body is not valid text in its character encoding: ${error.message}`,
    { status: 400, exceptionType: "System.InvalidOperationException" },
  );
}

/** The body as text, or the answer refusing it. A GET's body is never read. */
export function decodeRequestBody(
  core: ServiceCore,
  method: string,
  path: string,
  contentType: string | undefined,
  bytes: Uint8Array | undefined,
  kind: "xml" | "text",
): string | WireResponse {
  if (bytes === undefined || bytes.length === 0 || method === "GET" || method === "HEAD") return "";
  try {
    return decodeBody(bytes, contentType, kind);
  } catch (error) {
    if (!(error instanceof CharsetError)) throw error;
    return core.refuse(method, path, contentType, decodingError(error, kind));
  }
}
