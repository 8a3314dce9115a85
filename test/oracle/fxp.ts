// The same reader contract as readXml (runtime/xml/scan.ts), built on fast-xml-parser: the
// oracle the scanner is tested against (differential tests, golden files, conformance). It lives in test/
// and is not copied into generated/: nothing there uses it, so a vendored copy needs no dependency.
//
// fast-xml-parser is lenient and has a few bugs, so it is wrapped in checks of our own:
//  - first of all: the element, attribute and depth limits, counted over the raw text by
//    checkLimits at the points where the scanner refuses them, so that fast-xml-parser only ever
//    sees a document of bounded shape (its work on 100,000 attributes grows faster than linearly);
//  - before parsing: BOM and XML declaration (checked against a grammar regex) removed; comments,
//    CDATA sections, PIs and end tags tokenized left to right ('<' cannot occur in text or attribute
//    values of a document we accept, so this is exact for them): any other "<!" refused (DOCTYPE and
//    ENTITY as "doctype", before anything else is read), comments checked for "--", PIs for their
//    target and characters, end tags for their syntax (XMLValidator takes "</a x='1'/>" for an empty
//    element); PIs replaced by empty comments (fast-xml-parser misreads a PI with a quote in it);
//    characters outside XML's Char production refused; characters JavaScript's \s matches but XML's
//    S does not (fast-xml-parser splits tags at \s) swapped for control characters, free since they
//    were just refused, and swapped back in text and attribute values (in a name they make
//    XMLValidator refuse); "__proto__" swapped for a stand-in name (XMLValidator misses a repeated
//    __proto__ attribute) and swapped back everywhere;
//  - parsing: preserveOrder, no entity processing, no value parsing, no trimming; an empty comment
//    appended so that text after the root reaches the tree; maxNestedTags stops deep documents early
//    ("depth"); XMLValidator checks tags and attributes; text before the first or after the last
//    markup refused;
//  - converting (iteratively): element and attribute names checked as QNames, namespaces resolved
//    with scoping, references decoded (the 5 predefined entities and character references),
//    attribute values normalized, '<' in attribute values, "]]>" in text, anything but whitespace and
//    comments outside the root refused, depth enforced.
// Known differences from the scanner. Valid XML this reader refuses: names with characters beyond
// U+FFFF (XMLValidator's name pattern stops at U+FFFF) or with U+FEFF or U+1680 (name characters
// that JavaScript counts as whitespace). Malformed XML this reader accepts: a stray '=' where an
// attribute name should be (`<a b="1"= c="2">`, read as if the '=' were not there): XMLValidator
// skips it on purpose and fast-xml-parser leaves no trace of it to check. A document that breaks a
// rule before passing a limit may be refused for the limit here and for the rule by the scanner
// (checkLimits follows the markup loosely); a well-formed one gets the same reason from both.

import { XMLParser, XMLValidator } from "fast-xml-parser";
import {
  DEFAULT_MAX_ATTRIBUTES,
  DEFAULT_MAX_DEPTH,
  DEFAULT_READER_MAX_ELEMENTS,
  tooManyAttributes,
  tooManyElements,
  XmlRefusal,
} from "../../runtime/xml/tree.js";
import type { ReadOptions, XmlAttribute, XmlElement } from "../../runtime/xml/tree.js";

const XML_NS = "http://www.w3.org/XML/1998/namespace";
const XMLNS_NS = "http://www.w3.org/2000/xmlns/";
/** Prepended to every element name so no name can collide with fast-xml-parser's reserved keys. */
const TAG = "\u0001";
const DEPTH_ERROR = "Maximum nested tags exceeded";

