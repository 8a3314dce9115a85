// What both readers refuse, and why: DTDs (entity expansion, XXE), nesting depth, malformed input.
import { describe, expect, it } from "vitest";
import { readers, refusal } from "./readers.js";
import { readXml } from "../../../runtime/xml/scan.js";
import { DEFAULT_MAX_DEPTH } from "../../../runtime/xml/tree.js";
import type { XmlRefusalReason } from "../../../runtime/xml/tree.js";

const BILLION_LAUGHS = `<?xml version="1.0"?>
<!DOCTYPE lolz [
 <!ENTITY lol "lol">
 <!ENTITY lol1 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
 <!ENTITY lol2 "&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;">
 <!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">
 <!ENTITY lol9 "&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;">
]>
<lolz>&lol9;</lolz>`;

const doctypes: Array<[string, string]> = [
  ["a bare DOCTYPE", "<!DOCTYPE a><a/>"],
  ["internal entity expansion (billion laughs)", BILLION_LAUGHS],
  [
    "external entity (XXE)",
    `<?xml version="1.0"?><!DOCTYPE foo [<!ENTITY xxe SYSTEM "file:///etc/passwd">]><foo>&xxe;</foo>`,
  ],
  ["external DTD", `<!DOCTYPE soap:Envelope SYSTEM "http://evil.example/x.dtd"><soap:Envelope/>`],
  ["parameter entity", `<!DOCTYPE a [<!ENTITY % p SYSTEM "http://evil.example/p"> %p;]><a/>`],
  ["DOCTYPE after a comment and a PI", "\uFEFF<?xml version='1.0'?><!-- c --><?pi?><!DOCTYPE a []><a/>"],
  ["ENTITY declaration inside an element", `<a><!ENTITY x "y"></a>`],
  ["DOCTYPE inside an element", "<a><!DOCTYPE a></a>"],
  ["DOCTYPE after the root", "<a/><!DOCTYPE a>"],
];

const malformed: Array<[string, string]> = [
  ["empty document", ""],
  ["whitespace only", " \n"],
  ["only a declaration and a comment", "<?xml version='1.0'?><!--x-->"],
  ["mismatched end tag", "<a><b></a></b>"],
  ["end tag with another prefix", "<p:a xmlns:p='u' xmlns:q='u'></q:a>"],
  ["unclosed root", "<a><b/>"],
  ["unclosed child", "<a><b></a>"],
  ["end tag without start", "</a>"],
  ["stray end tag after the root", "<a/></a>"],
  ["text after the root", "<a/>x"],
  ["reference after the root", "<a/>&amp;"],
  ["text before the root", "x<a/>"],
  ["text after the root before a comment", "<a></a>x<!---->"],
  ["second root element", "<a/><b/>"],
  ["second root after a comment", "<a></a><!----><b></b>"],
  ["CDATA before the root", "<![CDATA[x]]><a/>"],
  ["CDATA after the root", "<a/><![CDATA[x]]>"],
  ["'<' in text", "<a>1 < 2</a>"],
  ["'&' in text", "<a>fish & chips</a>"],
  ["'&' in an attribute", "<a b='x & y'/>"],
  ["'<' in an attribute", "<a b='<'/>"],
  ["unknown entity", "<a>&nbsp;</a>"],
  ["unknown entity in an attribute", "<a b='&foo;'/>"],
  ["unterminated reference", "<a>&amp</a>"],
  ["empty reference", "<a>&;</a>"],
  ["empty character reference", "<a>&#;</a>"],
  ["uppercase X in a hex reference", "<a>&#X41;</a>"],
  ["character reference to NUL", "<a>&#0;</a>"],
  ["character reference to a control character", "<a>&#x1F;</a>"],
  ["character reference to a surrogate", "<a>&#xD800;</a>"],
  ["character reference to U+FFFE", "<a>&#xFFFE;</a>"],
  ["character reference beyond U+10FFFF", "<a>&#x110000;</a>"],
  ["huge decimal character reference", "<a>&#99999999999999999999;</a>"],
  ["NUL in text", "<a>\u0000</a>"],
  ["control character in an attribute", "<a b='\u0001'/>"],
  ["lone high surrogate", "<a>\uD800</a>"],
  ["lone low surrogate", "<a>\uDC00x</a>"],
  ["U+FFFF in text", "<a>\uFFFF</a>"],
  ["control character in a comment", "<a><!-- \u0007 --></a>"],
  ["duplicate attribute", "<a b='1' b='2'/>"],
  ["duplicate expanded attribute name", "<a xmlns:p='u' xmlns:q='u' p:x='1' q:x='2'/>"],
  ["duplicate namespace declaration", "<a xmlns:p='u' xmlns:p='v'/>"],
  ["attribute without a value", "<a b/>"],
  ["unquoted attribute value", "<a b=1/>"],
  ["attribute without '='", "<a b '1'/>"],
  ["no space between attributes", "<a b='1'c='2'/>"],
  ["unterminated attribute value", "<a b='1/>"],
  ["space after '<'", "< a/>"],
  ["space in an end tag before the name", "<a></ a>"],
  ["'/' not followed by '>'", "<a/ >"],
  ["invalid name start", "<1a/>"],
  ["invalid name character", "<a$b/>"],
  ["colon at the start of a name", "<:a/>"],
  ["colon at the end of a name", "<a:/>"],
  ["two colons in a name", "<a:b:c xmlns:a='u'/>"],
  ["empty prefix declaration", "<a xmlns:p=''/>"],
  ["xml prefix rebound", "<a xmlns:xml='urn:x'/>"],
  ["xmlns prefix declared", "<a xmlns:xmlns='urn:x'/>"],
  ["xml namespace bound to another prefix", "<a xmlns:p='http://www.w3.org/XML/1998/namespace'/>"],
  ["xmlns namespace as default", "<a xmlns='http://www.w3.org/2000/xmlns/'/>"],
  ["']]>' in text", "<a>x]]>y</a>"],
  ["unterminated comment", "<a><!-- x</a>"],
  ["'--' inside a comment", "<a><!-- a -- b --></a>"],
  ["comment ending in '-'", "<a><!-- a ---></a>"],
  ["unterminated CDATA", "<a><![CDATA[x</a>"],
  ["misspelt CDATA", "<a><![CDATX[x]]></a>"],
  ["lowercase doctype", "<!doctype a><a/>"],
  ["unknown markup declaration", "<a><!ELEMENT a ANY></a>"],
  ["unterminated PI", "<a><?pi x</a>"],
  ["PI without a target", "<a><? x?></a>"],
  ["PI target followed by a non-space", "<a><?pi\u00A0x?></a>"],
  ["PI target with a colon", "<a><?p:i?></a>"],
  ["XML declaration not at the start", " <?xml version='1.0'?><a/>"],
  ["XML declaration after the root", "<a/><?xml version='1.0'?>"],
  ["XML declaration in uppercase inside content", "<a><?XML x?></a>"],
  ["XML declaration without version", "<?xml encoding='utf-8'?><a/>"],
  ["XML declaration with version 2.0", "<?xml version='2.0'?><a/>"],
  ["XML declaration with fields out of order", "<?xml version='1.0' standalone='yes' encoding='utf-8'?><a/>"],
  ["XML declaration with bad standalone", "<?xml version='1.0' standalone='maybe'?><a/>"],
  ["XML declaration with mismatched quotes", "<?xml version='1.0\"?><a/>"],
  ["bare <?xml?>", "<?xml?><a/>"],
  ["BOM twice", "\uFEFF\uFEFF<a/>"],
  ["end of input inside a start tag", "<a b='1'"],
  ["end of input inside an empty-element tag", "<a b='1'/"],
  ["end of input inside an end tag", "<a></a"],
  ["end of input after '<'", "<a><"],
];

