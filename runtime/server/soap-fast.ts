// The SOAP server's fast path: the Body of a request envelope in the shape nearly every client sends,
// read in one short pass without the general reader (xml/scan.ts), or undefined for anything else, which
// the general reader then reads as always. Whatever this accepts, the general reader accepts too and reads
// to the same elements (test/runtime/xml/soap-fast.test.ts holds the two to that, by fuzzing).
//
// The shape: an optional XML declaration; `<P:Envelope` whose attributes are only namespace declarations,
// one of them binding P to the version's envelope namespace; `<P:Body>` right after it (no Header); one
// operation element in the service's namespace, `<Op xmlns="NS">` or `<X:Op xmlns:X="NS">` (.NET, zeep), or
// `<X:Op>` or `<Op>` with X or the default namespace bound to NS on the Envelope (PHP's SoapClient), with no
// other attribute; under it only leaf parameters named like it (`<name>`, or `<X:name>`), `<name>text</name>` or
// `<name/>`, without attributes, whose text holds no reference, CR, '>', control character, surrogate or
// U+FFFE/U+FFFF; then the closing tags and whitespace. Names are ASCII. Anything else (a Header, xsi:nil, a
// record or array parameter, `&amp;`, a comment, a body of LARGE or more code units) is the general
// reader's. Whitespace between elements is kept as the general reader keeps it.
//
// Why: a client sends the same opening, from the declaration to `<P:Body>`, with every request. Once one
// opening has been read, a request that starts with it is checked by one native comparison, and the rest is
// read with a few short loops and comparisons. In the server the general reader's first pass per request costs
// about twice its cost in a tight loop, more so the more code it runs; this pass runs a fraction of it.
// Every loop is bounded by the text's length, and the text by LARGE; the cache of openings by OPENINGS.

import { skipWs, XML_NS, XMLNS_NS } from "../xml/scan.js";
import type { XmlElement } from "../xml/tree.js";

/** Bodies this long or longer go to the general reader at once, so a fallback wastes little work. */
const LARGE = 16_384;
/** Openings remembered per binding, each at most OPENING_MAX code units. */
export const OPENINGS = 8;
const OPENING_MAX = 1024;
/** Namespace declarations read on a fresh Envelope start tag at most. */
const DECLARATIONS = 8;

/** An XML declaration exactly as xml/scan.ts's readDeclaration accepts it (sticky: at lastIndex). */
const DECLARATION =
  /<\?xml[ \t\r\n]+version[ \t\r\n]*=[ \t\r\n]*(?:"1\.[0-9]+"|'1\.[0-9]+')(?:[ \t\r\n]+encoding[ \t\r\n]*=[ \t\r\n]*(?:"[A-Za-z][A-Za-z0-9._-]*"|'[A-Za-z][A-Za-z0-9._-]*'))?(?:[ \t\r\n]+standalone[ \t\r\n]*=[ \t\r\n]*(?:"(?:yes|no)"|'(?:yes|no)'))?[ \t\r\n]*\?>/y;

const NO_ATTRS: readonly never[] = /* @__PURE__ */ Object.freeze([]);
const NO_CHILDREN: readonly XmlElement[] = /* @__PURE__ */ Object.freeze([]);

/** The reader's limits (xml/tree.ts ReadOptions as the SOAP binding resolves them). */
export interface FastLimits {
  readonly maxDepth: number;
  readonly maxAttributes: number | undefined;
  readonly maxElements: number | undefined;
}

/** A document's start, from its first character to `<P:Body>` inclusive, read and accepted once. */
interface Opening {
  readonly text: string;
  readonly prefix: string;
  /** The prefixes ("" for the default namespace) the Envelope binds to the service's namespace. */
  readonly serviceBound: readonly string[];
  /** `</P:Body></P:Envelope>`. */
  readonly close: string;
}

/** End of an ASCII NCName starting at i (i itself when there is none). */
function nameEnd(s: string, i: number): number {
  const c = s.charCodeAt(i);
  if (!((c >= 97 && c <= 122) || (c >= 65 && c <= 90) || c === 95)) return i;
  for (i++; ; i++) {
    const d = s.charCodeAt(i);
    if (
      !(
        (d >= 97 && d <= 122) ||
        (d >= 65 && d <= 90) ||
        (d >= 48 && d <= 57) ||
        d === 95 ||
        d === 45 ||
        d === 46
      )
    )
      return i;
  }
}

