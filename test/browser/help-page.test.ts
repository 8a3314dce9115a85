// The help pages in a real browser (headless Chromium through playwright-core): the index lists the
// operations, and an operation page's test form calls the HTTP POST binding and shows the XML answer.
// Screenshots go to .tmp/ for a human look. Without Chromium the file is skipped with a note, unless CI
// is set: then it fails (.ci/run installs it).

import { mkdirSync } from "node:fs";
import { resolve } from "node:path";
import { chromium, type Browser, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { operations } from "../../generated/model.js";
import { startFixtureServer, type FixtureServer } from "../fixtures/fixture-server.js";
import { CHROMIUM, hasChromium } from "../fixtures/system-component.js";
import { SPEC_OPERATIONS } from "../fixtures/spec-facts.js";

const SHOTS = resolve(import.meta.dirname, "../../.tmp");
const ANSWER = '<long xmlns="http://tempuri.org/">9223372036854775807</long>';

let launching: Promise<Browser> | undefined;
/** The shared browser; rejects with what to do when Chromium cannot start. */
function browser(): Promise<Browser> {
  launching ??= chromium
    .launch({
      executablePath: CHROMIUM,
      args: [
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
      ],
      timeout: 20_000,
    })
    .catch((error: unknown) => {
      throw new Error(
        `Chromium could not be launched from ${CHROMIUM} (install it with \`apt-get install -y chromium\`): ${(error as Error).message}`,
      );
    });
  return launching;
}

async function newPage(width = 1280): Promise<Page> {
  const context = await (await browser()).newContext({
    viewport: { width, height: 900 },
    colorScheme: "light",
  });
  return context.newPage();
}

let server: FixtureServer;
beforeAll(async () => {
  mkdirSync(SHOTS, { recursive: true });
  server = await startFixtureServer();
});
afterAll(async () => {
  await server.close();
  if (launching) await (await launching.catch(() => undefined))?.close();
});

describe.runIf(hasChromium())("help pages in Chromium", () => {
  it("renders the index with every operation linked", async () => {
    const page = await newPage();
    const response = await page.goto(server.endpointUrl);
    expect(response?.status()).toBe(200);
    await expect(page.title()).resolves.toBe("ExternalAPIService Web Service");
    const links = page.locator("ul.ops li a");
    await expect(links.allTextContents()).resolves.toEqual(expect.arrayContaining(Object.keys(operations)));
    expect(await links.count()).toBe(SPEC_OPERATIONS.length);
    // The list is visible, not merely in the DOM.
    expect(await links.first().isVisible()).toBe(true);
    await page.screenshot({ path: `${SHOTS}/help-index.png`, fullPage: true });
    await page.context().close();
  });

  it("invokes InsertSubscriberSid from its page's form and shows the XML answer", async () => {
    const page = await newPage();
    await page.goto(server.endpointUrl);
    await page.locator("ul.ops a", { hasText: /^InsertSubscriberSid$/ }).click();
    await page.waitForURL(/\?op=InsertSubscriberSid$/);
    await expect(page.locator("h1").textContent()).resolves.toBe("InsertSubscriberSid");
    const values: Record<string, string> = {
      strUsername: "u",
      strPassword: "p",
      strEmail: "a@b",
      strName: "Åsa & <Bo>",
      strFormat: "HTML",
      strCountryCode: "46",
      strPhoneNumber: "123",
      strMailingListID: "1",
    };
    for (const [name, value] of Object.entries(values))
      await page.fill(`form.try input[name="${name}"]`, value);
    await page.locator("#try").screenshot({ path: `${SHOTS}/help-operation-form.png` });
    const before = server.calls.length;
    await page.click("form.try button[type=submit]");
    const body = page.locator("#answer-body");
    await body.getByText(ANSWER).waitFor({ timeout: 10_000 });
    await expect(body.textContent()).resolves.toBe(`<?xml version="1.0" encoding="utf-8"?>\n${ANSWER}`);
    await expect(page.locator("#answer-status").textContent()).resolves.toMatch(
      /^HTTP 200 OK · text\/xml; charset=utf-8$/,
    );
    expect(await page.locator("#answer").isVisible()).toBe(true);
    const call = server.calls.slice(before);
    expect(call).toHaveLength(1);
    expect(call[0]).toMatchObject({
      operation: "InsertSubscriberSid",
      params: { strName: "Åsa & <Bo>", strEmail: "a@b" },
    });
    expect(call[0].context.binding).toBe("httpPost");
    await page.screenshot({ path: `${SHOTS}/help-operation.png`, fullPage: true });
    await page.locator("#try").screenshot({ path: `${SHOTS}/help-operation-answer.png` });
    await page.context().close();
  });

  it("shows an error answer as text when the call fails", async () => {
    const page = await newPage();
    await page.goto(`${server.endpointUrl}?op=InsertSubscriberSid`);
    await page.fill('form.try input[name="strUsername"]', "u");
    await page.fill('form.try input[name="strPassword"]', "p");
    await page.click("form.try button[type=submit]");
    const status = page.locator("#answer-status.failed");
    await status.waitFor({ timeout: 10_000 });
    await expect(status.textContent()).resolves.toMatch(/^HTTP 500 /);
    await expect(page.locator("#answer-body").textContent()).resolves.toMatch(
      /^System\.ArgumentException: Parameter strEmail is required/,
    );
    await page.locator("#try").screenshot({ path: `${SHOTS}/help-operation-error.png` });
    await page.context().close();
  });

  it.each([
    ["index", ""],
    ["operation", "?op=InsertSubscriberSid"],
    ["operation-long-name", "?op=InsertCSVSubscribersWithDemDataFromFileToQueue"],
  ])("fits a phone-sized screen without sideways scrolling (%s)", async (name, query) => {
    const page = await newPage(390);
    await page.goto(server.endpointUrl + query);
    // Tables and sample messages scroll inside their own boxes; the page itself must not.
    const overflow = await page.evaluate(
      () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
    );
    await page.screenshot({ path: `${SHOTS}/help-narrow-${name}.png`, fullPage: false });
    expect(overflow).toBeLessThanOrEqual(0);
    await page.context().close();
  });
});
