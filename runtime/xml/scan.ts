// A hand-written, strict, namespace-aware XML reader: the server's reader (a SOAP request of the common
// shape is read by server/soap-fast.ts first, to the same elements).
//
// One left-to-right pass with charCodeAt/indexOf; open elements live on explicit stacks, so no input
// can drive recursion. Follows XML 1.0 (5th edition) well-formedness and Namespaces in XML 1.0;
// refuses every DTD ("doctype"), nesting beyond maxDepth ("depth") and every well-formedness or
// namespace error ("malformed"). Line ends are normalized (CRLF and lone CR become LF); attribute
// values get XML's attribute-value normalization (literal tab, LF, CR become a space; character
// references are kept as written). The tests hold it to a second reader built on fast-xml-parser (test/oracle/fxp.ts).
//
// Work is linear in the input: every character is looked at a bounded number of times, namespace
// lookups are O(1) however many declarations are in scope, duplicate attributes are found with a
// set past a few, and the element and attribute counts are refused ("elements", "attributes") the
// moment a limit is passed, before the offending markup is read. Memory: see tree.ts.

import {
  DEFAULT_MAX_ATTRIBUTES,
  DEFAULT_MAX_DEPTH,
  DEFAULT_READER_MAX_ELEMENTS,
  tooManyAttributes,
  tooManyElements,
  XmlRefusal,
} from "./tree.js";
import type { ReadOptions, XmlAttribute, XmlElement } from "./tree.js";

export const XML_NS = "http://www.w3.org/XML/1998/namespace";
export const XMLNS_NS = "http://www.w3.org/2000/xmlns/";

interface Node {
  ns: string;
  local: string;
  prefix: string;
  attrs: readonly XmlAttribute[];
  /** NO_CHILDREN until the element closes with children; then exactly as long as needed. */
  children: readonly Node[];
  text: string;
}

// Pure annotations here and below: a bundle that imports this module but never calls readXml (a browser
// client on readXmlDom) leaves the tables out.
const NO_ATTRS: readonly XmlAttribute[] = /* @__PURE__ */ Object.freeze([]);
const NO_CHILDREN: readonly Node[] = /* @__PURE__ */ Object.freeze([]);
/** Up to this many attributes, duplicates are found by comparing pairs; past it, with a set. */
const FEW_ATTRS = 8;
/** Up to this many namespace bindings in scope, a lookup searches them; past it, a map does. */
const FEW_BINDINGS = 8;
/** Documents this long (code units) or longer get their names interned (one string per name). */
const LARGE = 16_384; // 16 Ki (a literal: a bundler keeps an unused product)

function fail(message: string): never {
  throw new XmlRefusal("malformed", message);
}

/** A name for a message: already validated as an XML name, shortened so it cannot carry much input. */
function shown(name: string): string {
  return name.length > 40 ? `${name.slice(0, 40)}...` : name;
}

// ---- names -------------------------------------------------------------------------------------

