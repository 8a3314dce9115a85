// The requests the attacks start from: what a .NET client sends for every operation on every binding
// (the conformance reference's `success` case of each operation) plus the wire page's own
// samples byte for byte, kept as parts (method, target, headers, body) so a mutator can bend any part and
// `serialize` writes them exactly as bent.

import { loadCases, sentValues } from "../conformance/suite/cases.js";
import { referenceRequest } from "../conformance/reference/request.js";
import { loadReferenceService, REF_BINDINGS, type RefBinding } from "../conformance/reference/spec.js";
import {
  GET_REQUEST_LINE,
  POST_REQUEST_BODY,
  POST_REQUEST_HEADERS,
  POST_REQUEST_LINE,
  SOAP11_REQUEST_BODY,
  SOAP11_REQUEST_HEADERS,
  SOAP12_REQUEST_BODY,
  SOAP12_REQUEST_CONTENT_TYPE,
} from "../fixtures/wire-samples.js";

export const ENDPOINT = "/ExternalAPIService.asmx";

export interface RawRequest {
  readonly binding: RefBinding;
  readonly operation: string;
  method: string;
  target: string;
  /** In order; names as written. `content-length` is added by serialize unless `framing` says otherwise. */
  headers: [string, string][];
  body: Buffer;
  /**
   * How the body is framed: a correct Content-Length (default), chunked, or the Content-Length values
   * `lengths` gives for the final body's length (wrong on purpose; decided when written, so a later
   * mutation of the body cannot turn "too short" into "too long" and leave the server waiting).
   */
  framing: "length" | "chunked" | "lengths";
  lengths?: (bodyLength: number) => string[];
  /** After the answer the connection is not reused (bytes after this request may be read as another). */
  breaksFraming?: boolean;
}

/** InsertSubscriberSid exactly as the wire page's §2 sample (SOAP 1.1). */
const WIRE_SOAP11_SAMPLE: RawRequest = {
  binding: "soap11",
  operation: "InsertSubscriberSid",
  method: "POST",
  target: ENDPOINT,
  headers: Object.entries(SOAP11_REQUEST_HEADERS),
  body: Buffer.from(SOAP11_REQUEST_BODY),
  framing: "length",
};

export function cloneRequest(r: RawRequest): RawRequest {
  return { ...r, headers: r.headers.map(([n, v]) => [n, v]), body: r.body };
}

/** The request's bytes: request line, Host, headers, framing, body. */
export function serialize(r: RawRequest, host = "127.0.0.1"): Buffer {
  const lines = [`${r.method} ${r.target} HTTP/1.1`];
  if (!r.headers.some(([n]) => n.toLowerCase() === "host")) lines.push(`Host: ${host}`);
  for (const [name, value] of r.headers) lines.push(`${name}: ${value}`);
  let body = r.body;
  if (r.framing === "length" && (r.body.length > 0 || r.method !== "GET"))
    lines.push(`Content-Length: ${r.body.length}`);
  if (r.framing === "lengths")
    for (const value of r.lengths?.(r.body.length) ?? []) lines.push(`Content-Length: ${value}`);
  if (r.framing === "chunked") {
    lines.push("Transfer-Encoding: chunked");
    const parts: Buffer[] = [];
    for (let at = 0; at < r.body.length; at += 1000) {
      const piece = r.body.subarray(at, at + 1000);
      parts.push(Buffer.from(`${piece.length.toString(16)}\r\n`), piece, Buffer.from("\r\n"));
    }
    parts.push(Buffer.from("0\r\n\r\n"));
    body = Buffer.concat(parts);
  }
  return Buffer.concat([Buffer.from(`${lines.join("\r\n")}\r\n\r\n`, "latin1"), body]);
}

function fromReference(binding: RefBinding, operation: string, values: Record<string, string>): RawRequest {
  const service = referenceService();
  const op = service.operations.get(operation);
  if (!op) throw new Error(`unknown operation ${operation}`);
  const ref = referenceRequest(op, binding, values);
  return {
    binding,
    operation,
    method: ref.method,
    target: `${ENDPOINT}${ref.path}${ref.query ? `?${ref.query}` : ""}`,
    headers: Object.entries(ref.headers),
    body: Buffer.from(ref.body, "utf8"),
    framing: "length",
  };
}

