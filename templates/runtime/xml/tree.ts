// The namespace-resolved element tree every XML reader in the runtime produces.

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
}

export const DEFAULT_MAX_DEPTH = 32;

export type XmlRefusalReason = "doctype" | "depth" | "malformed";

/** Thrown by every reader for input it will not read. The message is safe to put on the wire. */
export class XmlRefusal extends Error {
  readonly reason: XmlRefusalReason;
  constructor(reason: XmlRefusalReason, message: string) {
    super(message);
    this.name = "XmlRefusal";
    this.reason = reason;
  }
}