/** ASCII name table: bit 1 = may start an NCName, bit 2 = may continue one. */
const NAME = /* @__PURE__ */ (() => {
  const table = new Uint8Array(128);
  for (let c = 0; c < 128; c++) {
    const start = (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95;
    const rest = start || (c >= 48 && c <= 57) || c === 45 || c === 46;
    table[c] = (start ? 1 : 0) | (rest ? 2 : 0);
  }
  return table;
})();

function isNameStartCp(cp: number): boolean {
  return (
    (cp >= 0xc0 && cp <= 0xd6) ||
    (cp >= 0xd8 && cp <= 0xf6) ||
    (cp >= 0xf8 && cp <= 0x2ff) ||
    (cp >= 0x370 && cp <= 0x37d) ||
    (cp >= 0x37f && cp <= 0x1fff) ||
    cp === 0x200c ||
    cp === 0x200d ||
    (cp >= 0x2070 && cp <= 0x218f) ||
    (cp >= 0x2c00 && cp <= 0x2fef) ||
    (cp >= 0x3001 && cp <= 0xd7ff) ||
    (cp >= 0xf900 && cp <= 0xfdcf) ||
    (cp >= 0xfdf0 && cp <= 0xfffd) ||
    (cp >= 0x10000 && cp <= 0xeffff)
  );
}

/** Code units taken by the name character at i (0 when there is none); `start` asks for a NameStartChar. */
function nameCharLen(s: string, i: number, start: boolean): number {
  const c = s.charCodeAt(i);
  if (c < 128) return NAME[c]! & (start ? 1 : 2) ? 1 : 0;
  // biome-ignore lint/suspicious/noSelfCompare: the fastest NaN test on this hot path
  if (c !== c) return 0; // NaN: end of input
  const cp = s.codePointAt(i) as number; // a lone surrogate comes back as itself and matches no range
  const ok =
    isNameStartCp(cp) ||
    (!start && (cp === 0xb7 || (cp >= 0x300 && cp <= 0x36f) || cp === 0x203f || cp === 0x2040));
  return ok ? (cp > 0xffff ? 2 : 1) : 0;
}

/** Index of the colon of the last QName scanned, -1 when it had none. */
let qColon = -1;

/** Scans a QName (NCName, or NCName ':' NCName) starting at i and returns its end. */
function scanQName(s: string, i: number): number {
  qColon = -1;
  let n = nameCharLen(s, i, true);
  if (n === 0)
    fail(i >= s.length ? "Unexpected end of input where a name was expected." : "Expected a name.");
  i += n;
  for (;;) {
    const c = s.charCodeAt(i);
    if (c < 128) {
      if (NAME[c]! & 2) {
        i++;
        continue;
      }
      if (c !== 58) return i;
      if (qColon >= 0) fail("A name may contain at most one colon.");
      qColon = i++;
      n = nameCharLen(s, i, true);
      if (n === 0) fail("A colon in a name must be followed by a local name.");
      i += n;
      continue;
    }
    n = nameCharLen(s, i, false);
    if (n === 0) return i;
    i += n;
  }
}

// ---- characters, references --------------------------------------------------------------------

/** XML's whitespace: space, LF, tab, CR. */
function isWs(c: number): boolean {
  return c === 32 || c === 10 || c === 9 || c === 13;
}

/** The index of the first non-whitespace code unit at or after i. */
export function skipWs(s: string, i: number): number {
  while (isWs(s.charCodeAt(i))) i++;
  return i;
}

function isXmlCharCp(cp: number): boolean {
  return cp >= 0x20
    ? cp <= 0xd7ff || (cp >= 0xe000 && cp <= 0xfffd) || (cp >= 0x10000 && cp <= 0x10ffff)
    : cp === 9 || cp === 10 || cp === 13;
}

/** Checks a code unit >= 0xD800 at i; returns the index of the last unit it takes (a pair takes two). */
function checkHigh(s: string, i: number): number {
  const c = s.charCodeAt(i);
  if (c <= 0xdbff) {
    const d = s.charCodeAt(i + 1);
    if (d >= 0xdc00 && d <= 0xdfff) return i + 1;
    fail("The document contains an unpaired surrogate.");
  }
  if (c <= 0xdfff) fail("The document contains an unpaired surrogate.");
  if (c >= 0xfffe) fail("The document contains a character that XML does not allow.");
  return i;
}

/** Refuses characters outside XML's Char production in s[from, to). */
function checkChars(s: string, from: number, to: number): void {
  for (let i = from; i < to; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x20) {
      if (c !== 9 && c !== 10 && c !== 13) fail("The document contains a character that XML does not allow.");
    } else if (c >= 0xd800) {
      i = checkHigh(s, i);
    }
  }
}

/** Replacement text of the reference between '&' and ';' (s[a, b)). */
function refValue(s: string, a: number, b: number): string {
  if (s.charCodeAt(a) === 35) {
    // '#'
    let k = a + 1;
    const hex = s.charCodeAt(k) === 120; // 'x'
    if (hex) k++;
    if (k >= b) fail("Malformed character reference.");
    let cp = 0;
    for (; k < b; k++) {
      const c = s.charCodeAt(k);
      let d: number;
      if (c >= 48 && c <= 57) d = c - 48;
      else if (hex && c >= 97 && c <= 102) d = c - 87;
      else if (hex && c >= 65 && c <= 70) d = c - 55;
      else fail("Malformed character reference.");
      cp = cp * (hex ? 16 : 10) + d;
      if (cp > 0x10ffff) fail("A character reference is out of range.");
    }
    if (!isXmlCharCp(cp)) fail("A character reference names a character that XML does not allow.");
    return String.fromCodePoint(cp);
  }
  // By character codes, not by a slice per reference: a body can hold millions of them.
  const c0 = s.charCodeAt(a);
  const c1 = s.charCodeAt(a + 1);
  switch (b - a) {
    case 2:
      if (c1 === 116 /* t */ && (c0 === 108 /* l */ || c0 === 103) /* g */) return c0 === 108 ? "<" : ">";
      break;
    case 3:
      if (c0 === 97 && c1 === 109 && s.charCodeAt(a + 2) === 112) return "&"; // amp
      break;
    case 4:
      if (c0 === 113 && s.startsWith("uot", a + 1)) return '"'; // quot
      if (c0 === 97 && s.startsWith("pos", a + 1)) return "'"; // apos
      break;
  }
  return fail("Unknown entity reference.");
}