let service: ReturnType<typeof loadReferenceService> | undefined;
function referenceService(): ReturnType<typeof loadReferenceService> {
  return (service ??= loadReferenceService());
}

/** The `success` request of every operation on every binding, then the wire page's four samples. */
export function baseRequests(): RawRequest[] {
  const out: RawRequest[] = [];
  for (const c of loadCases(referenceService())) {
    if (c.name !== "success") continue;
    for (const binding of REF_BINDINGS) {
      if (!c.bindings.includes(binding)) continue;
      out.push(fromReference(binding, c.operation, sentValues(c, { username: "u", password: "p" })));
    }
  }
  out.push(
    cloneRequest(WIRE_SOAP11_SAMPLE),
    {
      binding: "soap12",
      operation: "SendSmsWithSenderName",
      method: "POST",
      target: ENDPOINT,
      headers: [["content-type", SOAP12_REQUEST_CONTENT_TYPE]],
      body: Buffer.from(SOAP12_REQUEST_BODY),
      framing: "length",
    },
    {
      binding: "httpGet",
      operation: "GetReportViewsByDateInterval",
      method: "GET",
      target: GET_REQUEST_LINE.slice("GET ".length),
      headers: [],
      body: Buffer.alloc(0),
      framing: "length",
    },
    {
      binding: "httpPost",
      operation: "InsertCsvSubscribersWithDemDataUpdateOption",
      method: "POST",
      target: POST_REQUEST_LINE.slice("POST ".length),
      headers: Object.entries(POST_REQUEST_HEADERS),
      body: Buffer.from(POST_REQUEST_BODY),
      framing: "length",
    },
  );
  return out;
}

/** The probe: InsertSubscriberSid exactly as the wire page's §2 sample, on SOAP 1.1. */
export const PROBE_REQUEST: Buffer = serialize(WIRE_SOAP11_SAMPLE);

/**
 * A SOAP 1.1 InsertSubscriberSid request (as the wire page's §2 sample) with a payload: `strName` replaces
 * the strName element, `operation` replaces the whole operation element, `beforeEnvelope` goes between
 * the XML declaration and the envelope. As pieces (head first), so large payloads are not copied.
 */
export function soapWithPayload(parts: {
  strName?: Buffer | string;
  operation?: Buffer | string;
  beforeEnvelope?: string;
  /** The SOAPAction header's value; null for none. */
  soapAction?: string | null;
}): Buffer[] {
  const head = SOAP11_REQUEST_BODY.slice(0, SOAP11_REQUEST_BODY.indexOf("<soap:Envelope"));
  const rest = SOAP11_REQUEST_BODY.slice(head.length);
  const [from, to] =
    parts.operation !== undefined
      ? [rest.indexOf("<InsertSubscriberSid"), rest.indexOf("</soap:Body>")]
      : [rest.indexOf("<strName>"), rest.indexOf("</strName>") + "</strName>".length];
  const payload = parts.operation ?? parts.strName ?? "<strName>N</strName>";
  const body = [head, parts.beforeEnvelope ?? "", rest.slice(0, from), payload, rest.slice(to)].map((p) =>
    typeof p === "string" ? Buffer.from(p, "utf8") : p,
  );
  const length = body.reduce((n, b) => n + b.length, 0);
  const action =
    parts.soapAction === undefined ? '"http://tempuri.org/InsertSubscriberSid"' : parts.soapAction;
  const headText =
    `POST ${ENDPOINT} HTTP/1.1\r\nHost: 127.0.0.1\r\ncontent-type: text/xml; charset=utf-8\r\n` +
    (action === null ? "" : `soapaction: ${action}\r\n`) +
    `Content-Length: ${length}\r\n\r\n`;
  return [Buffer.from(headText, "latin1"), ...body];
}

/** The wire page's HTTP POST request (§4) with `prefix` put before its form: extra pairs, long names. */
export function formWithPrefix(prefix: Buffer): Buffer[] {
  const form = Buffer.from(POST_REQUEST_BODY, "latin1");
  const length = prefix.length + form.length;
  const head =
    `${POST_REQUEST_LINE} HTTP/1.1\r\nHost: 127.0.0.1\r\ncontent-type: application/x-www-form-urlencoded\r\n` +
    `Content-Length: ${length}\r\n\r\n`;
  return [Buffer.from(head, "latin1"), prefix, form];
}
