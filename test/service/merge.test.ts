// Merge tags in HTML by context (service/common/merge.ts mergeHtml): a value never gives a URL attribute a
// scheme other than http, https or mailto (javascript:, data:, vbscript: in any spelling browsers accept,
// across template text and value, in every URL attribute and quoting), never opens a tag, adds an
// attribute or ends a comment, and safe values come out as before (HTML-escaped). The browser's own reading
// of the same output is test/service/merge-chromium.test.ts.

import { describe, expect, it } from "vitest";
import { type MergeValues, mergeHtml, urlScheme } from "../../service/common/merge.js";

const values = (fields: Record<number, string>, name = "Ann"): MergeValues => ({
  name,
  email: "ann@example.com",
  fields: new Map(Object.entries(fields).map(([k, v]) => [Number(k), v])),
});

/** Values that make a URL run script or carry content, as browsers read them. */
const ACTIVE = [
  "javascript:alert(1)",
  "JaVaScRiPt:alert(1)",
  " \u0001javascript:alert(1)",
  "java\tscript:alert(1)",
  "java\nscript:alert(1)",
  "java\rscript:alert(1)",
  "\u00a0javascript:alert(1)",
  "\u200bjavascript:alert(1)",
  "javascript\u0000:alert(1)",
  "vbscript:msgbox(1)",
  "data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==",
  "DATA:image/svg+xml,<svg onload=alert(1)>",
  "jar:https://x/!/",
  "ms-settings:",
];

