// SOAP 1.2: application/soap+xml with an optional action parameter, operation from the Body element,
// faults with Code/Value, Reason/Text and Detail.

import type { ServiceError } from "../errors.js";
import type { BindingFactory } from "../protocol/binding.js";
import { createSoapBinding, localPart, type SoapVersion, type TransportAction } from "../protocol/soap.js";
import type { XmlElement } from "../xml/tree.js";
import { escapeText } from "../xml/write.js";

export const SOAP12_ENVELOPE_NS = "http://www.w3.org/2003/05/soap-envelope";

const ACTION_RE = /;\s*action\s*=\s*(?:"([^"]*)"|([^;\s]*))/i;

// A client sends the same Content-Type on every call: the last answer is kept (a string comparison
// costs less than the regex and its match array).
let lastContentType = "";
let lastAction: string | undefined = undefined;

/** The `action` parameter of a SOAP 1.2 Content-Type, if any. */
export function contentTypeAction(contentType: string | undefined): string | undefined {
  if (!contentType) return undefined;
  if (contentType === lastContentType) return lastAction;
  const m = ACTION_RE.exec(contentType);
  const action = m ? (m[1] ?? m[2]) : undefined;
  lastContentType = contentType;
  lastAction = action;
  return action;
}

function find(parent: XmlElement | undefined, local: string): XmlElement | undefined {
  return parent?.children.find((c) => c.local === local && c.ns === SOAP12_ENVELOPE_NS);
}

export const soap12Version: SoapVersion = {
  binding: "soap12",
  label: "SOAP 1.2",
  envelopeNs: SOAP12_ENVELOPE_NS,
  contentType: "application/soap+xml; charset=utf-8",
  emptyBody: "receiverFault",
  requestHeaders: (action: string) => ({ "content-type": `application/soap+xml; charset=utf-8; action="${action}"` }),
  transportAction(headers): TransportAction {
    const action = contentTypeAction(headers["content-type"]);
    return action === undefined || action === "" ? { present: false } : { present: true, action };
  },
  faultXml(error: ServiceError, detail: string): string {
    const code = error.side === "client" ? "soap:Sender" : "soap:Receiver";
    return (
      `<soap:Fault><soap:Code><soap:Value>${code}</soap:Value></soap:Code>` +
      `<soap:Reason><soap:Text xml:lang="en">${escapeText(error.message)}</soap:Text></soap:Reason>` +
      `<soap:Detail>${detail}</soap:Detail></soap:Fault>`
    );
  },
  readFault(fault: XmlElement) {
    return {
      faultCode: localPart(find(find(fault, "Code"), "Value")?.text ?? ""),
      reason: find(find(fault, "Reason"), "Text")?.text ?? "",
      detail: find(fault, "Detail"),
    };
  },
};

export const createSoap12Binding: BindingFactory = (service, options) => createSoapBinding(soap12Version, service, options);
