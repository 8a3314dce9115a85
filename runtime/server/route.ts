// Which binding a request to the endpoint is for, and the answer to one no binding takes, as an ASMX
// host decides (easgen docs/wire.md §1 and §1a): SOAP by media type and then by the envelope's own
// namespace, HTTP GET/POST by method below the endpoint, 415 and 405 for the rest.

import { ErrorCodes, ServiceError } from "../errors.js";
import { oneLine } from "../safe-error.js";
import { SOAP11_ENVELOPE_NS } from "../protocol/soap11.js";
import { SOAP12_ENVELOPE_NS } from "../protocol/soap12.js";
import type { ServerBinding, WireResponse } from "../protocol/binding.js";
import { ECHO_MAX } from "../protocol/soap.js";
import { textErrorResponse } from "../protocol/text-error.js";
import type { BindingName } from "../model.js";

/** The media type of a Content-Type value, lower case, without parameters ("" when none). */
function mediaType(contentType: string | undefined): string {
  if (contentType === undefined) return "";
  const semi = contentType.indexOf(";");
  return (semi < 0 ? contentType : contentType.slice(0, semi)).trim().toLowerCase();
}

function isSpace(c: number): boolean {
  return c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d || c === 0xfeff;
}

/**
 * The SOAP version a body's root element declares: `soap11` or `soap12` when the root is an `Envelope`
 * whose namespace is declared on it, plainly, as one of the two envelope namespaces; undefined when the
 * start tag does not say so plainly (not XML, another root, an entity in the namespace, ...), and the
 * media type decides, the binding's reader judging the rest. Reads only up to the root's start tag.
 */
function envelopeVersion(body: string): "soap11" | "soap12" | undefined {
  const n = body.length;
  let i = 0;
  for (;;) {
    while (i < n && isSpace(body.charCodeAt(i))) i++;
    if (body.startsWith("<?", i)) {
      const end = body.indexOf("?>", i + 2);
      if (end < 0) return undefined;
      i = end + 2;
    } else if (body.startsWith("<!--", i)) {
      const end = body.indexOf("-->", i + 4);
      if (end < 0) return undefined;
      i = end + 3;
    } else {
      break;
    }
  }
  if (body.charCodeAt(i) !== 0x3c /* < */) return undefined;
  let j = i + 1;
  while (j < n && !isSpace(body.charCodeAt(j)) && body[j] !== ">" && body[j] !== "/") j++;
  const name = body.slice(i + 1, j);
  const colon = name.indexOf(":");
  if (name.slice(colon + 1) !== "Envelope") return undefined;
  const declaration = colon < 0 ? "xmlns" : `xmlns:${name.slice(0, colon)}`;
  for (;;) {
    while (j < n && isSpace(body.charCodeAt(j))) j++;
    if (j >= n || body[j] === ">" || body[j] === "/") return undefined;
    const nameStart = j;
    while (j < n && body[j] !== "=" && !isSpace(body.charCodeAt(j)) && body[j] !== ">") j++;
    const attribute = body.slice(nameStart, j);
    while (j < n && isSpace(body.charCodeAt(j))) j++;
    if (body[j] !== "=") return undefined;
    j++;
    while (j < n && isSpace(body.charCodeAt(j))) j++;
    const quote = body[j];
    if (quote !== '"' && quote !== "'") return undefined;
    const end = body.indexOf(quote, j + 1);
    if (end < 0) return undefined;
    if (attribute === declaration) {
      const value = body.slice(j + 1, end);
      return value === SOAP11_ENVELOPE_NS ? "soap11" : value === SOAP12_ENVELOPE_NS ? "soap12" : undefined;
    }
    j = end + 1;
  }
}

