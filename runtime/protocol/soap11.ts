// SOAP 1.1: text/xml, operation named by the quoted SOAPAction header (by the Body element when there is
// no SOAPAction header at all, as ASMX does), faults with faultcode/faultstring. What both halves share;
// client/soap11.ts and server/soap11.ts hold the halves.

export const SOAP11_ENVELOPE_NS = "http://schemas.xmlsoap.org/soap/envelope/";
export const SOAP11_CONTENT_TYPE = "text/xml; charset=utf-8";
export const SOAP11_LABEL = "SOAP 1.1";