describe("mergeHtml: URL attributes", () => {
  it("empties a URL attribute a value gives an active scheme, in every quoting and URL attribute", () => {
    const templates = [
      '<a href="{{DD1}}">x</a>',
      "<a href='{{DD1}}'>x</a>",
      "<a href={{DD1}}>x</a>",
      '<a title="t" HREF = "{{DD1}}" class=c>x</a>',
      '<img src="{{DD1}}">',
      '<form action="{{DD1}}"></form>',
      '<button formaction="{{DD1}}">b</button>',
      '<table background="{{DD1}}"></table>',
      '<svg><a xlink:href="{{DD1}}">x</a></svg>',
      '<video poster="{{DD1}}"></video>',
      '<blockquote cite="{{DD1}}"></blockquote>',
      '<object data="{{DD1}}"></object>',
      '<a ping="https://ok.example/p {{DD1}}" href="https://ok.example/">x</a>',
      '<img srcset="https://ok.example/1.png 1x, {{DD1}} 2x">',
      '<a href=" {{DD1}} ">x</a>',
    ];
    for (const template of templates) {
      for (const value of ACTIVE) {
        // In srcset and ping white space ends a URL: "java" is all a browser reads of "java\tscript:...".
        if (/srcset|ping/.test(template) && /\S\s+\S/.test(value)) continue;
        const out = mergeHtml(template, values({ 1: value }));
        const attributes = [...out.matchAll(/\s([\w:-]+)\s*=\s*("[^"]*"|'[^']*'|[^\s>]*)/g)];
        for (const [, name, raw] of attributes) {
          const text = raw!.replace(/^["']|["']$/g, "");
          expect(
            text === "" || !/alert|msgbox|base64|svg|jar:|ms-settings/.test(text),
            `${template} / ${JSON.stringify(value)} -> ${out}`,
          ).toBe(true);
          expect(name!.toLowerCase().startsWith("on"), out).toBe(false);
        }
      }
    }
  });

  it("empties it when template text and value together make the scheme", () => {
    expect(mergeHtml('<a href="java{{DD1}}">x</a>', values({ 1: "script:alert(1)" }))).toBe(
      '<a href="">x</a>',
    );
    expect(mergeHtml('<a href="&#106;ava{{DD1}}">x</a>', values({ 1: "script:alert(1)" }))).toBe(
      '<a href="">x</a>',
    );
    expect(mergeHtml('<a href="&#x6A;ava&Tab;{{DD1}}">x</a>', values({ 1: "script:alert(1)" }))).toBe(
      '<a href="">x</a>',
    );
    expect(mergeHtml('<a href="{{DD1}}{{DD2}}">x</a>', values({ 1: "java", 2: "script:alert(1)" }))).toBe(
      '<a href="">x</a>',
    );
    expect(mergeHtml('<a href="{{DD1}}&colon;alert(1)">x</a>', values({ 1: "javascript" }))).toBe(
      '<a href="">x</a>',
    );
    expect(
      mergeHtml('<a href="{{DD1}}https://ok.example/">x</a>', values({ 1: "javascript:alert(1)//" })),
    ).toBe('<a href="">x</a>');
    // A value's own references are escaped, so they stay text: no scheme, a harmless relative link.
    expect(mergeHtml('<a href="{{DD1}}">x</a>', values({ 1: "&#106;avascript:alert(1)" }))).toBe(
      '<a href="&amp;#106;avascript:alert(1)">x</a>',
    );
  });

  it("keeps http, https, mailto, relative URLs and the template's own harmless scheme", () => {
    expect(mergeHtml('<a href="{{DD1}}">x</a>', values({ 1: "https://shop.example/?a=1&b=2" }))).toBe(
      '<a href="https://shop.example/?a=1&amp;b=2">x</a>',
    );
    expect(mergeHtml("<a href={{DD1}}>x</a>", values({ 1: "HTTP://shop.example/" }))).toBe(
      '<a href="HTTP://shop.example/">x</a>',
    );
    expect(mergeHtml('<a href="mailto:{{Email}}">x</a>', values({}))).toBe(
      '<a href="mailto:ann@example.com">x</a>',
    );
    expect(mergeHtml('<a href="{{DD1}}">x</a>', values({ 1: "/offers?id=7" }))).toBe(
      '<a href="/offers?id=7">x</a>',
    );
    expect(
      mergeHtml('<a href="https://shop.example/p?q={{DD1}}">x</a>', values({ 1: "javascript:alert(1)" })),
    ).toBe('<a href="https://shop.example/p?q=javascript:alert(1)">x</a>');
    expect(mergeHtml('<a href="tel:{{DD1}}">x</a>', values({ 1: "+46 70 123" }))).toBe(
      '<a href="tel:+46 70 123">x</a>',
    );
    expect(mergeHtml("<a href=\"javascript:go('{{DD1}}')\">x</a>", values({ 1: "a" }))).toBe(
      '<a href="">x</a>',
    );
    expect(mergeHtml('<a href="{{DD1}}">x</a>', values({}))).toBe('<a href="">x</a>');
    expect(mergeHtml('<a href="https://x.example/">{{DD1}}</a>', values({ 1: "javascript:alert(1)" }))).toBe(
      '<a href="https://x.example/">javascript:alert(1)</a>',
    );
  });

  it("reads the scheme as a browser does", () => {
    expect(urlScheme(" \u0001JAVA\tSCRIPT:x")).toBe("javascript");
    expect(urlScheme("https://x")).toBe("https");
    expect(urlScheme("/a:b")).toBeUndefined();
    expect(urlScheme("a b:c")).toBe("ab");
    expect(urlScheme("1x:y")).toBeUndefined();
  });
});

describe("mergeHtml: other contexts", () => {
  it("escapes values in text and quoted attributes as before", () => {
    expect(
      mergeHtml('<p title="{{Name}}">{{Name}} {{dd2}}</p>', values({ 2: "two & more" }, `<b>"Ann's"</b>`)),
    ).toBe(
      '<p title="&lt;b&gt;&quot;Ann&#39;s&quot;&lt;/b&gt;">&lt;b&gt;&quot;Ann&#39;s&quot;&lt;/b&gt; two &amp; more</p>',
    );
  });

  it("quotes an unquoted attribute value holding a merge tag, so a value cannot add attributes", () => {
    expect(mergeHtml("<p class={{DD1}}>x</p>", values({ 1: "a onmouseover=alert(1)" }))).toBe(
      '<p class="a onmouseover=alert(1)">x</p>',
    );
    expect(mergeHtml("<p class=x{{DD1}}>x</p>", values({ 1: "><script>" }))).toBe(
      '<p class="x&gt;&lt;script&gt;">x</p>',
    );
    expect(mergeHtml('<p class=a"{{DD1}}>x</p>', values({ 1: "b" }))).toBe('<p class="a&quot;b">x</p>');
  });

  it("drops a value standing in a tag outside any attribute value", () => {
    expect(mergeHtml("<a {{DD1}} href=x>x</a>", values({ 1: 'onclick="alert(1)"' }))).toBe(
      "<a  href=x>x</a>",
    );
    expect(mergeHtml("<a{{DD1}}>x</a>", values({ 1: " onclick=alert(1)" }))).toBe("<a>x</a>");
    expect(mergeHtml('<a href="https://x/"{{DD1}}>x</a>', values({ 1: " onclick=alert(1)" }))).toBe(
      '<a href="https://x/">x</a>',
    );
    expect(mergeHtml("<br/{{DD1}}>", values({ 1: "x" }))).toBe("<br/>");
  });

  it("never lets a value open a tag or end a comment", () => {
    expect(mergeHtml("<{{DD1}} src=x onerror=alert(1)>", values({ 1: "img" }))).toBe(
      "<&#105;mg src=x onerror=alert(1)>",
    );
    expect(mergeHtml("<{{DD1}}a href={{DD2}}>", values({ 1: "", 2: "javascript:alert(1)" }))).toBe(
      "<&#8203;a href=javascript:alert(1)>",
    );
    expect(mergeHtml("</{{DD1}}>", values({ 1: "p" }))).toBe("</&#112;>");
    expect(
      mergeHtml("<!-- {{DD1}} --><a href={{DD2}}>x</a>", values({ 1: "--><img src=x>", 2: "javascript:x" })),
    ).toBe('<!-- &#45;&#45;&gt;&lt;img src=x&gt; --><a href="">x</a>');
    expect(mergeHtml("<!--x-{{DD1}}-><a href={{DD2}}>x</a>", values({ 1: "", 2: "javascript:x" }))).toBe(
      "<!--x-&#8203;-><a href=javascript:x>x</a>",
    );
  });

  it("reads raw text and RCDATA elements as the browser does: tags there are text, their end tag ends them", () => {
    expect(
      mergeHtml(
        '<script>var u = "{{DD1}}";</script><a href="{{DD1}}">x</a>',
        values({ 1: "javascript:alert(1)" }),
      ),
    ).toBe('<script>var u = "";</script><a href="">x</a>');
    expect(mergeHtml("<style>a{}</style ><a href={{DD1}}>x</a>", values({ 1: "data:x" }))).toBe(
      '<style>a{}</style ><a href="">x</a>',
    );
    expect(mergeHtml("<title><a href={{DD1}}></title>", values({ 1: "data:x" }))).toBe(
      "<title><a href=data:x></title>",
    );
    // Still script: the value does not end it, and in script a value that reads as an active URL is dropped.
    expect(mergeHtml("<script></scr{{DD1}}><a href={{DD2}}>", values({ 1: "ipt", 2: "javascript:x" }))).toBe(
      "<script></scr&#105;pt><a href=>",
    );
    expect(mergeHtml("<textarea>{{Name}}</textarea>", values({}, "</textarea><a>"))).toBe(
      "<textarea>&lt;/textarea&gt;&lt;a&gt;</textarea>",
    );
    // With scripting off (mail clients) noscript's content is markup.
    expect(mergeHtml("<noscript><a href={{DD1}}>x</a></noscript>", values({ 1: "javascript:x" }))).toBe(
      '<noscript><a href="">x</a></noscript>',
    );
  });

  it("drops the merge tags of a URL attribute never closed (the browser drops that tag)", () => {
    expect(mergeHtml('<p>ok</p><a href="{{DD1}}', values({ 1: "javascript:x" }))).toBe('<p>ok</p><a href="');
  });

  it("reads a large template in linear time and renders from a compiled copy", () => {
    const template = `<p>${"<a href=\"{{DD1}}\" title='{{Name}}'>x</a><!-- c --><b class=x{{dd2}}>y</b>".repeat(20_000)}</p>`;
    const out = mergeHtml(template, values({ 1: "javascript:alert(1)", 2: "z" }));
    expect(out).not.toContain("javascript");
    expect(out.split("<a href=\"\" title='Ann'>x</a>").length - 1).toBe(20_000);
    expect(mergeHtml(template, values({ 1: "https://ok.example/", 2: "z" }))).toContain(
      '<a href="https://ok.example/" title',
    );
  });
});
