// The one escaper of the WSDL and the help pages: text and attribute values alike become markup-safe by
// turning & < > " ' into references. Which reference stands for ' (and whether ` and = are escaped too)
// is a table, so each document keeps the bytes it has always had: the WSDL writes &apos; as .NET does;
// help page text (once escaped by handlebars) uses &#x27; and also escapes ` and =; the endpoint address
// and the sample messages on the help pages use &#39;. Browsers and XML readers read them alike.

/** Reference per escaped character; characters not in the table are kept. */
export type MarkupReferences = Readonly<Record<string, string>>;

const BASE = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" } as const;

/** XML text and attribute values (the WSDL). */
export const XML_REFERENCES: MarkupReferences = { ...BASE, "'": "&apos;" };
/** Spec text on the help pages. */
export const PAGE_TEXT_REFERENCES: MarkupReferences = {
  ...BASE,
  "'": "&#x27;",
  "`": "&#x60;",
  "=": "&#x3D;",
};
/** The endpoint address and the sample messages on the help pages. */
export const HTML_REFERENCES: MarkupReferences = { ...BASE, "'": "&#39;" };

const patterns = new WeakMap<MarkupReferences, RegExp>();

export function escapeMarkup(text: string, references: MarkupReferences): string {
  let pattern = patterns.get(references);
  if (pattern === undefined) {
    const characters = Object.keys(references).map(
      (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`,
    );
    pattern = new RegExp(`[${characters.join("")}]`, "g");
    patterns.set(references, pattern);
  }
  return text.replace(pattern, (c) => references[c]!);
}
