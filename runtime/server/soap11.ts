// SOAP 1.1, the server half: the operation from the quoted SOAPAction header, faults with
// faultcode/faultstring, a 400 for an empty body.

import { ErrorCodes, type ServiceError } from "../errors.js";
import type { ServerBindingFactory } from "../protocol/binding.js";
import { createSoapServerBinding, type SoapServerVersion, type TransportAction } from "./soap.js";
import { escapeText } from "../xml/write.js";
import { SOAP11_CONTENT_TYPE, SOAP11_ENVELOPE_NS, SOAP11_LABEL } from "../protocol/soap11.js";

function unquote(value: string): string {
  const t = value.trim();
  return t.length >= 2 && t.startsWith('"') && t.endsWith('"') ? t.slice(1, -1) : t;
}

export const soap11ServerVersion: SoapServerVersion = {
  binding: "soap11",
  label: SOAP11_LABEL,
  envelopeNs: SOAP11_ENVELOPE_NS,
  contentType: SOAP11_CONTENT_TYPE,
  emptyBody: "badRequest",
  transportAction(headers): TransportAction {
    const value = headers["soapaction"];
    return value === undefined ? { present: false } : { present: true, action: unquote(value) };
  },
  faultXml(error: ServiceError, detail: string | undefined): string {
    const code =
      error.code === ErrorCodes.MustUnderstand
        ? "soap:MustUnderstand"
        : error.side === "client"
          ? "soap:Client"
          : "soap:Server";
    const details = detail === undefined ? "" : `<detail>${detail}</detail>`;
    return `<soap:Fault><faultcode>${code}</faultcode><faultstring>${escapeText(error.message)}</faultstring>${details}</soap:Fault>`;
  },
};

export const soap11Server: ServerBindingFactory = (service, options) =>
  createSoapServerBinding(soap11ServerVersion, service, options);
