// The HTTP request of a recorded construct exchange (constructs-cases.ts): what constructs.test.ts sends the
// ASMX host, and what tests of our generated servers send them to compare with the host's recorded answer.

import { NAMESPACES, type Exchange } from "./constructs-cases.js";

const SOAP11 = "http://schemas.xmlsoap.org/soap/envelope/";
const SOAP12 = "http://www.w3.org/2003/05/soap-envelope";
const XSI = "http://www.w3.org/2001/XMLSchema-instance";
const XSD = "http://www.w3.org/2001/XMLSchema";

/** Method, path (from the site's root: `/Service.asmx...`), headers and body of an exchange's request. */
export function exchangeRequest(x: Exchange): {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: string;
} {
  const asmx = `/${x.service}.asmx`;
  if (x.binding === "get")
    return {
      method: "GET",
      path: `${asmx}${x.path ?? `/${x.op}`}${x.body === "" ? "" : `?${x.body}`}`,
      headers: {},
      body: "",
    };
  if (x.binding === "post") {
    return {
      method: "POST",
      path: `${asmx}${x.path ?? `/${x.op}`}`,
      headers: { "Content-Type": "application/x-www-form-urlencoded" },
      body: x.body,
    };
  }
  const envNs = x.binding === "soap11" ? SOAP11 : SOAP12;
  const action = x.action ?? `${NAMESPACES[x.service]}${x.op}`;
  const header = x.header === undefined ? "" : `<soap:Header>${x.header}</soap:Header>`;
  const body = `<?xml version="1.0" encoding="utf-8"?><soap:Envelope xmlns:soap="${envNs}" xmlns:xsi="${XSI}" xmlns:xsd="${XSD}">${header}<soap:Body>${x.body}</soap:Body></soap:Envelope>`;
  const headers: Record<string, string> =
    x.binding === "soap11"
      ? { "Content-Type": "text/xml; charset=utf-8", SOAPAction: `"${action}"` }
      : {
          "Content-Type": `application/soap+xml; charset=utf-8${x.noAction ? "" : `; action="${action}"`}`,
        };
  return { method: "POST", path: asmx, headers, body };
}
