// readXmlDom (runtime/xml/dom.ts, the browser's DOMParser as an XmlReader) in a real browser (headless
// Chromium through playwright-core), held to readXml (the scanner) in Node: the same tree for every answer
// and request of the golden wire files and for hand-written edge cases, the same refusal reason for hostile
// and malformed input, a DOCTYPE refused before the browser's parser sees it, and one real client call per
// binding against the fixture server with the DOM reader, read the same as createClient reads it in Node.
// Without Chromium the file is skipped with a note, unless CI is set: then it fails.

import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { build } from "esbuild";
import { chromium, type Browser, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createClient } from "../../generated/client.js";
import { CharsetError, decodeBody } from "../../runtime/codec/charset.js";
import { readXml } from "../../runtime/xml/scan.js";
import type { ReadOptions } from "../../runtime/xml/tree.js";
import { startFixtureServer, type FixtureServer } from "../fixtures/fixture-server.js";
import { samples } from "../fixtures/samples.js";
import { CHROMIUM, hasChromium } from "../fixtures/system-component.js";

const ROOT = path.resolve(import.meta.dirname, "../..");
const GOLDEN = path.join(ROOT, "test/wire/golden");
const BINDINGS = ["soap11", "soap12", "httpGet", "httpPost"] as const;

type Case = readonly [label: string, text: string, options?: ReadOptions];
type Outcome = { readonly tree: unknown } | { readonly refused: string };

/** Every XML body of the golden wire files (requests and answers of all four bindings). */
function goldenBodies(): Case[] {
  const cases: Case[] = [];
  for (const binding of readdirSync(GOLDEN)) {
    for (const file of readdirSync(path.join(GOLDEN, binding))) {
      const text = readFileSync(path.join(GOLDEN, binding, file), "utf8");
      const body = text.slice(text.indexOf("\n\n") + 2);
      if (body.startsWith("<")) cases.push([`${binding}/${file}`, body]);
    }
  }
  return cases;
}

const EDGE: Case[] = [
  ["CDATA, comments and PIs inside text", "<a>x<![CDATA[<y> & z]]>w<!--c--><?pi data?>v</a>"],
  [
    "entities and character references",
    '<a b="&lt;&amp;&#65;&#x1F389;">&lt;&gt;&amp;&apos;&quot;&#233;&#x65E5;</a>',
  ],
  ["line ends in text and attributes", '<a b="1\r\n2\t3">x\r\ny\rz\n</a>'],
  [
    "prefixes, default namespace undeclared, xml:lang",
    '<p:a xmlns:p="urn:p" xmlns="urn:d" xml:lang="sv"><b p:c="1" d="2"><c xmlns=""/></b></p:a>',
  ],
  ["namespace declarations after attributes", '<a z="1" xmlns:q="urn:q" q:y="2" b="3" xmlns="urn:d"/>'],
  [
    "BOM, declaration, prolog and epilog comments and PIs",
    '\uFEFF<?xml version="1.0" encoding="utf-8"?>\n<!-- c --><?pi x?>\n<a/>\n<!-- after -->',
  ],
  ["whitespace-only text kept", "<a>  <b/>\n  <c> </c>\t</a>"],
  ["non-ASCII names and text", '<日本 属性="値">Åsa 🎉</日本>'],
  ["a nil answer", '<a xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"><b xsi:nil="true"/></a>'],
  ["depth 32 (the default limit) is read", `${"<a>".repeat(32)}${"</a>".repeat(32)}`],
  [
    "64 attributes (the default limit) are read",
    `<a ${Array.from({ length: 64 }, (_, i) => `a${i}="${i}"`).join(" ")}/>`,
  ],
  ["exactly maxElements elements are read", `<a>${"<b/>".repeat(99)}</a>`, { maxElements: 100 }],
];

const LAUGHS =
  '<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol">' +
  Array.from(
    { length: 9 },
    (_, i) => `<!ENTITY lol${i + 1} "${`&lol${i === 0 ? "" : i};`.repeat(10)}">`,
  ).join("") +
  "]><lolz>&lol9;</lolz>";

