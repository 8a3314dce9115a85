// What a .NET-generated client sends (docs/wire.md §2–4): SOAP 1.1 with the quoted SOAPAction header,
// SOAP 1.2 with the action in the Content-Type, HTTP GET with a query string, HTTP POST with a form.
// Every parameter is present, in spec order; one the caller did not give goes as empty text.

import type { RefBinding, RefOperation } from "./spec.js";
import { compact, leaf, XML_DECLARATION } from "./xml.js";

const SOAP11_NS = "http://schemas.xmlsoap.org/soap/envelope/";
const SOAP12_NS = "http://www.w3.org/2003/05/soap-envelope";
export const XSI_NS = "http://www.w3.org/2001/XMLSchema-instance";
export const XSD_NS = "http://www.w3.org/2001/XMLSchema";

export interface ReferenceRequest {
  readonly method: string;
  /** Below the endpoint: "" for SOAP, "/{Op}" for HTTP GET/POST. */
  readonly path: string;
  /** Query string without "?", "" for none. */
  readonly query: string;
  /** Lower-case header names. */
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
}

/** Wire text per parameter name. */
export type WireValues = Readonly<Record<string, string>>;

export interface RequestOptions {
  /** Parameters left out of the request altogether (other stacks omit them; .NET never does). */
  readonly omit?: readonly string[];
}

export function envelopeNs(binding: "soap11" | "soap12"): string {
  return binding === "soap11" ? SOAP11_NS : SOAP12_NS;
}

/** The envelope around `inner`, exactly as .NET writes it: declaration, soap/xsi/xsd, no whitespace. */
export function soapEnvelope(binding: "soap11" | "soap12", inner: string): string {
  return (
    `${XML_DECLARATION}<soap:Envelope xmlns:soap="${envelopeNs(binding)}" xmlns:xsi="${XSI_NS}" xmlns:xsd="${XSD_NS}">` +
    `<soap:Body>${inner}</soap:Body></soap:Envelope>`
  );
}

/** application/x-www-form-urlencoded: unreserved characters kept, space as '+', the rest %XX of UTF-8. */
function formEncode(pairs: readonly (readonly [string, string])[]): string {
  const encode = (s: string) =>
    [...new TextEncoder().encode(s)]
      .map((b) => {
        const c = String.fromCharCode(b);
        if (/[A-Za-z0-9*\-._]/.test(c)) return c;
        return b === 0x20 ? "+" : `%${b.toString(16).toUpperCase().padStart(2, "0")}`;
      })
      .join("");
  return pairs.map(([k, v]) => `${encode(k)}=${encode(v)}`).join("&");
}

function sentPairs(op: RefOperation, values: WireValues, options: RequestOptions): [string, string][] {
  const omit = new Set(options.omit ?? []);
  return op.params.filter((p) => !omit.has(p.name)).map((p) => [p.name, values[p.name] ?? ""]);
}

/** The parameter elements of a SOAP request, `<p>v</p>` in order (`<p />` when empty). */
export function soapParams(op: RefOperation, values: WireValues, options: RequestOptions = {}): string {
  return sentPairs(op, values, options)
    .map(([name, text]) => compact(leaf(name, text)))
    .join("");
}

export function referenceRequest(
  op: RefOperation,
  binding: RefBinding,
  values: WireValues,
  options: RequestOptions = {},
): ReferenceRequest {
  const action = op.namespace + op.name;
  switch (binding) {
    case "soap11":
    case "soap12": {
      const call = `<${op.name} xmlns="${op.namespace}">${soapParams(op, values, options)}</${op.name}>`;
      const headers: Record<string, string> =
        binding === "soap11"
          ? { "content-type": "text/xml; charset=utf-8", soapaction: `"${action}"` }
          : { "content-type": `application/soap+xml; charset=utf-8; action="${action}"` };
      return { method: "POST", path: "", query: "", headers, body: soapEnvelope(binding, call) };
    }
    case "httpGet":
      return {
        method: "GET",
        path: `/${op.name}`,
        query: formEncode(sentPairs(op, values, options)),
        headers: {},
        body: "",
      };
    case "httpPost":
      return {
        method: "POST",
        path: `/${op.name}`,
        query: "",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: formEncode(sentPairs(op, values, options)),
      };
  }
}