/** Text runs longer than this are scanned by scanLongText. */
const SHORT_TEXT = 64;
/** Characters of text that end it or need a look: '<', '&', CR, '>' (of "]]>"), the controls XML refuses,
 * surrogates (checked in pairs), U+FFFE and U+FFFF. */
const TEXT_SPECIAL = /[<&\r>\x00-\x08\x0B\x0C\x0E-\x1F\uD800-\uDFFF\uFFFE\uFFFF]/g;
/** The same without '&' and CR, for a run already known to need decoding. */
const TEXT_CHECK = /[<>\x00-\x08\x0B\x0C\x0E-\x1F\uD800-\uDFFF\uFFFE\uFFFF]/g;
/** Whether the run scanLongText just read needs no decoding. */
let longTextPlain = true;

/**
 * Checks text from i (run started at t0) up to the next '<' and returns its index (len when none);
 * sets longTextPlain. The same checks as the short-run loop in read.
 */
function scanLongText(s: string, i: number, t0: number, plain: boolean): number {
  for (;;) {
    const re = plain ? TEXT_SPECIAL : TEXT_CHECK;
    re.lastIndex = i;
    if (!re.test(s)) {
      longTextPlain = plain;
      return s.length;
    }
    i = re.lastIndex - 1;
    const c = s.charCodeAt(i);
    if (c === 60) {
      longTextPlain = plain;
      return i;
    }
    if (c === 38 || c === 13) {
      plain = false;
    } else if (c === 62) {
      if (i - t0 >= 2 && s.charCodeAt(i - 1) === 93 && s.charCodeAt(i - 2) === 93)
        fail("']]>' is not allowed in text.");
    } else if (c < 0x20) {
      fail("The document contains a character that XML does not allow.");
    } else {
      i = checkHigh(s, i);
    }
    i++;
  }
}

/**
 * Decoded text under construction. Short stretches (a reference's character, a few characters between
 * references) are written as code units into one reused buffer that becomes one string per UNIT_CHUNK
 * units; long stretches are kept as slices of the input. A body of millions of references so costs a
 * store per reference, not a string each (60 MB of `&amp;`: 12.5 million).
 */
const UNIT_CHUNK = 8192;
/** Pieces joined into one flat segment at a time: millions of them in one join (or a rope of `+=`)
 * would cost several times the text's size. */
const DECODE_BATCH = 4096;
const units = /* @__PURE__ */ new Uint16Array(UNIT_CHUNK);
/** Stretches longer than this are sliced rather than copied unit by unit. */
const COPY_MAX = 8;

class TextBuilder {
  private readonly parts: string[] = [];
  private segments: string[] | undefined = undefined;
  private count = 0;

  private part(piece: string): void {
    const parts = this.parts;
    parts.push(piece);
    if (parts.length >= DECODE_BATCH) {
      (this.segments ??= []).push(parts.join(""));
      parts.length = 0;
    }
  }

  unit(code: number): void {
    if (this.count === UNIT_CHUNK) this.flush();
    units[this.count++] = code;
  }

  /** Appends t[a, b). */
  text(t: string, a: number, b: number): void {
    if (b - a > COPY_MAX) {
      this.flush();
      this.part(t.slice(a, b));
      return;
    }
    if (this.count + (b - a) > UNIT_CHUNK) this.flush();
    let count = this.count;
    for (let k = a; k < b; k++) units[count++] = t.charCodeAt(k);
    this.count = count;
  }

  string(value: string): void {
    for (let k = 0; k < value.length; k++) this.unit(value.charCodeAt(k));
  }

  private flush(): void {
    const count = this.count;
    if (count === 0) return;
    // A few units (a reference between two long stretches, the usual case) as one-character strings,
    // which V8 keeps cached; apply pays off only for longer runs.
    if (count <= 4) {
      for (let k = 0; k < count; k++) this.part(String.fromCharCode(units[k]!));
    } else {
      this.part(String.fromCharCode.apply(null, units.subarray(0, count) as unknown as number[]));
    }
    this.count = 0;
  }

  finish(): string {
    this.flush();
    const tail = this.parts.length === 1 ? this.parts[0]! : this.parts.join("");
    if (this.segments === undefined) return tail;
    this.segments.push(tail);
    return this.segments.join("");
  }
}

/**
 * The first '&' and CR at or after a position of the document being read, remembered: text runs are
 * decoded in document order, so a search that ran past one run (to the next reference, in a later run)
 * answers the next run's question too, and no character is searched twice. Reset by read.
 */
let ampFrom = 0;
let ampAt = -1;
let crFrom = 0;
let crAt = -1;

function resetSearches(): void {
  ampFrom = crFrom = 0;
  ampAt = crAt = -1;
}

