// The server half of HTTP GET and POST: `/{Op}` routing, the form read as URLSearchParams reads it
// (refusing %-escapes that are not UTF-8), result documents with the result type as root element
// (indented), and `500 text/plain` errors naming the .NET exception type.

import { clientError, ErrorCodes, ServiceError } from "../errors.js";
import type { OperationModel, ServiceModel, TypeModel } from "../model.js";
import { wireName } from "../model.js";
import { paramIndexes, type ParamTexts, type ParamValues } from "../codec/params.js";
import { oneLine } from "../safe-error.js";
import { flagsFromHttp } from "../codec/enum-text.js";
import { dotNetTypeName, fromDotNetText, XSD_NS, XSI_NS } from "../codec/values.js";
import { XmlOut } from "../xml/out.js";
import type {
  BindingOptions,
  DecodedRequest,
  ServerBinding,
  WireRequest,
  WireResponse,
} from "../protocol/binding.js";
import { httpRootName, offeredOnHttp, type HttpBindingName } from "../protocol/http.js";
import {
  isFlatRecord,
  isNullResult,
  ResultShapeError,
  resultElement,
  writeResultChildren,
} from "../codec/result.js";
import { xmlValueMarkup } from "../xml/value.js";
import { textErrorResponse } from "../protocol/text-error.js";

const XML_DECLARATION = '<?xml version="1.0" encoding="utf-8"?>';

/** Where a variant finds the parameters: the query string (GET) or a form body (POST). */
export interface HttpServerVariant {
  readonly binding: HttpBindingName;
  /** Takes the encoded form out of a request; throws a client ServiceError when it cannot. */
  fromRequest(request: WireRequest): string;
}

/** Decodes the bytes of %XX escapes; fatal: bytes that are not UTF-8 are refused, never turned into U+FFFD. */
const UTF8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

function hexValue(c: number): number {
  if (c >= 48 && c <= 57) return c - 48;
  const lower = c | 0x20;
  return lower >= 97 && lower <= 102 ? lower - 87 : -1;
}

/** The byte of a well-formed %XX escape at i, or -1. */
function escapeAt(s: string, i: number): number {
  if (s.charCodeAt(i) !== 37) return -1;
  const hi = hexValue(s.charCodeAt(i + 1));
  const lo = hexValue(s.charCodeAt(i + 2));
  return hi < 0 || lo < 0 ? -1 : hi * 16 + lo;
}

/** The UTF-16 code unit of a well-formed `%uXXXX` escape at i (.NET's HttpUtility form), or -1. */
function unitEscapeAt(s: string, i: number): number {
  if (s.charCodeAt(i) !== 37 || s.charCodeAt(i + 1) !== 117 /* u */) return -1;
  let unit = 0;
  for (let k = 2; k < 6; k++) {
    const digit = hexValue(s.charCodeAt(i + k));
    if (digit < 0) return -1;
    unit = unit * 16 + digit;
  }
  return unit;
}

/**
 * Percent-decodes as URLSearchParams does (a malformed escape such as `%zz` stays as written), except that
 * escapes whose bytes are not UTF-8 give undefined instead of U+FFFD, and that `%uXXXX` is one UTF-16 code
 * unit, as .NET Framework's HttpUtility.UrlDecode reads it (.NET's HttpGet/HttpPost proxies send every
 * non-ASCII character so; a surrogate left unpaired gives undefined). One pass; each run of %XX escapes is
 * decoded at once, so a character split over several escapes is whole.
 */
