// Bytes to text for request and answer bodies, in the charset the message declares, the way ASMX reads them.
// The charset is the Content-Type's `charset` parameter, else a byte order mark, else (XML) the encoding in
// the XML declaration, else UTF-8. A byte order mark also overrides a conflicting charset parameter, as
// .NET's StreamReader (detectEncodingFromByteOrderMarks) does on the ASMX side.
// Bytes that are not valid in their charset are refused: XML 1.0 makes that a fatal error, and decoding
// them as U+FFFD would hand a corrupted value to a handler or a caller.
// Web-standard APIs only (TextDecoder): the client imports this module in browsers too.

export type CharsetErrorReason = "unsupported" | "invalid";

/** A body whose charset is not one we read ("unsupported") or whose bytes are not valid in it ("invalid"). */
export class CharsetError extends Error {
  readonly reason: CharsetErrorReason;
  constructor(reason: CharsetErrorReason, message: string) {
    super(message);
    this.name = "CharsetError";
    this.reason = reason;
  }
}

type Charset = "utf-8" | "utf-16" | "utf-16le" | "utf-16be" | "iso-8859-1" | "windows-1252" | "us-ascii";

/**
 * Labels (lower case) of the charsets we read, with the aliases .NET and the WHATWG list use for them. Made
 * by a call marked pure (like the decoders below), so a bundle that does not decode with this module drops it.
 */
const LABELS: ReadonlyMap<string, Charset> = /* @__PURE__ */ labels();

function labels(): ReadonlyMap<string, Charset> {
  return new Map<string, Charset>([
    ...(["utf-8", "utf8", "unicode-1-1-utf-8"].map((l) => [l, "utf-8"]) as [string, Charset][]),
    ...(["utf-16", "utf16", "unicode", "ucs-2", "iso-10646-ucs-2", "csunicode"].map((l) => [l, "utf-16"]) as [
      string,
      Charset,
    ][]),
    ...(["utf-16le", "unicodelittleunmarked"].map((l) => [l, "utf-16le"]) as [string, Charset][]),
    ...(["utf-16be", "unicodefffe", "unicodebigunmarked"].map((l) => [l, "utf-16be"]) as [string, Charset][]),
    ...([
      "iso-8859-1",
      "iso8859-1",
      "iso_8859-1",
      "iso_8859-1:1987",
      "latin1",
      "l1",
      "iso-ir-100",
      "cp819",
      "ibm819",
      "csisolatin1",
    ].map((l) => [l, "iso-8859-1"]) as [string, Charset][]),
    ...(["windows-1252", "cp1252", "x-cp1252"].map((l) => [l, "windows-1252"]) as [string, Charset][]),
    ...(["us-ascii", "ascii", "ansi_x3.4-1968", "iso646-us", "csascii", "us"].map((l) => [l, "us-ascii"]) as [
      string,
      Charset,
    ][]),
  ]);
}

/** A label for a message: cut so it cannot carry much input. */
function shown(label: string): string {
  return label.length > 40 ? `${label.slice(0, 40)}...` : label;
}

/** Charsets of the Content-Types seen last: a server sees the same two or three all day. */
const byContentType = new Map<string, Charset | undefined>();

/** The charset a Content-Type's parameter names; undefined when it names none. */
function contentTypeCharset(contentType: string | undefined): Charset | undefined {
  if (contentType === undefined) return undefined;
  if (byContentType.has(contentType)) return byContentType.get(contentType);
  const parameter = charsetParameter(contentType);
  const charset = parameter === undefined ? undefined : charsetOf(parameter);
  if (contentType.length <= 200) {
    if (byContentType.size >= 32) byContentType.clear();
    byContentType.set(contentType, charset);
  }
  return charset;
}

function charsetOf(label: string): Charset {
  const charset = LABELS.get(label.trim().toLowerCase());
  if (charset === undefined)
    throw new CharsetError("unsupported", `The charset "${shown(label)}" is not supported.`);
  return charset;
}