/** Whether s[from, to) is an attribute value that needs no decoding and no normalization. */
function plainValue(s: string, from: number, to: number): boolean {
  for (let i = from; i < to; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x20 || c === 38 || c === 60 || c >= 0xd800) return false;
  }
  return true;
}

/** Index just past `</` + pq + q + optional whitespace + `>` at i, or -1. */
function endTag(s: string, i: number, pq: string, q: string): number {
  if (
    s.charCodeAt(i) !== 60 ||
    s.charCodeAt(i + 1) !== 47 ||
    !s.startsWith(pq, i + 2) ||
    !s.startsWith(q, i + 2 + pq.length)
  )
    return -1;
  const j = skipWs(s, i + 2 + pq.length + q.length);
  return s.charCodeAt(j) === 62 ? j + 1 : -1;
}

/** Whitespace text between elements as the general reader keeps it (CRLF and CR as LF). */
function wsText(s: string, from: number, to: number): string {
  if (from === to) return "";
  const t = s.slice(from, to);
  return t.indexOf("\r") < 0 ? t : t.replace(/\r\n?/g, "\n");
}

/**
 * Reads a document's opening at its start: the declaration, `<P:Envelope …>` and `<P:Body>`. Returns it
 * (its text, the prefix P, the prefixes bound to the service's namespace, P's closing tags), or undefined when
 * the opening is not of the common shape.
 */
function readOpening(
  s: string,
  envelopeNs: string,
  serviceNs: string,
  maxAttributes: number | undefined,
): Opening | undefined {
  let i = s.charCodeAt(0) === 0xfeff ? 1 : 0;
  if (s.charCodeAt(i) === 60 && s.charCodeAt(i + 1) === 63) {
    DECLARATION.lastIndex = i;
    if (!DECLARATION.test(s)) return undefined;
    i = DECLARATION.lastIndex;
  }
  i = skipWs(s, i);
  if (s.charCodeAt(i) !== 60) return undefined;
  const p0 = i + 1;
  const p1 = nameEnd(s, p0);
  if (p1 === p0 || s.charCodeAt(p1) !== 58 || !s.startsWith("Envelope", p1 + 1)) return undefined;
  const prefix = s.slice(p0, p1);
  i = p1 + 9;
  let bound = false;
  const declared: string[] = [];
  const serviceBound: string[] = [];
  for (;;) {
    const w = i;
    i = skipWs(s, i);
    if (s.charCodeAt(i) === 62) break;
    if (i === w || !s.startsWith("xmlns", i)) return undefined;
    let a = i + 5;
    let name = "";
    if (s.charCodeAt(a) === 58) {
      const n1 = nameEnd(s, a + 1);
      if (n1 === a + 1) return undefined;
      name = s.slice(a + 1, n1);
      a = n1;
    }
    const v = valueAt(s, a);
    if (v < 0) return undefined;
    const end = s.indexOf(s[v - 1]!, v);
    if (end < 0 || !plainValue(s, v, end)) return undefined;
    const uri = s.slice(v, end);
    // What the general reader refuses or reads otherwise is its own to answer.
    if (
      name === "xml" ||
      name === "xmlns" ||
      uri === XML_NS ||
      uri === XMLNS_NS ||
      (uri === "" && name !== "")
    )
      return undefined;
    if (declared.includes(name) || declared.length === DECLARATIONS) return undefined;
    declared.push(name);
    if (maxAttributes !== undefined && declared.length > maxAttributes) return undefined;
    if (name === prefix) {
      if (uri !== envelopeNs) return undefined;
      bound = true;
    }
    if (uri === serviceNs) serviceBound.push(name);
    i = end + 1;
  }
  if (!bound) return undefined;
  i = skipWs(s, i + 1);
  if (s.charCodeAt(i) !== 60 || !s.startsWith(prefix, i + 1) || s.charCodeAt(i + 1 + prefix.length) !== 58)
    return undefined;
  const b = i + 2 + prefix.length;
  if (!s.startsWith("Body", b)) return undefined;
  i = skipWs(s, b + 4);
  if (s.charCodeAt(i) !== 62) return undefined;
  return { text: s.slice(0, i + 1), prefix, serviceBound, close: `</${prefix}:Body></${prefix}:Envelope>` };
}

/** After an attribute's name at a: `S? = S?` and a quote; returns the index after the quote, or -1. */
function valueAt(s: string, a: number): number {
  a = skipWs(s, a);
  if (s.charCodeAt(a) !== 61) return -1;
  a = skipWs(s, a + 1);
  const q = s.charCodeAt(a);
  return q === 34 || q === 39 ? a + 1 : -1;
}

