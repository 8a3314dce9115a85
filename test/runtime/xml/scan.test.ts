// The reader contract (tree.ts) as given/want tables. Every case runs against the scanner and, as the
// reference, against the fast-xml-parser reader; fxp.test.ts adds the cases that target
// fast-xml-parser's own leniency.
import { describe, expect, it } from "vitest";
import { readers } from "./readers.js";
import { readXml } from "../../../runtime/xml/scan.js";
import { XmlRefusal } from "../../../runtime/xml/tree.js";
import type { XmlAttribute, XmlElement } from "../../../runtime/xml/tree.js";
import { DATASET_DOCUMENT, SOAP11_REQUEST_BODY, SOAP11_REQUEST_VALUES } from "../../fixtures/wire-samples.js";
import { sameInputRatio } from "../../fixtures/growth.js";

const SOAP11 = "http://schemas.xmlsoap.org/soap/envelope/";
const SOAP12 = "http://www.w3.org/2003/05/soap-envelope";
const TEMPURI = "http://tempuri.org/";
const XML_NS = "http://www.w3.org/XML/1998/namespace";
const XS = "http://www.w3.org/2001/XMLSchema";
const MSDATA = "urn:schemas-microsoft-com:xml-msdata";
const DIFFGR = "urn:schemas-microsoft-com:xml-diffgram-v1";

interface Want {
  ns?: string;
  prefix?: string;
  attrs?: XmlAttribute[];
  children?: XmlElement[];
  text?: string;
}

function el(local: string, want: Want = {}): XmlElement {
  return {
    ns: want.ns ?? "",
    local,
    prefix: want.prefix ?? "",
    attrs: want.attrs ?? [],
    children: want.children ?? [],
    text: want.text ?? "",
  };
}

const params = Object.entries(SOAP11_REQUEST_VALUES).map(([name, text]) => el(name, { ns: TEMPURI, text }));

function envelope(prefix: string, ns: string, body: XmlElement): XmlElement {
  return el("Envelope", { ns, prefix, children: [el("Body", { ns, prefix, children: [body] })] });
}

