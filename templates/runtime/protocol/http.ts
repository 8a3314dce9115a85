// What HTTP GET and HTTP POST share: every parameter as text, `/{Op}` routing, result documents with the
// result type as root element (indented), and `500 text/plain` errors naming the .NET exception type.

import { ErrorCodes, HttpBindingError, ResponseFormatError, ServiceError, type BindingName } from "../errors.js";
import type { OperationModel, ResultModel, ServiceModel } from "../model.js";
import { paramIndexes, type ParamTexts, type ParamValues } from "../params.js";
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

/** Form-decodes one name or value; undefined when it is not plain enough to decode without URLSearchParams. */
function decodeFormPart(part: string): string | undefined {
  const spaced = part.indexOf("+") < 0 ? part : part.replaceAll("+", " ");
  if (spaced.indexOf("%") < 0) return spaced;
  try {
    // Succeeds only for well-formed escapes of valid UTF-8, where it agrees with URLSearchParams.
    return decodeURIComponent(spaced);
  } catch {
    return undefined;
  }
}

/**
 * The first value of each parameter in an application/x-www-form-urlencoded text, read as URLSearchParams
 * reads it, without building one (and without a look-up per parameter). Returns undefined for the rare
 * form it leaves to URLSearchParams: non-ASCII characters, a malformed escape, invalid UTF-8.
 */
function quickFormTexts(form: string, count: number, index: ReadonlyMap<string, number>): ParamTexts | undefined {
  for (let i = 0; i < form.length; i++) if (form.charCodeAt(i) > 0x7f) return undefined;
  const texts: ParamTexts = new Array(count);
  const n = form.length;
  let start = 0;
  while (start < n) {
    let end = form.indexOf("&", start);
    if (end < 0) end = n;
    if (end > start) {
      const eq = form.indexOf("=", start);
      const hasValue = eq >= 0 && eq < end;
      const name = decodeFormPart(form.slice(start, hasValue ? eq : end));
      if (name === undefined) return undefined;
      const i = index.get(name);
      if (i !== undefined && texts[i] === undefined) {
        const value = hasValue ? decodeFormPart(form.slice(eq + 1, end)) : "";
        if (value === undefined) return undefined;
        texts[i] = value;
      }
    }
    start = end + 1;
  }
  return texts;
}

export function createHttpBinding(variant: HttpVariant, service: ServiceModel, options: BindingOptions): Binding {
  const ns = service.namespace;
  const byName = new Map(service.operations.map((op) => [op.name, op]));
  const indexes = paramIndexes(service);
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
      const text = variant.fromRequest(request);
      const quick = quickFormTexts(text, op.params.length, indexes.get(op) as Map<string, number>);
      if (quick !== undefined) return { op, texts: quick };
      const form = new URLSearchParams(text);
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
        // The binding's errors are text; an HTML page (a proxy's 502, an IIS error page) is not one.
        const media = (response.headers["content-type"] ?? "").split(";")[0].trim().toLowerCase();
        if (media !== "" && media !== "text/plain") {
          throw formatError(op, response.status, `the error answer is ${media}, not the binding's text/plain error`);
        }
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
