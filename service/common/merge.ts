// Merge tags ({{Name}}, {{Email}}, {{DD<n>}} and extra tags such as {{unsubscribe}}) replaced by a
// recipient's values: as given in text (the text part), on one line in a subject, and in HTML by the
// context each tag stands in.
//
// HTML (mergeHtml). The template is read once with an HTML tokenizer that follows the HTML standard's
// states where they decide what a tag stands in (text, tags, attribute values quoted or not, comments,
// raw text of script/style/..., RCDATA of title/textarea), with each merge tag an opaque piece, and the
// values are then put in so that the browser reads the markup as the tokenizer did:
// - in text, comments and quoted attribute values a value is HTML-escaped (& < > " '); in a comment also
//   `-` and `!`, so no value ends or bends one; right after `<` or `</` its first character is written as a
//   character reference, so a value never opens a tag;
// - an unquoted attribute value holding a merge tag is written double-quoted, so a value's spaces or `>`
//   cannot end it;
// - in a tag but outside any attribute value (a tag name, an attribute name, between attributes) a value
//   is dropped: there it could only add attributes;
// - in an attribute that holds a URL (href, src, action, background, ...: URL_ATTRIBUTES) the whole value,
//   merged, is read as a browser reads it (character references decoded, then white space and control and
//   format characters removed, case folded). When its scheme is not http, https or mailto and is not the
//   scheme the template's own text gives the URL (javascript:, vbscript: and data: never stand), the
//   attribute's value becomes empty: a value never makes a link run script or carry content
//   (`javascript:`, `java\tscript:`, `&#106;avascript:` or `java` + `script:` across template and value).
//   A relative URL (no scheme) stays. srcset and ping hold several URLs; each is checked.
// Tracking (tracking.ts) reads the merged HTML afterwards and rewrites only anchors whose URL is http(s),
// so the link a click redirects to is the merged, checked URL.

import { decodeHTMLAttribute } from "entities";

/** The values merge tags stand for. */
export interface MergeValues {
  readonly name: string;
  readonly email: string;
  /** DD number → value. */
  readonly fields: ReadonlyMap<number, string>;
  /** Further tags (lower-case name → value), such as a newsletter's `unsubscribe` link. */
  readonly tags?: ReadonlyMap<string, string> | undefined;
}

/** A merge tag: `{{Name}}`, `{{ dd3 }}`, ... */
const MERGE_TAG = /\{\{\s*([A-Za-z0-9_]+)\s*\}\}/g;

/** How many merge tags a template holds. */
export function mergeTagCount(template: string): number {
  let count = 0;
  for (const _ of template.matchAll(MERGE_TAG)) count++;
  return count;
}

/** The value a merge tag (its name) stands for: "" for an unknown tag. */
function tagValue(name: string, values: MergeValues): string {
  const key = name.toLowerCase();
  if (key === "name") return values.name;
  if (key === "email") return values.email;
  const extra = values.tags?.get(key);
  if (extra !== undefined) return extra;
  const dd = /^dd(\d{1,3})$/.exec(key);
  return dd === null ? "" : (values.fields.get(Number(dd[1])) ?? "");
}

/** The template with every {{tag}} replaced by its value passed through `encode`; unknown tags become empty. One pass. */
export function mergeTemplate(
  template: string,
  values: MergeValues,
  encode: (value: string) => string,
): string {
  return template.replace(MERGE_TAG, (_tag, name: string) => encode(tagValue(name, values)));
}

const HTML_ESCAPES: Readonly<Record<string, string>> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  '"': "&quot;",
  "'": "&#39;",
};

