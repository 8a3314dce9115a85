// Escaping helpers for XML writers.
//
// Choice: escaping validates. escapeText and escapeAttr look at every character anyway, so they also
// refuse (RangeError) characters XML 1.0 cannot carry: U+0000-U+0008, U+000B, U+000C, U+000E-U+001F,
// unpaired surrogates, U+FFFE and U+FFFF. Strings written without escaping (element names, CDATA
// content, already-built fragments) can be checked with assertXmlChars.
// Non-ASCII is written as is (UTF-8 on the wire), never as character references.

/** Throws a RangeError naming the first character XML 1.0 does not allow, found at index i. */
function refuse(s: string, i: number): never {
  const code = s.charCodeAt(i);
  const what =
    code >= 0xd800 && code <= 0xdfff ? "an unpaired surrogate" : "a character XML 1.0 does not allow";
  const hex = code.toString(16).toUpperCase().padStart(4, "0");
  throw new RangeError(`String contains ${what} (U+${hex}) at index ${i}.`);
}

/** Index of the last code unit of a valid character starting with a unit >= 0xD800 at i. */
function high(s: string, i: number): number {
  const c = s.charCodeAt(i);
  if (c <= 0xdbff) {
    const d = s.charCodeAt(i + 1);
    if (d >= 0xdc00 && d <= 0xdfff) return i + 1;
    refuse(s, i);
  }
  if (c <= 0xdfff || c >= 0xfffe) refuse(s, i);
  return i;
}

/** Returns s unchanged; throws a RangeError if it holds a character XML 1.0 does not allow. */
export function assertXmlChars(s: string): string {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x20) {
      if (c !== 9 && c !== 10 && c !== 13) refuse(s, i);
    } else if (c >= 0xd800) {
      i = high(s, i);
    }
  }
  return s;
}

function escapeFrom(s: string, i: number, attr: boolean): string {
  let out = "";
  let last = 0;
  for (; i < s.length; i++) {
    const c = s.charCodeAt(i);
    let rep: string;
    if (c >= 0x20 && c < 0xd800) {
      if (c === 38) rep = "&amp;";
      else if (c === 60) rep = "&lt;";
      else if (c === 62) rep = "&gt;";
      else if (c === 34 && attr) rep = "&quot;";
      else continue;
    } else if (c < 0x20) {
      if (c === 13) rep = "&#xD;";
      else if (c === 10) {
        if (!attr) continue;
        rep = "&#xA;";
      } else if (c === 9) {
        if (!attr) continue;
        rep = "&#x9;";
      } else refuse(s, i);
    } else {
      i = high(s, i);
      continue;
    }
    out += s.slice(last, i) + rep;
    last = i + 1;
  }
  return last === 0 ? s : out + s.slice(last);
}

/**
 * Escapes character data: & < > become entity references, CR becomes &#xD; (a literal CR would be
 * read back as LF). Returns s itself when nothing needs escaping.
 */
export function escapeText(s: string): string {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x20 ? c !== 10 && c !== 9 : c === 38 || c === 60 || c === 62 || c >= 0xd800)
      return escapeFrom(s, i, false);
  }
  return s;
}

/** The first character XML 1.0 does not allow: a control character, an unpaired surrogate, U+FFFE or U+FFFF. */
const NOT_XML =
  /[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
const TEXT_ESCAPES: Readonly<Record<string, string>> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  "\r": "&#xD;",
};

/**
 * escapeText in a few regular expressions: the same text and the same refusals, for the client, which
 * escapes a few parameters per call (escapeText, one pass without a regex, is the server's hot path).
 */
export function escapeTextCompact(s: string): string {
  const bad = NOT_XML.exec(s);
  if (bad !== null) refuse(s, bad.index);
  return s.replace(/[&<>\r]/g, (c) => TEXT_ESCAPES[c]!);
}

/**
 * Escapes an attribute value for double quotes: & < > " become entity references, tab, LF and CR
 * character references (attribute-value normalization would turn them into spaces).
 */
export function escapeAttr(s: string): string {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x20 || c === 34 || c === 38 || c === 60 || c === 62 || c >= 0xd800)
      return escapeFrom(s, i, true);
  }
  return s;
}
