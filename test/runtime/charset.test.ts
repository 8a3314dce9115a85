// decodeBody: the charset a body is read in (Content-Type parameter, byte order mark, XML declaration,
// UTF-8) and the refusal of bytes that are not valid in it or of a charset we do not read.

import { describe, expect, it } from "vitest";
import { CharsetError, charsetParameter, decodeBody } from "../../runtime/codec/charset.js";
import { SOAP11_REQUEST_BODY } from "../fixtures/wire-samples.js";

const utf8 = (text: string) => new TextEncoder().encode(text);
const bytes = (...values: number[]) => Uint8Array.from(values);
const concat = (...parts: Uint8Array[]) => Uint8Array.from(parts.flatMap((p) => [...p]));

function utf16(text: string, order: "le" | "be"): Uint8Array {
  const out = new Uint8Array(text.length * 2);
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    out[2 * i + (order === "le" ? 0 : 1)] = unit & 0xff;
    out[2 * i + (order === "le" ? 1 : 0)] = unit >> 8;
  }
  return out;
}
const BOM_LE = bytes(0xff, 0xfe);
const BOM_BE = bytes(0xfe, 0xff);
const BOM_UTF8 = bytes(0xef, 0xbb, 0xbf);

function refusal(run: () => unknown): CharsetError {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(CharsetError);
    return error as CharsetError;
  }
  throw new Error("expected a CharsetError");
}

/** Latin-1 bytes of a string whose characters are all below U+0100. */
const latin1 = (text: string) => Uint8Array.from(text, (c) => c.charCodeAt(0));

const TEXT = "Åsa Öberg, 北京, 😀 <&>";

describe("UTF-8", () => {
  it("reads UTF-8 with and without a Content-Type charset", () => {
    expect(decodeBody(utf8(TEXT), "text/xml; charset=utf-8", "xml")).toBe(TEXT);
    expect(decodeBody(utf8(TEXT), undefined, "xml")).toBe(TEXT);
    expect(decodeBody(utf8(TEXT), "application/x-www-form-urlencoded", "text")).toBe(TEXT);
  });

  it("drops a UTF-8 byte order mark from text, keeps it (U+FEFF) in XML for the reader to take once", () => {
    expect(decodeBody(concat(BOM_UTF8, utf8(TEXT)), "text/xml; charset=utf-8", "xml")).toBe(`\uFEFF${TEXT}`);
    expect(decodeBody(concat(BOM_UTF8, utf8(TEXT)), undefined, "text")).toBe(TEXT);
    // Two marks stay two: the XML reader takes the first and refuses the second (content before the root).
    expect(decodeBody(concat(BOM_UTF8, BOM_UTF8, utf8(TEXT)), undefined, "xml")).toBe(`\uFEFF\uFEFF${TEXT}`);
  });

  it("reads the wire sample's SOAP 1.1 request unchanged", () => {
    expect(decodeBody(utf8(SOAP11_REQUEST_BODY), "text/xml; charset=utf-8", "xml")).toBe(SOAP11_REQUEST_BODY);
  });

  it.each([
    ["an overlong '/' (C0 AF)", bytes(0x61, 0xc0, 0xaf)],
    ["an overlong 3-byte form (E0 80 AF)", bytes(0xe0, 0x80, 0xaf)],
    ["an overlong NUL (C0 80)", bytes(0xc0, 0x80)],
    ["a lone continuation byte", bytes(0x61, 0x80, 0x62)],
    ["a surrogate encoded in UTF-8 (ED A0 80)", bytes(0xed, 0xa0, 0x80)],
    ["a sequence truncated at the end", bytes(0x61, 0xe2, 0x82)],
    ["a sequence truncated by ASCII", bytes(0xe2, 0x82, 0x61)],
    ["a code point above U+10FFFF (F4 90 80 80)", bytes(0xf4, 0x90, 0x80, 0x80)],
    ["an 0xFF byte", bytes(0xff)],
  ])("refuses %s as invalid", (_, body) => {
    for (const contentType of ["text/xml; charset=utf-8", undefined]) {
      const error = refusal(() => decodeBody(body, contentType, "xml"));
      expect(error.reason).toBe("invalid");
      expect(error.message).toBe("The body is not valid UTF-8.");
    }
  });
});

