// A minimal XML string builder with the two layouts ASMX uses: compact (SOAP bodies) and two-space
// indented (HTTP GET/POST result documents). Names and attribute strings are trusted (from the model);
// text goes through escapeText.

import { escapeText } from "./write.js";

export class XmlOut {
  private out = "";
  /** Nesting of the next element (indented layout): record writers choose their layout by it. */
  depth: number;
  readonly pretty: boolean;

  constructor(pretty: boolean, depth = 0) {
    this.pretty = pretty;
    this.depth = depth;
  }

  private line(): void {
    if (this.pretty && this.out !== "") this.out += `\n${"  ".repeat(this.depth)}`;
  }

  /** Whether nothing has been written yet (the first element gets no line break before it). */
  get atStart(): boolean {
    return this.out === "";
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
