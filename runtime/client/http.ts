// The client half of HTTP GET and POST: every parameter as form text, `/{Op}` in the path, the result
// document read back, and the binding's `500 text/plain` error text read into an HttpBindingError.

import { HttpBindingError, ResponseFormatError } from "../errors.js";
import type { ClientOperationModel, ClientServiceModel, SoapType } from "../model.js";
import { wireName } from "../model.js";
import type { ParamTexts, ParamValues, WireValue } from "../codec/params.js";
import type { XmlElement } from "../xml/tree.js";
import type { BindingOptions, ClientBinding, WireRequest, WireResponse } from "../protocol/binding.js";
import { httpRootName, notOnHttp, offeredOnHttp, type HttpBindingName } from "../protocol/http.js";
import { readResult } from "../codec/result-read.js";
import { flagsToHttp } from "../codec/enum-text.js";
import { ERROR_CODE_HEADER, ERROR_PARAMETER_HEADER } from "../protocol/text-error.js";

/** Where a variant puts the parameters: the query string (GET) or a form body (POST). */
export interface HttpClientVariant {
  readonly binding: HttpBindingName;
  /** Puts the encoded form into a request. */
  toRequest(path: string, form: string): WireRequest;
}

/** Splits `System.ArgumentException: message` (and drops a .NET stack trace if one follows). */
function parseErrorText(body: string): { exceptionType: string; reason: string } {
  const text = body.split(/\r?\n\s+at /)[0]!.trim();
  const m = /^([A-Za-z_][\w.]*):\s?([\s\S]*)$/.exec(text);
  return m ? { exceptionType: m[1]!, reason: m[2]!.trim() } : { exceptionType: "", reason: text };
}

/**
 * A scalar's XML text as .NET reads it from an HTTP field: a char is the character itself (ASMX reads it
 * with Convert.ToChar), not its code as in XML; an infinite float or double is `Infinity`/`-Infinity`
 * (Double.Parse refuses XML Schema's INF; docs/asmx-evidence/http-details.md).
 */
function dotNetSpelling(type: SoapType, text: string): string {
  if (type === "char") return String.fromCharCode(Number(text));
  if (type === "double" || type === "float")
    return text === "INF" ? "Infinity" : text === "-INF" ? "-Infinity" : text;
  return text;
}

export function createHttpClientBinding(
  variant: HttpClientVariant,
  service: ClientServiceModel,
  options: BindingOptions,
): ClientBinding {
  const ns = service.namespace;

  return {
    name: variant.binding,

    encodeRequest(op: ClientOperationModel, texts: ParamTexts): WireRequest {
      if (!offeredOnHttp(op)) {
        // A parameter HTTP cannot carry, or else out or ref parameters (answered in the response element).
        const param = op.params.find((q) => notOnHttp(q) !== undefined);
        throw new TypeError(
          `${op.name} takes ${param ? `${notOnHttp(param)} (${param.name})` : "out or ref parameters"}, which ${variant.binding} cannot carry (as in ASMX): call it over SOAP.`,
        );
      }
      // Every parameter is sent (an absent one empty, a null nullable value empty too); an array is its
      // field repeated, once per item (none for an empty array), as ASMX reads arrays of primitives.
      // Scalars in .NET's spelling (dotNetSpelling).
      const pairs: [string, string][] = [];
      op.params.forEach((p, i) => {
        const text = texts[i];
        const type = p.type.kind === "array" ? p.type.item : p.type;
        const field = (value: WireValue): string =>
          typeof value !== "string"
            ? ""
            : type.kind === "scalar"
              ? dotNetSpelling(type.type, value)
              : type.kind === "enum" && type.enum.flags === true
                ? flagsToHttp(value)
                : value;
        if (Array.isArray(text))
          for (const item of text as readonly WireValue[]) pairs.push([p.name, field(item)]);
        else if (p.type.kind !== "array") pairs.push([p.name, field(text as WireValue)]);
      });
      return variant.toRequest(`/${wireName(op)}`, new URLSearchParams(pairs).toString());
    },

    decodeResponse(op: ClientOperationModel, response: WireResponse, request: ParamValues): unknown {
      const status = response.status;
      const formatError = (message: string, cause?: unknown) =>
        new ResponseFormatError(`HTTP ${status}: ${message}`, variant.binding, op.name, { cause });
      if (status !== 200) {
        // The binding's errors are text; an HTML page (a proxy's 502, an IIS error page) is not one.
        const media = (response.headers["content-type"] ?? "").split(";")[0]!.trim().toLowerCase();
        if (media !== "" && media !== "text/plain") {
          throw formatError(`the error answer is ${media}, not the binding's text/plain error`);
        }
        const { exceptionType, reason } = parseErrorText(response.body);
        const errorCode = response.headers[ERROR_CODE_HEADER];
        const parameter = response.headers[ERROR_PARAMETER_HEADER];
        throw new HttpBindingError(
          { status, exceptionType, reason, errorCode, parameter },
          variant.binding,
          op.name,
        );
      }
      // Void and one-way: 200 with an empty body; nothing to read.
      if (op.result.kind === "void" || op.result.kind === "oneWay") return undefined;
      // A null XML result is a document of the XML declaration alone (ASMX): no root element.
      if (op.result.kind === "xml" && /^\uFEFF?(?:<\?xml[^>]*\?>)?[ \t\r\n]*$/.test(response.body))
        return null;
      let root: XmlElement;
      try {
        root = options.readXml(response.body, options);
      } catch (error) {
        throw formatError(`the answer is not readable XML (${(error as Error).message})`, error);
      }
      // An XML result is the whole answer, whatever its name.
      if (op.result.kind === "xml") {
        // Read as the content of a result element holding it, as SOAP carries it.
        root = { ns, local: `${wireName(op)}Result`, prefix: "", attrs: [], children: [root], text: "" };
      } else {
        const expected = httpRootName(op.result);
        if (root.local !== expected || root.ns !== ns) {
          throw formatError(`the answer's root is ${root.local}, not ${expected} in ${ns}`);
        }
      }
      try {
        return readResult(op, root, ns, request);
      } catch (error) {
        throw formatError((error as Error).message, error);
      }
    },
  };
}
