// The text of an enum value, both ways, for every codec that carries one (typed-xml, results, HTTP forms).
// A plain enum's value is one of its names. A flags enum (.NET's [Flags], an xs:list of the enumeration in
// the WSDL) holds a set of names: in TypeScript an array of them, in XML the names separated by spaces, as
// XmlSerializer writes it (`Read Write`; the empty list is 0, written empty). Over HTTP GET/POST ASMX
// parses a parameter with .NET's Enum.Parse, which takes the names separated by commas (`Read, Write`),
// never by spaces (docs/asmx-evidence/enums.md). Every loop is over the input's own tokens, bounded by its
// length; a name is looked up in a Set made once per enum.

import type { EnumModel } from "../model.js";

const nameSets = new WeakMap<EnumModel, ReadonlySet<string>>();

function names(e: EnumModel): ReadonlySet<string> {
  let set = nameSets.get(e);
  if (set === undefined) {
    set = new Set(e.values);
    nameSets.set(e, set);
  }
  return set;
}

/** Whether the value is one name of a plain enum. */
const isName = (e: EnumModel, value: unknown): value is string =>
  typeof value === "string" && names(e).has(value);

/**
 * The XML text of a value (a name; for a flags enum an array of names, written separated by spaces, each
 * once, in the order given). Undefined when the value is not one of the enum: the caller reports it.
 */
export function enumText(e: EnumModel, value: unknown): string | undefined {
  if (e.flags !== true) return isName(e, value) ? value : undefined;
  if (!Array.isArray(value)) return undefined;
  const seen = new Set<string>();
  for (const v of value as readonly unknown[]) {
    if (!isName(e, v)) return undefined;
    seen.add(v);
  }
  return [...seen].join(" ");
}

/** What enumText accepts, in words, for messages: the names, and for flags that it is an array of them. */
export function enumExpected(e: EnumModel): string {
  const list = e.values.join(", ");
  return e.flags === true ? `an array of ${list}` : list;
}

/** The tokens of an XML list (xs:list): separated by XML whitespace, none when the text is blank. */
function listTokens(text: string): string[] {
  const trimmed = text.replace(/^[ \t\r\n]+|[ \t\r\n]+$/g, "");
  return trimmed === "" ? [] : trimmed.split(/[ \t\r\n]+/);
}

/**
 * The value of an enum's XML text: the name (a plain enum: exactly, as XmlSerializer compares it), or for a
 * flags enum the array of the names listed (each once, in order). Throws `fail(badName)` for a name that is
 * not one of the enum.
 */
export function enumValueOf(e: EnumModel, text: string, fail: (bad: string) => Error): string | string[] {
  if (e.flags !== true) {
    if (names(e).has(text)) return text;
    throw fail(text);
  }
  const out = new Set<string>();
  for (const token of listTokens(text)) {
    if (!names(e).has(token)) throw fail(token);
    out.add(token);
  }
  return [...out];
}

/**
 * A flags value as HTTP GET/POST carry it to ASMX (Enum.Parse): the names separated by ", "; from the
 * XML text (space-separated).
 */
export function flagsToHttp(xmlText: string): string {
  return listTokens(xmlText).join(", ");
}

/**
 * A flags value from an HTTP GET/POST field, as Enum.Parse reads it (names separated by commas, blanks
 * around each ignored), as the XML text the codecs read; undefined when Enum.Parse would refuse its form
 * (an empty name between commas, a name holding a blank: `Read Delete`). A blank field is the empty set.
 */
export function flagsFromHttp(text: string): string | undefined {
  // The empty set (Enum.Parse refuses an empty text; we take it as no flag, which is what our client sends).
  if (text.trim() === "") return "";
  const parts = text.split(",");
  for (let i = 0; i < parts.length; i++) {
    const p = parts[i]!.trim();
    if (p === "" || /[ \t\r\n]/.test(p)) return undefined;
    parts[i] = p;
  }
  return parts.join(" ");
}