function nextAmp(s: string, i: number): number {
  if (i < ampFrom || i > ampAt) {
    ampFrom = i;
    ampAt = s.indexOf("&", i);
    if (ampAt < 0) ampAt = s.length;
  }
  return ampAt;
}

function nextCr(s: string, i: number): number {
  if (i < crFrom || i > crAt) {
    crFrom = i;
    crAt = s.indexOf("\r", i);
    if (crAt < 0) crAt = s.length;
  }
  return crAt;
}

/** decode for character data: jumps from reference to reference with indexOf. */
function decodeText(s: string, from: number, to: number): string {
  const out = new TextBuilder();
  let last = from;
  let amp = nextAmp(s, from);
  let cr = nextCr(s, from);
  for (;;) {
    const at = Math.min(amp, cr);
    if (at >= to) break;
    if (at > last) out.text(s, last, at);
    if (at === amp) {
      // &amp; &lt; &gt; are nearly every reference a client writes: matched in place.
      const c1 = s.charCodeAt(at + 1);
      if (
        c1 === 97 &&
        s.charCodeAt(at + 2) === 109 &&
        s.charCodeAt(at + 3) === 112 &&
        s.charCodeAt(at + 4) === 59
      ) {
        out.unit(38);
        last = at + 5;
      } else if ((c1 === 108 || c1 === 103) && s.charCodeAt(at + 2) === 116 && s.charCodeAt(at + 3) === 59) {
        out.unit(c1 === 108 ? 60 : 62);
        last = at + 4;
      } else {
        const semi = s.indexOf(";", at + 1);
        if (semi < 0 || semi >= to) fail("Unterminated entity reference.");
        out.string(refValue(s, at + 1, semi));
        last = semi + 1;
      }
      // In dense text the next reference starts right here: no search needed.
      amp = s.charCodeAt(last) === 38 ? last : nextAmp(s, last);
    } else {
      out.unit(10);
      last = at + 1 < to && s.charCodeAt(at + 1) === 10 ? at + 2 : at + 1;
      cr = nextCr(s, last);
    }
  }
  if (last === from) return s.slice(from, to);
  if (to > last) out.text(s, last, to);
  return out.finish();
}

/**
 * Decodes s[from, to): references replaced, CRLF/CR turned into LF (text) or a space (attribute
 * values, where tab and LF become a space as well). Characters were already checked.
 */
function decode(s: string, from: number, to: number, attr: boolean): string {
  if (!attr) return decodeText(s, from, to);
  const out = new TextBuilder();
  let last = from;
  for (let i = from; i < to; i++) {
    const c = s.charCodeAt(i);
    if (c !== 38 && c !== 13 && c !== 9 && c !== 10) continue;
    if (i > last) out.text(s, last, i);
    if (c === 38) {
      const semi = s.indexOf(";", i + 1);
      if (semi < 0 || semi >= to) fail("Unterminated entity reference.");
      out.string(refValue(s, i + 1, semi));
      i = semi;
    } else {
      out.unit(32);
      if (c === 13 && i + 1 < to && s.charCodeAt(i + 1) === 10) i++;
    }
    last = i + 1;
  }
  if (last === from) return s.slice(from, to);
  if (to > last) out.text(s, last, to);
  return out.finish();
}

/** Checks and decodes an attribute value s[from, to) (the quotes excluded). */
function attrValue(s: string, from: number, to: number): string {
  let plain = true;
  for (let i = from; i < to; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x20) {
      if (c !== 9 && c !== 10 && c !== 13) fail("The document contains a character that XML does not allow.");
      plain = false;
    } else if (c === 38) {
      plain = false;
    } else if (c === 60) {
      fail("'<' is not allowed in an attribute value.");
    } else if (c >= 0xd800) {
      i = checkHigh(s, i);
    }
  }
  return plain ? s.slice(from, to) : decode(s, from, to, true);
}

// ---- markup other than elements ----------------------------------------------------------------

