// Sending statistics on SQLite and PostgreSQL with real components on loopback: a tracked newsletter goes
// to eight subscribers through an SMTP server (one refused with 550 at send time), then a DSN (hard), a
// DSN (soft) and an ARF complaint come back over the webhook, recipients open the pixel and click links
// over HTTP (one opens again after the tracking window), and two use their unsubscribe links (one of them
// twice). `sending stats` (admin CLI, text and --json) and the module the console reads
// (service/operations/mailing/sending-stats.ts) give every count, rate and per-link click exactly.

import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, expect, it } from "vitest";
import { sendingLinkClicks, sendingStatistics } from "../../service/operations/mailing/sending-stats.js";
import { expectCountersMatchRecount } from "./support/counters.js";
import { describeEngines } from "./support/engines.js";
import { type TestService, admin, startService } from "./support/service.js";
import { arf, dsn, headersOf } from "./support/reports.js";
import { type TestSmtp, smtpUrl, startSmtp } from "./support/smtp.js";

const TOKEN = randomBytes(24).toString("hex");
const PUBLIC = "http://127.0.0.1:1";

/** The decoded text/html part of a message as it arrived. */
function htmlOf(raw: string): string {
  const m =
    /Content-Type: text\/html; charset=utf-8\r\nContent-Transfer-Encoding: base64\r\n\r\n([A-Za-z0-9+/=\r\n]+)/.exec(
      raw,
    );
  if (m === null) throw new Error("no HTML part");
  return Buffer.from(m[1]!.replace(/\r\n/g, ""), "base64").toString("utf8");
}

