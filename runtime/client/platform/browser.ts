// The client's platform for browsers: answers read by the browser's DOMParser (xml/dom.ts) and decoded by
// its TextDecoder, so a bundle carries neither the scanner nor the runtime's charset tables
// (codec/charset.ts). Pass it as `createClientWith(soap11, { ..., platform: browser })`.
//
// The charset is found as decodeBody finds it (a byte order mark, the Content-Type's charset, UTF-16 by
// the first character, the XML declaration, else UTF-8) and bytes not valid in it are refused
// (fatal: true). The one difference is the WHATWG label table: "iso-8859-1", "latin1" and "us-ascii" name
// windows-1252 there, so a Latin-1 answer's bytes 0x80-0x9F read as windows-1252's characters (0x80 is
// "€", not U+0080) and a US-ASCII answer's bytes above 0x7F are read rather than refused; and a
// Content-Type naming "utf-16" over bytes without a byte order mark is read little-endian (decodeBody
// guesses the order from the bytes). .NET sends none of these (its answers are UTF-8 unless configured
// otherwise, and UTF-16 with a byte order mark), so the texts agree in practice.

import type { ClientPlatform } from "../core.js";
import { readXmlDom } from "../../xml/dom.js";

/** The encoding named by an XML declaration in the first bytes (read as Latin-1, only ASCII matters). */
const DECLARATION = /^<\?xml\s[^>]*?\bencoding\s*=\s*["']([A-Za-z][\w.:-]*)["']/;

/** The `charset` parameter of a Content-Type, past any quoted parameter value (a SOAP 1.2 action). */
function charsetParameter(contentType: string): string | undefined {
  const re = /;\s*([^=;\s]+)\s*=\s*("(?:[^"\\]|\\.)*"|[^;]*)/g;
  for (let m; (m = re.exec(contentType)); ) {
    if (m[1]!.toLowerCase() === "charset") return m[2]!.replace(/^"|"$/g, "").replace(/\\(.)/g, "$1").trim();
  }
  return undefined;
}

/** decodeBody's contract on TextDecoder: throws a TypeError or RangeError for invalid bytes or an unknown label. */
function decodeTextBrowser(bytes: Uint8Array, contentType: string | undefined, kind: "xml" | "text"): string {
  const [a, b, c] = bytes;
  const utf16 = a === 0xff && b === 0xfe ? "utf-16le" : a === 0xfe && b === 0xff ? "utf-16be" : undefined;
  let label = a === 0xef && b === 0xbb && c === 0xbf ? "utf-8" : utf16;
  label ??= contentType === undefined ? undefined : charsetParameter(contentType);
  if (label === undefined && kind === "xml") {
    label = a === 0x3c && b === 0 ? "utf-16le" : a === 0 && b === 0x3c ? "utf-16be" : undefined;
    // A declaration saying UTF-16 over 8-bit bytes (a .NET StringWriter's document sent as UTF-8) is read as UTF-8.
    label ??= DECLARATION.exec(String.fromCharCode(...bytes.subarray(0, 256)))?.[1]?.replace(
      /^utf-?16.*/i,
      "utf-8",
    );
  }
  // XML keeps a byte order mark for the reader, as decodeBody does (one is taken, a second refused).
  return new TextDecoder(label ?? "utf-8", { fatal: true, ignoreBOM: kind === "xml" }).decode(bytes);
}

/**
 * readXmlDom and TextDecoder: the smallest client bundle (see above for the ISO-8859-1 difference).
 *
 * @codegen generated code imports it (test/repo/knip.test.ts)
 */
export const browser: ClientPlatform = { readXml: readXmlDom, decodeText: decodeTextBrowser };