/** The `charset` parameter of a Content-Type, unquoted; undefined when there is none. */
export function charsetParameter(contentType: string | undefined): string | undefined {
  if (contentType === undefined) return undefined;
  const text = contentType;
  // Walk the parameters in order, so a quoted value (a SOAP 1.2 action) cannot hide or fake a charset.
  let i = text.indexOf(";");
  while (i >= 0) {
    let j = i + 1;
    while (j < text.length && text[j] !== "=" && text[j] !== ";") j++;
    const name = text
      .slice(i + 1, j)
      .trim()
      .toLowerCase();
    if (text[j] !== "=") {
      i = j < text.length ? j : -1;
      continue;
    }
    j++;
    while (text[j] === " " || text[j] === "\t") j++;
    let value = "";
    if (text[j] === '"') {
      for (j++; j < text.length && text[j] !== '"'; j++) {
        if (text[j] === "\\" && j + 1 < text.length) j++;
        value += text[j];
      }
    } else {
      const end = text.indexOf(";", j);
      value = text.slice(j, end < 0 ? undefined : end).trim();
    }
    if (name === "charset") return value;
    i = text.indexOf(";", j);
  }
  return undefined;
}

/** The charset a byte order mark announces. */
function byteOrderMark(bytes: Uint8Array): Charset | undefined {
  if (bytes.length >= 3 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) return "utf-8";
  if (bytes.length >= 2 && bytes[0] === 0xff && bytes[1] === 0xfe) return "utf-16le";
  if (bytes.length >= 2 && bytes[0] === 0xfe && bytes[1] === 0xff) return "utf-16be";
  return undefined;
}

/** UTF-16 without a byte order mark, recognised by `<` as its first character (XML 1.0 Appendix F). */
function utf16ByFirstCharacter(bytes: Uint8Array): Charset | undefined {
  if (bytes.length < 2) return undefined;
  if (bytes[0] === 0x3c && bytes[1] === 0) return "utf-16le";
  if (bytes[0] === 0 && bytes[1] === 0x3c) return "utf-16be";
  return undefined;
}

const utf8 = /* @__PURE__ */ new TextDecoder("utf-8", { fatal: true });
const utf16le = /* @__PURE__ */ new TextDecoder("utf-16le", { fatal: true });
/** The same, keeping a byte order mark as U+FEFF (XML: see decodeBody). */
const utf8Marked = /* @__PURE__ */ new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
const utf16leMarked = /* @__PURE__ */ new TextDecoder("utf-16le", { fatal: true, ignoreBOM: true });

