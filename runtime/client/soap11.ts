// SOAP 1.1, the client half: the request's SOAPAction header and the reading of a 1.1 fault.

import type { ClientBindingFactory } from "../protocol/binding.js";
import { createSoapClientBinding, localPart, type SoapClientVersion } from "./soap.js";
import { child, type XmlElement } from "../xml/tree.js";
import { SOAP11_CONTENT_TYPE, SOAP11_ENVELOPE_NS, SOAP11_LABEL } from "../protocol/soap11.js";

const soap11ClientVersion: SoapClientVersion = {
  binding: "soap11",
  label: SOAP11_LABEL,
  envelopeNs: SOAP11_ENVELOPE_NS,
  requestHeaders: (action: string) => ({ "content-type": SOAP11_CONTENT_TYPE, soapaction: `"${action}"` }),
  readFault(fault: XmlElement) {
    // faultcode, faultstring and detail are unqualified in SOAP 1.1.
    const part = (name: string) => child(fault, "", name);
    return {
      faultCode: localPart(part("faultcode")?.text ?? ""),
      reason: part("faultstring")?.text ?? "",
      detail: part("detail"),
    };
  },
};

/** The SOAP 1.1 client binding: `createClientWith(soap11, config)`. */
export const soap11Client: ClientBindingFactory = (service, options) =>
  createSoapClientBinding(soap11ClientVersion, service, options);
