// HTML as plain text for the text/plain part of a mail, by html-to-text (a maintained converter on
// htmlparser2's linear tokenizer): links kept as `text (href)` (the href alone when the text is the
// href), images as their alt text, headings as written (not upper-cased), no line wrapping (a link is
// never cut in two), at most one blank line in a row.

import { compile } from "html-to-text";

const heading = (selector: string) => ({ selector, options: { uppercase: false } });

const convert = compile({
  wordwrap: false,
  selectors: [
    {
      selector: "a",
      options: { linkBrackets: ["(", ")"], hideLinkHrefIfSameAsText: true, ignoreHref: false },
    },
    { selector: "img", format: "skip" },
    heading("h1"),
    heading("h2"),
    heading("h3"),
    heading("h4"),
    heading("h5"),
    heading("h6"),
    { selector: "table", format: "block" },
    { selector: "td", format: "block" },
    { selector: "th", format: "block" },
  ],
});

/** The HTML as plain text (see the top of this file). */
export function htmlToText(html: string): string {
  return convert(html).replace(/\n{3,}/g, "\n\n");
}
