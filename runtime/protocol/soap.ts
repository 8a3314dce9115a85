// What SOAP 1.1 and SOAP 1.2 share: envelopes, routing by body element, faults. Each version module
// (soap11/, soap12/) supplies a SoapVersion describing where the two differ.

import {
  clientError,
  ErrorCodes,
  ResponseFormatError,
  ServiceError,
  SoapFaultError,
} from "../errors.js";
import type { OperationModel, ServiceModel } from "../model.js";
import { paramIndexes, type ParamTexts, type ParamValues } from "../params.js";
import { oneLine } from "../safe-error.js";
import { DEFAULT_MAX_DEPTH, XmlRefusal, type XmlAttribute, type XmlElement } from "../xml/tree.js";
import { escapeText } from "../xml/write.js";
import type { Binding, BindingName, BindingOptions, DecodedRequest, WireRequest, WireResponse } from "./binding.js";
import { compactResultChildren, readResult, scalarText } from "./result.js";
import { textErrorResponse } from "./text-error.js";

export const XSI_NS = "http://www.w3.org/2001/XMLSchema-instance";
export const XSD_NS = "http://www.w3.org/2001/XMLSchema";

/** Characters of the request echoed in a message at most (then "..."): a 1 MB name is not reflected. */
export const ECHO_MAX = 40;

/** The transport's word on which operation is meant: absent, or an action URI. */
export type TransportAction = { readonly present: false } | { readonly present: true; readonly action: string };

export interface SoapVersion {
  readonly binding: Extract<BindingName, "soap11" | "soap12">;
  readonly label: string;
  readonly envelopeNs: string;
  /** Content-Type of requests and responses, with charset. */
  readonly contentType: string;
  requestHeaders(action: string): Record<string, string>;
  /** The operation the transport names, if it names one; without it the Body element decides. */
  transportAction(headers: Readonly<Record<string, string>>): TransportAction;
  /**
   * What a request with an empty HTTP body gets: ASMX refuses it with 400 for SOAP 1.1 and answers a
   * Receiver fault ("Root element is missing.") for SOAP 1.2 (wire/README.md §1a).
   */
  readonly emptyBody: "badRequest" | "receiverFault";
  /** The `<soap:Fault>` element for an error, `detail` being the detail's inner XML. */
  faultXml(error: ServiceError, detail: string): string;
  /** Fault code without prefix, reason text, and the detail element, from a received fault. */
  readFault(fault: XmlElement): { faultCode: string; reason: string; detail: XmlElement | undefined };
}

function child(parent: XmlElement, ns: string, local: string): XmlElement | undefined {
  return parent.children.find((c) => c.local === local && c.ns === ns);
}

/** Maps a reader refusal to the client error the wire gets. */
export function refusalError(error: XmlRefusal): ServiceError {
  const code =
    error.reason === "doctype" ? ErrorCodes.DoctypeRefused
    : error.reason === "depth" ? ErrorCodes.TooDeep
    : error.reason === "attributes" ? ErrorCodes.TooManyAttributes
    : error.reason === "elements" ? ErrorCodes.TooManyElements
    : ErrorCodes.MalformedXml;
  // ASMX answers XML it cannot read with 400 and no fault (wire/README.md §1a): see isHttpLevel.
  return clientError(code, `The request is not acceptable XML: ${error.message}`, {
    exceptionType: "System.InvalidOperationException",
    status: 400,
  });
}

/**
 * Refusals ASMX makes at the HTTP level, without a fault envelope (wire/README.md §1a): 400 (ours: one
 * line of text where ASMX sends nothing) and 415 (empty body). See text-error.ts.
 */
export function isHttpLevel(error: ServiceError): boolean {
  return error.status === 400 || error.status === 415;
}

/** True for a body of nothing but whitespace (or a byte order mark): no root element at all. */
function isBlank(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c !== 0x20 && c !== 0x09 && c !== 0x0a && c !== 0x0d && c !== 0xfeff) return false;
  }
  return true;
}

const ROOT_MISSING = "Root element is missing.";