/** Hostile and malformed input, with the reason both readers must give. */
const REFUSED: (readonly [label: string, text: string, reason: string, options?: ReadOptions])[] = [
  ["a DOCTYPE", "<!DOCTYPE a><a/>", "doctype"],
  [
    "a DOCTYPE after the declaration, a comment and a PI",
    '<?xml version="1.0"?>\n<!-- c --><?pi x?>\n<!DOCTYPE a [<!ENTITY e "x">]><a>&e;</a>',
    "doctype",
  ],
  ["billion laughs", LAUGHS, "doctype"],
  ["an external entity (XXE)", '<!DOCTYPE a [<!ENTITY x SYSTEM "file:///etc/passwd">]><a>&x;</a>', "doctype"],
  ["a DOCTYPE inside the root element", "<a><!DOCTYPE b></a>", "doctype"],
  ["10,000 nested elements", `${"<a>".repeat(10_000)}${"</a>".repeat(10_000)}`, "depth"],
  ["depth 33", `${"<a>".repeat(33)}${"</a>".repeat(33)}`, "depth"],
  ["depth past a lowered maxDepth", "<a><b><c/></b></a>", "depth", { maxDepth: 2 }],
  ["65 attributes", `<a ${Array.from({ length: 65 }, (_, i) => `a${i}="${i}"`).join(" ")}/>`, "attributes"],
  [
    "namespace declarations count as attributes",
    '<a xmlns:p="u" xmlns:q="v" b="1"/>',
    "attributes",
    { maxAttributes: 2 },
  ],
  ["one element past maxElements", `<a>${"<b/>".repeat(100)}</a>`, "elements", { maxElements: 100 }],
  [
    "100,000 elements past maxElements",
    `<a>${"<b/>".repeat(100_000)}</a>`,
    "elements",
    { maxElements: 1000 },
  ],
  ["comments past maxElements", `<a>${"<!--c-->".repeat(2000)}</a>`, "elements", { maxElements: 1000 }],
  [
    "CDATA sections past maxElements",
    `<a>${"<![CDATA[x]]>".repeat(2000)}</a>`,
    "elements",
    { maxElements: 1000 },
  ],
  ["prolog comments past maxElements", `${"<!--c-->".repeat(20)}<a/>`, "elements", { maxElements: 10 }],
  ["an unclosed element", "<a><b></a>", "malformed"],
  ["an undeclared entity", "<a>&foo;</a>", "malformed"],
  ["an unbound prefix", "<p:a/>", "malformed"],
  ["two root elements", "<a/><b/>", "malformed"],
  ["text only", "hello", "malformed"],
  ["nothing", "", "malformed"],
  ["an HTML error page", "<html><body><h1>502 Bad Gateway</h1><hr></body></html>", "malformed"],
];

function inNode(text: string, options?: ReadOptions): Outcome {
  try {
    return { tree: JSON.parse(JSON.stringify(readXml(text, options))) };
  } catch (error) {
    return { refused: (error as { reason?: string }).reason ?? `not an XmlRefusal: ${String(error)}` };
  }
}

/** Bigints and dates as text, so that results compare the same in Node and from the page. */
const REVIVE = `(key, value) => typeof value === "bigint" ? value + "n" : value instanceof Date ? "Date:" + value.toISOString() : value`;
const plain = (value: unknown): unknown =>
  JSON.parse(JSON.stringify(value, (_key, v: unknown) => (typeof v === "bigint" ? `${v}n` : v)));

let launching: Promise<Browser> | undefined;
let server: FixtureServer;
let page: Page;

async function browserBundle(): Promise<string> {
  const result = await build({
    stdin: {
      contents:
        'export { createClientWith, soap11, soap12, httpGet, httpPost, readXmlDom, browser } from "./generated/client.js";',
      resolveDir: ROOT,
      sourcefile: "entry.ts",
      loader: "ts",
    },
    bundle: true,
    format: "iife",
    globalName: "easgen",
    platform: "browser",
    write: false,
    logLevel: "silent",
  });
  return result.outputFiles[0]!.text;
}