/** What the fast path knows of an operation: its name and its parameters' names, in order. */
export interface FastOperation {
  readonly name: string;
  readonly params: readonly string[];
}

/** The start and end tags of an operation's parameters as a .NET client writes them, index-aligned. */
interface ParamTags {
  readonly locals: readonly string[];
  readonly open: readonly string[];
  readonly close: readonly string[];
}

const ASCII_NAME = /^[A-Za-z_][A-Za-z0-9_.-]*$/;
/** Characters that keep a parameter's text off the fast path (see the shape above); for long texts. */
const NOT_PLAIN_TEXT = /[&>\x00-\x08\x0B-\x1F\uD800-\uDFFF\uFFFE\uFFFF]/;
/** Texts this long or longer are checked by NOT_PLAIN_TEXT rather than code unit by code unit. */
const LONG_TEXT = 24;

/** Whether s[from, to) (no '<' in it) is parameter text of the fast path's shape. */
function plainText(s: string, from: number, to: number): boolean {
  if (to - from >= LONG_TEXT) return !NOT_PLAIN_TEXT.test(s.slice(from, to));
  for (let x = from; x < to; x++) {
    const c = s.charCodeAt(x);
    if (c < 0x20 ? c !== 9 && c !== 10 : c === 38 || c === 62 || c >= 0xd800) return false;
  }
  return true;
}

/** A binding's fast reader: `read` gives the Body, or undefined for the general reader. */
export interface FastSoapReader {
  read(s: string): XmlElement | undefined;
  /** Openings remembered (at most OPENINGS). */
  cachedOpenings(): number;
}

/**
 * A reader of request Bodies in the common shape for one binding: its envelope namespace, the service's
 * namespace and operations, and the limits. Undefined when the shape cannot be read under these limits.
 */