export interface Router {
  /**
   * The binding a request is for judging by method, path and content type alone (before the body is
   * read: refusals of a body too large, a busy server); undefined when none takes it.
   */
  bindingFor(method: string, path: string, contentType: string | undefined): ServerBinding | undefined;
  /**
   * The binding a request is for, now that its body is known; or the refusal when no binding takes it;
   * or undefined for a GET or HEAD of the endpoint itself (the WSDL and help pages).
   */
  route(
    method: string,
    path: string,
    contentType: string | undefined,
    body: string,
  ): ServerBinding | WireResponse | undefined;
}

/** Not a SOAP media type, or a SOAP 1.1 envelope sent as SOAP 1.2: 415 with an empty body, as ASMX. */
const UNSUPPORTED_MEDIA: WireResponse = textErrorResponse(
  new ServiceError(ErrorCodes.UnsupportedMediaType, "", { side: "client", status: 415 }),
);

/**
 * 405 with Allow. ASMX's status; easgen docs/wire.md §1a records no body, so (ours) one line of text as the
 * HTTP bindings' errors have.
 */
function methodNotAllowed(method: string, allow: string): WireResponse {
  const message = `The method ${oneLine(method, ECHO_MAX)} is not allowed here.`;
  return textErrorResponse(
    {
      status: 405,
      exceptionType: "System.InvalidOperationException",
      message,
      code: ErrorCodes.MethodNotAllowed,
    },
    { allow },
  );
}

export function isBinding(routed: ServerBinding | WireResponse): routed is ServerBinding {
  return typeof (routed as ServerBinding).decodeRequest === "function";
}

/**
 * A request for a binding the service does not offer (spec `service.bindings`): 500 text, as ASMX answers
 * for a protocol its configuration leaves out.
 */
function notOffered(path: string): WireResponse {
  const ending = path === "" ? "" : ` for URL unexpectedly ending in '${oneLine(path, ECHO_MAX)}'`;
  return textErrorResponse({
    status: 500,
    exceptionType: "System.InvalidOperationException",
    message: `Request format is unrecognized${ending}.`,
    code: ErrorCodes.UnknownOperation,
  });
}

/** The binding if the service offers it, else the refusal. */
function offered(binding: ServerBinding | undefined, path: string): ServerBinding | WireResponse {
  return binding ?? notOffered(path);
}

/** Routes to the bindings given: those the service offers (a missing one is refused, see notOffered). */
export function createRouter(bindings: Readonly<Partial<Record<BindingName, ServerBinding>>>): Router {
  return {
    bindingFor(method, path, contentType) {
      if (path !== "")
        return method === "GET" ? bindings.httpGet : method === "POST" ? bindings.httpPost : undefined;
      if (method !== "POST") return undefined;
      const media = mediaType(contentType);
      return media === "text/xml"
        ? bindings.soap11
        : media === "application/soap+xml"
          ? bindings.soap12
          : undefined;
    },

    route(method, path, contentType, body) {
      if (path !== "") {
        if (method === "GET") return offered(bindings.httpGet, path);
        if (method === "POST") return offered(bindings.httpPost, path);
        return methodNotAllowed(method, "GET, POST");
      }
      if (method === "GET" || method === "HEAD") return undefined;
      if (method !== "POST") return methodNotAllowed(method, "GET, HEAD, POST");
      const media = mediaType(contentType);
      // The envelope's namespace names the SOAP version, whatever the media type says, except that
      // application/soap+xml never carries a SOAP 1.1 envelope.
      // The pre-scan can only name the other version when its namespace URI is in the body at all: a
      // native indexOf spares it on nearly every request.
      if (media === "text/xml") {
        return offered(
          body.includes(SOAP12_ENVELOPE_NS) && envelopeVersion(body) === "soap12"
            ? bindings.soap12
            : bindings.soap11,
          path,
        );
      }
      if (media === "application/soap+xml") {
        return body.includes(SOAP11_ENVELOPE_NS) && envelopeVersion(body) === "soap11"
          ? UNSUPPORTED_MEDIA
          : offered(bindings.soap12, path);
      }
      return UNSUPPORTED_MEDIA;
    },
  };
}
