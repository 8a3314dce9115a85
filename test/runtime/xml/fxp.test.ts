// The fast-xml-parser reader: where fast-xml-parser on its own is lenient or wrong, and how
// readXmlWithFastXmlParser (and the scanner, which it is the oracle for) behave there.
import { XMLParser, XMLValidator } from "fast-xml-parser";
import { describe, expect, it } from "vitest";
import { readXml } from "../../../runtime/xml/scan.js";
import { readXmlWithFastXmlParser } from "../../oracle/fxp.js";
import { XmlRefusal } from "../../../runtime/xml/tree.js";
import type { XmlElement } from "../../../runtime/xml/tree.js";

const readers = [
  ["readXml", readXml],
  ["readXmlWithFastXmlParser", readXmlWithFastXmlParser],
] as const;

const raw = new XMLParser({
  preserveOrder: true,
  ignoreAttributes: false,
  processEntities: false,
  trimValues: false,
  parseTagValue: false,
});

/** fast-xml-parser alone: the validator accepts and the parser produces a tree. */
function fastXmlParserAccepts(text: string): boolean {
  if (XMLValidator.validate(text) !== true) return false;
  try {
    raw.parse(text);
    return true;
  } catch {
    return false;
  }
}

function leaf(local: string, text = ""): XmlElement {
  return { ns: "", local, prefix: "", attrs: [], children: [], text };
}

// Each of these is accepted by XMLValidator.validate and XMLParser.parse, but is not well-formed
// (or not namespace-well-formed) XML.
const lenient: Array<[string, string]> = [
  ["a second root after an empty root", "<a/><b/>"],
  ["text after an empty root", "<a/>x"],
  ["a reference after the root", "<a></a>&amp;"],
  ["CDATA after the root", "<a/><![CDATA[x]]>"],
  ["'<' in an attribute value", "<a b='<'/>"],
  ["'&' in an attribute value", "<a b='x & y'/>"],
  ["an unknown entity", "<a>&nbsp;</a>"],
  ["an empty character reference", "<a>&#;</a>"],
  ["a character reference to NUL", "<a>&#0;</a>"],
  ["a NUL character", "<a>\u0000</a>"],
  ["a lone surrogate", "<a>\uD800</a>"],
  ["a control character in a comment", "<a><!-- \u0007 --></a>"],
  ["']]>' in text", "<a>x]]>y</a>"],
  ["'--' inside a comment", "<a><!-- a -- b --></a>"],
  ["a misspelt CDATA section (read as CDATA)", "<a><![CDATX[x]]></a>"],
  ["an unknown markup declaration (read as an element)", "<a><!ELEMENT a ANY></a>"],
  ["an unbound prefix", "<p:a/>"],
  ["two colons in a name", "<a:b:c xmlns:a='u'/>"],
  ["a name ending in a colon", "<a:/>"],
  ["a duplicate expanded attribute name", "<a xmlns:p='u' xmlns:q='u' p:x='1' q:x='2'/>"],
  ["a prefix bound to the empty name", "<a xmlns:p=''/>"],
  ["an XML declaration with version 2.0", "<?xml version='2.0'?><a/>"],
  ["a PI target with a colon", "<a><?p:i?></a>"],
  ["a DOCTYPE (read, then ignored)", "<!DOCTYPE a><a/>"],
  // Found by differential.test.ts:
  ["text with '>' after an empty root", "<a/>x>"],
  ["an end tag ending in '/>' (taken for an empty element, then popping the wrong element)", "<a>x</b/></a>"],
  ["a NUL inside a PI", "<a><?pi \u0000?></a>"],
  ["a no-break space after a tag name (trimmed away)", "<a\u00A0></a>"],
  ["a repeated __proto__ attribute", "<a __proto__='1' __proto__='2'/>"],
];

describe("fast-xml-parser on its own is lenient about", () => {
  it.each(lenient)("%s", (_what, given) => {
    expect(fastXmlParserAccepts(given)).toBe(true);
  });
});

describe.each(readers)("%s closes the gap and refuses", (_name, read) => {
  it.each(lenient)("%s", (_what, given) => {
    expect(() => read(given)).toThrow(XmlRefusal);
  });
});