describeEngines("sending statistics", (engine) => {
  let svc: TestService;
  let smtp: TestSmtp;
  let account: number;
  let sendingId: number;
  let shift = 0;

  beforeAll(async () => {
    smtp = await startSmtp();
    svc = await startService(
      engine,
      "sendstats",
      {
        SMTP_URL: smtpUrl(smtp.port),
        SMTP_ALLOW_PLAINTEXT_AUTH: "true",
        BOUNCE_WEBHOOK_TOKEN: TOKEN,
        MAIL_FROM: "service@example.com",
      },
      { now: () => Date.now() + shift },
    );
    account = await svc.createAccount("demo", "a-long-password");
    const list = await svc.createList(account, "News");
    const made = await admin(svc.databaseUrl, [
      "template",
      "create",
      "--account",
      "demo",
      "--name",
      "T",
      "--html",
      '<p>Hi {{Name}}</p><a href="https://example.com/one">one</a> <a href="https://example.com/two">two</a> <a href="{{unsubscribe}}">stop</a>',
      "--subject",
      "News",
    ]);
    expect(made.code).toBe(0);
    const creds = svc.client("demo", "a-long-password", "httpPost");
    const newsletter = await creds.InsertTemplateNewsletter({
      strTemplateName: "T",
      strNewsletterName: "N",
      strTracking: "all",
    });
    // refused@ is refused at send time (by recipient: the pool sends several at once, in no fixed order)
    for (const name of ["open1", "open2", "click1", "refused", "hard", "soft", "complain", "unsub"])
      await creds.InsertSubscriberSid({
        strEmail: `${name}@example.com`,
        strName: name,
        strMailingListID: String(list),
      });
    smtp.refuseTo.set("refused@example.com", 550);
    sendingId = await creds.SendNewsletter({
      strFromEmail: "news@example.com",
      strNewsletterId: String(newsletter),
      strMailingListId: String(list),
    });
    await svc.app.sendings!.flush();
    await svc.app.outbox!.flush();
  }, 60_000);
  afterAll(async () => {
    await svc?.close();
    await smtp?.close();
  });

  const arrival = (name: string) => smtp.arrivals.find((a) => a.to[0] === `${name}@example.com`)!;
  /** The links of a recipient's message, pointed at the running service. */
  const links = (name: string) => {
    const html = htmlOf(arrival(name).raw);
    const hrefs = [...html.matchAll(/(?:href|src)="([^"]+)"/g)].map((m) => m[1]!.replace(PUBLIC, svc.url));
    return {
      pixel: hrefs.find((h) => h.includes("/t/o/"))!,
      clicks: hrefs.filter((h) => h.includes("/t/c/")),
      unsubscribe: hrefs.find((h) => h.includes("/u/"))!,
    };
  };
  const get = async (url: string) => (await fetch(url, { redirect: "manual" })).status;
  const webhook = async (body: string) =>
    (
      await fetch(`${svc.url}/bounces`, {
        method: "POST",
        headers: { authorization: `Bearer ${TOKEN}`, "content-type": "message/rfc822" },
        body,
      })
    ).status;

  it("before anything came back: all sent, seven accepted, one refused (a hard bounce)", async () => {
    expect(smtp.arrivals).toHaveLength(7);
    const s = (await sendingStatistics(svc.app.store.db, account, sendingId))!;
    expect(s).toMatchObject({
      state: "done",
      recipients: 8,
      sent: 8,
      accepted: 7,
      failed: 1,
      pending: 0,
      delivered: 7,
      bounced: { hard: 1, soft: 0, total: 1 },
      opens: { unique: 0, total: 0 },
      clicks: { unique: 0, total: 0 },
      unsubscribes: 0,
    });
    expect(s.rates.clickToOpen).toBeNull();
    expect((await expectCountersMatchRecount(svc.app.store.db)).get(sendingId)).toMatchObject({ sent: 8 });
    // Another account sees no such sending.
    const other = await svc.createAccount("other", "a-long-password");
    expect(await sendingStatistics(svc.app.store.db, other, sendingId)).toBeUndefined();
  });

  it("bounces, complaints, opens, clicks and unsubscribes are counted once per recipient, totals in all", async () => {
    expect(await webhook(dsn("hard@example.com", "5.1.1", headersOf(arrival("hard").raw)))).toBe(202);
    expect(await webhook(dsn("soft@example.com", "4.2.2", headersOf(arrival("soft").raw)))).toBe(202);
    expect(await webhook(arf("abuse", arrival("complain").raw))).toBe(202);

    const open1 = links("open1");
    const open2 = links("open2");
    const click1 = links("click1");
    expect(open1.clicks).toHaveLength(2);
    expect(await get(open1.pixel)).toBe(200);
    expect(await get(open1.pixel)).toBe(200); // the same window: not recorded again
    expect(await get(open2.pixel)).toBe(200);
    expect(await get(click1.pixel)).toBe(200);
    expect(await get(click1.clicks[0]!)).toBe(302);
    expect(await get(click1.clicks[1]!)).toBe(302);
    expect(await get(open2.clicks[0]!)).toBe(302);
    shift = 11 * 60_000; // past the tracking window: a second open and a second click count in the totals
    expect(await get(open1.pixel)).toBe(200);
    expect(await get(click1.clicks[0]!)).toBe(302);

    const unsub = links("unsub").unsubscribe;
    const oneClick = () =>
      fetch(unsub, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: "List-Unsubscribe=One-Click",
      });
    expect((await oneClick()).status).toBe(200);
    expect((await oneClick()).status).toBe(200); // a second press: still one unsubscribe
    expect((await fetch(`${links("complain").unsubscribe}/all`, { method: "POST" })).status).toBe(200);

    const { db } = svc.app.store;
    // The counters the statistics read equal a recount of the raw rows.
    expect((await expectCountersMatchRecount(db)).get(sendingId)).toMatchObject({ hard: 2, clickers: 2 });
    const s = (await sendingStatistics(db, account, sendingId))!;
    expect(s).toMatchObject({
      sent: 8,
      accepted: 7,
      failed: 1,
      bounced: { hard: 2, soft: 1, total: 3 },
      complaints: 1,
      delivered: 5,
      opens: { unique: 3, total: 4 },
      clicks: { unique: 2, total: 4 },
      unsubscribes: 2,
    });
    expect(s.rates).toEqual({
      delivery: 5 / 8,
      bounce: 3 / 8,
      hardBounce: 2 / 8,
      softBounce: 1 / 8,
      complaint: 1 / 5,
      open: 3 / 5,
      click: 2 / 5,
      clickToOpen: 2 / 3,
      unsubscribe: 2 / 5,
    });
    expect(await sendingLinkClicks(db, account, sendingId)).toEqual([
      { linkId: expect.any(Number), url: "https://example.com/one", unique: 2, total: 3 },
      { linkId: expect.any(Number), url: "https://example.com/two", unique: 1, total: 1 },
    ]);

    const json = await admin(svc.databaseUrl, [
      "sending",
      "stats",
      "--account",
      "demo",
      "--id",
      String(sendingId),
      "--json",
    ]);
    expect(json.code).toBe(0);
    const doc = JSON.parse(json.stdout) as Record<string, unknown>;
    expect(doc).toMatchObject({
      id: sendingId,
      delivered: 5,
      rates: { open: 0.6 },
      links: [{ url: "https://example.com/one", unique: 2, total: 3 }, { url: "https://example.com/two" }],
    });
    expect(doc.sendAt).toMatch(/^\d{4}-\d{2}-\d{2}T/);
    const text = await admin(svc.databaseUrl, [
      "sending",
      "stats",
      "--account",
      "demo",
      "--id",
      String(sendingId),
    ]);
    expect(text.stdout).toMatch(/^delivered: +5 \(62\.5% of sent\)$/m);
    expect(text.stdout).toMatch(/^bounced: +3 \(37\.5%\): hard 2 \(25\.0%\), soft 1 \(12\.5%\)$/m);
    expect(text.stdout).toMatch(/^click-to-open: +66\.7%$/m);
    expect(text.stdout).toMatch(/^ +\d+ +2 +3 +https:\/\/example\.com\/one$/m);
    const missing = await admin(svc.databaseUrl, ["sending", "stats", "--account", "demo", "--id", "999999"]);
    expect([missing.code, missing.stdout, missing.stderr.trim()]).toEqual([
      1,
      "",
      "error: --id: demo has no sending 999999",
    ]);
  });
});
