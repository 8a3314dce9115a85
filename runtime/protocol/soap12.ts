// SOAP 1.2: application/soap+xml with an optional action parameter, operation from the Body element,
// faults with Code/Value, Reason/Text and Detail. What both halves share; client/soap12.ts and server/soap12.ts
// hold the halves.

export const SOAP12_ENVELOPE_NS = "http://www.w3.org/2003/05/soap-envelope";
export const SOAP12_CONTENT_TYPE = "application/soap+xml; charset=utf-8";
export const SOAP12_LABEL = "SOAP 1.2";
