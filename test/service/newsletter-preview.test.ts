// Newsletter preview and test send on SQLite and PostgreSQL (admin CLI `newsletter preview|test-send`,
// service/operations/mailing/newsletter-preview.ts): the preview renders for the chosen subscriber (by
// address or id; HTML and text, no HTML for a Text reader) without writing anything or tracking links; a
// test send goes over SMTP on loopback to the given addresses only, subject "[Test] …", and makes no
// sending, recipient row or tracked link; bad input is refused naming the option, with nothing queued.

import { afterAll, beforeAll, expect, it } from "vitest";
import { describeEngines } from "./support/engines.js";
import { type TestService, admin, startService } from "./support/service.js";
import { type TestSmtp, smtpUrl, startSmtp } from "./support/smtp.js";

describeEngines("newsletter preview and test send", (engine) => {
  let svc: TestService;
  let smtp: TestSmtp;
  let newsletter: number;
  let bo: number;

  const count = async (table: "sendings" | "sending_recipients" | "tracked_links" | "mail_outbox") =>
    Number(
      (
        await svc.app.store.db
          .selectFrom(table)
          .select((eb) => eb.fn.countAll().as("n"))
          .executeTakeFirstOrThrow()
      ).n,
    );

  beforeAll(async () => {
    smtp = await startSmtp();
    svc = await startService(engine, "preview", {
      SMTP_URL: smtpUrl(smtp.port),
      SMTP_ALLOW_PLAINTEXT_AUTH: "true",
      MAIL_FROM: "service@example.com",
    });
    const account = await svc.createAccount("demo", "a-long-password");
    await svc.app.store.db
      .updateTable("accounts")
      .set({ from_email: "news@example.com" })
      .where("id", "=", account)
      .execute();
    await svc.createAccount("other", "a-long-password");
    const list = await svc.createList(account, "News");
    const made = await admin(svc.databaseUrl, [
      "template",
      "create",
      "--account",
      "demo",
      "--name",
      "T",
      "--html",
      '<p>Hi {{Name}}</p><a href="https://example.com/offer">Offer</a> <a href="{{unsubscribe}}">stop</a>',
      "--subject",
      "News for {{Name}}",
    ]);
    expect(made.code, made.stderr).toBe(0);
    const creds = svc.client("demo", "a-long-password", "httpPost");
    newsletter = await creds.InsertTemplateNewsletter({
      strTemplateName: "T",
      strNewsletterName: "N",
      strTracking: "all",
    });
    for (const name of ["ann", "bo"])
      await creds.InsertSubscriberSid({
        strEmail: `${name}@example.com`,
        strName: name,
        strMailingListID: String(list),
      });
    const row = await svc.app.store.db
      .updateTable("subscribers")
      .set({ format: "Text" })
      .where("email", "=", "bo@example.com")
      .returning("id")
      .executeTakeFirstOrThrow();
    bo = row.id;
  }, 60_000);
  afterAll(async () => {
    await svc?.close();
    await smtp?.close();
  });

  it("preview renders for the subscriber by address or id, untracked, writing nothing", async () => {
    const before = await count("mail_outbox");
    const ann = await admin(svc.databaseUrl, [
      "newsletter",
      "preview",
      "--account",
      "demo",
      "--id",
      String(newsletter),
      "--subscriber",
      "ANN@example.com",
      "--json",
    ]);
    expect(ann.code, ann.stderr).toBe(0);
    const doc = JSON.parse(ann.stdout) as {
      subject: string;
      text: string;
      html: string | null;
      email: string;
    };
    expect(doc.subject).toBe("News for ann");
    expect(doc.email).toBe("ann@example.com");
    expect(doc.html).toContain("<p>Hi ann</p>");
    expect(doc.html).toContain('href="https://example.com/offer"'); // not a tracked link
    expect(doc.html).toContain('href="http://127.0.0.1:8080/u/preview"');
    expect(doc.text).toContain("Hi ann");
    const text = await admin(svc.databaseUrl, [
      "newsletter",
      "preview",
      "--account",
      "demo",
      "--id",
      String(newsletter),
      "--subscriber",
      String(bo),
    ]);
    expect(text.stdout).toMatch(/^Subject: News for bo\n\n--- text ---\nHi bo/);
    expect(text.stdout).toContain("--- html ---\n(none: the subscriber reads Text");
    expect(await count("mail_outbox")).toBe(before);
    expect(await count("tracked_links")).toBe(0);

    const nobody = await admin(svc.databaseUrl, [
      "newsletter",
      "preview",
      "--account",
      "demo",
      "--id",
      String(newsletter),
      "--subscriber",
      "nobody@example.com",
    ]);
    expect([nobody.code, nobody.stderr.trim()]).toEqual([
      1,
      'error: --subscriber: demo has no subscriber "nobody@example.com"',
    ]);
    const other = await admin(svc.databaseUrl, [
      "newsletter",
      "preview",
      "--account",
      "other",
      "--id",
      String(newsletter),
      "--subscriber",
      "ann@example.com",
    ]);
    expect(other.code).toBe(1);
  });

  it("a test send reaches the given addresses only and touches no sending or statistics", async () => {
    const refused = await admin(svc.databaseUrl, [
      "newsletter",
      "test-send",
      "--account",
      "demo",
      "--id",
      String(newsletter),
      "--to",
      "qa@example.com,not an address",
    ]);
    expect([refused.code, refused.stderr.trim()]).toEqual([
      1,
      'error: --to: "not an address" is not an e-mail address like name@example.com',
    ]);
    const mailBefore = await count("mail_outbox");
    expect(mailBefore).toBe(0);
    const sent = await admin(svc.databaseUrl, [
      "newsletter",
      "test-send",
      "--account",
      "demo",
      "--id",
      String(newsletter),
      "--to",
      "qa@example.com, boss@example.org",
      "--subscriber",
      "ann@example.com",
      "--json",
    ]);
    expect(sent.code, sent.stderr).toBe(0);
    expect(JSON.parse(sent.stdout)).toMatchObject({ newsletter, to: ["qa@example.com", "boss@example.org"] });
    await svc.app.outbox!.flush();
    expect(smtp.arrivals.map((a) => a.to[0]).sort()).toEqual(["boss@example.org", "qa@example.com"]);
    for (const arrival of smtp.arrivals) {
      expect(arrival.raw).toMatch(/^Subject: \[Test\] News for ann\r?$/m);
      expect(arrival.raw).toMatch(/^From: <news@example\.com>\r?$/m);
    }
    expect(await count("sendings")).toBe(0);
    expect(await count("sending_recipients")).toBe(0);
    expect(await count("tracked_links")).toBe(0);
  });
});