/** Reads the XML declaration; i is just past "<?xml". Returns the index after "?>". */
function readDeclaration(s: string, i: number): number {
  const bad = "Malformed XML declaration.";
  let j = skipWs(s, i);
  if (j === i || !s.startsWith("version", j)) fail(bad);
  j = declValueStart(s, j + 7);
  const q = s.charCodeAt(j++);
  if (!s.startsWith("1.", j)) fail(bad);
  j += 2;
  const d0 = j;
  while (s.charCodeAt(j) >= 48 && s.charCodeAt(j) <= 57) j++;
  if (j === d0 || s.charCodeAt(j++) !== q) fail(bad);
  let k = skipWs(s, j);
  if (k > j && s.startsWith("encoding", k)) {
    j = declValueStart(s, k + 8);
    const eq = s.charCodeAt(j++);
    const first = s.charCodeAt(j) | 32;
    if (first < 97 || first > 122) fail(bad);
    for (;;) {
      const c = s.charCodeAt(++j);
      if (
        !(
          (c >= 65 && c <= 90) ||
          (c >= 97 && c <= 122) ||
          (c >= 48 && c <= 57) ||
          c === 46 ||
          c === 95 ||
          c === 45
        )
      )
        break;
    }
    if (s.charCodeAt(j++) !== eq) fail(bad);
    k = skipWs(s, j);
  }
  if (k > j && s.startsWith("standalone", k)) {
    j = declValueStart(s, k + 10);
    const sq = s.charCodeAt(j++);
    if (s.startsWith("yes", j)) j += 3;
    else if (s.startsWith("no", j)) j += 2;
    else fail(bad);
    if (s.charCodeAt(j++) !== sq) fail(bad);
    k = skipWs(s, j);
  }
  if (!s.startsWith("?>", k)) fail(bad);
  return k + 2;
}

/** Skips `S? '=' S?` and returns the index of the opening quote. */
function declValueStart(s: string, j: number): number {
  j = skipWs(s, j);
  if (s.charCodeAt(j) !== 61) fail("Malformed XML declaration.");
  j = skipWs(s, j + 1);
  const q = s.charCodeAt(j);
  if (q !== 34 && q !== 39) fail("Malformed XML declaration.");
  return j;
}

/** Reads a processing instruction (skipped); i is just past "<?". Returns the index after "?>". */
function readPI(s: string, i: number): number {
  const t1 = scanQName(s, i);
  if (qColon >= 0) fail("A processing-instruction target cannot contain a colon.");
  if (
    t1 - i === 3 &&
    (s.charCodeAt(i) | 32) === 120 &&
    (s.charCodeAt(i + 1) | 32) === 109 &&
    (s.charCodeAt(i + 2) | 32) === 108
  ) {
    fail("The XML declaration is only allowed at the start of the document.");
  }
  if (s.startsWith("?>", t1)) return t1 + 2;
  if (!isWs(s.charCodeAt(t1))) fail("Malformed processing instruction.");
  const end = s.indexOf("?>", t1 + 1);
  if (end < 0) fail("Unterminated processing instruction.");
  checkChars(s, t1 + 1, end);
  return end + 2;
}

/** Reads a comment at i ("<!" seen, not CDATA), refusing DTD markup. Returns the index after "-->". */
function readComment(s: string, i: number): number {
  if (s.startsWith("DOCTYPE", i + 2) || s.startsWith("ENTITY", i + 2)) {
    throw new XmlRefusal("doctype", "Document type declarations are not allowed.");
  }
  if (s.charCodeAt(i + 2) !== 45 || s.charCodeAt(i + 3) !== 45) fail("Malformed markup declaration.");
  const end = s.indexOf("--", i + 4);
  if (end < 0) fail("Unterminated comment.");
  if (s.charCodeAt(end + 2) !== 62) fail("'--' is not allowed inside a comment.");
  checkChars(s, i + 4, end);
  return end + 3;
}

// ---- the reader --------------------------------------------------------------------------------

/**
 * The namespace bindings in scope, innermost last. A handful are searched from the end; past
 * FEW_BINDINGS a map from each prefix to its innermost URI takes over (O(1) per lookup however many
 * declarations are in scope) and each declaration keeps what it shadowed, to restore it on unbind.
 */
/**
 * The namespace bindings in scope, innermost last (plain data and functions rather than a class:
 * readXml's inlining budget is better spent on scanning). A handful are searched from the end; past
 * FEW_BINDINGS a map from each prefix to its innermost URI takes over (O(1) per lookup however many
 * declarations are in scope) and each declaration keeps what it shadowed, to restore on unbind.
 */
interface Scope {
  readonly prefixes: string[];
  readonly uris: string[];
  byPrefix: Map<string, string> | undefined;
  /** Once byPrefix exists: for each declaration, the URI it shadowed. */
  shadowed: Array<string | undefined>;
}

function lookup(scope: Scope, prefix: string): string | undefined {
  if (scope.byPrefix !== undefined) return scope.byPrefix.get(prefix);
  const prefixes = scope.prefixes;
  for (let k = prefixes.length - 1; k >= 0; k--) if (prefixes[k] === prefix) return scope.uris[k];
  return undefined;
}