function percentDecode(s: string): string | undefined {
  let out = "";
  let last = 0;
  let units = false;
  let i = s.indexOf("%");
  while (i >= 0 && i < s.length) {
    const unit = unitEscapeAt(s, i);
    if (unit >= 0) {
      out += s.slice(last, i) + String.fromCharCode(unit);
      units = true;
      i += 6;
      last = i;
      i = s.indexOf("%", i);
      continue;
    }
    if (escapeAt(s, i) < 0) {
      i = s.indexOf("%", i + 1);
      continue;
    }
    out += s.slice(last, i);
    let end = i;
    while (escapeAt(s, end) >= 0) end += 3;
    const bytes = new Uint8Array((end - i) / 3);
    for (let k = 0; i < end; i += 3) bytes[k++] = escapeAt(s, i);
    try {
      out += UTF8.decode(bytes);
    } catch {
      return undefined;
    }
    last = i;
    i = s.indexOf("%", i);
  }
  out += s.slice(last);
  return units && hasLoneSurrogate(out) ? undefined : out;
}

/** Whether a text holds a surrogate code unit that is not half of a pair (not text UTF-8 can carry). */
function hasLoneSurrogate(s: string): boolean {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0xd800 || c > 0xdfff) continue;
    if (c > 0xdbff) return true;
    const next = s.charCodeAt(i + 1);
    if (!(next >= 0xdc00 && next <= 0xdfff)) return true;
    i++;
  }
  return false;
}

const UTF8_ENCODER = new TextEncoder();
/** Past this length '+' is replaced on bytes: V8's replaceAll takes seconds for millions of matches. */
const LONG_PART = 4096;

/** '+' as a space. The text came from a decoded body or a URL, so it has no lone surrogate and its
 * UTF-8 bytes decode back to it exactly. */
function plusAsSpace(part: string): string {
  if (part.length < LONG_PART) return part.replaceAll("+", " ");
  const bytes = UTF8_ENCODER.encode(part);
  for (let i = 0; i < bytes.length; i++) if (bytes[i] === 43) bytes[i] = 32;
  return UTF8.decode(bytes);
}

/** Form-decodes one name or value ('+' is a space); undefined when its escapes are not UTF-8. */
function decodeFormPart(part: string): string | undefined {
  const spaced = part.indexOf("+") < 0 ? part : plusAsSpace(part);
  if (spaced.indexOf("%") < 0) return spaced;
  try {
    // Succeeds only for well-formed escapes of valid UTF-8, where it agrees with percentDecode.
    return decodeURIComponent(spaced);
  } catch {
    return percentDecode(spaced);
  }
}

function invalidEncoding(name: string): ServiceError {
  return new ServiceError(
    ErrorCodes.InvalidEncoding,
    `The value of ${name} holds %-escapes that are not UTF-8 text.`,
    {
      side: "client",
      status: 400,
      exceptionType: "System.ArgumentException",
      parameter: name,
    },
  );
}

function tooManyItems(name: string, limit: number): ServiceError {
  return new ServiceError(
    ErrorCodes.TooManyElements,
    `The form holds more than ${limit} array items (at ${name}).`,
    {
      side: "client",
      status: 400,
      exceptionType: "System.InvalidOperationException",
      parameter: name,
    },
  );
}

/**
 * The first value of each parameter in an application/x-www-form-urlencoded text (every value, in order,
 * for an array parameter: `ids=1&ids=2`, as ASMX reads arrays of primitives), read as URLSearchParams
 * reads it, without building one (and without a look-up per parameter). A parameter's value whose escapes
 * are not UTF-8 is refused (InvalidEncoding, naming it); a name that does not decode names no parameter.
 * The values of an array are at most the form's pairs: bounded by the body's size.
 */
