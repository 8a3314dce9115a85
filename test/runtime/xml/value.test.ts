// XML values (spec types xmlElement and xmlNode): reading the one element a holder carries, and writing a
// caller's or handler's value back with the namespace declarations it needs, refusing what is not one.

import { describe, expect, it } from "vitest";
import { readXml } from "../../../runtime/xml/scan.js";
import type { XmlElement } from "../../../runtime/xml/tree.js";
import {
  MAX_XML_VALUE_DEPTH,
  MAX_XML_VALUE_NODES,
  XmlValueError,
  xmlValueMarkup,
  xmlValueOf,
} from "../../../runtime/xml/value.js";

const fail = (m: string) => new TypeError(m);
const write = (value: unknown, pretty = false) => xmlValueMarkup(value, "v", pretty, 0, fail);
const holding = (inner: string) =>
  readXml(`<h xmlns="urn:h" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">${inner}</h>`);
const el = (local: string, extra: Partial<XmlElement> = {}): XmlElement => ({
  ns: "",
  local,
  prefix: "",
  attrs: [],
  children: [],
  text: "",
  ...extra,
});

describe("xmlValueOf", () => {
  it("reads the holder's one element, namespaces resolved, whitespace between elements dropped", () => {
    const v = xmlValueOf(
      holding('\n  <o:order xmlns:o="urn:o" id="7">\n    <o:line>2</o:line>\n  </o:order>\n'),
      "r",
    );
    expect(v).toEqual({
      ns: "urn:o",
      local: "order",
      prefix: "o",
      attrs: [{ ns: "", local: "id", value: "7" }],
      children: [{ ns: "urn:o", local: "line", prefix: "o", attrs: [], children: [], text: "2" }],
      text: "",
    });
  });

  it("reads an empty holder as null", () => {
    expect(xmlValueOf(holding(""), "r")).toBeNull();
    expect(xmlValueOf(holding("  \n"), "r")).toBeNull();
  });

  it.each([
    ["text", "just text", "holds text where an XML element is expected"],
    ["two elements", "<a/><b/>", "holds 2 XML elements"],
    ["text beside the element", "x<a/>", "holds text beside its XML element"],
    ["mixed content inside", "<a>x<b/>y</a>", "element a holds both text and elements"],
    ["mixed content deeper", "<a><b><c>t<d/></c></b></a>", "element c holds both text and elements"],
  ])("refuses %s, naming the value", (_, inner, message) => {
    expect(() => xmlValueOf(holding(inner), "GetNodeResult")).toThrow(XmlValueError);
    expect(() => xmlValueOf(holding(inner), "GetNodeResult")).toThrow(message);
  });
});

describe("xmlValueMarkup", () => {
  it("declares the root's default namespace, keeps prefixes, reuses a prefix in scope for attributes", () => {
    const value = el("thing", {
      ns: "urn:q",
      prefix: "q",
      attrs: [{ ns: "http://www.w3.org/2001/XMLSchema-instance", local: "type", value: "q:T" }],
      children: [
        el("a", { ns: "urn:q", prefix: "q", text: "1" }),
        el("b", { attrs: [{ ns: "urn:q", local: "n", value: 'x"<&' }], text: "t & <u>" }),
        el("c", { ns: "urn:other", attrs: [{ ns: "urn:z", local: "z", value: "" }] }),
      ],
    });
    expect(write(value)).toBe(
      '<q:thing xmlns:q="urn:q" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xsi:type="q:T">' +
        '<q:a>1</q:a><b xmlns="" q:n="x&quot;&lt;&amp;">t &amp; &lt;u&gt;</b>' +
        '<c xmlns="urn:other" xmlns:a1="urn:z" a1:z="" /></q:thing>',
    );
  });

  it("writes what it reads: read → write → read gives the same value", () => {
    const text = '<r xmlns="urn:r" xmlns:p="urn:p" p:x="1"><p:k>v</p:k><n xmlns="">é &amp; 名</n><e /></r>';
    const first = xmlValueOf(holding(text), "r");
    const again = xmlValueOf(holding(write(first)), "r");
    expect(again).toEqual(first);
    // An attribute's prefix is not kept by the tree: a prefix is made for it (the value is the same).
    expect(write(first)).toBe(
      '<r xmlns="urn:r" xmlns:a1="urn:p" a1:x="1"><p:k xmlns:p="urn:p">v</p:k><n xmlns="">é &amp; 名</n><e /></r>',
    );
  });

  it("indents elements-only content in the indented layout", () => {
    expect(write(el("a", { children: [el("b", { text: "1" }), el("c")] }), true)).toBe(
      '<a xmlns="">\n  <b>1</b>\n  <c />\n</a>',
    );
  });

  it.each([
    ["a string", "<a/>", "v is not an XML element"],
    ["a name that is not an XML name", el("a><script"), 'v.local, "a><script", is not an XML name'],
    [
      "an attribute name that is not one",
      el("a", { attrs: [{ ns: "", local: "x y", value: "" }] }),
      "is not an XML name",
    ],
    [
      "a namespace declaration as an attribute",
      el("a", { attrs: [{ ns: "", local: "xmlns", value: "u" }] }),
      "is a namespace declaration",
    ],
    [
      "a duplicate attribute",
      el("a", {
        attrs: [
          { ns: "", local: "x", value: "1" },
          { ns: "", local: "x", value: "2" },
        ],
      }),
      "appears twice",
    ],
    ["mixed content", el("a", { text: "t", children: [el("b")] }), "holds both text and elements"],
    [
      "a character XML cannot carry",
      el("a", { text: "\u0001" }),
      "v String contains a character XML 1.0 does not allow",
    ],
    [
      "a child that is not an element",
      el("a", { children: [42 as unknown as XmlElement] }),
      "v.children[0] is not an XML element",
    ],
  ])("refuses %s", (_, value, message) => {
    expect(() => write(value)).toThrow(TypeError);
    expect(() => write(value)).toThrow(message);
  });

  it("refuses a value that holds itself (a cycle) at the depth limit, not by running forever", () => {
    const a: { ns: string; local: string; children: unknown[] } = { ns: "", local: "a", children: [] };
    a.children.push(a);
    expect(() => write(a)).toThrow(`nests deeper than ${MAX_XML_VALUE_DEPTH} elements`);
  });

  it("refuses more elements and attributes than the limit", () => {
    const wide = el("a", { children: Array.from({ length: MAX_XML_VALUE_NODES }, () => el("b")) });
    expect(() => write(wide)).toThrow(`more than ${MAX_XML_VALUE_NODES} elements and attributes`);
  });
});