function declare(scope: Scope, prefix: string, uri: string): void {
  if (prefix === "xml") {
    if (uri !== XML_NS) fail("The prefix 'xml' cannot be rebound.");
  } else if (prefix === "xmlns") {
    fail("The prefix 'xmlns' cannot be declared.");
  } else if (uri === XML_NS || uri === XMLNS_NS) {
    fail("A reserved namespace cannot be bound.");
  } else if (uri === "" && prefix !== "") {
    fail("A namespace prefix cannot be bound to the empty name.");
  }
  const { prefixes, uris, byPrefix } = scope;
  prefixes.push(prefix);
  uris.push(uri);
  if (byPrefix !== undefined) {
    scope.shadowed.push(byPrefix.get(prefix));
    byPrefix.set(prefix, uri);
  } else if (prefixes.length > FEW_BINDINGS) {
    const built = new Map<string, string>();
    const shadowed: Array<string | undefined> = [];
    for (let k = 0; k < prefixes.length; k++) {
      shadowed.push(built.get(prefixes[k]!));
      built.set(prefixes[k]!, uris[k]!);
    }
    scope.byPrefix = built;
    scope.shadowed = shadowed;
  }
}

/** Drops the declarations made since mark, a former prefixes.length (usually none). */
function unbind(scope: Scope, mark: number): void {
  const { prefixes, uris, byPrefix, shadowed } = scope;
  while (prefixes.length > mark) {
    const prefix = prefixes.pop() as string;
    uris.pop();
    if (byPrefix === undefined) continue;
    const uri = shadowed.pop();
    if (uri === undefined) byPrefix.delete(prefix);
    else byPrefix.set(prefix, uri);
  }
}

/** The attributes of the start tag being read: raw qualified names, colon offsets, decoded values. */
interface TagAttrs {
  readonly q: string[];
  readonly c: number[];
  readonly v: string[];
  /** Scratch for the resolved attributes, copied out at exactly their number. */
  readonly out: XmlAttribute[];
}

/** Reused by every start tag of every document (readXml is synchronous and not reentrant). */
const TAG: TagAttrs = { q: [], c: [], v: [], out: [] };
/**
 * One string per distinct name in a large document, so that repeated names cost nothing more.
 * Callers test `names === undefined` themselves: a call never made leaves the inlining budget of
 * readXml to the calls a small document does make.
 */
function intern(names: Map<string, string>, name: string): string {
  const known = names.get(name);
  if (known !== undefined) return known;
  names.set(name, name);
  return name;
}

/** An empty leaf (`<a/>`) is one object wherever its name, namespace and prefix repeat. */
function sharedLeaf(leaves: Map<string, Node>, ns: string, local: string, prefix: string): Node {
  let leaf = leaves.get(local);
  if (leaf === undefined || leaf.ns !== ns || leaf.prefix !== prefix) {
    leaf = { ns, local, prefix, attrs: NO_ATTRS, children: NO_CHILDREN, text: "" };
    leaves.set(local, leaf);
  }
  return leaf;
}

/** Declares the namespaces among the n attributes just read, then resolves the others. */
function resolveAttrs(
  n: number,
  tag: TagAttrs,
  scope: Scope,
  names: Map<string, string> | undefined,
): readonly XmlAttribute[] {
  const { q: attrQ, c: attrC, v: attrV, out } = tag;
  const seen = n > FEW_ATTRS ? new Set<string>() : undefined;
  let plain = 0;
  for (let k = 0; k < n; k++) {
    const q = attrQ[k]!;
    if (seen === undefined) {
      for (let m = 0; m < k; m++) if (attrQ[m] === q) fail(`Duplicate attribute ${shown(q)}.`);
    } else {
      if (seen.has(q)) fail(`Duplicate attribute ${shown(q)}.`);
      seen.add(q);
    }
    if (q === "xmlns") declare(scope, "", attrV[k]!);
    else if (attrC[k] === 5 && q.startsWith("xmlns")) declare(scope, q.slice(6), attrV[k]!);
    else plain++;
  }
  if (plain === 0) return NO_ATTRS;
  // Raw names are distinct, so two attributes can only share an expanded name through prefixes.
  const expanded = seen === undefined ? undefined : new Set<string>();
  let m = 0;
  for (let k = 0; k < n; k++) {
    const q = attrQ[k]!;
    const c = attrC[k]!;
    if (c < 0) {
      if (q !== "xmlns")
        out[m++] = { ns: "", local: names === undefined ? q : intern(names, q), value: attrV[k]! };
      continue;
    }
    const prefix = q.slice(0, c);
    if (prefix === "xmlns") continue;
    const ns = lookup(scope, prefix);
    if (ns === undefined) fail(`Unbound namespace prefix ${shown(prefix)}.`);
    const local = names === undefined ? q.slice(c + 1) : intern(names, q.slice(c + 1));
    if (expanded === undefined) {
      for (let p = 0; p < m; p++)
        if (out[p]!.ns === ns && out[p]!.local === local) fail(`Duplicate attribute ${shown(q)}.`);
    } else {
      const key = `${local} ${ns}`; // an NCName holds no space: the first space ends it
      if (expanded.has(key)) fail(`Duplicate attribute ${shown(q)}.`);
      expanded.add(key);
    }
    out[m++] = { ns, local, value: attrV[k]! };
  }
  return out.slice(0, m);
}

