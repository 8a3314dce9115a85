// A minimal XML string builder with the two layouts ASMX uses: compact (SOAP bodies) and two-space
// indented (HTTP GET/POST result documents). Names and attribute strings are trusted (from the model);
// text goes through escapeText.

import { escapeText } from "./write.js";

/** An element name's markup, made once and reused: `<n>`, `</n>`, `<n />`. */
export interface TagMarkup {
  readonly open: string;
  readonly close: string;
  readonly empty: string;
}

export function tagMarkup(name: string): TagMarkup {
  return { open: `<${name}>`, close: `</${name}>`, empty: `<${name} />` };
}

export class XmlOut {
  private out = "";
  private depth: number;
  private readonly pretty: boolean;

  constructor(pretty: boolean, depth = 0) {
    this.pretty = pretty;
    this.depth = depth;
  }

  private line(): void {
    if (this.pretty && this.out !== "") this.out += "\n" + "  ".repeat(this.depth);
  }

  /** Raw markup, written as is. */
  raw(markup: string): this {
    this.out += markup;
    return this;
  }

  /** `<tag attrs>`; `attrs` is raw markup starting with a space, or "". */
  open(tag: string, attrs = ""): this {
    this.line();
    this.out += `<${tag}${attrs}>`;
    this.depth++;
    return this;
  }

  close(tag: string): this {
    this.depth--;
    this.line();
    this.out += `</${tag}>`;
    return this;
  }

  /** `<tag attrs>text</tag>` on one line; `<tag attrs />` for "", as .NET's XmlWriter.WriteElementString does. */
  leaf(tag: string, text: string, attrs = ""): this {
    this.line();
    this.out += text === "" ? `<${tag}${attrs} />` : `<${tag}${attrs}>${escapeText(text)}</${tag}>`;
    return this;
  }

  /** As open(name) for a name without attributes, from markup made once (list results write many). */
  openTag(tag: TagMarkup): this {
    this.line();
    this.out += tag.open;
    this.depth++;
    return this;
  }

  /** As close(name), from markup made once. */
  closeTag(tag: TagMarkup): this {
    this.depth--;
    this.line();
    this.out += tag.close;
    return this;
  }

  /** As leaf(name, text) for a name without attributes, from markup made once, for text that is
   * already escaped or needs no escaping (record fields: see result.ts). */
  rawLeafTag(tag: TagMarkup, text: string): this {
    this.line();
    this.out += text === "" ? tag.empty : tag.open + text + tag.close;
    return this;
  }

  /** `<tag attrs />`, as .NET writes an element with no content. */
  empty(tag: string, attrs = ""): this {
    this.line();
    this.out += `<${tag}${attrs} />`;
    return this;
  }

  toString(): string {
    return this.out;
  }
}
