// Consent records and the admin CLI's `subscriber` noun, through the whole service on SQLite and
// PostgreSQL: a pending insert records the consent asked for (the operation, the caller's address, the
// mail's text without its link), the confirmation button the consent given (the person's address and
// browser, the page's text), the unsubscribe link its withdrawal; `subscriber find | show | update |
// export` show and change them; `subscriber erase` leaves the address, name and phone in no table and no
// outbox file while every count of the sending stays as it was, and refuses (changing nothing) without
// the address repeated.

import { readFileSync, existsSync } from "node:fs";
import { join } from "node:path";
import { sql } from "kysely";
import { afterAll, beforeAll, expect, it } from "vitest";
import { sendingStatistics } from "../../service/operations/mailing/sending-stats.js";
import { describeEngines } from "./support/engines.js";
import { admin, startService, type TestService } from "./support/service.js";

const ANN = "Ann.Erase@Example.com";
const PHONE = "46701234567";

/** The text/plain part of a message written to the outbox folder (base64). */
function textOf(raw: string): string {
  const m =
    /Content-Type: text\/plain; charset=utf-8\r\nContent-Transfer-Encoding: base64\r\n\r\n([A-Za-z0-9+/=\r\n]+)/.exec(
      raw,
    );
  return Buffer.from(m![1]!.replace(/\r\n/g, ""), "base64").toString("utf8");
}

