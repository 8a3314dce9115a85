// The WSDL and help renderers (runtime/server/wsdl.ts, runtime/server/help/pages.ts) and createDocuments, which serves
// them per request address: exact bytes against golden files, escaping of hostile addresses, every page of
// the real spec, unknown operation names, and the bounded cache.

import { readFileSync, writeFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { createDocuments, RecentCache } from "../../runtime/server/documents.js";
import { renderHelpIndex, renderHelpOperation } from "../../runtime/server/help/pages.js";
import {
  escapeMarkup,
  HTML_REFERENCES,
  PAGE_TEXT_REFERENCES,
  XML_REFERENCES,
} from "../../runtime/server/markup.js";
import { renderWsdl, renderWsdlParts } from "../../runtime/server/wsdl.js";
import { normalizedOf, SMALL_TEXT } from "../generator/fixtures/index.js";
import { hostileDocs, hostileModel, serviceDocs, serviceModel } from "../generator/emit/models.js";
import { SPEC_OPERATIONS } from "../fixtures/spec-facts.js";

// Written by the handlebars templates this code replaced (templates/wsdl.hbs, help-*.hbs) for the small
// spec, so they pin today's bytes. UPDATE_GOLDEN=1 rewrites them from the renderers.
const GOLDEN = new URL("./golden/shop/", import.meta.url);
const SHOP_BASE = "https://shop.example/api/Shop.asmx";

function golden(name: string, got: string): void {
  const file = new URL(name, GOLDEN);
  if (process.env.UPDATE_GOLDEN === "1") writeFileSync(file, got);
  expect(got === readFileSync(file, "utf8"), `${name} differs from its golden file`).toBe(true);
}

describe("renderers against golden files (small spec)", () => {
  const { model, docs } = normalizedOf(SMALL_TEXT);

  it("renders the WSDL byte for byte", () => {
    golden("Shop.wsdl", renderWsdl(model, docs, SHOP_BASE));
  });

  it("renders the help index byte for byte", () => {
    golden("index.html", renderHelpIndex(model, docs, SHOP_BASE));
  });

  it.each(["AddItem", "ListItems", "GetStock"])("renders the %s page byte for byte", (name) => {
    golden(
      `${name}.html`,
      renderHelpOperation(model, docs, model.operations.find((op) => op.name === name)!, SHOP_BASE),
    );
  });
});

describe("escapeMarkup", () => {
  const cases: { references: typeof XML_REFERENCES; name: string; given: string; want: string }[] = [
    {
      name: "XML",
      references: XML_REFERENCES,
      given: `a&b<c>d"e'f\`g=h`,
      want: "a&amp;b&lt;c&gt;d&quot;e&apos;f`g=h",
    },
    {
      name: "HTML",
      references: HTML_REFERENCES,
      given: `a&b<c>d"e'f\`g=h`,
      want: "a&amp;b&lt;c&gt;d&quot;e&#39;f`g=h",
    },
    {
      name: "page text",
      references: PAGE_TEXT_REFERENCES,
      given: `a&b<c>d"e'f\`g=h`,
      want: "a&amp;b&lt;c&gt;d&quot;e&#x27;f&#x60;g&#x3D;h",
    },
    {
      name: "nothing to escape",
      references: XML_REFERENCES,
      given: "plain ü \u{1F600}",
      want: "plain ü \u{1F600}",
    },
    { name: "references are escaped again", references: XML_REFERENCES, given: "&amp;", want: "&amp;amp;" },
  ];
  it.each(cases)("$name", ({ references, given, want }) => {
    expect(escapeMarkup(given, references)).toBe(want);
  });
});

describe("createDocuments", () => {
  const model = serviceModel();
  const docs = serviceDocs();
  const documents = createDocuments(model, docs);

  it("serves the renderers' bytes for every operation page, the index and the WSDL", () => {
    for (const base of [
      "http://localhost:8080/ExternalAPIService.asmx",
      "https://example.org/a/b/ExternalAPIService.asmx/",
    ]) {
      expect(documents.wsdlFor(base)).toBe(renderWsdl(model, docs, base));
      expect(documents.helpIndexHtml(base)).toBe(renderHelpIndex(model, docs, base));
      expect(model.operations.map((op) => op.name)).toEqual(SPEC_OPERATIONS);
      for (const op of model.operations) {
        const page = documents.helpOperationHtml(op.name, base);
        expect(page).toBe(renderHelpOperation(model, docs, op, base));
        expect(page).toContain(`<h1>${op.name}</h1>`);
        // A second call is answered from the cache: the very same string.
        expect(documents.helpOperationHtml(op.name, base)).toBe(page);
      }
    }
  });

  it.each(["Nope", "__proto__", "toString", "constructor", "", "getTriggerClicks"])(
    "has no page for the operation name %j",
    (name) => {
      expect(documents.helpOperationHtml(name, "http://h/ExternalAPIService.asmx")).toBeUndefined();
    },
  );

  // given: the address a request was made at; want: what the documents carry in its place.
  const addresses: { given: string; wsdl: string; endpoint: string; host: string; action: string }[] = [
    {
      given: "http://localhost:8080/svc/ExternalAPIService.asmx",
      wsdl: "http://localhost:8080/svc/ExternalAPIService.asmx",
      endpoint: "http://localhost:8080/svc/ExternalAPIService.asmx",
      host: "localhost:8080",
      action: "/svc/ExternalAPIService.asmx/GetTriggerClicks",
    },
    {
      given: "https://h.example/ExternalAPIService.asmx//",
      wsdl: "https://h.example/ExternalAPIService.asmx//",
      endpoint: "https://h.example/ExternalAPIService.asmx",
      host: "h.example",
      action: "/ExternalAPIService.asmx/GetTriggerClicks",
    },
    {
      given: `http://h/"><script>alert('x')</script>&amp;/E.asmx`,
      wsdl: "http://h/&quot;&gt;&lt;script&gt;alert(&apos;x&apos;)&lt;/script&gt;&amp;amp;/E.asmx",
      endpoint: "http://h/&quot;&gt;&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;&amp;amp;/E.asmx",
      host: "h",
      action: "/%22%3E%3Cscript%3Ealert(&#39;x&#39;)%3C/script%3E&amp;amp;/E.asmx/GetTriggerClicks",
    },
    {
      given: "/relative/E.asmx",
      wsdl: "/relative/E.asmx",
      endpoint: "/relative/E.asmx",
      host: "localhost",
      action: "/relative/E.asmx/GetTriggerClicks",
    },
    {
      given: "<!--@base-url--> <!--@host--> @@SOAP_ADDRESS@@",
      wsdl: "&lt;!--@base-url--&gt; &lt;!--@host--&gt; @@SOAP_ADDRESS@@",
      endpoint: "&lt;!--@base-url--&gt; &lt;!--@host--&gt; @@SOAP_ADDRESS@@",
      host: "localhost",
      action: "/%3C!--@base-url--%3E%20%3C!--@host--%3E%20@@SOAP_ADDRESS@@/GetTriggerClicks",
    },
  ];

  it.each(addresses)(
    "puts the address $given into the documents escaped",
    ({ given, wsdl, endpoint, host, action }) => {
      const wsdlText = documents.wsdlFor(given);
      expect(wsdlText.split("\n").filter((line) => line.includes("address location="))).toEqual([
        `      <soap:address location="${wsdl}" />`,
        `      <soap12:address location="${wsdl}" />`,
        `      <http:address location="${wsdl}" />`,
        `      <http:address location="${wsdl}" />`,
      ]);
      const index = documents.helpIndexHtml(given);
      expect(index.split("\n").filter((line) => line.includes("Endpoint <code>"))).toEqual([
        `      <span>Endpoint <code>${endpoint}</code></span>`,
      ]);
      const page = documents.helpOperationHtml("GetTriggerClicks", given)!;
      // SOAP 1.1, SOAP 1.2, HTTP GET (no body: the sample ends there), HTTP POST.
      expect(page.split("\n").filter((line) => line.startsWith("Host: "))).toEqual([
        `Host: ${host}`,
        `Host: ${host}`,
        `Host: ${host}</code></pre>`,
        `Host: ${host}`,
      ]);
      expect(page.split("\n").filter((line) => line.includes("<form "))).toEqual([
        `    <form class="card try" action="${action}" method="post" enctype="application/x-www-form-urlencoded">`,
      ]);
      for (const text of [wsdlText, index, page]) expect(text).not.toMatch(/<!--@|<script>alert/);
    },
  );

  it("splits the WSDL only where the address goes, whatever the docs say", () => {
    const parts = renderWsdlParts(hostileModel(), { ...hostileDocs(), doc: "@@SOAP_ADDRESS@@ <@address>" });
    expect(parts).toHaveLength(5);
    expect(parts.slice(1, 4)).toEqual([
      '" />\n    </wsdl:port>\n    <wsdl:port name="EvilServiceSoap12" binding="tns:EvilServiceSoap12">\n      <soap12:address location="',
      '" />\n    </wsdl:port>\n    <wsdl:port name="EvilServiceHttpGet" binding="tns:EvilServiceHttpGet">\n      <http:address location="',
      '" />\n    </wsdl:port>\n    <wsdl:port name="EvilServiceHttpPost" binding="tns:EvilServiceHttpPost">\n      <http:address location="',
    ]);
  });

  it("answers correctly after its cache has evicted an address", () => {
    const small = createDocuments(model, docs, { cacheEntries: 2 });
    const bases = ["http://a/E.asmx", "http://b/E.asmx", "http://c/E.asmx"];
    for (let round = 0; round < 2; round++) {
      for (const base of bases) {
        expect(small.wsdlFor(base)).toBe(renderWsdl(model, docs, base));
        expect(small.helpIndexHtml(base)).toBe(renderHelpIndex(model, docs, base));
      }
    }
  });
});

describe("RecentCache", () => {
  it("holds at most its limit, dropping the least recently used", () => {
    const cache = new RecentCache(2);
    const made: string[] = [];
    const get = (key: string): string =>
      cache.get(key, () => {
        made.push(key);
        return key.toUpperCase();
      });
    expect([get("a"), get("b"), get("a"), get("c")]).toEqual(["A", "B", "A", "C"]);
    expect(cache.size).toBe(2);
    // "b" was the least recently used when "c" came in.
    expect([get("a"), get("c"), get("b")]).toEqual(["A", "C", "B"]);
    expect(made).toEqual(["a", "b", "c", "b"]);
    for (let i = 0; i < 10_000; i++) get(`k${i}`);
    expect(cache.size).toBe(2);
  });

  it("keeps nothing with a limit of 0", () => {
    const cache = new RecentCache(0);
    let calls = 0;
    cache.get("a", () => String(++calls));
    cache.get("a", () => String(++calls));
    expect(calls).toBe(2);
    expect(cache.size).toBe(0);
  });
});
