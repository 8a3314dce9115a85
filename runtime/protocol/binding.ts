// The two interfaces every binding (SOAP 1.1, SOAP 1.2, HTTP GET, HTTP POST) implements, each in its own
// module: the client half (client/soap11.ts, ...) (encodeRequest + decodeResponse) and the server half (decodeRequest +
// encodeResponse + encodeError; server/soap11.ts, ...).

import type { RecordWriters } from "../codec/result.js";
import type { ServiceError } from "../errors.js";
import type {
  BindingName,
  ClientOperationModel,
  ClientServiceModel,
  OperationModel,
  ServiceModel,
} from "../model.js";
import type { ParamTexts, ParamValues, Presence } from "../codec/params.js";
import type { ReadOptions, XmlElement } from "../xml/tree.js";

/** An HTTP request as a binding sees it, independent of node:http or fetch. */
export interface WireRequest {
  readonly method: "GET" | "POST";
  /** Path below the endpoint: "" for SOAP, "/{Op}" for the HTTP bindings. */
  readonly path: string;
  /** Query string without "?", "" when none. */
  readonly query: string;
  /** Header names in lower case. */
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
}

export interface WireResponse {
  readonly status: number;
  /** Header names in lower case. */
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
}

export interface DecodedRequest {
  readonly op: OperationModel;
  readonly texts: ParamTexts;
  /** The SOAP headers the operation takes that came, by name (absent: none came). */
  readonly headers?: Readonly<Record<string, unknown>>;
}

export type XmlReader = (text: string, options?: ReadOptions) => XmlElement;

/** A binding's options; a client binding passes them to readXml as they are (ReadOptions: the limits). */
export interface BindingOptions extends ReadOptions {
  /** The XML reader (the runtime's scanner, unless a client is configured with another). */
  readonly readXml: XmlReader;
  /** Deepest element nesting; the reader's default when absent. */
  readonly maxDepth?: number | undefined;
  /** Attributes per element, namespace declarations included; the reader's default when absent. */
  readonly maxAttributes?: number | undefined;
  /** Elements per document; the reader's default when absent. */
  readonly maxElements?: number | undefined;
  /** Server halves: the generated record writers (generated/writers.ts); made from the model when absent. */
  readonly recordWriters?: RecordWriters | undefined;
  /**
   * SOAP server halves: whether an operation understands (binds) a SOAP header element. A header marked
   * mustUnderstand that it does not understand is refused with SOAP's MustUnderstand fault before the
   * operation runs. The headers an operation declares are understood by being bound; this hook may
   * understand more (none when absent).
   */
  readonly understoodHeaders?: ((op: OperationModel, header: XmlElement) => boolean) | undefined;
}

/**
 * The client half of a binding: writes a call's request and reads its answer. A separate module from the
 * server half (client/soap11.ts vs server/soap11.ts, ...), so a client bundles no server code.
 */
export interface ClientBinding {
  readonly name: BindingName;
  /** The request without SOAP headers (the client core adds those: header-codec.ts). */
  encodeRequest(op: ClientOperationModel, texts: ParamTexts): WireRequest;
  /**
   * Returns the typed result, or throws a ClientCallError subclass. A SOAP binding hands `onEnvelope` the
   * answer's envelope once the result is read (for its headers); the HTTP bindings have none.
   */
  decodeResponse(
    op: ClientOperationModel,
    response: WireResponse,
    request: ParamValues,
    onEnvelope?: (envelope: XmlElement) => void,
  ): unknown;
}

/** The server half of a binding: reads a request and writes the answer or the error. */
export interface ServerBinding {
  readonly name: BindingName;
  /** Whether an absent parameter may be omitted (SOAP) or every field must be sent (HTTP GET/POST). */
  readonly presence: Presence;
  /** Throws a client-side ServiceError for a request it cannot route or read. */
  decodeRequest(request: WireRequest): DecodedRequest;
  /** `replyHeaders`: the SOAP headers the handler answers, by name (the HTTP bindings carry none). */
  encodeResponse(
    op: OperationModel,
    result: unknown,
    request: ParamValues,
    replyHeaders?: Readonly<Record<string, unknown>>,
  ): WireResponse;
  encodeError(error: ServiceError): WireResponse;
}

export type ClientBindingFactory = (service: ClientServiceModel, options: BindingOptions) => ClientBinding;
export type ServerBindingFactory = (service: ServiceModel, options: BindingOptions) => ServerBinding;