/** Reads a whole document and returns its root element. Throws XmlRefusal for anything else. */
export function readXml(text: string, options?: ReadOptions): XmlElement {
  try {
    return read(text, options);
  } finally {
    // The scratch must not keep a large document alive (its values may be slices of it); keeping
    // a small one is cheaper than clearing every time.
    if (text.length >= LARGE && TAG.q.length > 0) {
      TAG.q.length = 0;
      TAG.v.length = 0;
      TAG.out.length = 0;
    }
  }
}

function read(text: string, options: ReadOptions | undefined): XmlElement {
  resetSearches();
  const maxDepth = options?.maxDepth ?? DEFAULT_MAX_DEPTH;
  const maxAttributes = options?.maxAttributes ?? DEFAULT_MAX_ATTRIBUTES;
  const maxElements = options?.maxElements ?? DEFAULT_READER_MAX_ELEMENTS;
  const s = text;
  const len = s.length;
  let i = len > 0 && s.charCodeAt(0) === 0xfeff ? 1 : 0;
  if (s.startsWith("<?xml", i) && (isWs(s.charCodeAt(i + 5)) || s.charCodeAt(i + 5) === 63)) {
    i = readDeclaration(s, i + 5);
  }
  const scope: Scope = { prefixes: ["xml"], uris: [XML_NS], byPrefix: undefined, shadowed: [] };
  const tag = TAG;
  const names = len >= LARGE ? new Map<string, string>() : undefined;
  /** One shared node per empty leaf name (`<a/>`), checked for the same namespace and prefix. */
  let leaves: Map<string, Node> | undefined;
  const open: Node[] = [];
  const openQ: string[] = [];
  // Children of the open elements, innermost last, until each closes: pending[0, top). Entries
  // past top are stale (overwritten, never read); setting length would cost more than it saves.
  const pending: Node[] = [];
  let top = 0;
  // For each open element: scope.prefixes.length before its declarations, then top when it opened.
  const frames: number[] = [];
  let elements = 0;
  let root: Node | null = null;
  let cur: Node | null = null;

  for (;;) {
    let c: number;
    if (cur === null) {
      // Prolog or epilog: whitespace, comments and PIs only.
      i = skipWs(s, i);
      if (i >= len) break;
      if (s.charCodeAt(i) !== 60) fail("Text is not allowed outside the root element.");
      c = s.charCodeAt(i + 1);
      if (c === 63) {
        if (++elements > maxElements) throw tooManyElements(maxElements);
        i = readPI(s, i + 2);
        continue;
      }
      if (c === 33) {
        if (s.startsWith("[CDATA[", i + 2)) fail("CDATA is not allowed outside the root element.");
        if (s.startsWith("--", i + 2) && ++elements > maxElements) throw tooManyElements(maxElements);
        i = readComment(s, i);
        continue;
      }
      if (root !== null) fail("Only one root element is allowed.");
    } else {
      // Character data up to the next '<': short runs (almost every value) in this loop, long ones by
      // scanLongText, which lets native regex code skip the characters that need no look.
      const t0 = i;
      let plain = true;
      const shortEnd = Math.min(i + SHORT_TEXT, len);
      for (; i < shortEnd; i++) {
        c = s.charCodeAt(i);
        if (c === 60) break;
        if (c < 0x20) {
          if (c === 13) plain = false;
          else if (c !== 9 && c !== 10) fail("The document contains a character that XML does not allow.");
        } else if (c === 38) {
          plain = false;
        } else if (c === 62) {
          if (i - t0 >= 2 && s.charCodeAt(i - 1) === 93 && s.charCodeAt(i - 2) === 93)
            fail("']]>' is not allowed in text.");
        } else if (c >= 0xd800) {
          i = checkHigh(s, i);
        }
      }
      if (i >= shortEnd && i < len) {
        i = scanLongText(s, i, t0, plain);
        plain = longTextPlain;
      }
      if (i > t0) cur.text += plain ? s.slice(t0, i) : decode(s, t0, i, false);
      if (i >= len) fail(`Element ${shown(openQ[openQ.length - 1]!)} is not closed.`);
      c = s.charCodeAt(i + 1);
      if (c === 47) {
        // End tag: must repeat the open element's qualified name exactly.
        const q = openQ[openQ.length - 1]!;
        if (!s.startsWith(q, i + 2)) fail(`End tag does not match start tag ${shown(q)}.`);
        i = skipWs(s, i + 2 + q.length);
        if (s.charCodeAt(i) !== 62) fail(`End tag does not match start tag ${shown(q)}.`);
        i++;
        const closed = open.pop() as Node;
        openQ.pop();
        const start = frames.pop() as number;
        unbind(scope, frames.pop() as number);
        if (top > start) {
          closed.children = pending.slice(start, top);
          top = start;
        }
        cur = open.length > 0 ? open[open.length - 1]! : null;
        continue;
      }
      if (c === 33) {
        // Comments and CDATA sections are nodes too: a flood of them is refused like one of elements.
        const cdata = s.startsWith("[CDATA[", i + 2);
        if ((cdata || s.startsWith("--", i + 2)) && ++elements > maxElements)
          throw tooManyElements(maxElements);
        if (cdata) {
          const end = s.indexOf("]]>", i + 9);
          if (end < 0) fail("Unterminated CDATA section.");
          checkChars(s, i + 9, end);
          const raw = s.slice(i + 9, end);
          cur.text += raw.indexOf("\r") < 0 ? raw : raw.replace(/\r\n?/g, "\n");
          i = end + 3;
        } else {
          i = readComment(s, i);
        }
        continue;
      }
      if (c === 63) {
        if (++elements > maxElements) throw tooManyElements(maxElements);
        i = readPI(s, i + 2);
        continue;
      }
    }

    // Start tag at i.
    if (++elements > maxElements) throw tooManyElements(maxElements);
    const n0 = i + 1;
    const n1 = scanQName(s, n0);
    const colon = qColon;
    const qname = s.slice(n0, n1);
    i = n1;
    let n = 0;
    let empty = false;
    for (;;) {
      const w0 = i;
      i = skipWs(s, i);
      c = s.charCodeAt(i);
      if (c === 62) {
        i++;
        break;
      }
      if (c === 47) {
        if (s.charCodeAt(i + 1) !== 62) fail("Expected '>' after '/' in a tag.");
        i += 2;
        empty = true;
        break;
      }
      if (i >= len) fail("Unexpected end of input inside a tag.");
      if (c === 61) fail("Expected an attribute name before '='.");
      if (i === w0) fail("Expected whitespace before an attribute.");
      if (n === maxAttributes) throw tooManyAttributes(maxAttributes);
      const a0 = i;
      i = scanQName(s, i);
      tag.c[n] = qColon < 0 ? -1 : qColon - a0;
      tag.q[n] = s.slice(a0, i);
      i = skipWs(s, i);
      if (s.charCodeAt(i) !== 61) fail("Expected '=' after an attribute name.");
      i = skipWs(s, i + 1);
      c = s.charCodeAt(i);
      if (c !== 34 && c !== 39) fail("Attribute values must be quoted.");
      const v1 = s.indexOf(c === 34 ? '"' : "'", i + 1);
      if (v1 < 0) fail("Unterminated attribute value.");
      tag.v[n++] = attrValue(s, i + 1, v1);
      i = v1 + 1;
    }
    if (open.length >= maxDepth) throw new XmlRefusal("depth", "The document is nested too deeply.");

    const mark = scope.prefixes.length;
    const attrs = n > 0 ? resolveAttrs(n, tag, scope, names) : NO_ATTRS;
    let prefix = "";
    let local = qname;
    let ns: string | undefined;
    if (colon < 0) {
      ns = lookup(scope, "") ?? "";
    } else {
      prefix = qname.slice(0, colon - n0);
      local = qname.slice(colon - n0 + 1);
      ns = prefix === "xmlns" ? undefined : lookup(scope, prefix);
      if (ns === undefined) fail(`Unbound namespace prefix ${shown(prefix)}.`);
    }
    if (names !== undefined) {
      local = intern(names, local);
      prefix = intern(names, prefix);
    }
    if (empty) unbind(scope, mark);
    if (cur === null) {
      root = { ns, local, prefix, attrs, children: NO_CHILDREN, text: "" };
      if (!empty) cur = root;
    } else if (empty && attrs === NO_ATTRS) {
      leaves ??= new Map<string, Node>();
      pending[top++] = sharedLeaf(leaves, ns, local, prefix);
      continue;
    } else {
      const node: Node = { ns, local, prefix, attrs, children: NO_CHILDREN, text: "" };
      pending[top++] = node;
      if (!empty) cur = node;
    }
    if (!empty) {
      open.push(cur as Node);
      openQ.push(qname);
      frames.push(mark, top);
    }
  }
  if (root === null) fail("The document has no root element.");
  return root;
}
