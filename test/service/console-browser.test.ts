// The operator's console in Chromium (playwright-core, Debian's /usr/bin/chromium), on SQLite and
// PostgreSQL: sign in, search subscribers, watch an import run to its end, a sending's chart gaining points
// after tracked opens and clicks, a newsletter's preview in its sandboxed frame. Hostile data (a subscriber
// named <img src=x onerror=alert(1)>, a template with <script>, a javascript: link) runs nothing: every
// dialog, page error and console error is recorded, and only the browser's own reports of blocked scripts
// are allowed. axe-core finds no serious or critical violation on any page. Another account's pages are
// 404. The outbox viewer shows a delivered mail's headers, HTML (sandboxed), text and source. With CONSOLE_SCREENSHOTS=1 (on SQLite) the screenshots of docs/console.md are written to docs/images/.

import fs from "node:fs";
import { once } from "node:events";
import { type Server, createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { type Browser, type BrowserContext, type Page, chromium } from "playwright-core";
import { simpleParser } from "mailparser";
import { afterAll, beforeAll, expect, it } from "vitest";
import { CHROMIUM, hasChromium } from "../fixtures/system-component.js";
import { describeEngines } from "./support/engines.js";
import { type TestService, admin, post, startService } from "./support/service.js";

const ROOT = path.resolve(import.meta.dirname, "../..");
const SHOTS = process.env.CONSOLE_SCREENSHOTS
  ? path.join(ROOT, "docs/images")
  : path.join(ROOT, ".tmp/console");
const AXE = fs.readFileSync(path.join(ROOT, "node_modules/axe-core/axe.min.js"), "utf8");
const PASSWORD = "a-long-password";
const HOSTILE_NAME = "<img src=x onerror=alert(1)>";
const PUBLIC = "http://127.0.0.1:1";
const IMPORT_LINES = 3000;

const valueOf = (xml: string) => /<(?:long|int)[^>]*>(-?\d+)</.exec(xml)?.[1];
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** What a page did that it must not: dialogs, uncaught errors, console errors other than blocked scripts. */
interface Trouble {
  dialogs: string[];
  errors: string[];
  blocked: string[];
}

function watch(page: Page, trouble: Trouble): void {
  page.on("dialog", (dialog) => {
    trouble.dialogs.push(dialog.message());
    void dialog.dismiss();
  });
  page.on("pageerror", (error) => trouble.errors.push(`pageerror: ${error.message}`));
  page.on("console", (message) => {
    if (message.type() !== "error") return;
    const text = message.text();
    // The browser telling that the sandbox or the CSP stopped a script is the protection working.
    if (/Blocked script execution|Refused to (execute|load|run)|Content Security Policy/i.test(text))
      trouble.blocked.push(text);
    else trouble.errors.push(text);
  });
}

/** axe-core on the page as it is: the serious and critical violations (none expected). */
async function axe(page: Page): Promise<string[]> {
  await page.evaluate(AXE);
  const result = await page.evaluate(async () => {
    const run = (
      globalThis as unknown as {
        axe: { run(): Promise<{ violations: { id: string; impact: string; nodes: unknown[] }[] }> };
      }
    ).axe;
    return (await run.run()).violations.map((v) => ({ id: v.id, impact: v.impact, nodes: v.nodes.length }));
  });
  return result
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .map((v) => `${v.id} (${v.nodes})`);
}

describeEngines("console in Chromium", (engine) => {
  const chrome = hasChromium();
  let svc: TestService;
  let files: Server;
  let filesBase: string;
  let browser: Browser;
  let work: string;
  let listId: string;
  let sendingId: string;
  let newsletterId: string;
  const trouble: Trouble = { dialogs: [], errors: [], blocked: [] };
  const creds = { strUsername: "alice", strPassword: PASSWORD };
  const shots = engine === "sqlite";

  beforeAll(async () => {
    if (!chrome) return;
    fs.mkdirSync(SHOTS, { recursive: true });
    work = fs.mkdtempSync(path.join(tmpdir(), "eas-console-"));
    // The import's file, sent slowly so the page sees it run: good lines, and two bad ones.
    const lines = Array.from({ length: IMPORT_LINES }, (_, i) => `imp${i}@example.com;Imported ${i};HTML`);
    lines[10] = "not-an-address;Bad;HTML";
    lines[20] = `imp20@example.com;${"x".repeat(300)};HTML`;
    const body = Buffer.from(`${lines.join("\n")}\n`);
    files = createServer((req, res) => {
      if (req.url !== "/people.csv") return void res.writeHead(404).end();
      res.writeHead(200, { "content-type": "text/plain" });
      let at = 0;
      const step = () => {
        if (res.destroyed) return;
        if (at >= body.length) return void res.end();
        res.write(body.subarray(at, at + 4096));
        at += 4096;
        setTimeout(step, 150);
      };
      step();
    });
    files.listen(0, "127.0.0.1");
    await once(files, "listening");
    const port = (files.address() as AddressInfo).port;
    filesBase = `http://127.0.0.1:${port}`;
    svc = await startService(engine, "console-browser", { IMPORT_ALLOW_HOSTS: `127.0.0.1:${port}` });
    const alice = await svc.createAccount("alice", PASSWORD);
    await svc.createAccount("bob", PASSWORD);
    listId = String(await svc.createList(alice, "Weekly <news>"));
    for (const [email, name] of [
      ["ann@example.com", "Ann"],
      ["bo@example.com", "Bo"],
      ["evil@example.com", HOSTILE_NAME],
    ]) {
      const r = await post(svc.url, "InsertSubscriberSid", {
        ...creds,
        strEmail: email!,
        strName: name!,
        strFormat: "HTML",
        strCountryCode: "",
        strPhoneNumber: "",
        strMailingListID: listId,
      });
      expect(r.status, r.text).toBe(200);
    }
    const htmlFile = path.join(work, "hostile.html");
    fs.writeFileSync(
      htmlFile,
      [
        "<p>Hello {{Name}}!</p>",
        '<script>alert("template script")</script>',
        '<p><a href="https://shop.example/">Visit the shop</a></p>',
        "<p><a href=\"javascript:alert('link')\">A javascript: link</a></p>",
        "<img src=x onerror=\"alert('img')\">",
        '<p><a href="{{unsubscribe}}">Unsubscribe</a></p>',
      ].join("\n"),
    );
    const template = await admin(svc.databaseUrl, [
      "template",
      "create",
      "--account",
      "alice",
      "--name",
      "Hostile <template>",
      "--html-file",
      htmlFile,
      "--subject",
      "Hello {{Name}}",
      "--json",
    ]);
    expect(template.code, template.stderr).toBe(0);
    const newsletter = await post(svc.url, "InsertTemplateNewsletter", {
      ...creds,
      strTemplateName: "Hostile <template>",
      strNewsletterName: "Weekly 1",
      strSubject: "",
      strTracking: "all",
    });
    expect(newsletter.status, newsletter.text).toBe(200);
    newsletterId = valueOf(newsletter.text)!;
    const sent = await post(svc.url, "SendNewsletter", {
      ...creds,
      strFromEmail: "news@example.com",
      strFromName: "The Shop",
      strNewsletterId: newsletterId,
      strMailingListId: listId,
      strSendDate: "",
      strSendTime: "",
      strFilterId: "",
    });
    expect(sent.status, sent.text).toBe(200);
    sendingId = valueOf(sent.text)!;
    await svc.app.sendings!.flush();
    await svc.app.outbox!.flush();
    // Two recipients open it; one clicks.
    await track("ann@example.com", ["open", "click"]);
    await track("bo@example.com", ["open"]);
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: [
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--no-first-run",
        "--disable-background-networking",
      ],
      timeout: 20_000,
    });
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await svc?.close();
    files?.close();
    if (work !== undefined) fs.rmSync(work, { recursive: true, force: true });
  });

  /** Fetches the open pixel and/or the shop link of the recipient's delivered mail. */
  async function track(address: string, what: readonly ("open" | "click")[]): Promise<void> {
    let html: string | undefined;
    for (const file of fs.readdirSync(svc.outboxDir).filter((f) => f.endsWith(".eml"))) {
      const parsed = await simpleParser(fs.readFileSync(path.join(svc.outboxDir, file)));
      if (parsed.to !== undefined && JSON.stringify(parsed.to).includes(address)) html = String(parsed.html);
    }
    expect(html, address).toBeDefined();
    for (const kind of what) {
      const re = kind === "open" ? /\/t\/o\/[A-Za-z0-9_.-]+/ : /\/t\/c\/[A-Za-z0-9_.-]+/;
      const found = re.exec(html!.replaceAll(PUBLIC, ""))?.[0];
      expect(found, `${kind} link of ${address}`).toBeDefined();
      const res = await fetch(`${svc.url}${found}`, { redirect: "manual" });
      expect(res.status).toBeLessThan(400);
    }
  }

  async function signedIn(
    username = "alice",
    width = 1280,
    height = 860,
    into: Trouble = trouble,
  ): Promise<{ page: Page; context: BrowserContext }> {
    const context = await browser.newContext({ viewport: { width, height }, colorScheme: "light" });
    const page = await context.newPage();
    watch(page, into);
    await page.goto(`${svc.url}/console/`);
    await expect.poll(() => page.url()).toContain("/console/sign-in");
    await page.getByLabel("User name").fill(username);
    await page.getByLabel("Password").fill(PASSWORD);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.waitForURL(`${svc.url}/console/`);
    return { page, context };
  }

  async function accessible(page: Page): Promise<void> {
    expect(await axe(page), page.url()).toEqual([]);
  }

  it.skipIf(!chrome)(
    "signs in and shows the dashboard, escaped and accessible, on desktop and phone",
    { timeout: 60_000 },
    async () => {
      const { page, context } = await signedIn();
      await expect.poll(() => page.locator("h1").textContent()).toBe("Dashboard");
      expect(await page.locator(".tile", { hasText: "Subscribers" }).first().textContent()).toContain("3");
      expect(await page.locator("table").first().textContent()).toContain("Weekly 1");
      await accessible(page);
      if (shots) await page.screenshot({ path: path.join(SHOTS, "console-dashboard.png"), fullPage: true });
      await context.close();
      const phone = await signedIn("alice", 390, 844);
      await accessible(phone.page);
      if (shots)
        await phone.page.screenshot({
          path: path.join(SHOTS, "console-dashboard-phone.png"),
          fullPage: true,
        });
      await phone.context.close();
    },
  );

  it.skipIf(!chrome)(
    "searches subscribers and shows a hostile name as text",
    { timeout: 60_000 },
    async () => {
      const { page, context } = await signedIn();
      await page.getByRole("link", { name: "Subscribers" }).click();
      await page.getByLabel("Address or name starts with").fill("an");
      await page.getByLabel("Search by").selectOption("name");
      await page.getByRole("button", { name: "Search" }).click();
      await expect.poll(() => page.locator("tbody tr").count()).toBe(1);
      expect(await page.locator("tbody").textContent()).toContain("ann@example.com");
      await page.getByLabel("Address or name starts with").fill("evil");
      await page.getByLabel("Search by").selectOption("email");
      await page.getByRole("button", { name: "Search" }).click();
      await page.getByRole("link", { name: "evil@example.com" }).click();
      await expect.poll(() => page.locator("h1").textContent()).toBe(HOSTILE_NAME);
      expect(await page.locator("img").count()).toBe(0);
      await accessible(page);
      await context.close();
    },
  );

  it.skipIf(!chrome)(
    "watches an import run to its end, with its rejected lines",
    { timeout: 90_000 },
    async () => {
      const queued = await post(svc.url, "InsertCSVSubscribersWithDemDataFromFileToQueue", {
        ...creds,
        strMailingListID: listId,
        strCSVUrl: `${filesBase}/people.csv`,
      });
      expect(queued.status, queued.text).toBe(200);
      const importId = valueOf(queued.text)!;
      const { page, context } = await signedIn();
      await page.goto(`${svc.url}/console/imports/${importId}`);
      const seen = new Set<string>();
      for (let i = 0; i < 600; i++) {
        const state = await page.locator('[data-field="state"]').textContent();
        seen.add(`${state}:${await page.locator('[data-field="lines"]').textContent()}`);
        if ((await page.locator('[data-finished="true"]').count()) > 0) break;
        await sleep(100);
      }
      await expect
        .poll(() => page.locator('[data-field="state"]').textContent(), { timeout: 30_000 })
        .toBe("done");
      expect(await page.locator("[data-done]").isVisible()).toBe(true);
      // The page moved while the file arrived: more than its first and its last state were shown.
      expect(seen.size).toBeGreaterThan(2);
      expect(await page.locator('[data-field="imported"]').textContent()).toBe(String(IMPORT_LINES - 2));
      expect(await page.locator('[data-field="rejected"]').textContent()).toBe("2");
      const rejected = await page.locator("table").last().textContent();
      expect(rejected).toContain("11");
      expect(rejected).toContain("21");
      await accessible(page);
      if (shots) await page.screenshot({ path: path.join(SHOTS, "console-import.png"), fullPage: true });
      await context.close();
    },
  );

  it.skipIf(!chrome)(
    "draws a sending's chart, which gains points after more opens and clicks",
    { timeout: 60_000 },
    async () => {
      const { page, context } = await signedIn();
      await page.goto(`${svc.url}/console/sendings/${sendingId}`);
      const chart = page.locator(".chart");
      await expect.poll(() => chart.getAttribute("data-total"), { timeout: 20_000 }).toBe("3");
      expect(await page.locator("canvas").count()).toBeGreaterThan(0);
      const links = await page.locator("table").last().textContent();
      expect(links).toContain("https://shop.example/");
      await track("evil@example.com", ["open", "click"]);
      await track("bo@example.com", ["click"]);
      await expect.poll(() => chart.getAttribute("data-total"), { timeout: 20_000 }).toBe("6");
      expect(await page.locator(".tile", { hasText: "Unique clicks" }).textContent()).toContain("3");
      await accessible(page);
      if (shots) await page.screenshot({ path: path.join(SHOTS, "console-sending.png"), fullPage: true });
      await context.close();
    },
  );

  it.skipIf(!chrome)(
    "previews a newsletter for a subscriber in a sandboxed frame where nothing runs",
    { timeout: 60_000 },
    async () => {
      const { page, context } = await signedIn();
      await page.goto(`${svc.url}/console/newsletters`);
      await page.getByRole("link", { name: "Weekly 1" }).click();
      await page.getByLabel("Preview for subscriber (address or id)").fill("evil@example.com");
      await page.getByRole("button", { name: "Show" }).click();
      const frame = page.frameLocator("iframe.mail");
      await expect.poll(() => frame.locator("p").first().textContent()).toContain("Hello");
      expect(await page.locator("iframe.mail").getAttribute("sandbox")).toBe("");
      const response = await context.request.get(
        `${svc.url}/console/newsletters/${newsletterId}/preview.html?subscriber=ann%40example.com`,
      );
      expect(response.headers()["content-security-policy"]).toMatch(/^sandbox; default-src 'none'/);
      expect(await response.text()).toContain("Hello Ann!");
      await sleep(500);
      await accessible(page);
      if (shots) await page.screenshot({ path: path.join(SHOTS, "console-preview.png"), fullPage: true });
      await context.close();
    },
  );

  it.skipIf(!chrome)(
    "opens a mail in the outbox viewer: headers, HTML in a sandboxed frame, text, raw source",
    { timeout: 60_000 },
    async () => {
      const sms = await post(svc.url, "SendSmsWithSenderName", {
        ...creds,
        senderName: "Shop",
        strCountryCode: "46",
        strPhoneNumber: "701234567",
        strMessage: "<script>alert('sms')</script> shipped",
      });
      expect(sms.status, sms.text).toBe(200);
      const { page, context } = await signedIn();
      await page.getByRole("link", { name: "Outbox" }).click();
      const row = page.locator("tbody tr", { hasText: "evil@example.com" });
      await row.getByRole("link").click();
      await expect.poll(() => page.locator("h1").textContent()).toBe(`Hello ${HOSTILE_NAME}`);
      const headers = await page.locator("table").first().textContent();
      expect(headers).toContain("List-Unsubscribe");
      expect(headers).toContain("news@example.com");
      expect(await page.locator("iframe.mail").getAttribute("sandbox")).toBe("");
      await expect
        .poll(() => page.frameLocator("iframe.mail").locator("p").first().textContent())
        .toContain("Hello");
      expect(await page.locator("pre.source").first().textContent()).toContain("Visit the shop");
      const rawHref = await page.getByRole("link", { name: "The whole source as text" }).getAttribute("href");
      const raw = await context.request.get(`${svc.url}${rawHref}`);
      expect(raw.headers()["content-type"]).toBe("text/plain; charset=utf-8");
      expect(await raw.text()).toMatch(/^[\s\S]*Subject: /);
      await accessible(page);
      if (shots) await page.screenshot({ path: path.join(SHOTS, "console-outbox.png"), fullPage: true });
      await page.getByRole("link", { name: "SMS", exact: true }).click();
      expect(await page.locator("tbody").textContent()).toContain("<script>alert('sms')</script> shipped");
      await accessible(page);
      for (const where of [
        "Credits",
        "Triggers",
        "Transactional",
        "Lists",
        "Imports",
        "Newsletters",
        "Sendings",
      ]) {
        await page.getByRole("link", { name: where, exact: true }).first().click();
        await expect.poll(() => page.locator("nav [aria-current=page]").textContent()).toBe(where);
        await accessible(page);
      }
      await context.close();
    },
  );

  it.skipIf(!chrome)(
    "schedules a sending, pauses, resumes and cancels it (asked first); bad input, CSRF and bob change nothing",
    { timeout: 90_000 },
    async () => {
      const { store } = svc.app;
      const count = async () =>
        Number(
          (
            await store.db
              .selectFrom("sendings")
              .select((eb) => eb.fn.countAll().as("n"))
              .executeTakeFirstOrThrow()
          ).n,
        );
      const before = await count();
      // Its own record: the refused form's 400 is the point here, and the browser logs it as an error.
      const own: Trouble = { dialogs: [], errors: [], blocked: [] };
      const { page, context } = await signedIn("alice", 1280, 860, own);
      await page.goto(`${svc.url}/console/newsletters/${newsletterId}`);
      await page.getByLabel("List", { exact: true }).selectOption(listId);
      await page.getByLabel("From address").fill("news@example.com");
      await page.getByLabel("Send on (date)").fill("2099-02-28");
      await page.getByLabel("At (time of day)").fill("09:30");
      // A bad address (the browser's own check is bypassed: the server's is the one that counts).
      await page.getByLabel("From address").evaluate((input) => input.setAttribute("type", "text"));
      await page.getByLabel("From address").fill("not an address");
      const answer = page.waitForResponse((r) => r.url().endsWith("/send"));
      await page.getByRole("button", { name: "Schedule" }).click();
      expect((await answer).status()).toBe(400);
      await expect.poll(() => page.getByRole("alert").textContent()).toContain("From address: ");
      expect(await page.getByLabel("From address").getAttribute("aria-invalid")).toBe("true");
      expect(await page.getByLabel("From address").inputValue()).toBe("not an address");
      expect(await count()).toBe(before);
      await accessible(page);
      await page.getByLabel("From address").fill("news@example.com");
      await page.getByRole("button", { name: "Schedule" }).click();
      await page.waitForURL(/\/console\/sendings\/\d+$/);
      const id = /\/(\d+)$/.exec(page.url())![1]!;
      expect(await count()).toBe(before + 1);
      const state = () => page.locator('[data-field="state"]').textContent();
      expect(await state()).toBe("scheduled");
      expect(await page.locator("main").textContent()).toContain("Weekly <news>");
      await accessible(page);

      // CSRF: a POST without the form's token, and one with bob's token, change nothing.
      const noToken = await context.request.post(`${svc.url}/console/sendings/${id}/pause`, { form: {} });
      expect(noToken.status()).toBe(403);
      const bob = await signedIn("bob", 1280, 860, own);
      await bob.page.goto(`${svc.url}/console/`);
      const bobToken = await bob.page.locator('input[name="_csrf"]').first().getAttribute("value");
      const crossAccount = await bob.context.request.post(`${svc.url}/console/sendings/${id}/cancel`, {
        form: { _csrf: bobToken!, confirm: "yes" },
      });
      expect(crossAccount.status()).toBe(404);
      await bob.context.close();
      await page.reload();
      expect(await state()).toBe("scheduled");

      await page.getByRole("button", { name: "Pause" }).click();
      await expect.poll(state).toBe("paused");
      // Resuming is what a paused sending offers; pausing again is refused and says why.
      const token = await page.locator('input[name="_csrf"]').first().getAttribute("value");
      const again = await context.request.post(`${svc.url}/console/sendings/${id}/pause`, {
        form: { _csrf: token! },
      });
      expect(again.status()).toBe(409);
      expect(await again.text()).toContain("only a scheduled or running sending can be paused");
      await page.getByRole("button", { name: "Resume" }).click();
      await expect.poll(state).toBe("scheduled");

      // Cancel asks first; "keep it" keeps it, and a POST without the confirmation only asks.
      await page.getByRole("link", { name: "Cancel…" }).click();
      await expect.poll(() => page.locator("h1").textContent()).toBe(`Cancel sending ${id}?`);
      await accessible(page);
      await page.getByRole("link", { name: "No, keep it" }).click();
      await expect.poll(state).toBe("scheduled");
      const unconfirmed = await context.request.post(`${svc.url}/console/sendings/${id}/cancel`, {
        form: { _csrf: token! },
        maxRedirects: 0,
      });
      expect([unconfirmed.status(), unconfirmed.headers().location]).toEqual([
        303,
        `/console/sendings/${id}/cancel`,
      ]);
      await page.reload();
      expect(await state()).toBe("scheduled");
      await page.getByRole("link", { name: "Cancel…" }).click();
      await page.getByRole("button", { name: "Yes, cancel the sending" }).click();
      await expect.poll(state).toBe("cancelled");
      expect(await page.getByRole("button", { name: "Pause" }).count()).toBe(0);
      expect(await page.getByRole("link", { name: "Cancel…" }).count()).toBe(0);
      const row = await store.db
        .selectFrom("sendings")
        .select(["state", "finished_at"])
        .where("id", "=", Number(id))
        .executeTakeFirstOrThrow();
      expect(row.state).toBe("cancelled");
      expect(row.finished_at).not.toBeNull();
      expect(own.dialogs).toEqual([]);
      expect(
        own.errors.every((e) => e.includes("status of 400")),
        own.errors.join("\n"),
      ).toBe(true);
      await context.close();
    },
  );

  it.skipIf(!chrome)(
    "edits a subscriber's fields; a refused form names each field and changes nothing",
    { timeout: 60_000 },
    async () => {
      const { store } = svc.app;
      const ann = () =>
        store.db
          .selectFrom("subscribers")
          .select(["id", "name", "format", "country_code", "phone", "fields"])
          .where("email_key", "=", "ann@example.com")
          .executeTakeFirstOrThrow();
      const original = await ann();
      const own: Trouble = { dialogs: [], errors: [], blocked: [] };
      const { page, context } = await signedIn("alice", 1280, 860, own);
      await page.goto(`${svc.url}/console/subscribers/${original.id}`);
      // Too long a name (past the input's maxlength, as a hand-made request could send) and a bad format.
      await page.getByLabel("Name", { exact: true }).evaluate((input) => input.removeAttribute("maxlength"));
      await page.getByLabel("Name", { exact: true }).fill("n".repeat(256));
      await page.getByLabel("DD2", { exact: true }).fill("blue");
      await page
        .getByLabel("Format", { exact: true })
        .evaluate((select) => select.insertAdjacentHTML("beforeend", "<option>Fax</option>"));
      await page.getByLabel("Format", { exact: true }).selectOption("Fax");
      const answer = page.waitForResponse((r) => r.url().endsWith("/fields"));
      await page.getByRole("button", { name: "Save fields" }).click();
      expect((await answer).status()).toBe(400);
      const alert = await page.getByRole("alert").textContent();
      expect(alert).toContain("Name: at most 255 characters");
      expect(alert).toContain("Format: HTML or Text");
      expect(await page.getByLabel("Name", { exact: true }).getAttribute("aria-invalid")).toBe("true");
      expect(await page.getByLabel("DD2", { exact: true }).inputValue()).toBe("blue");
      expect(await ann()).toEqual(original);
      await accessible(page);
      // A field the account has not activated, sent by hand: refused, nothing changed.
      const token = await page.locator('input[name="_csrf"]').first().getAttribute("value");
      const beyond = await context.request.post(`${svc.url}/console/subscribers/${original.id}/fields`, {
        form: { _csrf: token!, name: "Ann", format: "HTML", country_code: "", phone: "", DD26: "x" },
      });
      expect(beyond.status()).toBe(400);
      expect(await beyond.text()).toContain("DD26: the account has DD1 to DD25 activated");
      expect(await ann()).toEqual(original);

      await page.getByLabel("Name", { exact: true }).fill("Ann <Updated>");
      await page.getByLabel("Format", { exact: true }).selectOption("Text");
      await page.getByLabel("Country code", { exact: true }).fill("46");
      await page.getByLabel("Phone", { exact: true }).fill("701234567");
      await page.getByLabel("DD2", { exact: true }).fill("blue");
      await page.getByRole("button", { name: "Save fields" }).click();
      await expect.poll(() => page.locator("h1").textContent()).toBe("Ann <Updated>");
      expect(await ann()).toMatchObject({
        name: "Ann <Updated>",
        format: "Text",
        country_code: "46",
        phone: "701234567",
        fields: JSON.stringify({ 2: "blue" }),
      });
      expect(await page.locator("dl.fields").last().textContent()).toContain("blue");
      // Clearing a field removes it.
      await page.getByLabel("DD2", { exact: true }).fill("");
      await page.getByRole("button", { name: "Save fields" }).click();
      await expect.poll(async () => (await ann()).fields).toBe("{}");
      expect(own.dialogs).toEqual([]);
      expect(
        own.errors.every((e) => e.includes("status of 400")),
        own.errors.join("\n"),
      ).toBe(true);
      await context.close();
    },
  );

  it.skipIf(!chrome)("shows another account's pages as missing", { timeout: 60_000 }, async () => {
    // Its own record: the 404 answers are the point here, and the browser logs each as an error.
    const own: Trouble = { dialogs: [], errors: [], blocked: [] };
    const { page, context } = await signedIn("bob", 1280, 860, own);
    for (const where of [
      `/console/sendings/${sendingId}`,
      `/console/newsletters/${newsletterId}`,
      "/console/outbox/1",
    ]) {
      const answer = await page.goto(`${svc.url}${where}`);
      expect(answer?.status(), where).toBe(404);
    }
    for (const where of [
      `/console/sendings/${sendingId}/series`,
      "/console/outbox/1/html",
      "/console/outbox/1/raw",
    ])
      expect((await context.request.get(`${svc.url}${where}`)).status(), where).toBe(404);
    expect(own.dialogs).toEqual([]);
    expect(own.errors.every((e) => e.includes("404"))).toBe(true);
    await context.close();
  });

  it.skipIf(!chrome)("ran nothing hostile: no dialog, no page error, no console error", () => {
    expect(trouble.dialogs).toEqual([]);
    expect(trouble.errors).toEqual([]);
    // The template's script was there to run, and the sandbox stopped it.
    expect(
      trouble.blocked.some((b) => /Blocked script execution/.test(b)),
      trouble.blocked.join("\n"),
    ).toBe(true);
  });
});