const cases: Array<{ name: string; given: string; want: XmlElement }> = [
  {
    name: "SOAP 1.1 request as .NET sends it",
    given: SOAP11_REQUEST_BODY,
    want: envelope("soap", SOAP11, el("InsertSubscriberSid", { ns: TEMPURI, children: params })),
  },
  ...(["soapenv", "SOAP-ENV", "s"] as const).map((p) => ({
    name: `envelope prefix ${p}: with prefixed operation`,
    given:
      `<${p}:Envelope xmlns:${p}="${SOAP12}"><${p}:Body><ns0:Op xmlns:ns0="${TEMPURI}">` +
      `<ns0:a>1</ns0:a></ns0:Op></${p}:Body></${p}:Envelope>`,
    want: envelope(
      p,
      SOAP12,
      el("Op", {
        ns: TEMPURI,
        prefix: "ns0",
        children: [el("a", { ns: TEMPURI, prefix: "ns0", text: "1" })],
      }),
    ),
  })),
  {
    name: "tns: declared on the envelope, unqualified children",
    given: `<s:Envelope xmlns:s="${SOAP11}" xmlns:tns="${TEMPURI}"><s:Body><tns:Op><a>x</a></tns:Op></s:Body></s:Envelope>`,
    want: envelope("s", SOAP11, el("Op", { ns: TEMPURI, prefix: "tns", children: [el("a", { text: "x" })] })),
  },
  {
    name: "default namespace undeclared, prefix redefined in a nested scope, outer binding back for a sibling",
    given: `<p:a xmlns:p="urn:1" xmlns="urn:d"><b xmlns=""><p:c xmlns:p="urn:2"/></b><p:c/><d/></p:a>`,
    want: el("a", {
      ns: "urn:1",
      prefix: "p",
      children: [
        el("b", { children: [el("c", { ns: "urn:2", prefix: "p" })] }),
        el("c", { ns: "urn:1", prefix: "p" }),
        el("d", { ns: "urn:d" }),
      ],
    }),
  },
  {
    name: "attributes: prefixed, xml:, declarations left out, order kept, both quotes",
    given: `<a xmlns:q="urn:q" z='1' q:y="2" xml:lang="en" xmlns="urn:d" b = "3"/>`,
    want: el("a", {
      ns: "urn:d",
      attrs: [
        { ns: "", local: "z", value: "1" },
        { ns: "urn:q", local: "y", value: "2" },
        { ns: XML_NS, local: "lang", value: "en" },
        { ns: "", local: "b", value: "3" },
      ],
    }),
  },
  {
    name: "attribute values: normalization, references, quotes and '>'",
    given: `<a v="a\tb\nc\r\nd\re" r="&#9;&#10;&#xD;&amp;&lt;&gt;&quot;&apos;" s='"x"' t="'>'"/>`,
    want: el("a", {
      attrs: [
        { ns: "", local: "v", value: "a b c d e" },
        { ns: "", local: "r", value: "\t\n\r&<>\"'" },
        { ns: "", local: "s", value: '"x"' },
        { ns: "", local: "t", value: "'>'" },
      ],
    }),
  },
  {
    name: "entities and character references in text",
    given: `<a>&lt;&gt;&amp;&quot;&apos; &#65;&#x42;&#x62;&#0000067;&#x1F600;&#xD;</a>`,
    want: el("a", { text: "<>&\"' ABbC\u{1F600}\r" }),
  },
  {
    name: "CDATA is text, unescaped, concatenated with the text around it",
    given: `<a>x<![CDATA[<b>&amp;]]]]><![CDATA[>]]>y<![CDATA[]]></a>`,
    want: el("a", { text: "x<b>&amp;]]>y" }),
  },
  {
    name: "comments and processing instructions skipped everywhere",
    given: `<?xml version="1.0"?><!--c--><?pi x?>\n<a>1<!-- - -->2<?p a='b'?>3<?q?></a><!--e--><?z?>\n`,
    want: el("a", { text: "123" }),
  },
  {
    name: "indentation: whitespace kept as the parent's text",
    given: "<a>\n  <b>x</b>\n  <c> </c>\n</a>",
    want: el("a", { text: "\n  \n  \n", children: [el("b", { text: "x" }), el("c", { text: " " })] }),
  },
  {
    name: "empty elements in every form",
    given: "<a><b/><b></b><b /><b\n/><b ></b ></a>",
    want: el("a", { children: [el("b"), el("b"), el("b"), el("b"), el("b")] }),
  },
  {
    name: "non-ASCII names, text and attribute values",
    given: `<名前 é="ü" xmlns:ñ="urn:ñ"><ñ:Ω>日本語 \u{1F600}</ñ:Ω></名前>`,
    want: el("名前", {
      attrs: [{ ns: "", local: "é", value: "ü" }],
      children: [el("Ω", { ns: "urn:ñ", prefix: "ñ", text: "日本語 \u{1F600}" })],
    }),
  },
  { name: "BOM", given: "\uFEFF<a/>", want: el("a") },
  {
    name: "BOM and declaration",
    given: `\uFEFF<?xml version='1.0' encoding='UTF-8' standalone='yes' ?><a/>`,
    want: el("a"),
  },
  { name: "whitespace around the root", given: " \r\n\t<a/> \n", want: el("a") },
  {
    name: "line ends normalized in text and CDATA",
    given: "<a>1\r\n2\r3<![CDATA[\r\n4\r]]></a>",
    want: el("a", { text: "1\n2\n3\n4\n" }),
  },
  {
    name: "'>', ']>' and ']]' alone are text",
    given: "<a>]> ]]&gt; a>b ]]</a>",
    want: el("a", { text: "]> ]]> a>b ]]" }),
  },
  {
    name: "names with '.', '-', '_' and digits",
    given: "<_a.b-c1 x.y-z_2='1'/>",
    want: el("_a.b-c1", { attrs: [{ ns: "", local: "x.y-z_2", value: "1" }] }),
  },
  {
    name: "xml-prefixed PI target and names starting with xml",
    given: "<?xml-stylesheet href='a'?><xmlThing/>",
    want: el("xmlThing"),
  },
  {
    name: "same local name in two namespaces is not a duplicate",
    given: `<a xmlns:p="urn:1" xmlns:q="urn:2" p:x="1" q:x="2" x="3"/>`,
    want: el("a", {
      attrs: [
        { ns: "urn:1", local: "x", value: "1" },
        { ns: "urn:2", local: "x", value: "2" },
        { ns: "", local: "x", value: "3" },
      ],
    }),
  },
  {
    name: "xml prefix may be declared to its own namespace",
    given: `<a xmlns:xml="${XML_NS}" xml:space="preserve"/>`,
    want: el("a", { attrs: [{ ns: XML_NS, local: "space", value: "preserve" }] }),
  },
];

