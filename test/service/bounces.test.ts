// Bounces and complaints on SQLite and PostgreSQL with real components on loopback: the service delivers a
// newsletter to an SMTP server (test/service/support/smtp.ts) with a VERP return path per message; real
// delivery status notifications (RFC 3464) and feedback reports (RFC 5965) come back over SMTP to the
// service's bounce receiver and over the webhook. A hard bounce, a complaint and an SMTP 5xx at send time
// put the address on the account's opt-out-all set at once; soft bounces only at BOUNCE_SOFT_LIMIT (2
// here); a repeated report changes nothing; the next sending skips every suppressed address. The
// receivers refuse what is not theirs: recipients that are not a verified VERP address (550), a forged
// mac, messages over BOUNCE_MAX_BYTES (552), a wrong webhook token (401), a body that is no report (400).

import { randomBytes } from "node:crypto";
import { createTransport } from "nodemailer";
import { afterAll, beforeAll, expect, it } from "vitest";
import { describeEngines } from "./support/engines.js";
import { type TestService, admin, startService } from "./support/service.js";
import { arf, dsn, headersOf } from "./support/reports.js";
import { type TestSmtp, smtpUrl, startSmtp } from "./support/smtp.js";

const TOKEN = randomBytes(24).toString("hex");
const DOMAIN = "bounces.test";