const DECLARATION = /^<\?xml\s[^>]*?\bencoding\s*=\s*(["'])([A-Za-z][A-Za-z0-9._:-]*)\1/;

/** The encoding named by the XML declaration, read as ASCII; undefined when there is none. */
function declaredEncoding(bytes: Uint8Array): string | undefined {
  if (bytes.length < 6 || bytes[0] !== 0x3c || bytes[1] !== 0x3f) return undefined;
  const limit = Math.min(bytes.length, 256);
  let end = 2;
  while (end < limit && bytes[end] !== 0x3e && bytes[end]! < 0x80) end++;
  return DECLARATION.exec(utf8.decode(bytes.subarray(0, end)))?.[2];
}

function invalid(charset: Charset): CharsetError {
  return new CharsetError("invalid", `The body is not valid ${charset.toUpperCase()}.`);
}

function decodeWith(
  decoder: { decode(bytes: Uint8Array): string },
  bytes: Uint8Array,
  charset: Charset,
): string {
  try {
    return decoder.decode(bytes);
  } catch {
    throw invalid(charset);
  }
}

/** UTF-16BE: swapped into UTF-16LE, the one UTF-16 decoder every TextDecoder has. */
function decodeUtf16be(bytes: Uint8Array, marked: boolean): string {
  const swapped = new Uint8Array(bytes.length);
  for (let i = 0; i + 1 < bytes.length; i += 2) {
    swapped[i] = bytes[i + 1]!;
    swapped[i + 1] = bytes[i]!;
  }
  if (bytes.length % 2 === 1) swapped[bytes.length - 1] = bytes[bytes.length - 1]!;
  return decodeWith(marked ? utf16leMarked : utf16le, swapped, "utf-16be");
}

/** windows-1252's 0x80-0x9F; the five bytes it leaves undefined map to the C1 control of the same number. */
const CP1252_HIGH = [
  0x20ac, 0x81, 0x201a, 0x192, 0x201e, 0x2026, 0x2020, 0x2021, 0x2c6, 0x2030, 0x160, 0x2039, 0x152, 0x8d,
  0x17d, 0x8f, 0x90, 0x2018, 0x2019, 0x201c, 0x201d, 0x2022, 0x2013, 0x2014, 0x2dc, 0x2122, 0x161, 0x203a,
  0x153, 0x9d, 0x17e, 0x178,
];

/**
 * A single-byte charset: each byte widened to its UTF-16 code unit and decoded natively. TextDecoder's own
 * "iso-8859-1" is windows-1252 (WHATWG), so true Latin-1 (0x80 is U+0080, not the euro sign) is done here.
 */
function decodeSingleByte(bytes: Uint8Array, charset: "iso-8859-1" | "windows-1252" | "us-ascii"): string {
  const wide = new Uint8Array(bytes.length * 2);
  for (let i = 0; i < bytes.length; i++) {
    const b = bytes[i]!;
    if (b < 0x80) {
      wide[2 * i] = b;
    } else if (charset === "us-ascii") {
      throw invalid(charset);
    } else if (charset === "iso-8859-1" || b >= 0xa0) {
      wide[2 * i] = b;
    } else {
      const unit = CP1252_HIGH[b - 0x80]!; // 0x80 <= b < 0xa0
      wide[2 * i] = unit & 0xff;
      wide[2 * i + 1] = unit >> 8;
    }
  }
  return utf16le.decode(wide);
}

/** UTF-16 with no byte order mark: big-endian as RFC 2781 says, unless the bytes show little-endian. */
function utf16Order(bytes: Uint8Array): Charset {
  return bytes.length >= 2 && bytes[0] !== 0 && bytes[1] === 0 ? "utf-16le" : "utf-16be";
}

/** The text of bytes in a charset; `marked`: a leading byte order mark stays in it as U+FEFF. */
function decodeIn(bytes: Uint8Array, charset: Charset, marked = false): string {
  switch (charset) {
    case "utf-8":
      return decodeWith(marked ? utf8Marked : utf8, bytes, charset);
    case "utf-16":
      return decodeIn(bytes, utf16Order(bytes), marked);
    case "utf-16le":
      return decodeWith(marked ? utf16leMarked : utf16le, bytes, charset);
    case "utf-16be":
      return decodeUtf16be(bytes, marked);
    default:
      return decodeSingleByte(bytes, charset);
  }
}

/**
 * The text of a body. `kind` "xml" also reads the XML declaration's encoding (and UTF-16 without a byte order
 * mark), "text" (form bodies) does not. Throws CharsetError.
 *
 * A byte order mark is dropped from text; XML keeps it, as U+FEFF at the start, for the XML reader, which
 * takes one there (as in a string read from a file) and refuses a second as content before the root: a
 * body of two marks is not well-formed, where dropping one here would have let the reader take the other.
 */
export function decodeBody(bytes: Uint8Array, contentType: string | undefined, kind: "xml" | "text"): string {
  const declared = contentTypeCharset(contentType);
  const bom = byteOrderMark(bytes);
  if (bom !== undefined) return decodeIn(bytes, bom, kind === "xml");
  if (declared !== undefined) return decodeIn(bytes, declared);
  if (kind === "xml") {
    const utf16 = utf16ByFirstCharacter(bytes);
    if (utf16 !== undefined) return decodeIn(bytes, utf16);
    const encoding = declaredEncoding(bytes);
    if (encoding !== undefined) {
      const charset = charsetOf(encoding);
      // A declaration saying UTF-16 in a document whose bytes are 8-bit (a .NET StringWriter's document
      // sent as UTF-8, a common sight) cannot be right about itself: read the bytes as UTF-8.
      if (charset !== "utf-16" && charset !== "utf-16le" && charset !== "utf-16be")
        return decodeIn(bytes, charset);
    }
  }
  return decodeIn(bytes, "utf-8");
}