function formTexts(
  form: string,
  params: OperationModel["params"],
  index: ReadonlyMap<string, number>,
  isArray: readonly boolean[],
  maxItems: number,
): ParamTexts {
  const texts: ParamTexts = new Array(params.length);
  let items = 0;
  // A name longer than this, even with every character %-escaped, names no parameter: not decoded.
  // One shorter than every parameter name cannot decode to one either (decoding never lengthens).
  let longestName = 0;
  let shortestName = Infinity;
  for (const p of params) {
    longestName = Math.max(longestName, p.name.length);
    shortestName = Math.min(shortestName, p.name.length);
  }
  const maxEncodedName = longestName * 3 * 4;
  const n = form.length;
  let start = 0;
  // The next '=' at or after start, found once and reused: looking it up again for every pair would
  // rescan the rest of the form each time in `a&a&a...` (no '=' at all): quadratic.
  let eq = -1;
  while (start < n) {
    let end = form.indexOf("&", start);
    if (end < 0) end = n;
    if (end > start) {
      if (eq !== n && eq < start) {
        eq = form.indexOf("=", start);
        if (eq < 0) eq = n;
      }
      const hasValue = eq < end;
      const nameEnd = hasValue ? eq : end;
      const rawLength = nameEnd - start;
      const name =
        rawLength > maxEncodedName || rawLength < shortestName
          ? undefined
          : decodeFormPart(form.slice(start, nameEnd));
      const i = name === undefined ? undefined : index.get(name);
      if (i !== undefined && (texts[i] === undefined || isArray[i])) {
        const value = hasValue ? decodeFormPart(form.slice(eq + 1, end)) : "";
        if (value === undefined) throw invalidEncoding(params[i]!.name); // i comes from the index of params
        if (isArray[i]) {
          if (++items > maxItems) throw tooManyItems(params[i]!.name, maxItems);
          ((texts[i] ??= []) as string[]).push(value);
        } else texts[i] = value;
      }
    }
    start = end + 1;
  }
  return texts;
}

/** HTTP GET/POST text of a scalar or enum as the strict parsers read it: .NET's lenient forms rewritten. */
function dotNetText(type: TypeModel, text: string, name: string): string {
  if (type.kind === "enum") {
    if (type.enum.flags !== true) return text.length > 256 ? text : text.trim();
    // A flags value as ASMX's Enum.Parse takes it: the names separated by commas (enum-text.ts).
    const list = flagsFromHttp(text);
    if (list !== undefined) return list;
    throw clientError(
      ErrorCodes.InvalidType,
      `Cannot convert '${oneLine(text, 40)}' to ${type.enum.name} for parameter ${name}: give the names separated by commas.`,
    );
  }
  if (type.kind !== "scalar" || type.type === "string") return text;
  if (type.type === "char") {
    // ASMX converts a form value to a char with Convert.ToChar(string): the character itself, exactly one
    // (XML carries its code instead): given here as the code the strict parser reads.
    if (text.length === 1) return String(text.charCodeAt(0));
    throw clientError(
      ErrorCodes.InvalidType,
      `Cannot convert '${oneLine(text, 40)}' to System.Char for parameter ${name}: the value is not exactly one character.`,
      { parameter: name },
    );
  }
  const read = fromDotNetText(type.type, text);
  if (read !== undefined) return read;
  throw clientError(
    ErrorCodes.InvalidType,
    `Cannot convert '${oneLine(text, 40)}' to ${dotNetTypeName(type.type)} for parameter ${name}: HTTP GET and POST take .NET's spellings (${type.type === "boolean" ? "True, False" : "Infinity, -Infinity, NaN"}), not XML Schema's.`,
    { parameter: name },
  );
}

/** The answer of a void operation: 200 and nothing else. */
const EMPTY_OK: WireResponse = { status: 200, headers: {}, body: "" };

function document(root: string): WireResponse {
  return {
    status: 200,
    headers: { "content-type": "text/xml; charset=utf-8" },
    body: `${XML_DECLARATION}\n${root}`,
  };
}