describe("UTF-16", () => {
  it.each(["le", "be"] as const)(
    "reads UTF-16%s by its byte order mark, with or without a charset",
    (order) => {
      const body = concat(order === "le" ? BOM_LE : BOM_BE, utf16(TEXT, order));
      expect(decodeBody(body, undefined, "xml")).toBe(`\uFEFF${TEXT}`);
      expect(decodeBody(body, undefined, "text")).toBe(TEXT);
      expect(decodeBody(body, "text/xml; charset=utf-16", "xml")).toBe(`\uFEFF${TEXT}`);
      expect(decodeBody(body, `text/xml; charset=utf-16${order}`, "xml")).toBe(`\uFEFF${TEXT}`);
    },
  );

  it.each(["le", "be"] as const)(
    "reads UTF-16%s without a byte order mark when the charset names it",
    (order) => {
      expect(decodeBody(utf16(TEXT, order), `text/xml; charset=UTF-16${order.toUpperCase()}`, "xml")).toBe(
        TEXT,
      );
    },
  );

  it("reads charset=utf-16 without a byte order mark as big-endian unless the bytes show little-endian", () => {
    expect(decodeBody(utf16("<a/>", "be"), "text/xml; charset=utf-16", "xml")).toBe("<a/>");
    expect(decodeBody(utf16("<a/>", "le"), "text/xml; charset=utf-16", "xml")).toBe("<a/>");
    expect(decodeBody(utf16("北京", "be"), "text/plain; charset=utf-16", "text")).toBe("北京");
  });

  it.each(["le", "be"] as const)(
    "recognises UTF-16%s XML without a byte order mark or charset by its '<'",
    (order) => {
      const xml = '<?xml version="1.0" encoding="utf-16"?><a>é</a>';
      expect(decodeBody(utf16(xml, order), "text/xml", "xml")).toBe(xml);
    },
  );

  it("reads a .NET client's UTF-16 SOAP request (RequestEncoding = Encoding.Unicode)", () => {
    const xml = SOAP11_REQUEST_BODY.replace('encoding="utf-8"', 'encoding="utf-16"').replace(
      ">N<",
      ">Åsa Öberg<",
    );
    const body = concat(BOM_LE, utf16(xml, "le"));
    expect(decodeBody(body, "text/xml; charset=utf-16", "xml")).toBe(`\uFEFF${xml}`);
  });

  it("refuses an odd byte count and a lone surrogate as invalid", () => {
    const odd = concat(BOM_LE, utf16("<a/>", "le"), bytes(0x3c));
    expect(refusal(() => decodeBody(odd, undefined, "xml")).reason).toBe("invalid");
    const lone = concat(utf16("<a>", "le"), bytes(0x00, 0xd8), utf16("</a>", "le"));
    expect(refusal(() => decodeBody(lone, "text/xml; charset=utf-16le", "xml")).message).toBe(
      "The body is not valid UTF-16LE.",
    );
    const loneBe = concat(utf16("<a>", "be"), bytes(0xdc, 0x00), utf16("</a>", "be"));
    expect(refusal(() => decodeBody(loneBe, "text/xml; charset=utf-16be", "xml")).reason).toBe("invalid");
  });
});

describe("single-byte charsets", () => {
  it("reads iso-8859-1 as true Latin-1: 0x80-0x9F are U+0080-U+009F, not windows-1252's", () => {
    const body = bytes(0x80, 0x9f, 0xa0, 0xe9, 0xff);
    expect(decodeBody(body, "text/xml; charset=iso-8859-1", "xml")).toBe("\u0080\u009f\u00a0éÿ");
    expect(decodeBody(body, "text/plain; charset=latin1", "text")).toBe("\u0080\u009f\u00a0éÿ");
    // (A browser's TextDecoder("iso-8859-1") is windows-1252 and would give "€" for 0x80; Node's differs.)
  });

  it("reads windows-1252 with its 0x80-0x9F table (and C1 controls for its undefined bytes)", () => {
    const body = bytes(0x80, 0x81, 0x8a, 0x9f, 0xe9, 0x41);
    expect(decodeBody(body, "text/xml; charset=windows-1252", "xml")).toBe("€\u0081ŠŸéA");
    expect(decodeBody(body, "text/xml; charset=cp1252", "xml")).toBe("€\u0081ŠŸéA");
  });

  it("reads us-ascii and refuses a byte above 0x7F", () => {
    expect(decodeBody(utf8("<a>b</a>"), "text/xml; charset=us-ascii", "xml")).toBe("<a>b</a>");
    const error = refusal(() =>
      decodeBody(bytes(0x3c, 0x61, 0x3e, 0xe9), "text/xml; charset=US-ASCII", "xml"),
    );
    expect(error.reason).toBe("invalid");
    expect(error.message).toBe("The body is not valid US-ASCII.");
  });
});

