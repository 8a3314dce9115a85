// The server half of SOAP 1.1 and 1.2: routes a request envelope to its operation (by SOAP action and
// Body element), reads the parameters, writes the answer envelope or the fault.

import { clientError, ErrorCodes, ServiceError } from "../errors.js";
import {
  headerIsAnswered,
  headerIsSent,
  isBare,
  requestElementOf,
  responseElementOf,
  type HeaderModel,
  type OperationModel,
  type ServiceModel,
  wireName,
} from "../model.js";
import { paramIndexes, type ParamTexts, type ParamValues } from "../codec/params.js";
import { oneLine } from "../safe-error.js";
import { readXml } from "../xml/scan.js";
import { DEFAULT_MAX_DEPTH, XmlRefusal, type XmlElement } from "../xml/tree.js";
import { escapeText } from "../xml/write.js";
import type {
  BindingOptions,
  DecodedRequest,
  ServerBinding,
  WireRequest,
  WireResponse,
} from "../protocol/binding.js";
import { ResultShapeError, soapResultXml } from "../codec/result.js";
import { bindHeaders, headerElements, headersXml, type HeaderValues } from "../protocol/soap-headers.js";
import { ECHO_MAX, ENVELOPE_CLOSE, envelopeBody, envelopeOpen, type SoapVersion } from "../protocol/soap.js";
import { bareBodyOpen, messageNamespace, soapActionFor } from "../protocol/soap-shape.js";
import { createFastSoapReader } from "./soap-fast.js";
import { SOAP11_ENVELOPE_NS } from "../protocol/soap11.js";
import { SOAP12_ENVELOPE_NS } from "../protocol/soap12.js";
import { textErrorResponse } from "../protocol/text-error.js";
import { isNilElement, TypedValueError, textOf, wireOf } from "../codec/typed-xml.js";

/** The transport's word on which operation is meant: absent, or an action URI. */
export type TransportAction =
  | { readonly present: false }
  | { readonly present: true; readonly action: string };

export interface SoapServerVersion extends SoapVersion {
  /** Content-Type of responses, with charset. */
  readonly contentType: string;
  /** The operation the transport names, if it names one; without it the Body element decides. */
  transportAction(headers: Readonly<Record<string, string>>): TransportAction;
  /**
   * What a request with an empty HTTP body gets: ASMX refuses it with 400 for SOAP 1.1, and for SOAP 1.2
   * when the action names an operation; a SOAP 1.2 request without such an action is routed by the Body
   * element, whose reading fails with a Receiver fault ("Root element is missing.") (easgen docs/wire.md §1a).
   */
  readonly emptyBody: "badRequest" | "receiverFault";
  /**
   * The `<soap:Fault>` element for an error, `detail` being the detail's inner XML (no detail element when
   * undefined); the code MustUnderstand is SOAP's MustUnderstand fault code.
   */
  faultXml(error: ServiceError, detail: string | undefined): string;
}

/** Maps a reader refusal to the client error the wire gets. */
function refusalError(error: XmlRefusal): ServiceError {
  const code =
    error.reason === "doctype"
      ? ErrorCodes.DoctypeRefused
      : error.reason === "depth"
        ? ErrorCodes.TooDeep
        : error.reason === "attributes"
          ? ErrorCodes.TooManyAttributes
          : error.reason === "elements"
            ? ErrorCodes.TooManyElements
            : ErrorCodes.MalformedXml;
  // ASMX answers XML it cannot read with 400 and no fault (easgen docs/wire.md §1a): see isHttpLevel.
  return clientError(code, `The request is not acceptable XML: ${error.message}`, {
    exceptionType: "System.InvalidOperationException",
    status: 400,
  });
}

/**
 * Refusals ASMX makes at the HTTP level, without a fault envelope (easgen docs/wire.md §1a): 400 (ours: one
 * line of text where ASMX sends nothing) and 415 (empty body). See text-error.ts.
 */