const WS = "[ \\t\\r\\n]";
const DECL_START = /^<\?xml[ \t\r\n?]/;
const DECL = new RegExp(
  `^<\\?xml${WS}+version${WS}*=${WS}*(?:"1\\.[0-9]+"|'1\\.[0-9]+')` +
    `(?:${WS}+encoding${WS}*=${WS}*(?:"[A-Za-z][A-Za-z0-9._-]*"|'[A-Za-z][A-Za-z0-9._-]*'))?` +
    `(?:${WS}+standalone${WS}*=${WS}*(?:"(?:yes|no)"|'(?:yes|no)'))?${WS}*\\?>`,
);
const MARKUP = /<!--([\s\S]*?)-->|<!\[CDATA\[[\s\S]*?\]\]>|<\?([\s\S]*?)\?>|<\/([^>]*)>|<[!?/]/g;
const NOT_XML_CHAR = /[^\t\n\r\x20-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/u;
const START =
  "A-Z_a-z\\u00C0-\\u00D6\\u00D8-\\u00F6\\u00F8-\\u02FF\\u0370-\\u037D\\u037F-\\u1FFF" +
  "\\u200C\\u200D\\u2070-\\u218F\\u2C00-\\u2FEF\\u3001-\\uD7FF\\uF900-\\uFDCF\\uFDF0-\\uFFFD\\u{10000}-\\u{EFFFF}";
const NCNAME = `[${START}][${START}\\-.0-9\\u00B7\\u0300-\\u036F\\u203F\\u2040]*`;
const NCNAME_RE = new RegExp(`^${NCNAME}$`, "u");
const QNAME_RE = new RegExp(`^(?:(${NCNAME}):)?(${NCNAME})$`, "u");
const END_TAG_RE = new RegExp(`^(?:${NCNAME}:)?${NCNAME}[ \\t\\r\\n]*$`, "u");
const WS_ONLY = /^[ \t\r\n]*$/;
const JS_ONLY_SPACE = /[\u00A0\u1680\u2000-\u200A\u2028\u2029\u202F\u205F\u3000\uFEFF]/g;
const SWAPPED = /[\u0002-\u0008\u000E-\u001F]/g;
const SWAP_IN = new Map<string, string>();
const SWAP_OUT = new Map<string, string>();
{
  const spaces =
    "\u00A0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200A\u2028\u2029\u202F\u205F\u3000\uFEFF";
  const controls =
    "\u0002\u0003\u0004\u0005\u0006\u0007\u0008\u000E\u000F\u0010\u0011\u0012\u0013\u0014\u0015\u0016\u0017\u0018\u0019";
  for (let k = 0; k < spaces.length; k++) {
    SWAP_IN.set(spaces[k], controls[k]);
    SWAP_OUT.set(controls[k], spaces[k]);
  }
}

type Restore = (s: string) => string;
const same: Restore = (s) => s;
const swapBack: Restore = (s) => s.replace(SWAPPED, (c) => SWAP_OUT.get(c) ?? c);
const PROTO = "__proto__";
const BAD_REF = /&(?!(?:lt|gt|amp|quot|apos|#[0-9]+|#x[0-9a-fA-F]+);)/;
const REF = /&(lt|gt|amp|quot|apos|#[0-9]+|#x[0-9a-fA-F]+);/g;
const NAMED: Readonly<Record<string, string>> = { lt: "<", gt: ">", amp: "&", quot: '"', apos: "'" };

function fail(message: string): never {
  throw new XmlRefusal("malformed", message);
}

const parsers = new Map<number, XMLParser>();

function parserFor(maxDepth: number): XMLParser {
  let parser = parsers.get(maxDepth);
  if (parser === undefined) {
    parser = new XMLParser({
      preserveOrder: true,
      ignoreAttributes: false,
      attributeNamePrefix: "@_",
      textNodeName: "#text",
      cdataPropName: "#cdata",
      commentPropName: "#comment", // keeps text on both sides of a comment apart
      trimValues: false,
      parseTagValue: false,
      parseAttributeValue: false,
      processEntities: false,
      htmlEntities: false,
      allowBooleanAttributes: false,
      ignoreDeclaration: true,
      ignorePiTags: true,
      removeNSPrefix: false,
      jPath: false,
      maxNestedTags: Math.max(0, maxDepth - 1),
      // Idempotent: fast-xml-parser applies it twice to self-closing tags.
      transformTagName: (name: string) => (name.charCodeAt(0) === 1 ? name : TAG + name),
    });
    if (parsers.size < 16) parsers.set(maxDepth, parser);
  }
  return parser;
}

function isXmlCharCp(cp: number): boolean {
  return (
    cp === 9 ||
    cp === 10 ||
    cp === 13 ||
    (cp >= 0x20 && cp <= 0xd7ff) ||
    (cp >= 0xe000 && cp <= 0xfffd) ||
    (cp >= 0x10000 && cp <= 0x10ffff)
  );
}

function decodeRefs(raw: string): string {
  if (raw.indexOf("&") < 0) return raw;
  if (BAD_REF.test(raw)) fail("Malformed or unknown entity reference.");
  return raw.replace(REF, (_m: string, ref: string) => {
    if (ref.charCodeAt(0) !== 35) return NAMED[ref];
    const cp = ref.charCodeAt(1) === 120 ? parseInt(ref.slice(2), 16) : parseInt(ref.slice(1), 10);
    if (!isXmlCharCp(cp)) fail("A character reference names a character that XML does not allow.");
    return String.fromCodePoint(cp);
  });
}

/**
 * Swaps what fast-xml-parser mishandles for stand-ins that do not occur in s; returns the text to
 * parse and the function that undoes the swaps on a string taken from the parser's output.
 */
function swapForParser(text: string): [string, Restore] {
  let s = text;
  let restore = same;
  JS_ONLY_SPACE.lastIndex = 0;
  if (JS_ONLY_SPACE.test(s)) {
    s = s.replace(JS_ONLY_SPACE, (c) => SWAP_IN.get(c) ?? c);
    restore = swapBack;
  }
  if (s.indexOf(PROTO) >= 0) {
    // XMLValidator keeps attribute names as keys of a plain object, where "__proto__" is special:
    // a repeated __proto__ attribute would go unnoticed. The stand-in holds a character s lacks.
    let cp = 0x4e00;
    while (cp <= 0x9fff && s.indexOf(String.fromCharCode(cp)) >= 0) cp++;
    if (cp > 0x9fff) fail("The document cannot be read.");
    const standIn = `__proto${String.fromCharCode(cp)}_`;
    s = s.split(PROTO).join(standIn);
    const inner = restore;
    restore = (x) => inner(x.indexOf(standIn) < 0 ? x : x.split(standIn).join(PROTO));
  }
  return [s, restore];
}

function isWs(c: number): boolean {
  return c === 32 || c === 10 || c === 9 || c === 13;
}

/**
 * Counts start tags, their attributes and their nesting left to right over the raw text, refusing
 * a limit where the scanner does: the element count at the '<' of the start tag that passes it,
 * the attribute count before the attribute that passes it, the depth once the tag is read. Linear:
 * each character is looked at once. Stops quietly at markup it cannot follow (the checks after it
 * refuse that); comments, CDATA sections and PIs are skipped whole.
 */
function checkLimits(s: string, maxDepth: number, maxAttributes: number, maxElements: number): void {
  const len = s.length;
  let elements = 0;
  let depth = 0;
  let i = s.indexOf("<");
  while (i >= 0) {
    let c = s.charCodeAt(i + 1);
    let next: number;
    if (c === 33) {
      const close = s.startsWith("<!--", i) ? "-->" : s.startsWith("<![CDATA[", i) ? "]]>" : undefined;
      // Comments and CDATA sections count as nodes, as in the scanner.
      if (close !== undefined && ++elements > maxElements) throw tooManyElements(maxElements);
      const end = close === undefined ? -1 : s.indexOf(close, i + 4);
      if (end < 0) return;
      next = end + 3;
    } else if (c === 63) {
      // So do processing instructions; the XML declaration is not one.
      const declaration =
        (i === 0 || (i === 1 && s.charCodeAt(0) === 0xfeff)) &&
        s.startsWith("<?xml", i) &&
        (isWs(s.charCodeAt(i + 5)) || s.charCodeAt(i + 5) === 63);
      if (!declaration && ++elements > maxElements) throw tooManyElements(maxElements);
      const end = s.indexOf("?>", i + 2);
      if (end < 0) return;
      next = end + 2;
    } else if (c === 47) {
      depth--;
      next = i + 2;
    } else {
      if (++elements > maxElements) throw tooManyElements(maxElements);
      let j = i + 1;
      while (j < len && !isWs(c) && c !== 47 && c !== 62) c = s.charCodeAt(++j);
      for (let n = 0; ; n++) {
        while (isWs(c)) c = s.charCodeAt(++j);
        if (c === 47 || c === 62 || j >= len) break;
        if (n === maxAttributes) throw tooManyAttributes(maxAttributes);
        while (j < len && c !== 61 && !isWs(c) && c !== 47 && c !== 62) c = s.charCodeAt(++j);
        while (isWs(c)) c = s.charCodeAt(++j);
        if (c !== 61) return;
        c = s.charCodeAt(++j);
        while (isWs(c)) c = s.charCodeAt(++j);
        if (c !== 34 && c !== 39) return;
        j = s.indexOf(c === 34 ? '"' : "'", j + 1);
        if (j < 0) return;
        c = s.charCodeAt(++j);
      }
      if (j >= len) return;
      if (depth >= maxDepth) throw new XmlRefusal("depth", "The document is nested too deeply.");
      if (c === 62) depth++;
      next = j + 1;
    }
    i = s.indexOf("<", next);
  }
}

/** Checks what fast-xml-parser would read loosely; returns the text it should parse. */
function prepare(text: string): string {
  let s = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  if (DECL_START.test(s)) {
    const m = DECL.exec(s);
    if (m === null) fail("Malformed XML declaration.");
    s = s.slice(m[0].length);
  }
  // Left to right, the first "<!--", "<![CDATA[", "<?" or "</" starts that construct: '<' cannot
  // occur in text or attribute values of a document we accept, so this tokenization is exact for them.
  let out = "";
  let last = 0;
  MARKUP.lastIndex = 0;
  for (let m = MARKUP.exec(s); m !== null; m = MARKUP.exec(s)) {
    const [token, comment, pi, endTag] = m;
    if (comment !== undefined) {
      if (comment.indexOf("--") >= 0 || comment.endsWith("-")) fail("'--' is not allowed inside a comment.");
    } else if (pi !== undefined) {
      const end = pi.search(/[ \t\r\n]/);
      const target = end < 0 ? pi : pi.slice(0, end);
      if (!NCNAME_RE.test(target)) fail("Malformed processing instruction.");
      if (/^xml$/i.test(target)) fail("The XML declaration is only allowed at the start of the document.");
      if (NOT_XML_CHAR.test(pi)) fail("The document contains a character that XML does not allow.");
      out += `${s.slice(last, m.index)}<!---->`;
      last = m.index + token.length;
    } else if (endTag !== undefined) {
      // XMLValidator takes "</a x='1'/>" for an empty-element tag and never pops for it.
      if (!END_TAG_RE.test(endTag)) fail("Malformed end tag.");
    } else if (token.length === 2) {
      if (s.startsWith("<!DOCTYPE", m.index) || s.startsWith("<!ENTITY", m.index)) {
        throw new XmlRefusal("doctype", "Document type declarations are not allowed.");
      }
      fail(token === "<!" ? "Malformed or unterminated markup declaration." : "Unterminated markup.");
    }
  }
  return out + s.slice(last);
}

// ---- converting fast-xml-parser's preserveOrder output -------------------------------------------

type Rec = Readonly<Record<string, unknown>>;
type Scope = ReadonlyMap<string, string>;

interface El {
  ns: string;
  local: string;
  prefix: string;
  attrs: XmlAttribute[];
  children: El[];
  text: string;
}

interface Frame {
  el: El;
  items: readonly unknown[];
  next: number;
  scope: Scope;
}

function isRec(v: unknown): v is Rec {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function list(v: unknown): readonly unknown[] {
  if (!Array.isArray(v)) fail("Unexpected parser output.");
  return v;
}

function str(v: unknown): string {
  if (typeof v !== "string") fail("Unexpected parser output.");
  return v;
}

/** The single key of a node other than ":@". */
function keyOf(node: Rec): string {
  for (const k of Object.keys(node)) if (k !== ":@") return k;
  return fail("Unexpected parser output.");
}

/** Text inside a "#cdata" node: [{ "#text": "..." }]. */
function cdataText(v: unknown, restore: Restore): string {
  let text = "";
  for (const part of list(v)) if (isRec(part)) text += restore(str(part["#text"]));
  return text;
}

function splitQName(qname: string): [prefix: string, local: string] {
  const m = QNAME_RE.exec(qname);
  if (m === null) fail("Invalid qualified name.");
  return [m[1] ?? "", m[2]];
}

function openElement(node: Rec, key: string, parent: Scope, restore: Restore): Frame {
  const [prefix, local] = splitQName(restore(key.slice(TAG.length)));
  const raw: Array<[prefix: string, local: string, value: string]> = [];
  let scope = parent;
  const decl = (p: string, uri: string): void => {
    if (p === "xml") {
      if (uri !== XML_NS) fail("The prefix 'xml' cannot be rebound.");
    } else if (p === "xmlns") {
      fail("The prefix 'xmlns' cannot be declared.");
    } else if (uri === XML_NS || uri === XMLNS_NS) {
      fail("A reserved namespace cannot be bound.");
    } else if (uri === "" && p !== "") {
      fail("A namespace prefix cannot be bound to the empty name.");
    }
    if (scope === parent) scope = new Map(parent);
    (scope as Map<string, string>).set(p, uri);
  };
  const attrMap = node[":@"];
  if (isRec(attrMap)) {
    for (const k of Object.keys(attrMap)) {
      const rawValue = restore(str(attrMap[k]));
      if (rawValue.indexOf("<") >= 0) fail("'<' is not allowed in an attribute value.");
      const value = decodeRefs(rawValue.replace(/[\t\n\r]/g, " "));
      const [p, l] = splitQName(restore(k.slice(2)));
      if (p === "" && l === "xmlns") decl("", value);
      else if (p === "xmlns") decl(l, value);
      else raw.push([p, l, value]);
    }
  }
  const attrs: XmlAttribute[] = [];
  const seen = new Set<string>();
  for (const [p, l, value] of raw) {
    const ns = p === "" ? "" : scope.get(p);
    if (ns === undefined) fail("Unbound namespace prefix.");
    const expanded = `${ns} ${l}`;
    if (seen.has(expanded)) fail("Duplicate attribute.");
    seen.add(expanded);
    attrs.push({ ns, local: l, value });
  }
  const ns = prefix === "" ? (scope.get("") ?? "") : scope.get(prefix);
  if (ns === undefined || prefix === "xmlns") fail("Unbound namespace prefix.");
  const el: El = { ns, local, prefix, attrs, children: [], text: "" };
  return { el, items: list(node[key]), next: 0, scope };
}

function convert(top: readonly unknown[], maxDepth: number, restore: Restore): XmlElement {
  let root: El | null = null;
  const base: Scope = new Map([["xml", XML_NS]]);
  for (const item of top) {
    if (!isRec(item)) fail("Unexpected parser output.");
    const key = keyOf(item);
    if (key === "#comment") continue;
    if (key === "#text") {
      if (!WS_ONLY.test(str(item[key]))) fail("Text is not allowed outside the root element.");
      continue;
    }
    if (key === "#cdata") fail("CDATA is not allowed outside the root element.");
    if (key.charCodeAt(0) !== 1) fail("Unexpected parser output.");
    if (root !== null) fail("Only one root element is allowed.");
    if (maxDepth < 1) throw new XmlRefusal("depth", "The document is nested too deeply.");
    const first = openElement(item, key, base, restore);
    root = first.el;
    const stack: Frame[] = [first];
    while (stack.length > 0) {
      const f = stack[stack.length - 1];
      if (f.next >= f.items.length) {
        stack.pop();
        continue;
      }
      const child = f.items[f.next++];
      if (!isRec(child)) fail("Unexpected parser output.");
      const k = keyOf(child);
      if (k === "#text") {
        const raw = restore(str(child[k]));
        if (raw.indexOf("]]>") >= 0) fail("']]>' is not allowed in text.");
        f.el.text += decodeRefs(raw);
      } else if (k === "#cdata") {
        f.el.text += cdataText(child[k], restore);
      } else if (k.charCodeAt(0) === 1) {
        if (stack.length >= maxDepth) throw new XmlRefusal("depth", "The document is nested too deeply.");
        const next = openElement(child, k, f.scope, restore);
        f.el.children.push(next.el);
        stack.push(next);
      } else if (k !== "#comment") {
        fail("Unexpected parser output.");
      }
    }
  }
  if (root === null) fail("The document has no root element.");
  return root;
}

/** Reads a whole document with fast-xml-parser and returns its root element. Throws XmlRefusal. */
export function readXmlWithFastXmlParser(text: string, options?: ReadOptions): XmlElement {
  const maxDepth = options?.maxDepth ?? DEFAULT_MAX_DEPTH;
  checkLimits(
    text,
    maxDepth,
    options?.maxAttributes ?? DEFAULT_MAX_ATTRIBUTES,
    options?.maxElements ?? DEFAULT_READER_MAX_ELEMENTS,
  );
  const prepared = prepare(text);
  if (NOT_XML_CHAR.test(prepared)) fail("The document contains a character that XML does not allow.");
  const [s, restore] = swapForParser(prepared);
  let parsed: unknown;
  try {
    // The trailing empty comment makes the parser hand over text after the root, which it would
    // otherwise drop (and XMLValidator passes after an empty root element).
    parsed = parserFor(maxDepth).parse(`${s}<!---->`);
  } catch (e) {
    if (e instanceof Error && e.message === DEPTH_ERROR) {
      throw new XmlRefusal("depth", "The document is nested too deeply.");
    }
    fail("The document is not well-formed XML.");
  }
  if (XMLValidator.validate(s) !== true) fail("The document is not well-formed XML.");
  // Text before the first markup is dropped by the parser, and XMLValidator skips a second BOM.
  // A document must end with markup; XMLValidator passes an unterminated "<a/" at the very end.
  if (
    !WS_ONLY.test(s.slice(0, Math.max(0, s.indexOf("<")))) ||
    !WS_ONLY.test(s.slice(s.lastIndexOf(">") + 1))
  ) {
    fail("The document must consist of one root element, with only comments, PIs and whitespace around it.");
  }
  return convert(list(parsed), maxDepth, restore);
}
