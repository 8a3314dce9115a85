// The namespace-resolved element tree every XML reader in the runtime produces.
//
// Trees are read-only: a reader may hand out one object in several places (the scanner shares
// identical empty leaves, `<a/>`, and the empty attribute and child lists).
//
// What a tree costs (readXml, 64-bit Node without pointer compression, heap measured after GC by
// bench/xml-memory.ts): an element is ~80 bytes (the object and its slot in the parent's list), an
// attribute ~56, an element's first attribute ~56 more (its list); names are interned in large
// documents. Worst shape: one short attribute per element (`<a b=""/>`, ~20 heap bytes per input
// byte); `<a>t</a>` ~10, `<a/>` repeated ~2 (shared leaves), 64 attributes per element ~9. So the
// tree of any document stays under 24 times its length in UTF-16 code units, and under the default
// limits never exceeds ~80 MB of elements (maxElements) plus its attributes (maxAttributes each).
// (Before this bound the scanner took ~29 bytes per byte of `<a/>` and ~35 of `<a x="1"/>`.)

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
  readonly maxDepth?: number;
  /** Most attributes one element may carry, namespace declarations included. */
  readonly maxAttributes?: number;
  /** Most elements one document may hold, the root included. */
  readonly maxElements?: number;
}

export const DEFAULT_MAX_DEPTH = 32;
/** An honest SOAP element carries a handful (xmlns declarations, xsi:type, xsi:nil). */
export const DEFAULT_MAX_ATTRIBUTES = 64;
/** For the generic reader; the server lowers it (an honest request has under 50 elements). */
export const DEFAULT_MAX_ELEMENTS = 1_000_000;

export type XmlRefusalReason = "doctype" | "depth" | "attributes" | "elements" | "malformed";

/** Thrown by every reader for input it will not read. The message is safe to put on the wire. */
export class XmlRefusal extends Error {
  readonly reason: XmlRefusalReason;
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
  return new XmlRefusal("elements", `The document has more than ${limit} elements.`);
}