describe.each(readers)("%s", (_name, read) => {
  it.each(doctypes)("refuses %s as doctype", (_what, given) => {
    expect(refusal(read, given).reason).toBe<XmlRefusalReason>("doctype");
  });

  it("reads DOCTYPE-like text inside CDATA and comments", () => {
    const doc = "<!-- <!DOCTYPE x> --><a><![CDATA[<!DOCTYPE html><!ENTITY x>]]><!-- <!ENTITY y> --></a>";
    expect(read(doc).text).toBe("<!DOCTYPE html><!ENTITY x>");
  });

  it("refuses 10 000 nested elements without overflowing the stack", () => {
    const doc = `${"<a>".repeat(10_000)}x${"</a>".repeat(10_000)}`;
    expect(refusal(read, doc).reason).toBe<XmlRefusalReason>("depth");
  });

  it("refuses at the start tag that passes the depth limit, before reading what follows", () => {
    // Instead of a time bound: garbage right after the limit is never read, so the refusal costs the
    // same whatever follows (a reader that read the document first would call it malformed).
    const doc = `${"<a>".repeat(DEFAULT_MAX_DEPTH + 1)}<<<&&& unterminated${"</a>".repeat(10_000)}`;
    expect(refusal(read, doc).reason).toBe<XmlRefusalReason>("depth");
  });

  it("refuses 1 000 000 unclosed start tags as too deep", () => {
    expect(refusal(read, "<a>".repeat(1_000_000)).reason).toBe<XmlRefusalReason>("depth");
  });

  it.each([
    ["at the default limit", DEFAULT_MAX_DEPTH, undefined, true],
    ["one past the default limit", DEFAULT_MAX_DEPTH + 1, undefined, false],
    ["at a custom limit", 3, 3, true],
    ["one past a custom limit", 4, 3, false],
  ] as const)("nesting %s", (_what, depth, maxDepth, ok) => {
    const open = `${"<a>".repeat(depth - 1)}<b/>`;
    const doc = open + "</a>".repeat(depth - 1);
    const options = maxDepth === undefined ? undefined : { maxDepth };
    if (ok) expect(read(doc, options).local).toBe("a");
    else expect(refusal(read, doc, options).reason).toBe<XmlRefusalReason>("depth");
  });

  it("counts the root as depth 1", () => {
    expect(read("<a/>", { maxDepth: 1 }).local).toBe("a");
    expect(refusal(read, "<a><b/></a>", { maxDepth: 1 }).reason).toBe("depth");
    expect(refusal(read, "<a/>", { maxDepth: 0 }).reason).toBe("depth");
  });

  it.each(malformed)("refuses %s as malformed", (_what, given) => {
    const e = refusal(read, given);
    expect(e.reason).toBe<XmlRefusalReason>("malformed");
    expect(e.message).toMatch(/^[A-Z'].{5,100}\.$/);
    expect(e.name).toBe("XmlRefusal");
  });
});

it("keeps refusal messages free of long input", () => {
  const name = "n".repeat(5000);
  const e = refusal(readXml, `<${name}>`);
  expect(e.message.length).toBeLessThan(120);
});