export function createFastSoapReader(
  envelopeNs: string,
  serviceNs: string,
  operations: readonly FastOperation[],
  limits: FastLimits,
): FastSoapReader | undefined {
  // A namespace that needs escaping or normalization in an attribute is never matched as written.
  const usable =
    limits.maxDepth >= 4 &&
    (limits.maxElements === undefined || limits.maxElements >= 3) &&
    (limits.maxAttributes === undefined || limits.maxAttributes >= 1) &&
    serviceNs !== "" &&
    plainValue(serviceNs, 0, serviceNs.length) &&
    !/["'>]/.test(serviceNs);
  if (!usable) return undefined;
  const openings: Opening[] = [];
  /** `<Op xmlns="NS">` as .NET writes it, for each operation: its name and its parameters' tags. */
  const known = new Map<string, { readonly name: string; readonly tags: ParamTags }>();
  for (const op of operations) {
    if (!ASCII_NAME.test(op.name)) continue;
    const params = op.params.filter((p) => ASCII_NAME.test(p));
    known.set(`<${op.name} xmlns="${serviceNs}">`, {
      name: op.name,
      tags: { locals: params, open: params.map((p) => `<${p}>`), close: params.map((p) => `</${p}>`) },
    });
  }

  function opening(s: string): Opening | undefined {
    for (let k = 0; k < openings.length; k++) {
      const text = openings[k]!.text;
      if (s.slice(0, text.length) === text) return openings[k];
    }
    const read = readOpening(s, envelopeNs, serviceNs, limits.maxAttributes);
    if (read !== undefined && openings.length < OPENINGS && read.text.length <= OPENING_MAX)
      openings.push(read);
    return read;
  }

  function read(s: string): XmlElement | undefined {
    const len = s.length;
    if (len >= LARGE) return undefined;
    const open = opening(s);
    if (open === undefined) return undefined;
    const prefix = open.prefix;
    const bodyEnd = open.text.length;
    let i = skipWs(s, bodyEnd);
    const bodyText = wsText(s, bodyEnd, i);

    // <Op xmlns="NS"> or <X:Op xmlns:X="NS">, or either empty (`/>`).
    if (s.charCodeAt(i) !== 60) return undefined;
    let opName: string;
    let pq = "";
    let opPrefix = "";
    let tags: ParamTags | undefined;
    let j: number;
    const gt = s.indexOf(">", i);
    const dotNet = gt < 0 ? undefined : known.get(s.slice(i, gt + 1));
    if (dotNet !== undefined) {
      opName = dotNet.name;
      tags = dotNet.tags;
      j = gt;
    } else {
      const o0 = i + 1;
      let o1 = nameEnd(s, o0);
      if (o1 === o0) return undefined;
      if (s.charCodeAt(o1) === 58) {
        opPrefix = s.slice(o0, o1);
        pq = `${opPrefix}:`;
        const l1 = nameEnd(s, o1 + 1);
        if (l1 === o1 + 1 || opPrefix === "xml" || opPrefix === "xmlns") return undefined;
        o1 = l1;
      }
      opName = s.slice(o0 + pq.length, o1);
      j = skipWs(s, o1);
      const c = s.charCodeAt(j);
      if (c === 62 || c === 47) {
        // No declaration of its own (PHP's SoapClient: `<ns1:Op>`, ns1 declared on the Envelope): the
        // Envelope must bind the operation's prefix, or the default namespace, to the service's.
        if (!open.serviceBound.includes(opPrefix)) return undefined;
      } else {
        if (j === o1 || !s.startsWith("xmlns", j)) return undefined;
        j += 5;
        if (opPrefix !== "") {
          if (s.charCodeAt(j) !== 58 || !s.startsWith(opPrefix, j + 1)) return undefined;
          j += 1 + opPrefix.length;
        }
        const v = valueAt(s, j);
        if (
          v < 0 ||
          !s.startsWith(serviceNs, v) ||
          s.charCodeAt(v + serviceNs.length) !== s.charCodeAt(v - 1)
        )
          return undefined;
        j = skipWs(s, v + serviceNs.length + 1);
      }
    }
    let children: readonly XmlElement[] = NO_CHILDREN;
    let opText = "";
    if (s.charCodeAt(j) === 47) {
      if (s.charCodeAt(j + 1) !== 62) return undefined;
      i = j + 2;
    } else {
      if (s.charCodeAt(j) !== 62) return undefined;
      i = j + 1;
      const params: XmlElement[] = [];
      // A .NET client sends every parameter in order: the next one's tags are tried first.
      let next = 0;
      for (;;) {
        const w = i;
        i = skipWs(s, i);
        if (i > w) opText += wsText(s, w, i);
        if (s.charCodeAt(i) !== 60) return undefined;
        if (s.charCodeAt(i + 1) === 47) break;
        let local: string;
        let close: string | undefined;
        if (tags !== undefined && next < tags.open.length && s.startsWith(tags.open[next]!, i)) {
          local = tags.locals[next]!;
          close = tags.close[next]!;
          j = i + local.length + 1;
          next++;
        } else {
          if (!s.startsWith(pq, i + 1)) return undefined;
          const e0 = i + 1 + pq.length;
          const e1 = nameEnd(s, e0);
          if (e1 === e0) return undefined;
          local = s.slice(e0, e1);
          j = skipWs(s, e1);
          tags = undefined;
        }
        let text = "";
        if (s.charCodeAt(j) === 47) {
          if (s.charCodeAt(j + 1) !== 62) return undefined;
          i = j + 2;
        } else {
          if (s.charCodeAt(j) !== 62) return undefined;
          const x = s.indexOf("<", j + 1);
          if (x < 0 || !plainText(s, j + 1, x)) return undefined;
          if (x > j + 1) text = s.slice(j + 1, x);
          i = close !== undefined && s.startsWith(close, x) ? x + close.length : endTag(s, x, pq, local);
          if (i < 0) return undefined;
        }
        params.push({ ns: serviceNs, local, prefix: opPrefix, attrs: NO_ATTRS, children: NO_CHILDREN, text });
      }
      if (limits.maxElements !== undefined && params.length + 3 > limits.maxElements) return undefined;
      i = endTag(s, i, pq, opName);
      if (i < 0) return undefined;
      if (params.length > 0) children = params;
    }
    const op: XmlElement = {
      ns: serviceNs,
      local: opName,
      prefix: opPrefix,
      attrs: NO_ATTRS,
      children,
      text: opText,
    };

    // </P:Body></P:Envelope> to the end (one comparison), or the same with whitespace between and after.
    let bodyTail = "";
    if (!(i + open.close.length === len && s.startsWith(open.close, i))) {
      const b0 = i;
      i = skipWs(s, i);
      bodyTail = wsText(s, b0, i);
      i = endTag(s, i, prefix, ":Body");
      if (i < 0) return undefined;
      i = endTag(s, skipWs(s, i), prefix, ":Envelope");
      if (i < 0 || skipWs(s, i) !== len) return undefined;
    }
    return {
      ns: envelopeNs,
      local: "Body",
      prefix,
      attrs: NO_ATTRS,
      children: [op],
      text: bodyText + bodyTail,
    };
  }

  return { read, cachedOpenings: () => openings.length };
}