describe.each(readers)("%s reads what fast-xml-parser on its own gets wrong", (_name, read) => {
  it("a processing instruction with an apostrophe (fast-xml-parser throws or swallows markup)", () => {
    const doc = "<a><?pi it's?><b c='1'/><?q don't?>x</a>";
    // fast-xml-parser skips quoted runs inside a PI, so <b c='1'/> disappears into "?pi".
    expect(raw.parse(doc)).toEqual([
      { a: [{ "?pi": [{ "#text": "" }], ":@": { "@_c": "1" } }, { "#text": "x" }] },
    ]);
    expect(() => raw.parse("<a><?pi it's?></a>")).toThrow();
    expect(read(doc)).toEqual({
      ...leaf("a", "x"),
      children: [{ ...leaf("b"), attrs: [{ ns: "", local: "c", value: "1" }] }],
    });
  });

  it.each(["constructor", "__proto__", "prototype", "toString", "hasOwnProperty", "valueOf"])(
    "an element and an attribute named %s",
    (name) => {
      expect(read(`<${name} ${name}="1"><${name}>t</${name}></${name}>`)).toEqual({
        ...leaf(name),
        attrs: [{ ns: "", local: name, value: "1" }],
        children: [leaf(name, "t")],
      });
    },
  );

  it("__proto__ in names, text and values, next to the stand-in's characters", () => {
    const doc = "<__proto__ __proto__='__proto__' p__proto__='一'>__proto__proto__一丁</__proto__>";
    expect(read(doc)).toEqual({
      ...leaf("__proto__", "__proto__proto__一丁"),
      attrs: [
        { ns: "", local: "__proto__", value: "__proto__" },
        { ns: "", local: "p__proto__", value: "一" },
      ],
    });
  });

  it("text and elements named like fast-xml-parser's own keys", () => {
    expect(read("<text><cdata>#text</cdata></text>").children[0]).toEqual(leaf("cdata", "#text"));
  });

  it("text on both sides of a comment stays apart for the ']]>' check", () => {
    expect(read("<a>]]<!---->></a>").text).toBe("]]>");
  });

  it("the same document with different depth limits", () => {
    const doc = "<a><b><c/></b></a>";
    expect(() => read(doc, { maxDepth: 2 })).toThrow(XmlRefusal);
    expect(read(doc, { maxDepth: 3 }).children[0].children[0].local).toBe("c");
    expect(() => read(doc, { maxDepth: 2 })).toThrow(XmlRefusal);
  });
});

describe.each(readers)("%s keeps JavaScript-only whitespace apart from XML's", (_name, read) => {
  it("in text and attribute values", () => {
    const odd = "\u00A0\u1680\u2000\u200A\u2028\u2029\u202F\u205F\u3000\uFEFF";
    expect(read(`<a b="${odd}">${odd}<![CDATA[${odd}]]></a>`)).toEqual({
      ...leaf("a", odd + odd),
      attrs: [{ ns: "", local: "b", value: odd }],
    });
  });

  it("refuses it where XML wants whitespace", () => {
    expect(() => read("<a\u00A0b='1'/>")).toThrow(XmlRefusal);
    expect(() => read("<a></a\u3000>")).toThrow(XmlRefusal);
  });
});

describe("known differences between the readers", () => {
  // XML 1.0 (5th edition) allows name characters from U+10000 to U+EFFFF. XMLValidator's name
  // pattern is a non-Unicode regex that stops at U+FFFF, so the fast-xml-parser reader refuses
  // such names; the scanner follows the specification and reads them. Text is not affected.
  const doc = "<a\u{10000} b\u{E0100}='1'>\u{1F600}</a\u{10000}>";

  it("the scanner reads names beyond U+FFFF", () => {
    expect(readXml(doc)).toEqual({
      ...leaf("a\u{10000}", "\u{1F600}"),
      attrs: [{ ns: "", local: "b\u{E0100}", value: "1" }],
    });
  });

  it("the fast-xml-parser reader refuses them", () => {
    expect(() => readXmlWithFastXmlParser(doc)).toThrow(XmlRefusal);
  });

  // U+FEFF and U+1680 are XML name characters that JavaScript's \s matches: fast-xml-parser alone
  // splits the name there (reading attribute "c" below); the fast-xml-parser reader refuses instead.
  it.each(["<a b\uFEFFc='1'/>", "<a\u1680b/>"])("names with U+FEFF or U+1680: %j", (given) => {
    expect(() => readXml(given)).not.toThrow();
    expect(() => readXmlWithFastXmlParser(given)).toThrow(XmlRefusal);
  });

  it("fast-xml-parser alone misreads them", () => {
    expect(raw.parse("<a b\uFEFFc='1'/>")).toEqual([{ a: [], ":@": { "@_c": "1" } }]);
  });

  // XMLValidator skips a stray '=' on purpose and fast-xml-parser leaves no trace of it, so the
  // fast-xml-parser reader accepts it, as if it were not there. XML does not allow it.
  it.each(["<a b='1'= c='2'/>", "<a b='1' = />"])("a stray '=' in a start tag: %j", (given) => {
    expect(() => readXml(given)).toThrow("Expected an attribute name before '='.");
    expect(readXmlWithFastXmlParser(given).attrs[0]).toEqual({ ns: "", local: "b", value: "1" });
  });
});