/** Text safe inside HTML content and quoted attribute values. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => HTML_ESCAPES[c]!);
}

// ---------------------------------------------------------------------------------------------------
// URLs

/** Attributes whose value is a URL (HTML, SVG's xlink:href, legacy attributes mail clients still honour). */
const URL_ATTRIBUTES = new Set([
  "href",
  "src",
  "action",
  "formaction",
  "background",
  "cite",
  "poster",
  "longdesc",
  "usemap",
  "codebase",
  "data",
  "archive",
  "classid",
  "profile",
  "manifest",
  "icon",
  "lowsrc",
  "dynsrc",
  "xlink:href",
  "srcset",
  "ping",
]);

/** Schemes a merged value may give a URL. */
const SAFE_SCHEMES = new Set(["http", "https", "mailto"]);
/** Schemes that never stand once a value is merged into the URL, even when the template's text gives them. */
const ACTIVE_SCHEMES = new Set(["javascript", "vbscript", "data"]);

/** What a browser ignores in a URL, and more: white space, control and format characters. */
const IGNORED =
  /[\s\u0000-\u001f\u007f-\u009f\u00ad\u061c\u180e\u200b-\u200f\u202a-\u202e\u2060-\u206f\ufeff]/g;

/** The URL's scheme, lower-case, as a browser reads the decoded attribute text; undefined when it has none. */
export function urlScheme(decoded: string): string | undefined {
  const m = /^([a-zA-Z][a-zA-Z0-9+.-]*):/.exec(decoded.replace(IGNORED, ""));
  return m === null ? undefined : m[1]!.toLowerCase();
}

/** The URLs an attribute's decoded value holds: srcset's candidates, ping's list, else the value. */
function urlsOf(attribute: string, decoded: string): string[] {
  if (attribute === "srcset")
    return decoded.split(",").map((candidate) => candidate.trim().split(/\s+/)[0] ?? "");
  if (attribute === "ping") return decoded.trim().split(/\s+/);
  return [decoded];
}

/** Whether a merged URL attribute may stand: every URL's scheme safe, absent, or the template's own (not an active one). */
function urlAllowed(attribute: string, merged: string, templateOnly: string): boolean {
  const own = urlsOf(attribute, decodeHTMLAttribute(templateOnly)).map(urlScheme);
  return urlsOf(attribute, decodeHTMLAttribute(merged)).every((url, i) => {
    const scheme = urlScheme(url);
    return (
      scheme === undefined || SAFE_SCHEMES.has(scheme) || (scheme === own[i] && !ACTIVE_SCHEMES.has(scheme))
    );
  });
}

// ---------------------------------------------------------------------------------------------------
// The tokenizer

/** Where a merge tag stands, which decides how its value is written (encodeIn). */
type Context =
  | "text" // text, RCDATA, quoted attribute values: escapeHtml
  | "rawText" // script, style, ...: escaped; a value that reads as a javascript:, vbscript: or data: URL dropped
  | "afterLt" // right after `<` or `</`: escaped, its first character a reference, never empty
  | "comment" // escaped, `-` and `!` as references too, never empty
  | "drop"; // inside a tag outside attribute values: dropped

/** A compiled template: literal text, values by context, and URL attributes to check when merged. */
type Piece =
  | { readonly kind: "text"; readonly text: string }
  | { readonly kind: "value"; readonly tag: string; readonly context: Context }
  | {
      readonly kind: "url";
      readonly attribute: string;
      readonly parts: readonly (string | { readonly tag: string })[];
    };

/**
 * Elements whose content is raw text (no tags until their end tag) or RCDATA, as the HTML standard has
 * them with scripting off (a mail client's case: noscript's content is markup there).
 */
const RAW_TEXT = new Set(["script", "style", "xmp", "iframe", "noembed", "noframes"]);
const RCDATA = new Set(["title", "textarea"]);

const isSpace = (c: string | undefined) => c === " " || c === "\t" || c === "\n" || c === "\f" || c === "\r";
const isLetter = (c: string | undefined) =>
  c !== undefined && ((c >= "a" && c <= "z") || (c >= "A" && c <= "Z"));

