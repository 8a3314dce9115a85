// What HTTP GET and HTTP POST share: every parameter as text, `/{Op}` routing, result documents with the
// result type as root element (indented), and `500 text/plain` errors naming the .NET exception type.

import { ErrorCodes, HttpBindingError, ResponseFormatError, ServiceError, type BindingName } from "../errors.js";
import type { OperationModel, ResultModel, ServiceModel } from "../model.js";
import type { ParamTexts, ParamValues } from "../params.js";
import { DEFAULT_MAX_DEPTH, type XmlElement } from "../xml/tree.js";
import type { Binding, BindingOptions, DecodedRequest, WireRequest, WireResponse } from "./binding.js";
import { readResult, scalarText, writeResultChildren } from "./result.js";
import { XSD_NS, XSI_NS } from "./soap.js";
import { XmlOut } from "./xml-out.js";

export const FORM_CONTENT_TYPE = "application/x-www-form-urlencoded";
export const ERROR_CODE_HEADER = "x-error-code";
const XML_DECLARATION = '<?xml version="1.0" encoding="utf-8"?>';

/** Where an HTTP variant carries the parameters: the query string (GET) or a form body (POST). */
export interface HttpVariant {
  readonly binding: Extract<BindingName, "httpGet" | "httpPost">;
  /** Puts the encoded form into a request. */
  toRequest(path: string, form: string): WireRequest;
  /** Takes the encoded form out of a request; throws a client ServiceError when it cannot. */
  fromRequest(request: WireRequest): string;
}

/** The root element name of an HTTP result document. */
export function httpRootName(result: ResultModel): string {
  switch (result.kind) {
    case "scalar":
      return result.type;
    case "list":
      return `ArrayOf${result.record.name}`;
    case "record":
      return result.record.name;
    case "dataSet":
      return "DataSet";
  }
}

/** Splits `System.ArgumentException: message` (and drops a .NET stack trace if one follows). */
export function parseErrorText(body: string): { exceptionType: string; reason: string } {
  const text = body.split(/\r?\n\s+at /)[0].trim();
  const m = /^([A-Za-z_][\w.]*):\s?([\s\S]*)$/.exec(text);
  return m ? { exceptionType: m[1], reason: m[2].trim() } : { exceptionType: "", reason: text };
}

export function createHttpBinding(variant: HttpVariant, service: ServiceModel, options: BindingOptions): Binding {
  const ns = service.namespace;
  const byName = new Map(service.operations.map((op) => [op.name, op]));
  const arrayAttrs = ` xmlns:xsd="${XSD_NS}" xmlns:xsi="${XSI_NS}" xmlns="${ns}"`;
  const readOptions = { maxDepth: options.maxDepth ?? DEFAULT_MAX_DEPTH };

  function formatError(op: OperationModel, status: number, message: string, cause?: unknown): ResponseFormatError {
    return new ResponseFormatError(`HTTP ${status}: ${message}`, variant.binding, op.name, { cause });
  }

  return {
    name: variant.binding,
    presence: "field",

    encodeRequest(op: OperationModel, texts: ParamTexts): WireRequest {
      const form = new URLSearchParams(op.params.map((p, i) => [p.name, texts[i] ?? ""])).toString();
      return variant.toRequest(`/${op.name}`, form);
    },

    decodeRequest(request: WireRequest): DecodedRequest {
      const name = request.path.startsWith("/") ? request.path.slice(1) : request.path;
      const op = byName.get(name);
      if (!op) {
        throw new ServiceError(ErrorCodes.UnknownOperation, `${name} Web Service method name is not valid.`, {
          side: "client",
          exceptionType: "System.InvalidOperationException",
        });
      }
      const form = new URLSearchParams(variant.fromRequest(request));
      const texts: ParamTexts = op.params.map((p) => form.get(p.name) ?? undefined);
      return { op, texts };
    },

    encodeResponse(op: OperationModel, result: unknown, request: ParamValues): WireResponse {
      const out = new XmlOut(true).raw(XML_DECLARATION);
      const root = httpRootName(op.result);
      if (op.result.kind === "scalar") {
        out.leaf(root, scalarText(op.result, result), ` xmlns="${ns}"`);
      } else if (op.result.kind === "list" && Array.isArray(result) && result.length === 0) {
        out.empty(root, arrayAttrs);
      } else {
        out.open(root, op.result.kind === "dataSet" ? ` xmlns="${ns}"` : arrayAttrs);
        writeResultChildren(out, op.result, result, request);
        out.close(root);
      }
      return { status: 200, headers: { "content-type": "text/xml; charset=utf-8" }, body: out.toString() };
    },

    encodeError(error: ServiceError): WireResponse {
      return {
        status: error.status,
        headers: { "content-type": "text/plain; charset=utf-8", [ERROR_CODE_HEADER]: error.code },
        body: `${error.exceptionType}: ${error.message}`,
      };
    },

    decodeResponse(op: OperationModel, response: WireResponse, request: ParamValues): unknown {
      if (response.status !== 200) {
        const { exceptionType, reason } = parseErrorText(response.body);
        const errorCode = response.headers[ERROR_CODE_HEADER];
        throw new HttpBindingError({ status: response.status, exceptionType, reason, errorCode }, variant.binding, op.name);
      }
      let root: XmlElement;
      try {
        root = options.readXml(response.body, readOptions);
      } catch (error) {
        throw formatError(op, response.status, `the answer is not readable XML (${(error as Error).message})`, error);
      }
      const expected = httpRootName(op.result);
      if (root.local !== expected || root.ns !== ns) {
        throw formatError(op, response.status, `the answer's root is ${root.local}, not ${expected} in ${ns}`);
      }
      try {
        return readResult(op, root, ns, request);
      } catch (error) {
        throw formatError(op, response.status, (error as Error).message, error);
      }
    },
  };
}