describe("where the charset comes from", () => {
  const LATIN1_XML = '<?xml version="1.0" encoding="ISO-8859-1"?><a>café</a>';

  it("takes the XML declaration's encoding when the Content-Type has no charset", () => {
    expect(decodeBody(latin1(LATIN1_XML), "text/xml", "xml")).toBe(LATIN1_XML);
    expect(decodeBody(latin1(LATIN1_XML), undefined, "xml")).toBe(LATIN1_XML);
    const singleQuoted = "<?xml version='1.0' encoding='windows-1252' standalone='yes'?><a>€</a>";
    expect(decodeBody(bytes(...latin1(singleQuoted.replace("€", "\u0080"))), undefined, "xml")).toBe(
      singleQuoted,
    );
  });

  it("lets the Content-Type charset win over the XML declaration", () => {
    const xml = '<?xml version="1.0" encoding="ISO-8859-1"?><a>café</a>';
    expect(decodeBody(utf8(xml), "text/xml; charset=utf-8", "xml")).toBe(xml);
    expect(
      decodeBody(latin1(xml.replace("ISO-8859-1", "utf-8")), "text/xml; charset=iso-8859-1", "xml"),
    ).toContain("café");
  });

  it("reads a declaration saying utf-16 in an 8-bit document as UTF-8 (a .NET StringWriter's output)", () => {
    const xml = '<?xml version="1.0" encoding="utf-16"?><a>café</a>';
    expect(decodeBody(utf8(xml), undefined, "xml")).toBe(xml);
  });

  it("ignores an XML declaration for text bodies", () => {
    const body = latin1('<?xml version="1.0" encoding="ISO-8859-1"?>café');
    expect(refusal(() => decodeBody(body, undefined, "text")).reason).toBe("invalid");
  });

  it("lets a byte order mark win over a conflicting charset parameter, as .NET's StreamReader does", () => {
    expect(decodeBody(concat(BOM_UTF8, utf8("é")), "text/xml; charset=iso-8859-1", "text")).toBe("é");
    expect(decodeBody(concat(BOM_LE, utf16("é", "le")), "text/xml; charset=utf-8", "text")).toBe("é");
    expect(decodeBody(concat(BOM_LE, utf16("é", "le")), "text/xml; charset=utf-8", "xml")).toBe("\uFEFFé");
  });

  it.each([
    ['text/xml; charset="utf-8"', "utf-8"],
    ["text/xml;charset=UTF-8", "UTF-8"],
    ["text/xml; Charset = iso-8859-1 ", "iso-8859-1"],
    ['application/soap+xml; action="urn:a;charset=latin1"; charset=utf-8', "utf-8"],
    ['application/soap+xml; action="urn:\\"q\\";charset=x"', undefined],
    ["text/xml; boundary; charset=utf-16", "utf-16"],
    ["text/xml", undefined],
    ["text/xml; charset=", ""],
  ])("finds the charset parameter of %j", (contentType, expected) => {
    expect(charsetParameter(contentType)).toBe(expected);
  });

  it("reads quoted and differently cased charset parameters", () => {
    expect(decodeBody(latin1("é"), 'text/plain; charset="ISO-8859-1"', "text")).toBe("é");
    expect(decodeBody(utf8("é"), "text/plain; CHARSET=Utf-8", "text")).toBe("é");
  });

  it("refuses a charset it does not read as unsupported, with the name cut to 40 characters", () => {
    const error = refusal(() => decodeBody(utf8("<a/>"), "text/xml; charset=ebcdic-cp-us", "xml"));
    expect(error.reason).toBe("unsupported");
    expect(error.message).toBe('The charset "ebcdic-cp-us" is not supported.');
    const long = refusal(() => decodeBody(utf8("<a/>"), `text/xml; charset=${"x".repeat(1000)}`, "xml"));
    expect(long.message).toBe(`The charset "${"x".repeat(40)}..." is not supported.`);
    expect(refusal(() => decodeBody(utf8("<a/>"), "text/xml; charset=", "xml")).reason).toBe("unsupported");
    const declared = utf8('<?xml version="1.0" encoding="shift_jis"?><a/>');
    expect(refusal(() => decodeBody(declared, undefined, "xml")).reason).toBe("unsupported");
  });

  it("reads an empty body as empty text", () => {
    expect(decodeBody(new Uint8Array(0), undefined, "xml")).toBe("");
    expect(decodeBody(new Uint8Array(0), "text/xml; charset=utf-16", "xml")).toBe("");
  });
});