type State =
  | "data"
  | "tagOpen" // after `<`
  | "endTagOpen" // after `</`
  | "tagName"
  | "beforeAttrName"
  | "attrName"
  | "afterAttrName"
  | "beforeAttrValue"
  | "attrValue" // quoted (value.quote) or unquoted (value.quote "")
  | "afterAttrValue"
  | "selfClosing"
  | "markup" // after `<!`
  | "comment"
  | "bogusComment"
  | "rawText" // raw text or RCDATA, until `</rawEnd`
  | "plaintext";

/** An attribute value being read. */
interface OpenValue {
  /** The attribute's name when it holds a URL. */
  readonly url: string | undefined;
  /** `"`, `'`, or "" for an unquoted value. */
  readonly quote: string;
  /** Its literal text and merge tags, in order. */
  readonly parts: (string | { readonly tag: string })[];
  /** Where its pieces start (they are rewritten when it holds a merge tag). */
  readonly start: number;
  tagged: boolean;
}

/**
 * Reads the template (split at its merge tags) once, as the HTML standard's tokenizer would with every
 * merge tag an opaque piece, and returns its pieces. Linear: each character is looked at a bounded number
 * of times. A value that is dropped writes nothing, so the tokenizer goes on in the same state; a value
 * whose being empty would change what the browser reads (afterLt, comment) is never written empty.
 */
