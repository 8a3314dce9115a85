// SOAP 1.2, the server half: the operation from the Content-Type's action parameter (else the Body
// element), faults with Code/Value, Reason/Text and Detail, a Receiver fault for an empty body.

import { ErrorCodes, type ServiceError } from "../errors.js";
import type { ServerBindingFactory } from "../protocol/binding.js";
import { createSoapServerBinding, type SoapServerVersion, type TransportAction } from "./soap.js";
import { escapeText } from "../xml/write.js";
import { SOAP12_CONTENT_TYPE, SOAP12_ENVELOPE_NS, SOAP12_LABEL } from "../protocol/soap12.js";

const ACTION_RE = /;\s*action\s*=\s*(?:"([^"]*)"|([^;\s]*))/i;

// A client sends the same Content-Type on every call: the last answer is kept (a string comparison
// costs less than the regex and its match array).
let lastContentType = "";
let lastAction: string | undefined;

/** The `action` parameter of a SOAP 1.2 Content-Type, if any. */
function contentTypeAction(contentType: string | undefined): string | undefined {
  if (!contentType) return undefined;
  if (contentType === lastContentType) return lastAction;
  const m = ACTION_RE.exec(contentType);
  const action = m ? (m[1] ?? m[2]) : undefined;
  lastContentType = contentType;
  lastAction = action;
  return action;
}

const soap12ServerVersion: SoapServerVersion = {
  binding: "soap12",
  label: SOAP12_LABEL,
  envelopeNs: SOAP12_ENVELOPE_NS,
  contentType: SOAP12_CONTENT_TYPE,
  emptyBody: "receiverFault",
  transportAction(headers): TransportAction {
    const action = contentTypeAction(headers["content-type"]);
    return action === undefined || action === "" ? { present: false } : { present: true, action };
  },
  faultXml(error: ServiceError, detail: string | undefined): string {
    // ASMX writes no NotUnderstood header block with a MustUnderstand fault (SOAP 1.2 recommends one).
    const code =
      error.code === ErrorCodes.MustUnderstand
        ? "soap:MustUnderstand"
        : error.side === "client"
          ? "soap:Sender"
          : "soap:Receiver";
    return (
      `<soap:Fault><soap:Code><soap:Value>${code}</soap:Value></soap:Code>` +
      `<soap:Reason><soap:Text xml:lang="en">${escapeText(error.message)}</soap:Text></soap:Reason>` +
      `${detail === undefined ? "" : `<soap:Detail>${detail}</soap:Detail>`}</soap:Fault>`
    );
  },
};

export const soap12Server: ServerBindingFactory = (service, options) =>
  createSoapServerBinding(soap12ServerVersion, service, options);
