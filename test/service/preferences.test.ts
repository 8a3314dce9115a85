// The preference page reached from the unsubscribe link (issue 25), on SQLite and PostgreSQL: besides
// unsubscribing from the list or from all, the recipient chooses HTML or plain text; the choice is saved
// on the subscriber (the sending worker sends a Text subscriber the text part alone), a bad value or token
// changes nothing, and the page works in Chromium.

import { type Browser, chromium } from "playwright-core";
import { afterAll, beforeAll, expect, it } from "vitest";
import { unsubscribeKey, unsubscribeToken } from "../../service/operations/mailing/unsubscribe.ts";
import { CHROMIUM, hasChromium } from "../fixtures/system-component.ts";
import { describeEngines } from "./support/engines.ts";
import { startService, type TestService } from "./support/service.ts";

describeEngines("the preference page", (engine) => {
  let svc: TestService;
  let token: string;
  let subscriberId: number;
  const format = async () =>
    (
      await svc.app.store.db
        .selectFrom("subscribers")
        .select("format")
        .where("id", "=", subscriberId)
        .executeTakeFirstOrThrow()
    ).format;
  const post = (path: string, body: string, type = "application/x-www-form-urlencoded") =>
    fetch(`${svc.url}${path}`, { method: "POST", headers: { "content-type": type }, body });

  beforeAll(async () => {
    svc = await startService(engine, "preferences");
    const account = await svc.createAccount("shop", "shop-secret-12");
    const list = await svc.createList(account, "News");
    const id = await svc.client("shop", "shop-secret-12").InsertSubscriberSid({
      strEmail: "reader@example.com",
      strName: "Reader",
      strMailingListID: String(list),
    });
    subscriberId = Number(id);
    token = unsubscribeToken(await unsubscribeKey(svc.app.store.db), 1, subscriberId, list);
  }, 60_000);
  afterAll(async () => svc?.close());

  it("the unsubscribe link's page offers the list, all lists and the format, the current one checked", async () => {
    const page = await (await fetch(`${svc.url}/u/${token}`)).text();
    expect(page).toContain(`action="${token}/all"`);
    expect(page).toContain(`action="${token}/format"`);
    expect(page).toContain('value="HTML" checked');
    expect(page).not.toContain('value="Text" checked');
  });

  it("POST format=Text saves it, format=HTML takes it back; anything else is 400 and changes nothing", async () => {
    const saved = await post(`/u/${token}/format`, "format=Text");
    expect(saved.status).toBe(200);
    expect(await saved.text()).toContain("as plain text");
    expect(await format()).toBe("Text");
    expect(await (await fetch(`${svc.url}/u/${token}/format`)).text()).toContain('value="Text" checked');
    for (const body of [
      "format=text",
      "format=PDF",
      "",
      "format=HTML&format=Text",
      `format=${"x".repeat(900)}`,
    ]) {
      const answer = await post(`/u/${token}/format`, body);
      expect(answer.status, body.slice(0, 40)).toBe(400);
      expect(await answer.text()).toContain("The format must be HTML or Text");
      expect(await format()).toBe("Text");
    }
    expect((await post(`/u/${token}/format`, "format=HTML")).status).toBe(200);
    expect(await format()).toBe("HTML");
  });

  it("refuses a token that does not verify (404), a large body (413), another method (405)", async () => {
    const forged = `${token.slice(0, -2)}AA`;
    expect((await post(`/u/${forged}/format`, "format=Text")).status).toBe(404);
    expect((await fetch(`${svc.url}/u/${forged}/format`)).status).toBe(404);
    expect((await post(`/u/${token}/format`, `format=Text&x=${"y".repeat(2000)}`)).status).toBe(413);
    expect((await fetch(`${svc.url}/u/${token}/format`, { method: "PUT" })).status).toBe(405);
    expect(await format()).toBe("HTML");
  });

  const chrome = hasChromium();
  it.runIf(chrome)("in Chromium: choose plain text on the unsubscribe page and save it", async () => {
    const browser: Browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ["--headless", "--no-sandbox"],
    });
    try {
      const page = await browser.newPage();
      await page.goto(`${svc.url}/u/${token}`);
      await page.getByLabel("Plain text").check();
      await page.getByRole("button", { name: "Save the format" }).click();
      await page.waitForURL(`${svc.url}/u/${token}/format`);
      expect(await page.locator("h1").textContent()).toBe("Format saved");
      expect(await format()).toBe("Text");
      await page.goto(`${svc.url}/u/${token}`);
      expect(await page.getByLabel("Plain text").isChecked()).toBe(true);
      // Back to HTML through the page, so the other engine's run starts where this one did.
      await page.getByLabel("HTML (formatted)").check();
      await page.getByRole("button", { name: "Save the format" }).click();
      await page.waitForURL(`${svc.url}/u/${token}/format`);
      expect(await format()).toBe("HTML");
    } finally {
      await browser.close();
    }
  });
});