function compile(template: string): Piece[] {
  const pieces: Piece[] = [];
  let text = "";
  const flush = () => {
    if (text !== "") pieces.push({ kind: "text", text });
    text = "";
  };
  const put = (tag: string, context: Context) => {
    flush();
    pieces.push({ kind: "value", tag, context });
  };
  // Changed inside the helpers below too: not narrowed.
  let state = "data" as State;
  let tagName = "";
  let isEndTag = false;
  let attrName = "";
  let rawEnd = ""; // the element whose end tag ends raw text
  let rawTail = ""; // raw text since its last `<` (while that may still become `</rawEnd`)
  let commentTail = ""; // the comment's last characters
  let value: OpenValue | undefined;

  const tagEnd = () => {
    const name = tagName.toLowerCase();
    if (!isEndTag && (RAW_TEXT.has(name) || RCDATA.has(name))) {
      state = "rawText";
      rawEnd = name;
      rawTail = "";
    } else state = !isEndTag && name === "plaintext" ? "plaintext" : "data";
  };
  const openValue = (quote: string) => {
    flush();
    const name = attrName.toLowerCase();
    value = {
      url: URL_ATTRIBUTES.has(name) ? name : undefined,
      quote,
      parts: [],
      start: pieces.length,
      tagged: false,
    };
    state = "attrValue";
  };
  const valueText = (c: string) => {
    text += c;
    const parts = value!.parts;
    if (typeof parts[parts.length - 1] === "string") parts[parts.length - 1] += c;
    else parts.push(c);
  };
  /** Ends the attribute value; one holding a merge tag is rewritten: checked as a URL, an unquoted one quoted. */
  const closeValue = () => {
    const v = value!;
    value = undefined;
    if (!v.tagged) return;
    flush();
    pieces.length = v.start;
    // An unquoted value is written double-quoted: a value's white space or `>` cannot end it then.
    const literal = (p: string) => (v.quote === "" ? p.replace(/"/g, "&quot;") : p);
    if (v.quote === "") pieces.push({ kind: "text", text: '"' });
    if (v.url !== undefined)
      pieces.push({
        kind: "url",
        attribute: v.url,
        parts: v.parts.map((p) => (typeof p === "string" ? literal(p) : p)),
      });
    else
      for (const p of v.parts)
        pieces.push(
          typeof p === "string"
            ? { kind: "text", text: literal(p) }
            : { kind: "value", tag: p.tag, context: "text" },
        );
    if (v.quote === "") pieces.push({ kind: "text", text: '"' });
  };

  const segments = template.split(MERGE_TAG); // [text, tag, text, tag, ..., text]
  for (let s = 0; s < segments.length; s++) {
    if (s % 2 === 1) {
      const tag = segments[s]!;
      switch (state) {
        case "beforeAttrValue":
        case "attrValue":
          // An unquoted value may start with the merge tag.
          if (state === "beforeAttrValue") openValue("");
          value!.tagged = true;
          value!.parts.push({ tag });
          put(tag, "text");
          break;
        case "tagOpen":
          // `<` and a value: read as text, and the value's first character a reference so it stays text.
          put(tag, "afterLt");
          state = "data";
          break;
        case "endTagOpen":
          // `</` and a non-letter opens a bogus comment up to `>`.
          put(tag, "afterLt");
          state = "bogusComment";
          break;
        case "markup":
          put(tag, "comment");
          state = "bogusComment";
          break;
        case "comment":
        case "bogusComment":
          put(tag, "comment");
          commentTail = "";
          break;
        case "rawText":
          put(tag, rawTail !== "" ? "afterLt" : RCDATA.has(rawEnd) ? "text" : "rawText");
          rawTail = "";
          break;
        case "data":
        case "plaintext":
          put(tag, "text");
          break;
        default:
          // In a tag: its name, an attribute's name, between attributes.
          put(tag, "drop");
      }
      continue;
    }
    const chunk = segments[s]!;
    for (let i = 0; i < chunk.length; i++) {
      const c = chunk[i]!;
      switch (state) {
        case "data":
          text += c;
          if (c === "<") state = "tagOpen";
          break;
        case "plaintext":
          text += c;
          break;
        case "tagOpen":
          text += c;
          if (c === "!") state = "markup";
          else if (c === "/") state = "endTagOpen";
          else if (c === "?") state = "bogusComment";
          else if (isLetter(c)) {
            state = "tagName";
            tagName = c;
            isEndTag = false;
          } else if (c !== "<") state = "data";
          break;
        case "endTagOpen":
          text += c;
          if (isLetter(c)) {
            state = "tagName";
            tagName = c;
            isEndTag = true;
          } else state = c === ">" ? "data" : "bogusComment";
          break;
        case "markup":
          if (chunk.startsWith("--", i)) {
            text += "--";
            i++;
            state = "comment";
            commentTail = "<!--";
          } else {
            state = "bogusComment";
            i--;
          }
          break;
        case "comment":
          text += c;
          commentTail = (commentTail + c).slice(-5);
          // `-->`, `--!>`, and the abrupt `<!-->` and `<!--->`.
          if (
            c === ">" &&
            (commentTail.endsWith("-->") ||
              commentTail.endsWith("--!>") ||
              commentTail.endsWith("<!-->") ||
              commentTail === "<!--->")
          )
            state = "data";
          break;
        case "bogusComment":
          text += c;
          if (c === ">") state = "data";
          break;
        case "tagName":
          text += c;
          if (isSpace(c)) state = "beforeAttrName";
          else if (c === "/") state = "selfClosing";
          else if (c === ">") tagEnd();
          else tagName += c;
          break;
        case "beforeAttrName":
          text += c;
          if (c === ">") tagEnd();
          else if (!isSpace(c) && c !== "/") {
            attrName = c;
            state = "attrName";
          }
          break;
        case "attrName":
          text += c;
          if (isSpace(c)) state = "afterAttrName";
          else if (c === "/") state = "selfClosing";
          else if (c === "=") state = "beforeAttrValue";
          else if (c === ">") tagEnd();
          else attrName += c;
          break;
        case "afterAttrName":
          text += c;
          if (c === "/") state = "selfClosing";
          else if (c === "=") state = "beforeAttrValue";
          else if (c === ">") tagEnd();
          else if (!isSpace(c)) {
            attrName = c;
            state = "attrName";
          }
          break;
        case "beforeAttrValue":
          if (isSpace(c)) text += c;
          else if (c === ">") {
            text += c;
            tagEnd();
          } else if (c === '"' || c === "'") {
            text += c;
            openValue(c);
          } else {
            openValue("");
            i--;
          }
          break;
        case "attrValue": {
          const quote = value!.quote;
          if (quote === "" ? isSpace(c) || c === ">" : c === quote) {
            closeValue();
            text += c;
            if (c === ">") tagEnd();
            else state = quote === "" ? "beforeAttrName" : "afterAttrValue";
          } else valueText(c);
          break;
        }
        case "afterAttrValue":
        case "selfClosing":
          if (c === ">") {
            text += c;
            tagEnd();
          } else if (state === "afterAttrValue" && (isSpace(c) || c === "/")) {
            text += c;
            state = c === "/" ? "selfClosing" : "beforeAttrName";
          } else {
            state = "beforeAttrName";
            i--;
          }
          break;
        case "rawText":
          text += c;
          if (c === "<") rawTail = "<";
          else if (rawTail !== "") {
            rawTail += c;
            const name = rawTail.slice(2);
            if (!rawTail.startsWith("</") || !rawEnd.startsWith(name.toLowerCase().slice(0, rawEnd.length))) {
              rawTail = "";
            } else if (name.length > rawEnd.length) {
              // `</name` and white space, `/` or `>` ends the raw text: the end tag is read as a tag.
              const after = name.at(-1);
              if (isSpace(after) || after === "/" || after === ">") {
                tagName = rawEnd;
                isEndTag = true;
                state = after === ">" ? "data" : after === "/" ? "selfClosing" : "beforeAttrName";
              }
              rawTail = "";
            }
          }
          break;
      }
    }
  }
  // An attribute value never closed: the browser drops the whole tag, so its URL is checked for nothing;
  // its merge tags are left out.
  if (value?.tagged) {
    const v = value;
    flush();
    pieces.length = v.start;
    for (const p of v.parts) if (typeof p === "string") pieces.push({ kind: "text", text: p });
  }
  flush();
  return pieces;
}

/** Compiled templates, the last few (a sending renders the same few HTML texts for every recipient). */
const compiled = new Map<string, Piece[]>();
const COMPILED_KEPT = 8;

function compiledOf(template: string): Piece[] {
  let pieces = compiled.get(template);
  if (pieces === undefined) {
    pieces = compile(template);
    if (compiled.size >= COMPILED_KEPT) compiled.delete(compiled.keys().next().value!);
    compiled.set(template, pieces);
  }
  return pieces;
}

/** U+200B ZERO WIDTH SPACE as a reference: what an empty value is written as where empty would change the reading. */
const NOTHING = "&#8203;";

/** A value written in its context (see the top of this file). */
function encodeIn(context: Context, value: string): string {
  switch (context) {
    case "text":
      return escapeHtml(value);
    case "rawText":
      return ACTIVE_SCHEMES.has(urlScheme(value) ?? "") ? "" : escapeHtml(value);
    case "afterLt": {
      if (value === "") return NOTHING;
      const first = value.codePointAt(0)!;
      return `&#${first};${escapeHtml(value.slice(first > 0xffff ? 2 : 1))}`;
    }
    case "comment":
      return value === "" ? NOTHING : escapeHtml(value).replace(/[-!]/g, (c) => `&#${c.charCodeAt(0)};`);
    case "drop":
      return "";
  }
}

/** The HTML template with its merge tags replaced by the values, by context (see the top of this file). */
export function mergeHtml(template: string, values: MergeValues): string {
  let out = "";
  for (const piece of compiledOf(template)) {
    if (piece.kind === "text") out += piece.text;
    else if (piece.kind === "value") out += encodeIn(piece.context, tagValue(piece.tag, values));
    else {
      let merged = "";
      let own = "";
      for (const part of piece.parts) {
        if (typeof part === "string") {
          merged += part;
          own += part;
        } else merged += escapeHtml(tagValue(part.tag, values));
      }
      if (urlAllowed(piece.attribute, merged, own)) out += merged;
    }
  }
  return out;
}