describe.runIf(hasChromium())("readXmlDom in Chromium", () => {
  beforeAll(async () => {
    server = await startFixtureServer();
    launching = chromium.launch({
      executablePath: CHROMIUM,
      args: ["--headless", "--no-sandbox", "--disable-gpu"],
      timeout: 20_000,
    });
    const browser = await launching.catch((error: unknown) => {
      throw new Error(
        `Chromium could not be launched from ${CHROMIUM} (\`apt-get install -y chromium\`): ${(error as Error).message}`,
      );
    });
    page = await browser.newPage();
    // The help page: same origin as the endpoint, so the client's fetch needs no CORS.
    await page.goto(server.endpointUrl);
    await page.addScriptTag({ content: await browserBundle() });
    // Every text the browser's parser is given, to prove that a DOCTYPE never reaches it.
    await page.evaluate(() => {
      const parsed: string[] = [];
      const original = DOMParser.prototype.parseFromString;
      DOMParser.prototype.parseFromString = function (text: string, type: DOMParserSupportedType) {
        parsed.push(text);
        return original.call(this, text, type);
      };
      Object.assign(window, { parsed });
    });
  }, 60_000);
  afterAll(async () => {
    await server?.close();
    if (launching) await (await launching.catch(() => undefined))?.close();
  });

  async function inBrowser(
    cases: readonly (readonly [string, ReadOptions | undefined])[],
  ): Promise<Outcome[]> {
    const list: [string, ReadOptions | null][] = cases.map(([text, options]) => [text, options ?? null]);
    return page.evaluate((items) => {
      const { readXmlDom } = (
        window as unknown as { easgen: { readXmlDom: (t: string, o?: object) => unknown } }
      ).easgen;
      return items.map(([text, options]): Outcome => {
        try {
          return { tree: JSON.parse(JSON.stringify(readXmlDom(text, options ?? undefined))) as unknown };
        } catch (error) {
          return { refused: (error as { reason?: string }).reason ?? `not an XmlRefusal: ${String(error)}` };
        }
      });
    }, list);
  }

  it("reads every golden request and answer as readXml does", async () => {
    const cases = goldenBodies();
    expect(cases.length).toBeGreaterThanOrEqual(120);
    const got = await inBrowser(cases.map(([, text, options]) => [text, options]));
    cases.forEach(([label, text, options], i) => {
      expect({ label, ...got[i] }).toEqual({ label, ...inNode(text, options) });
    });
    // The comparison compares something: every golden body is a tree.
    expect(got.every((outcome) => "tree" in outcome)).toBe(true);
  });

  for (const [label, text, options] of EDGE) {
    it(`reads ${label} as readXml does`, async () => {
      const [got] = await inBrowser([[text, options]]);
      const want = inNode(text, options);
      expect("tree" in want).toBe(true);
      expect(got).toEqual(want);
    });
  }

  for (const [label, text, reason, options] of REFUSED) {
    it(`refuses ${label} as readXml does (${reason})`, async () => {
      expect(inNode(text, options)).toEqual({ refused: reason });
      const [got] = await inBrowser([[text, options]]);
      expect(got).toEqual({ refused: reason });
    });
  }

  it("never hands a document with a DOCTYPE in its prolog to the browser's parser", async () => {
    const prologDoctypes = REFUSED.filter(
      ([label]) => /DOCTYPE|laughs|XXE/.test(label) && !/inside/.test(label),
    );
    expect(prologDoctypes.length).toBe(4);
    await inBrowser(prologDoctypes.map(([, text]) => [text, undefined]));
    const parsed = await page.evaluate(() => (window as unknown as { parsed: string[] }).parsed);
    expect(parsed.length).toBeGreaterThan(0);
    expect(parsed.filter((text) => text.includes("<!DOCTYPE") && !text.startsWith("<a>"))).toEqual([]);
  });

  describe.each(BINDINGS)("a client over %s with readXmlDom", (binding) => {
    const calls = [
      "InsertSubscriberSid",
      "GetTriggerClicks",
      "GetReportViewsByDateInterval",
      "GetSubscriberMailingLists",
    ] as const;

    it.each(calls)("calls %s and reads the answer as createClient reads it in Node", async (operation) => {
      const params = samples[operation].params;
      const node = createClient({ baseUrl: server.baseUrl, username: "u", password: "p", binding });
      const want = plain(await (node[operation] as (p: unknown) => Promise<unknown>)(params));
      const got = await page.evaluate(
        async ([name, op, args, revive]) => {
          const lib = (window as unknown as { easgen: Record<string, unknown> }).easgen as {
            createClientWith: (b: unknown, o: object) => Record<string, (p: unknown) => Promise<unknown>>;
            browser: unknown;
          } & Record<string, unknown>;
          const client = lib.createClientWith(lib[name], {
            baseUrl: location.origin,
            username: "u",
            password: "p",
            platform: lib.browser,
          });
          // eslint-disable-next-line no-eval
          return JSON.stringify(
            await client[op]!(JSON.parse(args)),
            (0, eval)(revive) as (k: string, v: unknown) => unknown,
          );
        },
        [binding, operation, JSON.stringify(params), REVIVE] as const,
      );
      expect(JSON.parse(got)).toEqual(want);
      expect(want).not.toBeUndefined();
    });

    it("reads the service's refusal (a fault or the HTTP binding's error) as createClient does", async () => {
      // Not one of the enum's values: the server refuses it (the client does not check rules).
      const params = { ...samples.InsertSubscriberSid.params, strFormat: "Neither" as "HTML" };
      const node = createClient({ baseUrl: server.baseUrl, username: "u", password: "p", binding });
      const want = await node.InsertSubscriberSid(params).then(
        () => "resolved",
        (error: {
          name: string;
          errorCode?: string;
          side?: string;
          parameter?: string;
          status?: number;
        }) => ({
          name: error.name,
          errorCode: error.errorCode,
          side: error.side,
          parameter: error.parameter,
          status: error.status,
        }),
      );
      const got = await page.evaluate(
        async ([name, args]) => {
          const lib = (window as unknown as { easgen: Record<string, unknown> }).easgen as {
            createClientWith: (
              b: unknown,
              o: object,
            ) => { InsertSubscriberSid: (p: unknown) => Promise<unknown> };
            browser: unknown;
          } & Record<string, unknown>;
          const client = lib.createClientWith(lib[name], {
            baseUrl: location.origin,
            username: "u",
            password: "p",
            platform: lib.browser,
          });
          return client.InsertSubscriberSid(JSON.parse(args)).then(
            () => "resolved",
            (error: {
              name: string;
              errorCode?: string;
              side?: string;
              parameter?: string;
              status?: number;
            }) => ({
              name: error.name,
              errorCode: error.errorCode,
              side: error.side,
              parameter: error.parameter,
              status: error.status,
            }),
          );
        },
        [binding, JSON.stringify(params)] as const,
      );
      expect(want).toMatchObject({ errorCode: expect.any(String), parameter: "strFormat" });
      expect(got).toEqual(want);
    });
  });
  describe("the browser platform's decoder (TextDecoder) against decodeBody", () => {
    const xml = (text: string) => `<?xml version="1.0"?><a>${text}</a>`;
    const utf16 = (text: string, bigEndian: boolean): number[] => {
      const out = bigEndian ? [0xfe, 0xff] : [0xff, 0xfe];
      for (const unit of Array.from(text, (c) => c.charCodeAt(0)))
        out.push(...(bigEndian ? [unit >> 8, unit & 0xff] : [unit & 0xff, unit >> 8]));
      return out;
    };
    const latin1 = (text: string): number[] => Array.from(text, (c) => c.charCodeAt(0));
    // [label, bytes, Content-Type, kind]
    const SAME: readonly (readonly [string, number[], string | undefined, "xml" | "text"])[] = [
      ["UTF-8 by the Content-Type", [...Buffer.from(xml("Grüße €"))], "text/xml; charset=utf-8", "xml"],
      ["UTF-8 by default", [...Buffer.from(xml("Grüße €"))], "text/xml", "xml"],
      ["UTF-8 with a byte order mark", [0xef, 0xbb, 0xbf, ...Buffer.from(xml("Grüße"))], undefined, "xml"],
      ["UTF-16LE with a byte order mark", utf16(xml("Grüße €"), false), "text/xml", "xml"],
      [
        "UTF-16BE with a byte order mark, over a charset=utf-8",
        utf16(xml("Grüße €"), true),
        "text/xml; charset=utf-8",
        "xml",
      ],
      ["UTF-16LE by its first character", utf16(xml("Grüße"), false).slice(2), undefined, "xml"],
      [
        "a quoted action naming another charset",
        [...Buffer.from(xml("é"))],
        'application/soap+xml; action="x;charset=utf-16"; charset=utf-8',
        "xml",
      ],
      [
        "Latin-1 by the Content-Type (bytes 0xA0-0xFF)",
        latin1(xml("Grüße àéü")),
        "text/xml; charset=iso-8859-1",
        "xml",
      ],
      [
        "Latin-1 by the XML declaration",
        latin1('<?xml version="1.0" encoding="ISO-8859-1"?><a>é</a>'),
        undefined,
        "xml",
      ],
      [
        "a UTF-16 declaration over UTF-8 bytes (.NET's StringWriter)",
        [...Buffer.from('<?xml version="1.0" encoding="utf-16"?><a>é</a>')],
        undefined,
        "xml",
      ],
      ["text/plain in Latin-1", latin1("Grüße"), "text/plain; charset=ISO-8859-1", "text"],
    ];

    async function decodeInBrowser(
      cases: readonly (readonly [number[], string | undefined, "xml" | "text"])[],
    ): Promise<string[]> {
      return page.evaluate(
        (items) => {
          const { browser } = (
            window as unknown as {
              easgen: {
                browser: { decodeText: (b: Uint8Array, c: string | undefined, k: "xml" | "text") => string };
              };
            }
          ).easgen;
          return items.map(([bytes, contentType, kind]) => {
            try {
              return `text:${browser.decodeText(new Uint8Array(bytes), contentType ?? undefined, kind)}`;
            } catch (error) {
              return `refused:${(error as Error).name}`;
            }
          });
        },
        cases.map(
          ([bytes, contentType, kind]) =>
            [bytes, contentType ?? null, kind] as [number[], string | undefined, "xml" | "text"],
        ),
      );
    }

    it("reads UTF-8, UTF-16 with a byte order mark and declared Latin-1 (0xA0-0xFF) as decodeBody does", async () => {
      const got = await decodeInBrowser(
        SAME.map(([, bytes, contentType, kind]) => [bytes, contentType, kind]),
      );
      const want = SAME.map(
        ([, bytes, contentType, kind]) => `text:${decodeBody(new Uint8Array(bytes), contentType, kind)}`,
      );
      expect(Object.fromEntries(SAME.map(([label], i) => [label, got[i]]))).toEqual(
        Object.fromEntries(SAME.map(([label], i) => [label, want[i]])),
      );
    });

    it("reads a declared ISO-8859-1 body's 0x80-0x9F as windows-1252 (WHATWG), where decodeBody reads the C1 controls", async () => {
      const bytes = latin1(xml("\x80\x93"));
      const [got] = await decodeInBrowser([[bytes, "text/xml; charset=iso-8859-1", "xml"]]);
      expect(got).toBe(`text:${xml("\u20ac\u201c")}`);
      expect(decodeBody(new Uint8Array(bytes), "text/xml; charset=iso-8859-1", "xml")).toBe(xml("\x80\x93"));
    });

    it("refuses bytes not valid in the charset and a charset it does not know, as decodeBody does", async () => {
      const bad: readonly (readonly [number[], string | undefined, "xml" | "text"])[] = [
        [[...Buffer.from("<a>"), 0xc3, 0x28, ...Buffer.from("</a>")], "text/xml; charset=utf-8", "xml"],
        [[0xff, 0xfe, 0x3c, 0x00, 0x00, 0xd8, 0x3e, 0x00], undefined, "xml"],
        [[...Buffer.from("<a/>")], "text/xml; charset=x-no-such-charset", "xml"],
      ];
      expect(await decodeInBrowser(bad)).toEqual(bad.map(() => expect.stringMatching(/^refused:/)));
      for (const [bytes, contentType, kind] of bad) {
        expect(() => decodeBody(new Uint8Array(bytes), contentType, kind)).toThrow(CharsetError);
      }
    });

    it("makes an answer with invalid bytes a ResponseFormatError of the call", async () => {
      const body = Buffer.concat([
        Buffer.from(
          '<?xml version="1.0" encoding="utf-8"?><soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/"><soap:Body><x>',
        ),
        Buffer.from([0xc3, 0x28]),
        Buffer.from("</x></soap:Body></soap:Envelope>"),
      ]);
      await page.route("**/invalid-bytes/**", (route) =>
        route.fulfill({ status: 200, contentType: "text/xml; charset=utf-8", body }),
      );
      const got = await page.evaluate(async (args) => {
        const lib = (window as unknown as { easgen: Record<string, unknown> }).easgen as {
          createClientWith: (
            b: unknown,
            o: object,
          ) => { InsertSubscriberSid: (p: unknown) => Promise<unknown> };
          soap11: unknown;
          browser: unknown;
        };
        const client = lib.createClientWith(lib.soap11, {
          baseUrl: `${location.origin}/invalid-bytes`,
          username: "u",
          password: "p",
          platform: lib.browser,
        });
        return client.InsertSubscriberSid(JSON.parse(args)).then(
          () => "resolved",
          (error: Error) => `${error.name}: ${error.message}`,
        );
      }, JSON.stringify(samples.InsertSubscriberSid.params));
      expect(got).toMatch(
        /^ResponseFormatError: InsertSubscriberSid: HTTP 200: the answer cannot be read as text/,
      );
    });
  });
});