describe.each(readers)("%s", (_name, read) => {
  it.each(cases)("$name", ({ given, want }) => {
    expect(read(given)).toEqual(want);
  });

  it("reads the DataSet schema and diffgram of docs/wire.md §5", () => {
    const root = read(DATASET_DOCUMENT);
    expect([root.ns, root.local]).toEqual([TEMPURI, "DataSet"]);
    const [schema, diffgram] = root.children;
    expect([schema.ns, schema.local, schema.attrs]).toEqual([
      XS,
      "schema",
      [{ ns: "", local: "id", value: "NewDataSet" }],
    ]);
    const top = schema.children[0];
    expect(top.attrs).toEqual([
      { ns: "", local: "name", value: "NewDataSet" },
      { ns: MSDATA, local: "IsDataSet", value: "true" },
      { ns: MSDATA, local: "UseCurrentLocale", value: "true" },
    ]);
    const columns = top.children[0].children[0].children[0].children[0].children[0].children;
    expect(columns.map((c) => c.attrs.map((a) => a.value))).toEqual([
      ["SubscriberId", "xs:long", "0"],
      ["Email", "xs:string", "0"],
      ["ViewTime", "xs:dateTime", "0"],
      ["DD3", "xs:string", "0"],
    ]);
    expect([diffgram.ns, diffgram.local]).toEqual([DIFFGR, "diffgram"]);
    const table = diffgram.children[0].children[0];
    expect(diffgram.children[0].ns).toBe("");
    expect(table.attrs).toEqual([
      { ns: DIFFGR, local: "id", value: "Table1" },
      { ns: MSDATA, local: "rowOrder", value: "0" },
      { ns: DIFFGR, local: "hasChanges", value: "inserted" },
    ]);
    expect(table.children.map((c) => [c.ns, c.local, c.text])).toEqual([
      ["", "SubscriberId", "7"],
      ["", "Email", "e@x"],
      ["", "ViewTime", "2024-05-06T07:08:09+00:00"],
      ["", "DD3", "v1"],
    ]);
    expect(table.text).toBe("\n        \n        \n        \n        \n      ");
  });

  it.each([
    ["element", "<p:a/>"],
    ["attribute", "<a p:x='1'/>"],
    ["prefix declared on a sibling only", "<a><b xmlns:p='urn:p'/><p:c/></a>"],
    ["prefix declared on a child only", "<p:a><b xmlns:p='urn:p'/></p:a>"],
    ["xmlns used as an element prefix", "<xmlns:a/>"],
  ])("refuses an unbound prefix: %s", (_what, given) => {
    expect(() => read(given)).toThrow(XmlRefusal);
  });
});

describe("long decoded text (decoded in batches of pieces)", () => {
  it("decodes text with tens of thousands of references, CRs and plain runs exactly", () => {
    const unit = "ab&amp;&lt;c\r\nd&#x1F600;&#233;\re&quot;";
    const want = 'ab&<c\nd\u{1F600}\u00e9\ne"';
    const count = 20_000; // 8 pieces each: many times the batch size
    const el = readXml(`<t>${unit.repeat(count)}</t>`);
    expect(el.text.length).toBe(want.length * count);
    expect(el.text === want.repeat(count)).toBe(true);
  });

  it("decodes a long attribute value with tabs, newlines and references exactly", () => {
    const unit = "x\ty\nz&amp;&#10;";
    const want = "x y z&\n";
    const el = readXml(`<t a="${unit.repeat(10_000)}"/>`);
    expect(el.attrs[0].value === want.repeat(10_000)).toBe(true);
  });
});

describe("reference searches stay linear across text runs", () => {
  it("reads 200,000 runs holding only a CR between references at the two ends of the document", () => {
    // Each run looks for its next '&': without the remembered search each would scan to the document's
    // end (200,000 x 2.2 MB); with it, every character is searched once. Instead of a time bound, 100
    // documents of 2,000 runs against one of 200,000: about the same time; ~100 times with a search per
    // run.
    const doc = (runs: number) => `<r><a>&amp;</a>${"<b>x\ry</b>".repeat(runs)}<c>&lt;</c></r>`;
    const small = doc(2_000);
    const large = doc(200_000);
    expect(
      sameInputRatio(
        () => readXml(small),
        () => readXml(large),
      ),
    ).toBeLessThan(10);
    const root = readXml(large);
    expect(root.children).toHaveLength(200_002);
    expect(root.children[1].text).toBe("x\ny");
    expect(root.children[0].text).toBe("&");
    expect(root.children[200_001].text).toBe("<");
  });

  it("a second document does not inherit the first one's remembered positions", () => {
    readXml(`<a>${"x".repeat(100)}&amp;</a>`);
    expect(readXml("<a>y&amp;z\rw</a>").text).toBe("y&z\nw");
  });
});