describeEngines("consents and the subscriber noun", (engine) => {
  let svc: TestService;
  let accountId: number;
  let listId: number;
  let annId: number;
  let sendingId: number;
  let annMailIds: number[];
  let unsubscribeLink = "";
  const cli = (...argv: string[]) => admin(svc.databaseUrl, argv);

  beforeAll(async () => {
    svc = await startService(engine, "subjdata", { MAIL_FROM: "service@example.com" });
    accountId = await svc.createAccount("demo", "a-long-password");
    listId = await svc.createList(accountId, "News");
    // Ann asks through the account's form: a pending insert from the form's server (127.0.0.7)
    const creds = svc.client("demo", "a-long-password", "httpPost", "127.0.0.7");
    annId = Number(
      await creds.InsertSubscriberWithDemDataPendingOption({
        strEmail: ANN,
        strName: "Ann Erase",
        strMailingListID: String(listId),
        strPhoneNumber: PHONE,
        strCountryCode: "46",
        strPending: "true",
      }),
    );
    await svc.client("demo", "a-long-password").InsertSubscriberSid({
      strEmail: "bob@example.com",
      strName: "Bob Keep",
      strMailingListID: String(listId),
    });
    await svc.app.outbox!.flush();
    const confirmation = await svc.app.store.db
      .selectFrom("mail_outbox")
      .select("id")
      .where("kind", "=", "confirmation")
      .executeTakeFirstOrThrow();
    const link = /\/confirm\/([A-Za-z0-9_-]{43})/.exec(
      textOf(readFileSync(join(svc.outboxDir, `${confirmation.id}.eml`), "utf8")),
    )![1]!;
    const confirmed = await fetch(`${svc.url}/confirm/${link}`, {
      method: "POST",
      headers: { "user-agent": "TestBrowser/1.0 (consent)" },
    });
    expect(confirmed.status).toBe(200);
    // a newsletter to both
    expect(
      (
        await cli(
          "template",
          "create",
          "--account",
          "demo",
          "--name",
          "T",
          "--subject",
          "News for {{Name}}",
          "--html",
          '<p>Hi {{Name}}</p><a href="{{unsubscribe}}">stop</a>',
        )
      ).code,
    ).toBe(0);
    const newsletter = await creds.InsertTemplateNewsletter({
      strTemplateName: "T",
      strNewsletterName: "N",
      strTracking: "no",
    });
    sendingId = await creds.SendNewsletter({
      strFromEmail: "news@example.com",
      strNewsletterId: String(newsletter),
      strMailingListId: String(listId),
    });
    await svc.app.sendings!.flush();
    await svc.app.outbox!.flush();
    annMailIds = (
      await svc.app.store.db.selectFrom("mail_outbox").select("id").where("to_address", "=", ANN).execute()
    ).map((r) => r.id);
    expect(annMailIds).toHaveLength(2);
  }, 60_000);
  afterAll(async () => {
    await svc?.close();
  });

  it("records the consent asked for and given: when, how, from where, the text shown", async () => {
    const shown = await cli(
      "subscriber",
      "show",
      "--account",
      "demo",
      "--subscriber",
      ANN.toLowerCase(),
      "--json",
    );
    expect(shown.code).toBe(0);
    const data = JSON.parse(shown.stdout);
    expect(data.subscriber).toMatchObject({ id: annId, email: ANN, name: "Ann Erase", phone: PHONE });
    expect(data.memberships).toMatchObject([{ listId, list: "News", state: "active" }]);
    expect(data.consents).toHaveLength(2);
    const [requested, confirmed] = data.consents;
    expect(requested).toMatchObject({
      listId,
      kind: "requested",
      source: "InsertSubscriberWithDemDataPendingOption",
      userAgent: null,
    });
    expect(requested.ip).toMatch(/127\.0\.0\.7$/);
    expect(requested.text).toContain('please confirm that you want to receive "News"');
    expect(requested.text).toContain("[confirmation link]");
    expect(requested.text).not.toMatch(/\/confirm\//);
    expect(confirmed).toMatchObject({
      listId,
      kind: "confirmed",
      source: "confirmation link",
      userAgent: "TestBrowser/1.0 (consent)",
    });
    expect(confirmed.ip).toMatch(/127\.0\.0\.1$/);
    expect(confirmed.text).toContain("Press the button to confirm");
    expect(Date.parse(confirmed.at)).toBeGreaterThanOrEqual(Date.parse(requested.at));
    const text = await cli("subscriber", "show", "--account", "demo", "--subscriber", String(annId));
    expect(text.stdout).toContain("TestBrowser/1.0 (consent)");
  });

  it("finds by part of the address, updates fields with checks, and exports everything as JSON", async () => {
    const found = await cli("subscriber", "find", "--account", "demo", "--email", "ERASE@", "--json");
    expect(JSON.parse(found.stdout)).toMatchObject([{ id: annId, email: ANN }]);
    const wildcard = await cli("subscriber", "find", "--account", "demo", "--email", "%", "--json");
    expect(JSON.parse(wildcard.stdout)).toEqual([]);
    expect(
      (
        await cli(
          "subscriber",
          "update",
          "--account",
          "demo",
          "--subscriber",
          ANN,
          "--field",
          "3=SE",
          "--name",
          "Ann E.",
        )
      ).code,
    ).toBe(0);
    for (const [option, value, message] of [
      ["--email", "not-an-address", /--email is not an e-mail address/],
      ["--email", "bob@example.com", /another subscriber/],
      ["--field", "26=x", /--field must be N=VALUE with N from 1 to 25/],
      ["--format", "PDF", /--format must be HTML or Text/],
    ] as const) {
      const refused = await cli(
        "subscriber",
        "update",
        "--account",
        "demo",
        "--subscriber",
        ANN,
        option,
        value,
      );
      expect(refused.code, value).toBe(1);
      expect(refused.stderr).toMatch(message);
    }
    const exported = await cli("subscriber", "export", "--account", "demo", "--subscriber", ANN);
    expect(exported.code).toBe(0);
    const doc = JSON.parse(exported.stdout);
    expect(doc).toMatchObject({
      account: "demo",
      subscriber: { name: "Ann E.", fields: { 3: "SE" }, email: ANN },
    });
    expect(doc.consents).toHaveLength(2);
    expect(doc.mails.map((m: { kind: string }) => m.kind)).toEqual(["confirmation", "newsletter"]);
    expect(doc.confirmations).toHaveLength(1);
    expect(doc.confirmations[0].usedAt).not.toBeNull();
  });

  it("records a withdrawal by the unsubscribe link", async () => {
    const mail = readFileSync(join(svc.outboxDir, `${annMailIds[1]}.eml`), "utf8");
    const unsubscribe = /List-Unsubscribe: <http:\/\/127\.0\.0\.1:1(\/u\/[^>]+)>/.exec(mail)![1]!;
    unsubscribeLink = unsubscribe;
    const res = await fetch(`${svc.url}${unsubscribe}`, {
      method: "POST",
      headers: { "user-agent": "MailApp/2", "content-type": "application/x-www-form-urlencoded" },
      body: "List-Unsubscribe=One-Click",
    });
    expect(res.status).toBe(200);
    const doc = JSON.parse(
      (await cli("subscriber", "export", "--account", "demo", "--subscriber", ANN)).stdout,
    );
    expect(doc.consents.at(-1)).toMatchObject({
      kind: "withdrawn",
      source: "unsubscribe link",
      userAgent: "MailApp/2",
      listId,
    });
  });

  it("erases the person everywhere, keeping every count; refuses without the address repeated", async () => {
    const before = await sendingStatistics(svc.app.store.db, accountId, sendingId);
    const wrong = await cli(
      "subscriber",
      "erase",
      "--account",
      "demo",
      "--subscriber",
      ANN,
      "--confirm",
      "bob@example.com",
    );
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toMatch(/--confirm must repeat/);
    expect(await dumpText()).toContain(ANN.toLowerCase());
    const erased = await cli(
      "subscriber",
      "erase",
      "--account",
      "demo",
      "--subscriber",
      ANN,
      "--confirm",
      ANN.toUpperCase(),
      "--outbox-dir",
      svc.outboxDir,
      "--json",
    );
    expect(erased.stderr).toBe("");
    expect(erased.code).toBe(0);
    expect(JSON.parse(erased.stdout)).toMatchObject({ subscriberId: annId, memberships: 1, consents: 3 });
    // no table holds her address, name or phone; her .eml files are gone, Bob's stay
    const dump = await dumpText();
    for (const trace of [ANN.toLowerCase(), "ann erase", "ann e.", PHONE]) expect(dump).not.toContain(trace);
    expect(dump).toContain("bob@example.com");
    for (const id of annMailIds) expect(existsSync(join(svc.outboxDir, `${id}.eml`))).toBe(false);
    const bobMail = await svc.app.store.db
      .selectFrom("mail_outbox")
      .select("id")
      .where("to_address", "=", "bob@example.com")
      .executeTakeFirstOrThrow();
    expect(existsSync(join(svc.outboxDir, `${bobMail.id}.eml`))).toBe(true);
    // the sending's numbers are as before
    expect(await sendingStatistics(svc.app.store.db, accountId, sendingId)).toEqual(before);
    expect(before).toMatchObject({ recipients: 2, sent: 2, unsubscribes: 1 });
    // her unsubscribe-from-all link now names no one
    expect((await fetch(`${svc.url}${unsubscribeLink}/all`, { method: "POST" })).status).toBe(404);
    const gone = await cli("subscriber", "show", "--account", "demo", "--subscriber", ANN);
    expect(gone.code).toBe(1);
    expect(gone.stderr).toContain('--subscriber: demo has no subscriber "Ann.Erase@Example.com"');
  });

  /** Every text value of every table, lower-cased, as one string. */
  async function dumpText(): Promise<string> {
    const db = svc.app.store.db;
    const tables =
      engine === "sqlite"
        ? (await sql<{ name: string }>`select name from sqlite_master where type = 'table'`.execute(db)).rows
        : (
            await sql<{
              name: string;
            }>`select table_name as name from information_schema.tables where table_schema = 'public'`.execute(
              db,
            )
          ).rows;
    const parts: string[] = [];
    for (const { name } of tables) {
      const rows = (await sql<Record<string, unknown>>`select * from ${sql.table(name)}`.execute(db)).rows;
      for (const row of rows) parts.push(JSON.stringify(row).toLowerCase());
    }
    return parts.join("\n");
  }
});
