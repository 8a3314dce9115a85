// A tiny element tree with the two layouts an ASMX host writes: compact (SOAP envelopes) and indented
// by two spaces (HTTP GET/POST documents), `<x />` for an empty element, text escaped as .NET does.

export interface El {
  readonly name: string;
  /** Attribute text as written, with its leading space: ` xmlns="..."`. */
  readonly attrs: string;
  readonly children: readonly El[];
  /** Leaf text (unescaped); undefined for an element that holds elements or nothing. */
  readonly text?: string;
}

export const XML_DECLARATION = '<?xml version="1.0" encoding="utf-8"?>';

export function el(name: string, attrs: string, children: readonly El[] = []): El {
  return { name, attrs, children };
}

export function leaf(name: string, text: string, attrs = ""): El {
  return { name, attrs, children: [], text };
}

/**
 * `&`, `<`, `>` become references; quotes stay as they are in element text. A carriage return becomes
 * `&#xD;`: written raw, XML's line-end normalization would turn CRLF into LF on the way in (a .NET
 * XmlTextWriter writes it raw and loses it; the reference holds peers to keeping the value intact).
 */
export function escapeText(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/\r/g, "&#xD;");
}

export function compact(e: El): string {
  if (e.text !== undefined && e.text !== "") return `<${e.name}${e.attrs}>${escapeText(e.text)}</${e.name}>`;
  if (e.children.length === 0) return `<${e.name}${e.attrs} />`;
  return `<${e.name}${e.attrs}>${e.children.map(compact).join("")}</${e.name}>`;
}

export function indented(e: El, depth = 0): string {
  const pad = "  ".repeat(depth);
  if (e.text !== undefined && e.text !== "")
    return `${pad}<${e.name}${e.attrs}>${escapeText(e.text)}</${e.name}>`;
  if (e.children.length === 0) return `${pad}<${e.name}${e.attrs} />`;
  const inner = e.children.map((c) => indented(c, depth + 1)).join("\n");
  return `${pad}<${e.name}${e.attrs}>\n${inner}\n${pad}</${e.name}>`;
}
