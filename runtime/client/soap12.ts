// SOAP 1.2, the client half: the action in the request's Content-Type and the reading of a 1.2 fault.

import type { ClientBindingFactory } from "../protocol/binding.js";
import { createSoapClientBinding, localPart, type SoapClientVersion } from "./soap.js";
import { child, type XmlElement } from "../xml/tree.js";
import { SOAP12_CONTENT_TYPE, SOAP12_ENVELOPE_NS, SOAP12_LABEL } from "../protocol/soap12.js";

function find(parent: XmlElement | undefined, local: string): XmlElement | undefined {
  return parent && child(parent, SOAP12_ENVELOPE_NS, local);
}

const soap12ClientVersion: SoapClientVersion = {
  binding: "soap12",
  label: SOAP12_LABEL,
  envelopeNs: SOAP12_ENVELOPE_NS,
  requestHeaders: (action: string) => ({ "content-type": `${SOAP12_CONTENT_TYPE}; action="${action}"` }),
  readFault(fault: XmlElement) {
    return {
      faultCode: localPart(find(find(fault, "Code"), "Value")?.text ?? ""),
      reason: find(find(fault, "Reason"), "Text")?.text ?? "",
      detail: find(fault, "Detail"),
    };
  },
};

/** The SOAP 1.2 client binding: `createClientWith(soap12, config)`. */
export const soap12Client: ClientBindingFactory = (service, options) =>
  createSoapClientBinding(soap12ClientVersion, service, options);
