// What counts as a well-formed answer: a status the service answers with, and a body of the kind that
// status and content type promise (a SOAP envelope, a fault for SOAP errors, one `Type: message` line
// for HTTP-binding errors), bounded in size (no echo of a huge input) and with nosniff on text errors.

import { readXml } from "../../generated/runtime/xml/scan.js";
import type { Answer } from "./connection.js";

/** Statuses the service (or Node's parser in front of it) may answer an attack with. */
const ALLOWED_STATUSES: ReadonlySet<number> = new Set([200, 400, 404, 405, 408, 413, 415, 431, 500, 503]);

/** Error answers carry one sentence; anything larger is an echo of the input. */
const MAX_ERROR_BODY_BYTES = 16 * 1024;

const SOAP_ENVELOPES = new Set([
  "http://schemas.xmlsoap.org/soap/envelope/",
  "http://www.w3.org/2003/05/soap-envelope",
]);

/** Undefined when the answer is well-formed, else why not (one short phrase, for counting). */
export function judgeAnswer(answer: Answer): string | undefined {
  const { status } = answer;
  if (!ALLOWED_STATUSES.has(status)) return `status ${status}`;
  const contentType = (answer.headers["content-type"] ?? "").toLowerCase();
  const body = answer.body;
  if (status !== 200 && body.length > MAX_ERROR_BODY_BYTES) return `${status} body of ${body.length} bytes`;
  if (body.length === 0) return status === 200 ? "200 with an empty body" : undefined;
  if (contentType.startsWith("text/plain")) {
    if (status === 200) return "200 as text/plain";
    if (answer.headers["x-content-type-options"] !== "nosniff") return "text error without nosniff";
    const text = body.toString("utf8");
    if (/[\r\n]/.test(text.replace(/\r?\n$/, ""))) return "text error of several lines";
    if (status === 500 && !/^[A-Za-z_][\w.]*: \S/.test(text)) return "500 text not `Type: message`";
    return undefined;
  }
  if (contentType.startsWith("text/html")) return status === 200 ? undefined : `${status} as text/html`;
  if (contentType.startsWith("text/xml") || contentType.startsWith("application/soap+xml")) {
    let root;
    try {
      root = readXml(body.toString("utf8"), { maxDepth: 64 });
    } catch {
      return `${status} XML not well-formed`;
    }
    const soap = SOAP_ENVELOPES.has(root.ns) && root.local === "Envelope";
    if (contentType.startsWith("application/soap+xml") && !soap) return "soap+xml without an envelope";
    if (status === 500 && soap) {
      const fault = root.children.find((c) => c.local === "Body")?.children[0];
      if (fault?.local !== "Fault") return "SOAP 500 without a Fault";
    }
    if (status === 500 && !soap) return "500 XML that is not a fault";
    return undefined;
  }
  return `${status} with content type ${JSON.stringify(contentType.slice(0, 40))}`;
}

/** Adds one to `counts[key]`. */
export function tally(counts: Map<string, number>, key: string): void {
  counts.set(key, (counts.get(key) ?? 0) + 1);
}

/** "a 3, b 1" for the largest counts. */
export function topCounts(counts: ReadonlyMap<string, number>, n = 4): string {
  return [...counts.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, n)
    .map(([k, v]) => `${k} ${v}`)
    .join(", ");
}
