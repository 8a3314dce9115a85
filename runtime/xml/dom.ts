// An XmlReader on the browser's own XML parser (DOMParser), for client bundles: a few hundred bytes
// where the scanner (xml/scan.ts, the server's strict reader) is about 5 KB gzipped. Pass it as
// `createClientWith(soap11, { ..., platform: browser })` (client/platform/browser.ts); it needs a global DOMParser (browsers,
// not Node).
//
// Same contract as readXml for the answers a client reads: the tree of tree.ts (namespace-resolved
// names, attributes without namespace declarations, an element's text and CDATA concatenated), and
// XmlRefusal with the scanner's reasons. Safety: a DOCTYPE in the prolog is refused before the text
// reaches the parser, so the browser never reads a DTD or expands an entity; the depth, element and
// attribute limits are enforced while the parsed document is converted, walking it through its own
// links (no recursion on the input's depth). The parse itself is bounded by the client's
// maxResponseBytes. Messages are fixed texts (the browser's error text can quote the input).

import {
  DEFAULT_MAX_ATTRIBUTES,
  DEFAULT_MAX_DEPTH,
  DEFAULT_READER_MAX_ELEMENTS,
  tooManyAttributes,
  tooManyElements,
  XmlRefusal,
} from "./tree.js";
import type { ReadOptions, XmlAttribute, XmlElement } from "./tree.js";

// The parts of the DOM read here, declared here: the file then type-checks without the DOM library (a Node
// project's tsconfig, lib es2023 and no "dom", compiles the whole client), and runs wherever a DOMParser is.
interface DomNode {
  readonly nodeType: number;
  readonly firstChild: DomNode | null;
  readonly nextSibling: DomNode | null;
  readonly parentNode: DomNode | null;
}
interface DomCharacterData extends DomNode {
  readonly data: string;
}
interface DomAttr {
  readonly namespaceURI: string | null;
  readonly localName: string;
  readonly value: string;
}
interface DomElement extends DomNode {
  readonly namespaceURI: string | null;
  readonly localName: string;
  readonly prefix: string | null;
  readonly attributes: ArrayLike<DomAttr>;
}
interface DomDocument extends DomNode {
  readonly doctype: unknown;
  getElementsByTagName(name: string): ArrayLike<DomElement>;
}
type DomParserClass = new () => { parseFromString(text: string, type: "application/xml"): DomDocument };

interface Out {
  ns: string;
  local: string;
  prefix: string;
  attrs: XmlAttribute[];
  children: Out[];
  text: string;
}

const XMLNS_NS = "http://www.w3.org/2000/xmlns/";

/** The namespace the browser puts its parse-error report in (XHTML in Chromium and WebKit, its own in Firefox). */
let errorNs: string | null | undefined;

function refuseDoctype(): never {
  throw new XmlRefusal("doctype", "Document type declarations are not allowed.");
}

/**
 * Refuses a DOCTYPE in the prolog: after an optional BOM, whitespace, processing instructions (the XML
 * declaration among them) and comments. A parser reaches a DOCTYPE only through these, and ends each at
 * the same "?>" or first "-->" (a "--" before it is an error that stops the parse), so none is missed.
 */
function checkProlog(s: string): void {
  const prolog = /^\uFEFF?(?:[ \t\r\n]+|<\?[\s\S]*?\?>|<!--[\s\S]*?-->)*/.exec(s)![0];
  if (s.startsWith("<!DOCTYPE", prolog.length)) refuseDoctype();
}

/**
 * Reads a whole document with the browser's parser. Throws XmlRefusal for anything readXml refuses.
 *
 * @codegen generated code imports it (test/repo/knip.test.ts)
 */
export function readXmlDom(text: string, options?: ReadOptions): XmlElement {
  const maxDepth = options?.maxDepth ?? DEFAULT_MAX_DEPTH;
  const maxAttributes = options?.maxAttributes ?? DEFAULT_MAX_ATTRIBUTES;
  const maxElements = options?.maxElements ?? DEFAULT_READER_MAX_ELEMENTS;
  checkProlog(text);
  const Parser = (globalThis as unknown as { DOMParser: DomParserClass }).DOMParser;
  const parse = (s: string): DomDocument => new Parser().parseFromString(s, "application/xml");
  if (errorNs === undefined)
    errorNs = parse("<").getElementsByTagName("parsererror")[0]?.namespaceURI ?? null;
  const doc = parse(text);
  // Declared after the root element (which the parser refuses) or in a parser we did not foresee.
  if (doc.doctype) refuseDoctype();

  // Every node in document order, as the scanner meets it, so that the first limit passed is the
  // scanner's. After a parse error the browser keeps the document up to the error (with its report
  // inserted, skipped here): the limits are checked on that part first, as the scanner checks them
  // before it reaches the error (10,000 nested elements are "depth", although the parser stops at 256).
  let elements = 0;
  let failed = false;
  const open: Out[] = [];
  let result: Out | undefined;
  let node: DomNode | null = doc.firstChild;
  while (node) {
    const type = node.nodeType;
    const parent = open[open.length - 1];
    if (type === 3 || type === 4) {
      if (type === 4 && ++elements > maxElements) throw tooManyElements(maxElements);
      parent!.text += (node as DomCharacterData).data;
    } else if (type === 1) {
      const el = node as DomElement;
      if (el.localName === "parsererror" && el.namespaceURI === errorNs) failed = true;
      else {
        if (++elements > maxElements) throw tooManyElements(maxElements);
        if (el.attributes.length > maxAttributes) throw tooManyAttributes(maxAttributes);
        if (open.length >= maxDepth) throw new XmlRefusal("depth", "The document is nested too deeply.");
        const attrs: XmlAttribute[] = Array.from(el.attributes)
          .filter((a) => a.namespaceURI !== XMLNS_NS)
          .map((a) => ({ ns: a.namespaceURI ?? "", local: a.localName, value: a.value }));
        const out: Out = {
          ns: el.namespaceURI ?? "",
          local: el.localName,
          prefix: el.prefix ?? "",
          attrs,
          children: [],
          text: "",
        };
        if (parent) parent.children.push(out);
        else result = out;
        if (node.firstChild) {
          open.push(out);
          node = node.firstChild;
          continue;
        }
      }
    } else if (++elements > maxElements) {
      // Comments and processing instructions count as the scanner counts them.
      throw tooManyElements(maxElements);
    }
    // Next in document order: the next sibling, else the next sibling of the nearest open ancestor.
    while (node && !node.nextSibling) {
      node = node.parentNode;
      open.pop();
    }
    // biome-ignore lint/complexity/useOptionalChain: null, not undefined, ends the walk (DomNode | null)
    node = node && node.nextSibling;
  }
  if (failed || !result) {
    // A DOCTYPE or ENTITY past the prolog stops the parse; the scanner names it, so this does too.
    if (/<!(?:DOCTYPE|ENTITY)/.test(text)) refuseDoctype();
    throw new XmlRefusal("malformed", "The document is not well-formed XML.");
  }
  return result;
}
