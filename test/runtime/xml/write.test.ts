import { describe, expect, it } from "vitest";
import { assertXmlChars, escapeAttr, escapeText } from "../../../runtime/xml/write.js";
import { readXml } from "../../../runtime/xml/scan.js";
import { mulberry32 } from "../../fixtures/random.js";

describe("escapeText", () => {
  it.each([
    ["", ""],
    ["plain ASCII", "plain ASCII"],
    ["a & b", "a &amp; b"],
    ["<tag>", "&lt;tag&gt;"],
    ["]]>", "]]&gt;"],
    ["quotes \" and ' stay", "quotes \" and ' stay"],
    ["tab\tand\nnewline stay", "tab\tand\nnewline stay"],
    ["CR\r\nLF", "CR&#xD;\nLF"],
    ["non-ASCII é 日本 \u{1F600} stays", "non-ASCII é 日本 \u{1F600} stays"],
    ["&&", "&amp;&amp;"],
    ["x<", "x&lt;"],
  ])("%j -> %j", (given, want) => {
    expect(escapeText(given)).toBe(want);
  });

  it("returns the very same string when nothing needs escaping", () => {
    const s = "Hello, wörld\n\t\u{1F600}";
    expect(escapeText(s)).toBe(s);
  });
});

describe("escapeAttr", () => {
  it.each([
    ["", ""],
    ["plain", "plain"],
    ['a "quoted" value', "a &quot;quoted&quot; value"],
    ["single ' stays", "single ' stays"],
    ["<&>", "&lt;&amp;&gt;"],
    ["\t\n\r", "&#x9;&#xA;&#xD;"],
    ["é \u{1F600}", "é \u{1F600}"],
  ])("%j -> %j", (given, want) => {
    expect(escapeAttr(given)).toBe(want);
  });
});

const forbidden: Array<[string, string]> = [
  ["NUL", "a\u0000b"],
  ["U+0008", "\u0008"],
  ["vertical tab", "\u000B"],
  ["form feed", "\u000C"],
  ["U+001F", "x\u001F"],
  ["lone high surrogate", "\uD800"],
  ["lone high surrogate before a letter", "\uDBFFa"],
  ["lone low surrogate", "a\uDC00"],
  ["reversed pair", "\uDE00\uD83D"],
  ["U+FFFE", "\uFFFE"],
  ["U+FFFF", "\uFFFF"],
];

describe.each([
  ["escapeText", escapeText],
  ["escapeAttr", escapeAttr],
  ["assertXmlChars", assertXmlChars],
] as const)("%s refuses characters XML 1.0 does not allow", (_name, fn) => {
  it.each(forbidden)("%s", (_what, given) => {
    expect(() => fn(given)).toThrow(RangeError);
  });

  it("names the character and where it is", () => {
    expect(() => fn("ab\u0001")).toThrow(
      "String contains a character XML 1.0 does not allow (U+0001) at index 2.",
    );
    expect(() => fn("\uD800")).toThrow("String contains an unpaired surrogate (U+D800) at index 0.");
  });

  it("accepts the edges of the allowed ranges", () => {
    const edges = "\t\n\r \uD7FF\uE000\uFFFD\u{10000}\u{10FFFF}";
    expect(() => fn(edges)).not.toThrow();
  });
});

it("assertXmlChars returns its argument", () => {
  expect(assertXmlChars("abc")).toBe("abc");
});

describe("round trip through readXml", () => {
  // Seeded random strings over an alphabet of awkward characters.
  const alphabet = [
    "a",
    " ",
    "\t",
    "\n",
    "\r",
    "\r\n",
    "&",
    "<",
    ">",
    '"',
    "'",
    "]]>",
    "é",
    "\u{1F600}",
    ";",
    "&amp;",
  ];
  const next = mulberry32(42);
  const strings = Array.from({ length: 500 }, () =>
    Array.from(
      { length: Math.floor(next() * 12) },
      () => alphabet[Math.floor(next() * alphabet.length)],
    ).join(""),
  );

  it("escapeText output reads back as the original text", () => {
    for (const s of strings) expect(readXml(`<a>${escapeText(s)}</a>`).text).toBe(s);
  });

  it("escapeAttr output reads back as the original attribute value", () => {
    for (const s of strings) expect(readXml(`<a v="${escapeAttr(s)}"/>`).attrs[0].value).toBe(s);
  });
});