export function createHttpServerBinding(
  variant: HttpServerVariant,
  service: ServiceModel,
  options: Pick<BindingOptions, "recordWriters" | "maxElements"> = {},
): ServerBinding {
  // Array items a form may hold, over all its array fields: the same bound as the elements of a SOAP request.
  // (The server core always passes its maxElements; 10,000 is its default.)
  const maxItems = options.maxElements ?? 10_000;
  const ns = service.namespace;
  // Operations with a record parameter are SOAP only: not found here, as ASMX does not find them.
  const byName = new Map(service.operations.filter(offeredOnHttp).map((op) => [wireName(op), op]));
  const indexes = paramIndexes(service);
  /** Per operation, which parameters are arrays (their field repeats). */
  const arrays = new Map(service.operations.map((op) => [op, op.params.map((p) => p.type.kind === "array")]));
  const arrayAttrs = ` xmlns:xsd="${XSD_NS}" xmlns:xsi="${XSI_NS}" xmlns="${ns}"`;

  return {
    name: variant.binding,
    presence: "field",

    decodeRequest(request: WireRequest): DecodedRequest {
      const name = request.path.startsWith("/") ? request.path.slice(1) : request.path;
      const op = byName.get(name);
      if (!op) {
        throw new ServiceError(
          ErrorCodes.UnknownOperation,
          `${oneLine(name, 40)} Web Service method name is not valid.`,
          {
            side: "client",
            exceptionType: "System.InvalidOperationException",
          },
        );
      }
      const params = op.params;
      const texts = formTexts(
        variant.fromRequest(request),
        params,
        indexes.get(op) as Map<string, number>,
        arrays.get(op)!,
        maxItems,
      );
      // Values as .NET's invariant culture reads them (values.ts fromDotNetText), each item of an array too.
      for (let i = 0; i < params.length; i++) {
        const text = texts[i];
        if (text === undefined) continue;
        const type = params[i]!.type;
        if (type.kind === "array") {
          const items = text as string[];
          for (let k = 0; k < items.length; k++) items[k] = dotNetText(type.item, items[k]!, params[i]!.name);
        } else {
          texts[i] = dotNetText(type, text as string, params[i]!.name);
        }
      }
      return { op, texts };
    },

    encodeResponse(op: OperationModel, result: unknown, request: ParamValues): WireResponse {
      const kind = op.result.kind;
      // Void (and one-way, which these bindings answer as void): 200 with an empty body, as ASMX answers.
      if (kind === "void" || kind === "oneWay") return EMPTY_OK;
      if (kind === "xml") {
        // The element is the whole answer, as ASMX writes an XmlElement/XmlNode result; null: no body.
        const value = xmlValueMarkup(result, "the result", true, 0, (m) => new ResultShapeError(m));
        return document(value);
      }
      const root = httpRootName(op.result);
      if (isNullResult(op.result, result)) {
        // A null string, byte array, array or record: the root element, nil (its WSDL element is nillable).
        return document(
          `<${root} xmlns:xsd="${XSD_NS}" xmlns:xsi="${XSI_NS}" xsi:nil="true" xmlns="${ns}" />`,
        );
      }
      if (
        kind === "scalar" ||
        kind === "enum" ||
        kind === "array" ||
        ((kind === "list" || kind === "record") && !isFlatRecord(op.result.record))
      ) {
        const attrs = kind === "scalar" || kind === "enum" ? ` xmlns="${ns}"` : arrayAttrs;
        return document(resultElement(root, op.result, result, true, attrs, options.recordWriters));
      }
      const out = new XmlOut(true).raw(XML_DECLARATION);
      if (op.result.kind === "list" && Array.isArray(result) && result.length === 0) {
        out.empty(root, arrayAttrs);
      } else {
        const dataSet = op.result.kind === "dataSet" || op.result.kind === "untypedDataSet";
        out.open(root, dataSet ? ` xmlns="${ns}"` : arrayAttrs);
        writeResultChildren(out, op.result, result, request, options.recordWriters);
        out.close(root);
      }
      return { status: 200, headers: { "content-type": "text/xml; charset=utf-8" }, body: out.toString() };
    },

    encodeError(error: ServiceError): WireResponse {
      return textErrorResponse(error);
    },
  };
}