function emptyBodyError(version: SoapVersion): ServiceError {
  return version.emptyBody === "badRequest"
    ? clientError(ErrorCodes.MalformedXml, ROOT_MISSING, { status: 400, exceptionType: "System.Xml.XmlException" })
    : new ServiceError(ErrorCodes.MalformedXml, ROOT_MISSING, { side: "server", exceptionType: "System.Xml.XmlException" });
}

export function createSoapBinding(version: SoapVersion, service: ServiceModel, options: BindingOptions): Binding {
  const ns = service.namespace;
  const envelopeOpen =
    `<?xml version="1.0" encoding="utf-8"?><soap:Envelope xmlns:soap="${version.envelopeNs}" ` +
    `xmlns:xsi="${XSI_NS}" xmlns:xsd="${XSD_NS}"><soap:Body>`;
  const envelopeClose = "</soap:Body></soap:Envelope>";
  const byName = new Map(service.operations.map((op) => [op.name, op]));
  const byAction = new Map(service.operations.map((op) => [ns + op.name, op]));
  const indexes = paramIndexes(service);
  const readOptions = {
    maxDepth: options.maxDepth ?? DEFAULT_MAX_DEPTH,
    maxAttributes: options.maxAttributes,
    maxElements: options.maxElements,
  };
  const responseHeaders = { "content-type": version.contentType };

  function readEnvelopeBody(text: string): XmlElement {
    if (isBlank(text)) throw emptyBodyError(version);
    let root: XmlElement;
    try {
      root = options.readXml(text, readOptions);
    } catch (error) {
      if (error instanceof XmlRefusal) throw refusalError(error);
      throw error;
    }
    const body = root.local === "Envelope" && root.ns === version.envelopeNs ? child(root, version.envelopeNs, "Body") : undefined;
    if (!body) throw clientError(ErrorCodes.InvalidEnvelope, `The request is not a ${version.label} envelope with a Body.`);
    return body;
  }

  function route(body: XmlElement, headers: Readonly<Record<string, string>>): { op: OperationModel; el: XmlElement } {
    const transport = version.transportAction(headers);
    let byTransport: OperationModel | undefined;
    if (transport.present) {
      byTransport = byAction.get(transport.action);
      if (!byTransport) {
        throw clientError(
          ErrorCodes.UnknownSoapAction,
          `Server did not recognize the value of HTTP Header SOAPAction: ${oneLine(transport.action, ECHO_MAX)}.`,
        );
      }
    }
    const el = body.children[0];
    if (!el) throw clientError(ErrorCodes.InvalidEnvelope, "The SOAP Body holds no operation element.");
    const op = el.ns === ns ? byName.get(el.local) : undefined;
    if (!op) {
      throw clientError(
        ErrorCodes.UnknownOperation,
        `The Body element ${oneLine(el.local, ECHO_MAX)} is not an operation of ${service.name} in ${ns}.`,
      );
    }
    if (byTransport && byTransport !== op) {
      throw clientError(
        ErrorCodes.SoapActionMismatch,
        `The SOAP action names ${byTransport.name} but the Body holds ${op.name}.`,
      );
    }
    return { op, el };
  }

  function paramTexts(op: OperationModel, el: XmlElement): ParamTexts {
    const params = op.params;
    const count = params.length;
    const texts: ParamTexts = [];
    for (let i = 0; i < count; i++) texts.push(undefined);
    const index = indexes.get(op) as Map<string, number>;
    const children = el.children;
    // Clients send the parameters in order, so the next one is tried before the look-up by name.
    let next = 0;
    for (let k = 0; k < children.length; k++) {
      const c = children[k];
      if (c.ns !== ns) continue;
      const i = next < count && params[next].name === c.local ? next : index.get(c.local);
      if (i === undefined || texts[i] !== undefined) continue;
      next = i + 1;
      texts[i] = c.attrs.length > 0 && isNil(c.attrs) ? undefined : c.text;
    }
    return texts;
  }

  function formatError(op: OperationModel, status: number, message: string, cause?: unknown): ResponseFormatError {
    return new ResponseFormatError(`HTTP ${status}: ${message}`, version.binding, op.name, { cause });
  }

  return {
    name: version.binding,
    presence: "element",

    encodeRequest(op: OperationModel, texts: ParamTexts): WireRequest {
      let body = `${envelopeOpen}<${op.name} xmlns="${ns}">`;
      op.params.forEach((p, i) => {
        const text = texts[i];
        // An empty string is `<p />`, as a .NET client writes it; an absent one is left out.
        if (text === "") body += `<${p.name} />`;
        else if (text !== undefined) body += `<${p.name}>${escapeText(text)}</${p.name}>`;
      });
      body += `</${op.name}>${envelopeClose}`;
      return { method: "POST", path: "", query: "", headers: version.requestHeaders(ns + op.name), body };
    },

    decodeRequest(request: WireRequest): DecodedRequest {
      const body = readEnvelopeBody(request.body);
      const { op, el } = route(body, request.headers);
      return { op, texts: paramTexts(op, el) };
    },

    encodeResponse(op: OperationModel, result: unknown, request: ParamValues): WireResponse {
      const tag = `${op.name}Result`;
      let inner: string;
      if (op.result.kind === "scalar") {
        inner = `<${tag}>${escapeText(scalarText(op.result, result))}</${tag}>`;
      } else {
        const children = compactResultChildren(op.result, result, request);
        inner = children === undefined ? `<${tag} />` : `<${tag}>${children}</${tag}>`;
      }
      const body = `${envelopeOpen}<${op.name}Response xmlns="${ns}">${inner}</${op.name}Response>${envelopeClose}`;
      return { status: 200, headers: responseHeaders, body };
    },

    encodeError(error: ServiceError): WireResponse {
      if (isHttpLevel(error)) return textErrorResponse(error);
      const parameter = error.parameter === undefined ? "" : `<Parameter>${escapeText(error.parameter)}</Parameter>`;
      const detail = `<Error xmlns="${ns}"><Code>${escapeText(error.code)}</Code>${parameter}</Error>`;
      return { status: error.status, headers: responseHeaders, body: envelopeOpen + version.faultXml(error, detail) + envelopeClose };
    },

    decodeResponse(op: OperationModel, response: WireResponse, request: ParamValues): unknown {
      let root: XmlElement;
      try {
        root = options.readXml(response.body, readOptions);
      } catch (error) {
        throw formatError(op, response.status, `the answer is not readable XML (${(error as Error).message})`, error);
      }
      const body = root.local === "Envelope" && root.ns === version.envelopeNs ? child(root, version.envelopeNs, "Body") : undefined;
      if (!body) throw formatError(op, response.status, `the answer is not a ${version.label} envelope`);
      const first = body.children[0];
      if (first && first.local === "Fault" && first.ns === version.envelopeNs) {
        const fault = version.readFault(first);
        const error = fault.detail?.children.find((c) => c.local === "Error");
        throw new SoapFaultError(
          {
            faultCode: fault.faultCode,
            reason: fault.reason,
            errorCode: error?.children.find((c) => c.local === "Code")?.text,
            parameter: error?.children.find((c) => c.local === "Parameter")?.text,
          },
          version.binding,
          op.name,
        );
      }
      if (response.status !== 200) throw formatError(op, response.status, "an error status without a SOAP fault");
      if (!first || first.local !== `${op.name}Response` || first.ns !== ns) {
        throw formatError(op, response.status, `the Body does not hold ${op.name}Response in ${ns}`);
      }
      try {
        return readResult(op, child(first, ns, `${op.name}Result`), ns, request);
      } catch (error) {
        throw formatError(op, response.status, (error as Error).message, error);
      }
    },
  };
}

/** Whether the attributes say xsi:nil="true" (or "1"). */
function isNil(attrs: readonly XmlAttribute[]): boolean {
  for (const a of attrs) if (a.ns === XSI_NS && a.local === "nil" && (a.value === "true" || a.value === "1")) return true;
  return false;
}

/** Strips the prefix of a QName-valued text such as `soap:Client`. */
export function localPart(qname: string): string {
  const t = qname.trim();
  return t.slice(t.indexOf(":") + 1);
}
