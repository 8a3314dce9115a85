// The namespace-resolved element tree every XML reader in the runtime produces.
//
// Trees are read-only: a reader may hand out one object in several places (the scanner shares
// identical empty leaves, `<a/>`, and the empty attribute and child lists).
//
// What a tree costs (readXml; 64-bit Node, no pointer compression; heap held after GC per input
// code unit, `node --expose-gc --import tsx bench/xml-read.ts`): an element ~80 bytes (the object
// and its slot in the parent's list), an attribute ~56 and an element's attribute list ~48 more;
// empty leaves (`<a/>`), empty lists and, in large documents, names are shared. Per shape:
// `<a b=""/>` 20.5 and `<a b="名"/>` 20.8 (one short attribute per element: the worst found),
// `<a x="1"/>` 18.4, `<a>t</a>` 10.0, 64 attributes per element 10.7, distinct names `<a123/>`
// 10.6, text split by comments 4.0, `<a/>` 2.0. So a tree holds under 24 bytes per input code
// unit, and under the default limits at most ~80 MB of elements (maxElements) plus their
// attributes (at most maxAttributes each). While reading, the lists being built and the maps of
// large documents add up to a few bytes per element more. The tree before these bounds took
// ~29 bytes per unit of `<a/>` and ~35 of `<a x="1"/>`.

export interface XmlAttribute {
  /** Namespace URI, "" for an unprefixed attribute. */
  readonly ns: string;
  readonly local: string;
  readonly value: string;
}

export interface XmlElement {
  /** Namespace URI in scope for the element, "" when none. */
  readonly ns: string;
  readonly local: string;
  /** Prefix as written ("" when none); informational only, never used for matching. */
  readonly prefix: string;
  /** Attributes other than namespace declarations, in document order. */
  readonly attrs: readonly XmlAttribute[];
  readonly children: readonly XmlElement[];
  /** Character data directly inside the element, entities decoded, CDATA included, concatenated. */
  readonly text: string;
}

export interface ReadOptions {
  /** Deepest element nesting accepted; the root element is depth 1. */
  readonly maxDepth?: number | undefined;
  /** Most attributes one element may carry, namespace declarations included. */
  readonly maxAttributes?: number | undefined;
  /**
   * Most nodes one document may hold: elements (the root included), comments, CDATA sections and
   * processing instructions (the XML declaration is not one). Text is not counted.
   */
  readonly maxElements?: number | undefined;
}

export const DEFAULT_MAX_DEPTH = 32;
/** An honest SOAP element carries a handful (xmlns declarations, xsi:type, xsi:nil). */
export const DEFAULT_MAX_ATTRIBUTES = 64;
/**
 * Elements in a document when the caller sets no limit: the readers' default and the client's for answers.
 * The server sets its own, lower (server/core.ts DEFAULT_REQUEST_MAX_ELEMENTS).
 */
export const DEFAULT_READER_MAX_ELEMENTS = 1_000_000;

export type XmlRefusalReason = "doctype" | "depth" | "attributes" | "elements" | "malformed";

/** Thrown by every reader for input it will not read. The message is safe to put on the wire. */
export class XmlRefusal extends Error {
  // Declared, set in the constructor: a bundle carries no field definition.
  declare readonly reason: XmlRefusalReason;
  constructor(reason: XmlRefusalReason, message: string) {
    super(message);
    this.name = "XmlRefusal";
    this.reason = reason;
  }
}

/** The refusal for the attribute that passes maxAttributes, refused before it is read. */
export function tooManyAttributes(limit: number): XmlRefusal {
  return new XmlRefusal("attributes", `An element has more than ${limit} attributes.`);
}

/** The refusal for the start tag that passes maxElements, refused before it is read. */
export function tooManyElements(limit: number): XmlRefusal {
  return new XmlRefusal(
    "elements",
    `The document has more than ${limit} elements, comments and other nodes.`,
  );
}

/** The first child of `parent` with the namespace URI `ns` and the local name `local`. */
export function child(parent: XmlElement, ns: string, local: string): XmlElement | undefined {
  return parent.children.find((c) => c.local === local && c.ns === ns);
}
