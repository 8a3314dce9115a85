// The one interface every binding module (soap11/, soap12/, http-get/, http-post/) implements.
// Client side: encodeRequest + decodeResponse. Server side: decodeRequest + encodeResponse + encodeError.

import type { ServiceError } from "../errors.js";
import type { OperationModel, ServiceModel } from "../model.js";
import type { ParamTexts, ParamValues, Presence } from "../params.js";
import type { ReadOptions, XmlElement } from "../xml/tree.js";

/** The four bindings an ASMX endpoint answers on. */
export type BindingName = "soap11" | "soap12" | "httpGet" | "httpPost";

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
}

export type XmlReader = (text: string, options?: ReadOptions) => XmlElement;

export interface BindingOptions {
  /** The XML reader (the runtime's scanner, unless a client is configured with another). */
  readonly readXml: XmlReader;
  readonly maxDepth?: number;
  /** Attributes per element, namespace declarations included; the reader's default when absent. */
  readonly maxAttributes?: number;
  /** Elements per document; the reader's default when absent. */
  readonly maxElements?: number;
}

export interface Binding {
  readonly name: BindingName;
  /** Whether an absent parameter may be omitted (SOAP) or every field must be sent (HTTP GET/POST). */
  readonly presence: Presence;
  encodeRequest(op: OperationModel, texts: ParamTexts): WireRequest;
  /** Returns the typed result, or throws a ClientCallError subclass. */
  decodeResponse(op: OperationModel, response: WireResponse, request: ParamValues): unknown;
  /** Throws a client-side ServiceError for a request it cannot route or read. */
  decodeRequest(request: WireRequest): DecodedRequest;
  encodeResponse(op: OperationModel, result: unknown, request: ParamValues): WireResponse;
  encodeError(error: ServiceError): WireResponse;
}

export type BindingFactory = (service: ServiceModel, options: BindingOptions) => Binding;
