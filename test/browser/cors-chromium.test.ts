// A cross-origin call from a real browser: a page served on one loopback port runs the generated client
// (bundled for the browser, DOMParser platform) against the generated server on another port, whose
// `cors.origins` names the page's origin. Every binding's call succeeds (SOAP's needs the preflight); a page
// on a third port, not named, gets no CORS header, so the browser refuses every call. Without Chromium the
// file is skipped with a note, unless CI is set: then it fails.

import { build } from "esbuild";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchChromium } from "../fixtures/chromium.js";
import { startFixtureServer, type FixtureServer } from "../fixtures/fixture-server.js";
import { listenOnLoopback, rawRequest, type Listening } from "../fixtures/raw-http.js";
import { hasChromium } from "../fixtures/system-component.js";

const ROOT = new URL("../../", import.meta.url).pathname;
const BINDINGS = ["soap11", "soap12", "httpGet", "httpPost"] as const;

/** The client for the page, as one script (window.easgen). */
async function clientScript(): Promise<string> {
  const result = await build({
    stdin: {
      contents:
        'export { createClientWith, soap11, soap12, httpGet, httpPost, browser } from "./generated/client.js";',
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

/** A page server: `/` is an empty page with the client script. */
async function pageServer(script: string): Promise<Listening> {
  const html = `<!doctype html><meta charset="utf-8"><title>cors</title><script>${script}</script>`;
  return listenOnLoopback((_req, res) => {
    res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
    res.end(html);
  });
}

/** What one call from the page gave: the result as text, or the error's name and message. */
async function callFromPage(page: Page, binding: string, baseUrl: string): Promise<string> {
  return page.evaluate(
    async ([name, base]) => {
      const lib = (window as unknown as { easgen: Record<string, unknown> }).easgen as {
        createClientWith: (b: unknown, o: object) => { InsertSubscriberSid: (p: object) => Promise<unknown> };
        browser: unknown;
      } & Record<string, unknown>;
      const client = lib.createClientWith(lib[name], {
        baseUrl: base,
        username: "u",
        password: "p",
        platform: lib.browser,
      });
      return client.InsertSubscriberSid({ strMailingListID: "1", strEmail: "a@example.com" }).then(
        (id) => `result ${String(id)}`,
        (error: Error) => `error ${error.name}: ${error.message}`,
      );
    },
    [binding, baseUrl] as const,
  );
}

describe.runIf(hasChromium())("a cross-origin call from Chromium", () => {
  let browser: Browser;
  let allowedPage: Listening;
  let refusedPage: Listening;
  let api: FixtureServer;

  beforeAll(async () => {
    const script = await clientScript();
    allowedPage = await pageServer(script);
    refusedPage = await pageServer(script);
    api = await startFixtureServer({ cors: { origins: [allowedPage.origin] } });
    browser = await launchChromium();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await api?.close();
    await allowedPage?.close();
    await refusedPage?.close();
  });

  it("the page and the endpoint are on different origins (another port)", () => {
    expect(new URL(api.baseUrl).origin).not.toBe(allowedPage.origin);
    expect(new URL(allowedPage.origin).hostname).toBe(new URL(api.baseUrl).hostname);
  });

  it.each(BINDINGS)("a page on an allowed origin calls over %s and reads the result", async (binding) => {
    const page = await browser.newPage();
    try {
      await page.goto(allowedPage.origin);
      const before = api.calls.length;
      expect(await callFromPage(page, binding, api.baseUrl)).toBe("result 9223372036854775807");
      expect(api.calls.length).toBe(before + 1);
      expect(api.calls.at(-1)?.context.binding).toBe(binding);
    } finally {
      await page.close();
    }
  });

  it.each(BINDINGS)("a page on an origin not named is refused by the browser over %s", async (binding) => {
    const page = await browser.newPage();
    try {
      await page.goto(refusedPage.origin);
      const before = api.calls.length;
      const got = await callFromPage(page, binding, api.baseUrl);
      // The browser's own refusal (fetch rejects with a network error), not a refusal by the client or server.
      expect(got).toMatch(/^error .*Failed to fetch/);
      // SOAP needs a preflight, which fails: the call never reaches the handler. HTTP GET and POST are
      // simple requests: they are answered, but without Access-Control-Allow-Origin the page cannot read it.
      expect(api.calls.length).toBe(binding === "soap11" || binding === "soap12" ? before : before + 1);
    } finally {
      await page.close();
    }
  });

  it("the refused origin's preflight and call get no CORS header on the wire", async () => {
    const preflight = await rawRequest(api.endpointUrl, {
      method: "OPTIONS",
      headers: {
        origin: refusedPage.origin,
        "access-control-request-method": "POST",
        "access-control-request-headers": "content-type,soapaction",
      },
    });
    expect(preflight.status).toBe(405);
    expect(Object.keys(preflight.headers).filter((name) => name.startsWith("access-control-"))).toEqual([]);
  });
});
