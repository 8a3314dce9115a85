// What SOAP 1.1 and SOAP 1.2 share, client and server alike: the envelope's namespaces and markup.
// client/soap.ts and server/soap.ts hold the two halves; each version (protocol/soap11.ts, soap12.ts)
// supplies a SoapVersion describing where the two versions differ.

import { child, type XmlElement } from "../xml/tree.js";
import type { BindingName } from "../model.js";
import { XSD_NS, XSI_NS } from "../codec/values.js";

/** Characters of the request echoed in a message at most (then "..."): a 1 MB name is not reflected. */
export const ECHO_MAX = 40;

/** What both halves of a SOAP version know. */
export interface SoapVersion {
  readonly binding: Extract<BindingName, "soap11" | "soap12">;
  readonly label: string;
  readonly envelopeNs: string;
}

/** `<?xml ...?><soap:Envelope ...><soap:Body>`, as ASMX writes it. */
export function envelopeOpen(version: SoapVersion): string {
  return (
    `<?xml version="1.0" encoding="utf-8"?><soap:Envelope xmlns:soap="${version.envelopeNs}" ` +
    `xmlns:xsi="${XSI_NS}" xmlns:xsd="${XSD_NS}"><soap:Body>`
  );
}

export const ENVELOPE_CLOSE = "</soap:Body></soap:Envelope>";

/**
 * An operation's SOAP action as .NET derives it (SoapDocumentMethodAttribute): the namespace, a "/"
 * unless the namespace already ends in one, and the operation name. `http://example.org/shop/` gives
 * `http://example.org/shop/Ping`; `urn:example:edge:v2` gives `urn:example:edge:v2/Ping`.
 */
export function soapActionOf(namespace: string, operation: string): string {
  return namespace.endsWith("/") ? namespace + operation : `${namespace}/${operation}`;
}

/** The Body of a document that is an Envelope of the version, else undefined. */
export function envelopeBody(root: XmlElement, version: SoapVersion): XmlElement | undefined {
  return root.local === "Envelope" && root.ns === version.envelopeNs
    ? child(root, version.envelopeNs, "Body")
    : undefined;
}