describeEngines("bounces and complaints", (engine) => {
  let svc: TestService;
  let smtp: TestSmtp;
  let account: number;
  let list: number;
  let newsletter: number;
  const creds = () => svc.client("demo", "a-long-password", "httpPost");

  /** Sends `raw` to the bounce receiver for `to`; resolves to the SMTP answer code (250 when taken). */
  const toReceiver = async (to: string[], raw: string): Promise<number> => {
    const transport = createTransport({
      host: "127.0.0.1",
      port: svc.app.bounceSmtpPort!,
      secure: false,
      ignoreTLS: true,
      connectionTimeout: 10_000,
      socketTimeout: 10_000,
    });
    try {
      await transport.sendMail({ envelope: { from: "mailer-daemon@mx.example", to }, raw });
      return 250;
    } catch (error) {
      return (error as { responseCode?: number }).responseCode ?? -1;
    } finally {
      transport.close();
    }
  };
  const arrivalFor = (address: string, nth = 0) => smtp.arrivals.filter((a) => a.to[0] === address)[nth]!;
  const events = () =>
    svc.app.store.db
      .selectFrom("mail_events")
      .select(["email_key", "kind", "source", "status"])
      .orderBy("id")
      .execute();
  const optouts = async () =>
    (await svc.app.store.db.selectFrom("optouts").select("email_key").orderBy("email_key").execute()).map(
      (r) => r.email_key,
    );
  const send = async () => {
    const id = await creds().SendNewsletter({
      strFromEmail: "news@example.com",
      strNewsletterId: String(newsletter),
      strMailingListId: String(list),
    });
    await svc.app.sendings!.flush();
    await svc.app.outbox!.flush();
    return id;
  };

  beforeAll(async () => {
    smtp = await startSmtp();
    svc = await startService(engine, "bounces", {
      SMTP_URL: smtpUrl(smtp.port),
      SMTP_ALLOW_PLAINTEXT_AUTH: "true",
      BOUNCE_DOMAIN: DOMAIN,
      BOUNCE_SMTP_PORT: "0",
      BOUNCE_WEBHOOK_TOKEN: TOKEN,
      BOUNCE_SOFT_LIMIT: "2",
      BOUNCE_MAX_BYTES: "65536",
      MAIL_FROM: "service@example.com",
    });
    account = await svc.createAccount("demo", "a-long-password");
    list = await svc.createList(account, "News");
    const made = await admin(svc.databaseUrl, [
      "template",
      "create",
      "--account",
      "demo",
      "--name",
      "T",
      "--html",
      '<p>Hi {{Name}}</p><a href="{{unsubscribe}}">stop</a>',
      "--subject",
      "News",
      "--json",
    ]);
    expect(made.code).toBe(0);
    newsletter = await creds().InsertTemplateNewsletter({
      strTemplateName: "T",
      strNewsletterName: "N",
      strTracking: "no",
    });
    for (const name of ["complain", "hard", "soft", "refused", "hooked"])
      await creds().InsertSubscriberSid({
        strEmail: `${name}@example.com`,
        strName: name,
        strMailingListID: String(list),
      });
  }, 60_000);
  afterAll(async () => {
    await svc?.close();
    await smtp?.close();
  });

  it("each message leaves with its own VERP return path; an SMTP 5xx at send time is a hard bounce", async () => {
    smtp.refuseTo.set("refused@example.com", 550);
    await send();
    expect(smtp.arrivals.map((a) => a.to[0]).sort()).toEqual([
      "complain@example.com",
      "hard@example.com",
      "hooked@example.com",
      "soft@example.com",
    ]);
    const mails = await svc.app.store.db
      .selectFrom("mail_outbox")
      .select(["id", "to_address", "state"])
      .execute();
    for (const arrival of smtp.arrivals) {
      const mail = mails.find((m) => m.to_address === arrival.to[0])!;
      expect(arrival.from).toMatch(new RegExp(`^bounce-${mail.id}-[0-9a-f]{16}@${DOMAIN}$`));
    }
    expect(mails.find((m) => m.to_address === "refused@example.com")!.state).toBe("dead");
    expect(await events()).toEqual([
      { email_key: "refused@example.com", kind: "hard", source: "send", status: "5.0.0" },
    ]);
    expect(await optouts()).toEqual(["refused@example.com"]);
  });

  it("a DSN over SMTP: hard suppresses at once, soft only at the limit, a repeat changes nothing", async () => {
    const hard = arrivalFor("hard@example.com");
    expect(
      await toReceiver([hard.from as string], dsn("hard@example.com", "5.1.1", headersOf(hard.raw))),
    ).toBe(250);
    const soft = arrivalFor("soft@example.com");
    const softDsn = dsn("soft@example.com", "4.2.2", headersOf(soft.raw));
    expect(await toReceiver([soft.from as string], softDsn)).toBe(250);
    expect(await toReceiver([soft.from as string], softDsn)).toBe(250); // the same report again
    expect((await events()).slice(1)).toEqual([
      { email_key: "hard@example.com", kind: "hard", source: "smtp", status: "5.1.1" },
      { email_key: "soft@example.com", kind: "soft", source: "smtp", status: "4.2.2" },
    ]);
    expect(await optouts()).toEqual(["hard@example.com", "refused@example.com"]);
    const states = await svc.app.store.db
      .selectFrom("memberships as m")
      .innerJoin("subscribers as s", "s.id", "m.subscriber_id")
      .select(["s.email", "m.state"])
      .where("s.email", "=", "hard@example.com")
      .execute();
    expect(states).toEqual([{ email: "hard@example.com", state: "unsubscribed" }]);
  });

  it("an ARF complaint over SMTP and one over the webhook (found by Message-ID) suppress the address", async () => {
    const complain = arrivalFor("complain@example.com");
    expect(await toReceiver([complain.from as string], arf("abuse", complain.raw))).toBe(250);
    const hooked = arrivalFor("hooked@example.com");
    const post = (body: string, token = TOKEN) =>
      fetch(`${svc.url}/bounces`, {
        method: "POST",
        headers: { authorization: `Bearer ${token}`, "content-type": "message/rfc822" },
        body,
      });
    expect((await post(arf("abuse", hooked.raw), "x".repeat(48))).status).toBe(401);
    expect((await post("Subject: hello\r\n\r\nnot a report\r\n")).status).toBe(400);
    expect((await post(arf("abuse", `${hooked.raw}${"x".repeat(70_000)}`))).status).toBe(413);
    expect((await post(arf("not-spam", hooked.raw))).status).toBe(202);
    const answer = await post(arf("abuse", hooked.raw));
    expect([answer.status, await answer.json()]).toEqual([202, { recorded: 1 }]);
    expect((await events()).slice(3)).toEqual([
      { email_key: "complain@example.com", kind: "complaint", source: "smtp", status: "abuse" },
      { email_key: "hooked@example.com", kind: "complaint", source: "webhook", status: "abuse" },
    ]);
    expect(await optouts()).toEqual([
      "complain@example.com",
      "hard@example.com",
      "hooked@example.com",
      "refused@example.com",
    ]);
  });

  it("the receiver refuses recipients that are no verified VERP address, and messages over the limit", async () => {
    const soft = arrivalFor("soft@example.com");
    const verp = soft.from as string;
    const forged = verp.replace(/-([0-9a-f])/, (_m, c: string) => `-${c === "0" ? "1" : "0"}`);
    expect(await toReceiver(["postmaster@bounces.test"], dsn("x@example.com", "5.1.1", ""))).toBe(550);
    expect(await toReceiver([forged], dsn("soft@example.com", "5.1.1", headersOf(soft.raw)))).toBe(550);
    expect(await toReceiver([verp], `Subject: big\r\n\r\n${"y".repeat(70_000)}\r\n`)).toBe(552);
    expect((await events()).length).toBe(5);
  });

  it("the next sending skips every suppressed address; a second soft bounce reaches the limit", async () => {
    await send();
    const second = smtp.arrivals.slice(4);
    expect(second.map((a) => a.to[0])).toEqual(["soft@example.com"]);
    expect(
      await toReceiver(
        [second[0]!.from as string],
        dsn("soft@example.com", "4.2.2", headersOf(second[0]!.raw)),
      ),
    ).toBe(250);
    expect(await optouts()).toContain("soft@example.com");
    expect((await events()).filter((e) => e.kind === "soft").length).toBe(2);
  });
});