function isHttpLevel(error: ServiceError): boolean {
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

/**
 * Whether a header element is marked mustUnderstand as ASMX reads it (SoapUnknownHeader): the attribute in
 * the SOAP 1.1 envelope namespace, else in SOAP 1.2's, whatever the envelope's version; "1" or "true" is
 * true, anything else ("0", "false", "yes") false. Its actor or role is not looked at, as ASMX does not:
 * no intermediary stands in front of this endpoint to process a header addressed to one, so a header marked
 * mustUnderstand is refused rather than dropped whoever it names (docs/asmx-evidence/must-understand.md).
 */
function marksMustUnderstand(header: XmlElement): boolean {
  let value: string | undefined;
  for (const a of header.attrs) {
    if (a.local !== "mustUnderstand") continue;
    if (a.ns === SOAP11_ENVELOPE_NS) {
      value = a.value;
      break;
    }
    if (a.ns === SOAP12_ENVELOPE_NS) value = a.value;
  }
  return value === "1" || value === "true";
}

/** SOAP's MustUnderstand fault for a header, in .NET's words (SoapHeaderHandling: the element's local name). */
function notUnderstoodError(header: XmlElement): ServiceError {
  return clientError(
    ErrorCodes.MustUnderstand,
    `SOAP header ${oneLine(header.local, ECHO_MAX)} was not understood.`,
  );
}

/**
 * A value XmlSerializer cannot read (a scalar holding elements): ASMX answers 400 with no fault, as for XML
 * it cannot read (docs/asmx-evidence/http-details.md); ours names the parameter.
 */
function unreadableValue(name: string, error: TypedValueError): ServiceError {
  return clientError(ErrorCodes.InvalidType, `Parameter ${name}: ${error.message}`, {
    parameter: name,
    status: 400,
    exceptionType: "System.InvalidOperationException",
  });
}

/**
 * A call without a header the operation requires (spec `required`): SOAP's MustUnderstand fault, as .NET
 * answers a service that claims WS-I Basic Profile 1.1 (SoapServerProtocol: SoapHeaderException with the
 * MustUnderstand code; docs/asmx-evidence/soap-headers.md; Mono's host does not check).
 */
function missingHeaderError(name: string): ServiceError {
  return clientError(ErrorCodes.MustUnderstand, `Required SOAP header ${name} was not received.`, {
    parameter: name,
  });
}

/** The header a TypedValueError's message names ("SOAP header X..."), for the error's parameter. */
function headerOf(error: TypedValueError, headers: readonly HeaderModel[]): string | undefined {
  return headers.find((h) => error.message.includes(`SOAP header ${h.record.name}`))?.record.name;
}

const ROOT_MISSING = "Root element is missing.";

function emptyBodyError(version: SoapServerVersion, actionNamesOperation: boolean): ServiceError {
  return version.emptyBody === "badRequest" || actionNamesOperation
    ? clientError(ErrorCodes.MalformedXml, ROOT_MISSING, {
        status: 400,
        exceptionType: "System.Xml.XmlException",
      })
    : new ServiceError(ErrorCodes.MalformedXml, ROOT_MISSING, {
        side: "server",
        exceptionType: "System.Xml.XmlException",
      });
}

export function createSoapServerBinding(
  version: SoapServerVersion,
  service: ServiceModel,
  options: BindingOptions,
): ServerBinding {
  const ns = service.namespace;
  const open = envelopeOpen(version);
  /** The envelope's start without `<soap:Body>`, for an answer with a Header. */
  const openHead = open.slice(0, -"<soap:Body>".length);
  const byName = operationsByElement(service.operations, ns);
  const byAction = new Map(service.operations.map((op) => [soapActionFor(ns, op), op]));
  const indexes = paramIndexes(service);
  const readOptions = {
    maxDepth: options.maxDepth ?? DEFAULT_MAX_DEPTH,
    maxAttributes: options.maxAttributes,
    maxElements: options.maxElements,
  };
  const responseHeaders = { "content-type": version.contentType };

  // The fast path reads to the same elements as the strict scanner; another reader is used as given.
  const fastBody =
    options.readXml === readXml
      ? createFastSoapReader(
          version.envelopeNs,
          ns,
          // Wrapped operations in the service's namespace only: the others' Bodies are the general reader's.
          service.operations
            .filter((op) => !isBare(op) && messageNamespace(ns, op) === ns)
            .map((op) => ({ name: requestElementOf(op), params: op.params.map((p) => p.name) })),
          readOptions,
        )
      : undefined;

  /** The request's Envelope, read by the general reader. */
  function readEnvelope(text: string, headers: Readonly<Record<string, string>>): XmlElement {
    if (isBlank(text)) {
      const transport = version.transportAction(headers);
      throw emptyBodyError(version, transport.present && byAction.has(transport.action));
    }
    try {
      return options.readXml(text, readOptions);
    } catch (error) {
      if (error instanceof XmlRefusal) throw refusalError(error);
      throw error;
    }
  }

  function bodyOf(root: XmlElement): XmlElement {
    const body = envelopeBody(root, version);
    if (!body)
      throw clientError(
        ErrorCodes.InvalidEnvelope,
        `The request is not a ${version.label} envelope with a Body.`,
      );
    return body;
  }

  const understood = options.understoodHeaders;
  const envelopeNs = version.envelopeNs;

  /** Per operation, the headers it reads (in and inOut) and those it answers (out and inOut). */
  const sent = new Map(service.operations.map((op) => [op, (op.headers ?? []).filter(headerIsSent)]));
  const answered = new Map(service.operations.map((op) => [op, (op.headers ?? []).filter(headerIsAnswered)]));

  /**
   * Binds the operation's headers (soap-headers.ts), then refuses a call without a required one and, as
   * ASMX, (MustUnderstand fault) the first header in document order marked mustUnderstand that the
   * operation does not bind: every Header element of the Envelope is looked at.
   */
  function readHeaders(op: OperationModel, root: XmlElement): HeaderValues | undefined {
    const elements = headerElements(root, envelopeNs);
    const declared = sent.get(op)!;
    if (elements.length === 0 && declared.length === 0) return undefined;
    const bound = new Set<XmlElement>();
    let values: HeaderValues;
    try {
      values = bindHeaders(declared, elements, ns, bound);
    } catch (error) {
      if (error instanceof TypedValueError)
        throw clientError(ErrorCodes.InvalidType, error.message, { parameter: headerOf(error, declared) });
      throw error;
    }
    for (const header of declared) {
      if (header.required && !Object.hasOwn(values, header.record.name))
        throw missingHeaderError(header.record.name);
    }
    for (const header of elements) {
      if (marksMustUnderstand(header) && !bound.has(header) && !understood?.(op, header))
        throw notUnderstoodError(header);
    }
    return values;
  }

  function route(
    body: XmlElement,
    headers: Readonly<Record<string, string>>,
  ): { op: OperationModel; el: XmlElement } {
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
    // A bare operation's Body holds its parameters (or nothing): the action alone names it.
    if (byTransport !== undefined && isBare(byTransport)) return { op: byTransport, el: body };
    const el = body.children[0];
    if (!el) throw clientError(ErrorCodes.InvalidEnvelope, "The SOAP Body holds no operation element.");
    const op = byName.get(elementKey(el.ns, el.local, ns));
    if (!op) {
      throw clientError(
        ErrorCodes.UnknownOperation,
        `The Body element ${oneLine(el.local, ECHO_MAX)} is not an operation of ${service.name} in ${ns}.`,
      );
    }
    if (byTransport && byTransport !== op) {
      throw clientError(
        ErrorCodes.SoapActionMismatch,
        `The SOAP action names ${wireName(byTransport)} but the Body holds ${wireName(op)}.`,
      );
    }
    return isBare(op) ? { op, el: body } : { op, el };
  }

  function paramTexts(op: OperationModel, el: XmlElement): ParamTexts {
    const params = op.params;
    const count = params.length;
    const texts: ParamTexts = [];
    for (let i = 0; i < count; i++) texts.push(undefined);
    const index = indexes.get(op) as Map<string, number>;
    const children = el.children;
    const opNs = op.soap === undefined ? ns : messageNamespace(ns, op);
    // Clients send the parameters in order, so the next one is tried before the look-up by name.
    let next = 0;
    for (let k = 0; k < children.length; k++) {
      const c = children[k]!;
      if (c.ns !== opNs) continue;
      const i = next < count && params[next]!.name === c.local ? next : index.get(c.local);
      if (i === undefined || texts[i] !== undefined) continue;
      next = i + 1;
      const type = params[i]!.type;
      // Scalars and enums are their text (null when nil); arrays and records their items and fields.
      try {
        texts[i] =
          type.kind === "scalar" || type.kind === "enum"
            ? c.attrs.length > 0 && isNilElement(c)
              ? null
              : textOf(c)
            : wireOf(type, c, opNs);
      } catch (error) {
        throw error instanceof TypedValueError ? unreadableValue(params[i]!.name, error) : error;
      }
    }
    return texts;
  }

  /**
   * The answer of an operation with a SOAP shape (model.ts SoapShapeModel): bare, the Body holds the result's
   * and the out parameters' elements (an empty Body, `<soap:Body />` as ASMX writes it, when there are none);
   * wrapped, the response element as the shape names it, in its namespace.
   */
  function shapedAnswer(op: OperationModel, head: string, inner: string): string {
    const opNs = messageNamespace(ns, op);
    if (isBare(op))
      return inner === ""
        ? `${head}<soap:Body /></soap:Envelope>`
        : `${head}${bareBodyOpen(opNs)}${inner}${ENVELOPE_CLOSE}`;
    const element = responseElementOf(op);
    const start = `${head}<soap:Body><${element} xmlns="${opNs}"`;
    return inner === "" ? `${start} />${ENVELOPE_CLOSE}` : `${start}>${inner}</${element}>${ENVELOPE_CLOSE}`;
  }

  return {
    name: version.binding,
    presence: "element",

    decodeRequest(request: WireRequest): DecodedRequest {
      // The fast path reads only envelopes without a Header (soap-fast.ts), so it has no header to check.
      const fast = fastBody?.read(request.body);
      const root = fast === undefined ? readEnvelope(request.body, request.headers) : undefined;
      const { op, el } = route(fast ?? bodyOf(root!), request.headers);
      // After routing, as ASMX: an unknown operation or action is answered as such first.
      const headers = root === undefined ? undefined : readHeaders(op, root);
      if (headers === undefined) {
        const required = sent.get(op)!.find((h) => h.required);
        if (required !== undefined) throw missingHeaderError(required.record.name);
        return { op, texts: paramTexts(op, el) };
      }
      return { op, texts: paramTexts(op, el), headers };
    },

    encodeResponse(
      op: OperationModel,
      result: unknown,
      request: ParamValues,
      replyHeaders?: Readonly<Record<string, unknown>>,
    ): WireResponse {
      // One-way: no output message; ASMX answers 202 Accepted with an empty body.
      if (op.result.kind === "oneWay") return ACCEPTED;
      const inner = soapResultXml(op, result, request, options.recordWriters);
      // The headers the operation answers and the handler set, before the Body; none: no Header at all.
      const headers = answered.get(op) ?? op.headers?.filter(headerIsAnswered) ?? [];
      const headerXml =
        headers.length === 0 || replyHeaders === undefined
          ? ""
          : headersXml(headers, replyHeaders, ns, (message) => new ResultShapeError(message));
      const head = headerXml === "" ? openHead : `${openHead}<soap:Header>${headerXml}</soap:Header>`;
      if (op.soap !== undefined)
        return { status: 200, headers: responseHeaders, body: shapedAnswer(op, head, inner) };
      const start = headerXml === "" ? open : `${head}<soap:Body>`;
      // .NET writes the response element empty (`<OpResponse xmlns="..." />`) for void and for a null result.
      const body =
        inner === ""
          ? `${start}<${wireName(op)}Response xmlns="${ns}" />${ENVELOPE_CLOSE}`
          : `${start}<${wireName(op)}Response xmlns="${ns}">${inner}</${wireName(op)}Response>${ENVELOPE_CLOSE}`;
      return { status: 200, headers: responseHeaders, body };
    },

    encodeError(error: ServiceError): WireResponse {
      if (isHttpLevel(error)) return textErrorResponse(error);
      // A header fault carries no detail (SOAP 1.1 §4.4; ASMX writes none): its fault code says what it is.
      if (error.code === ErrorCodes.MustUnderstand) {
        return {
          status: error.status,
          headers: responseHeaders,
          body: open + version.faultXml(error, undefined) + ENVELOPE_CLOSE,
        };
      }
      const parameter =
        error.parameter === undefined ? "" : `<Parameter>${escapeText(error.parameter)}</Parameter>`;
      const detail = `<Error xmlns="${ns}"><Code>${escapeText(error.code)}</Code>${parameter}</Error>`;
      return {
        status: error.status,
        headers: responseHeaders,
        body: open + version.faultXml(error, detail) + ENVELOPE_CLOSE,
      };
    },
  };
}

/**
 * A Body element's key in operationsByElement: its local name in the service's namespace, `{ns}local` in
 * another (a local name holds no brace, so the two never meet).
 */
const elementKey = (elementNs: string, local: string, serviceNs: string): string =>
  elementNs === serviceNs ? local : `{${elementNs}}${local}`;

/**
 * The operation each Body element names when the transport names none (SOAP 1.2 without an action, SOAP 1.1
 * without SOAPAction): a wrapped operation's request element; a bare one's first parameter element, unless
 * an operation declared before it took that element (ASMX routes such a Body to the first one too).
 */
function operationsByElement(operations: readonly OperationModel[], ns: string): Map<string, OperationModel> {
  const byElement = new Map<string, OperationModel>();
  for (const op of operations) {
    if (op.soap === undefined) {
      byElement.set(wireName(op), op);
      continue;
    }
    const element = isBare(op) ? op.params[0]?.name : requestElementOf(op);
    const key = element === undefined ? undefined : elementKey(messageNamespace(ns, op), element, ns);
    if (key !== undefined && !byElement.has(key)) byElement.set(key, op);
  }
  return byElement;
}

/** A one-way operation's answer: 202 Accepted, no body (the handler runs after it; core.ts). */
const ACCEPTED: WireResponse = { status: 202, headers: {}, body: "" };
