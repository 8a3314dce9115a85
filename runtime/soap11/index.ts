// SOAP 1.1: text/xml, operation named by the quoted SOAPAction header (by the Body element when there is
// no SOAPAction header at all, as ASMX does), faults with faultcode/faultstring.

import type { ServiceError } from "../errors.js";
import type { BindingFactory } from "../protocol/binding.js";
import { createSoapBinding, localPart, type SoapVersion, type TransportAction } from "../protocol/soap.js";
import type { XmlElement } from "../xml/tree.js";
import { escapeText } from "../xml/write.js";

export const SOAP11_ENVELOPE_NS = "http://schemas.xmlsoap.org/soap/envelope/";

function unquote(value: string): string {
  const t = value.trim();
  return t.length >= 2 && t.startsWith('"') && t.endsWith('"') ? t.slice(1, -1) : t;
}

export const soap11Version: SoapVersion = {
  binding: "soap11",
  label: "SOAP 1.1",
  envelopeNs: SOAP11_ENVELOPE_NS,
  contentType: "text/xml; charset=utf-8",
  emptyBody: "badRequest",
  requestHeaders: (action: string) => ({ "content-type": "text/xml; charset=utf-8", soapaction: `"${action}"` }),
  transportAction(headers): TransportAction {
    const value = headers["soapaction"];
    return value === undefined ? { present: false } : { present: true, action: unquote(value) };
  },
  faultXml(error: ServiceError, detail: string): string {
    const code = error.side === "client" ? "soap:Client" : "soap:Server";
    return `<soap:Fault><faultcode>${code}</faultcode><faultstring>${escapeText(error.message)}</faultstring><detail>${detail}</detail></soap:Fault>`;
  },
  readFault(fault: XmlElement) {
    // faultcode, faultstring and detail are unqualified in SOAP 1.1.
    const part = (name: string) => fault.children.find((c) => c.local === name && c.ns === "");
    return { faultCode: localPart(part("faultcode")?.text ?? ""), reason: part("faultstring")?.text ?? "", detail: part("detail") };
  },
};

export const createSoap11Binding: BindingFactory = (service, options) => createSoapBinding(soap11Version, service, options);
