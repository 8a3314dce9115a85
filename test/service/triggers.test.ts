// Triggers on SQLite and PostgreSQL: a subscriber who becomes active on the list after the trigger was
// made (inserted active, or confirming through /confirm/{token}) gets the newsletter exactly once; members
// active before get nothing; unsubscribing and re-subscribing does not send twice; GetTriggerIdForAccount,
// GetTriggerClicks and GetTriggerViews (the account's triggers only, the interval, xs:dateTime without a
// zone read in the account's time zone); two trigger workers at once (one sending, one mail each); the
// admin noun; wrong credentials.

import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { TriggerWorker } from "../../service/workers/triggers.js";
import { describeEngines } from "./support/engines.js";
import { type TestService, fault, startService, admin } from "./support/service.js";
import { parseDateTime } from "../../service/operations/reading/triggers.js";

it("parseDateTime: zone offsets, Z and no zone (UTC); nonsense is InvalidValue naming the parameter", () => {
  expect(parseDateTime("2026-01-31T12:00:00Z", "fromDate")).toBe(Date.UTC(2026, 0, 31, 12));
  expect(parseDateTime("2026-01-31T12:00:00", "fromDate")).toBe(Date.UTC(2026, 0, 31, 12));
  expect(parseDateTime("2026-01-31T12:00:00.250+01:00", "fromDate")).toBe(
    Date.UTC(2026, 0, 31, 11, 0, 0, 250),
  );
  expect(parseDateTime("2026-01-31T12:00:00", "fromDate", "Europe/Stockholm")).toBe(
    Date.UTC(2026, 0, 31, 11),
  );
  expect(parseDateTime("2026-07-31T12:00:00.5", "fromDate", "Europe/Stockholm")).toBe(
    Date.UTC(2026, 6, 31, 10, 0, 0, 500),
  );
  expect(parseDateTime(new Date(5000), "toDate")).toBe(5000);
  expect(() => parseDateTime("2026-02-30T00:00:00Z", "toDate")).toThrow(/toDate/);
  expect(() => parseDateTime("yesterday", "fromDate")).toThrow(/fromDate/);
});

describeEngines("triggers", (engine) => {
  let svc: TestService;
  let alice: number;
  let bob: number;
  let listId: number;
  let newsletterId: number;
  let triggerId: number;
  let bobTrigger: number;
  let serial = 0;
  const client = () => svc.client("alice", "alice-secret-1");

  async function makeNewsletter(accountId: number, name: string): Promise<number> {
    const { db } = svc.app.store;
    const now = Date.now();
    const template = await db
      .insertInto("templates")
      .values({
        account_id: accountId,
        name,
        subject: "Welcome {{Name}}",
        html: "<p>Welcome {{Name}}</p>",
        text: "Welcome {{Name}}\n",
        created_at: now,
      })
      .returning("id")
      .executeTakeFirstOrThrow();
    const nl = await db
      .insertInto("newsletters")
      .values({
        account_id: accountId,
        template_id: template.id,
        name,
        subject: "Welcome {{Name}}",
        tracking: "no",
        created_at: now,
      })
      .returning("id")
      .executeTakeFirstOrThrow();
    return nl.id;
  }

  /** Fires triggers, delivers the sendings and the outbox. */
  async function drain(): Promise<void> {
    await svc.app.triggerWorker!.flush();
    await svc.app.sendings!.flush();
    await svc.app.outbox!.flush();
  }

  async function newsletterMails(email: string): Promise<number> {
    const rows = await svc.app.store.db
      .selectFrom("mail_outbox")
      .select("id")
      .where("to_address", "=", email)
      .where("kind", "=", "newsletter")
      .execute();
    return rows.length;
  }

  async function insertActive(email: string): Promise<number> {
    return Number(
      await client().InsertSubscriberSid({
        strEmail: email,
        strName: email.split("@")[0]!,
        strFormat: "HTML",
        strCountryCode: "",
        strPhoneNumber: "",
        strMailingListID: String(listId),
      }),
    );
  }

  beforeAll(async () => {
    svc = await startService(engine, "triggers");
    alice = await svc.createAccount("alice", "alice-secret-1");
    bob = await svc.createAccount("bob", "bob-secret-12");
    await svc.app.store.db
      .updateTable("accounts")
      .set({ time_zone: "Europe/Stockholm" })
      .where("id", "=", alice)
      .execute();
    listId = await svc.createList(alice, "Welcome list");
    newsletterId = await makeNewsletter(alice, "Welcome letter");
    const bobList = await svc.createList(bob, "bob list");
    const bobNewsletter = await makeNewsletter(bob, "Bob letter");
    // a member active before the trigger exists
    await insertActive("early@example.com");
    await new Promise((r) => setTimeout(r, 5));
    const made = await admin(svc.databaseUrl, [
      "trigger",
      "create",
      "--account",
      "alice",
      "--name",
      "Welcome",
      "--list",
      String(listId),
      "--newsletter",
      String(newsletterId),
      "--from-email",
      "news@example.com",
      "--from-name",
      "News",
      "--json",
    ]);
    expect(made.stderr).toBe("");
    expect(made.code).toBe(0);
    triggerId = (JSON.parse(made.stdout) as { id: number }).id;
    const other = await admin(svc.databaseUrl, [
      "trigger",
      "create",
      "--account",
      "bob",
      "--name",
      "Bob's",
      "--list",
      String(bobList),
      "--newsletter",
      String(bobNewsletter),
      "--from-email",
      "bob@example.com",
      "--json",
    ]);
    expect(other.code).toBe(0);
    bobTrigger = (JSON.parse(other.stdout) as { id: number }).id;
  }, 60_000);
  afterAll(async () => {
    await svc?.close();
  });

  it("the admin noun refuses another account's list and newsletter, and shows the triggers", async () => {
    const refused = await admin(svc.databaseUrl, [
      "trigger",
      "create",
      "--account",
      "bob",
      "--name",
      "x",
      "--list",
      String(listId),
      "--newsletter",
      String(newsletterId),
      "--from-email",
      "b@example.com",
    ]);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain("--list");
    const shown = await admin(svc.databaseUrl, ["trigger", "show", "--account", "alice", "--json"]);
    expect(shown.code).toBe(0);
    expect(JSON.parse(shown.stdout)).toEqual([
      expect.objectContaining({
        id: triggerId,
        name: "Welcome",
        list: listId,
        newsletter: newsletterId,
        fromEmail: "news@example.com",
      }),
    ]);
  });

  it("a subscriber inserted active after the trigger gets exactly one mail; earlier members none", async () => {
    await insertActive("new1@example.com");
    await drain();
    await drain();
    expect(await newsletterMails("new1@example.com")).toBe(1);
    expect(await newsletterMails("early@example.com")).toBe(0);
    const mail = await svc.app.store.db
      .selectFrom("mail_outbox")
      .selectAll()
      .where("to_address", "=", "new1@example.com")
      .where("kind", "=", "newsletter")
      .executeTakeFirstOrThrow();
    expect(mail.state).toBe("sent");
    expect(mail.message).toMatch(/^From: "News" <news@example.com>\r\n/m);
    expect(mail.message).toContain("Subject: Welcome new1");
    const sending = await svc.app.store.db
      .selectFrom("sendings")
      .selectAll()
      .where("trigger_id", "=", triggerId)
      .execute();
    expect(sending).toHaveLength(1);
    expect(sending[0]).toMatchObject({
      account_id: alice,
      newsletter_id: newsletterId,
      recipients: 1,
      sent: 1,
    });
  });

  it("a second subscriber later reuses the trigger's sending (even after it was done)", async () => {
    await insertActive("new2@example.com");
    await drain();
    expect(await newsletterMails("new2@example.com")).toBe(1);
    const sendings = await svc.app.store.db
      .selectFrom("sendings")
      .select(["recipients", "sent", "state"])
      .where("trigger_id", "=", triggerId)
      .execute();
    expect(sendings).toEqual([{ recipients: 2, sent: 2, state: "done" }]);
  });

  it("a pending subscriber gets it only after confirming through /confirm/{token}", async () => {
    const email = `pending${++serial}@example.com`;
    await client().InsertSubscriberWithDemDataPendingOption({
      strEmail: email,
      strName: "Pat",
      strMailingListID: String(listId),
      strPending: "true",
    });
    await drain();
    expect(await newsletterMails(email)).toBe(0);
    // the delivered confirmation is its .eml (the stored copy keeps only the headers after delivery)
    const confirmation = await svc.app.store.db
      .selectFrom("mail_outbox")
      .select("id")
      .where("to_address", "=", email)
      .executeTakeFirstOrThrow();
    const message = readFileSync(join(svc.outboxDir, `${confirmation.id}.eml`), "utf8");
    const bodies = [...message.matchAll(/\r\n\r\n([A-Za-z0-9+/=\r\n]+)/g)].map((m) =>
      Buffer.from(m[1]!.replace(/\r\n/g, ""), "base64").toString("utf8"),
    );
    const link = /\/confirm\/([A-Za-z0-9_-]{43})/.exec(bodies.join("\n"));
    expect(link).not.toBeNull();
    expect((await fetch(`${svc.url}/confirm/${link![1]}`)).status).toBe(200); // the page: changes nothing
    await drain();
    expect(await newsletterMails(email)).toBe(0);
    expect((await fetch(`${svc.url}/confirm/${link![1]}`, { method: "POST" })).status).toBe(200);
    await drain();
    expect(await newsletterMails(email)).toBe(1);
  });

  it("unsubscribing and subscribing again does not send twice", async () => {
    const id = await insertActive("again@example.com");
    await drain();
    expect(await newsletterMails("again@example.com")).toBe(1);
    await svc.app.store.db
      .updateTable("memberships")
      .set({ state: "unsubscribed", changed_at: Date.now() })
      .where("subscriber_id", "=", id)
      .where("list_id", "=", listId)
      .execute();
    await new Promise((r) => setTimeout(r, 5));
    await insertActive("again@example.com");
    expect(
      (
        await svc.app.store.db
          .selectFrom("memberships")
          .select("state")
          .where("subscriber_id", "=", id)
          .executeTakeFirstOrThrow()
      ).state,
    ).toBe("active");
    await drain();
    await drain();
    expect(await newsletterMails("again@example.com")).toBe(1);
    const fired = await svc.app.store.db
      .selectFrom("trigger_fired")
      .select("subscriber_id")
      .where("trigger_id", "=", triggerId)
      .where("subscriber_id", "=", id)
      .execute();
    expect(fired).toHaveLength(1);
  });

  it("two trigger workers firing at once queue each new subscriber once, on the trigger's one sending", async () => {
    const emails = Array.from({ length: 30 }, (_, i) => `burst${i}@example.com`);
    for (const email of emails) await insertActive(email);
    const workers = [0, 1, 2].map((i) => new TriggerWorker(svc.app.store, { batchSize: 7 + i }));
    const fired = await Promise.all([...workers.map((w) => w.drain()), svc.app.triggerWorker!.flush()]);
    expect(fired.reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(emails.length);
    await drain();
    for (const email of emails) expect(await newsletterMails(email)).toBe(1);
    const sendings = await svc.app.store.db
      .selectFrom("sendings")
      .select(["id", "recipients", "sent"])
      .where("trigger_id", "=", triggerId)
      .execute();
    expect(sendings).toHaveLength(1);
    const recipients = await svc.app.store.db
      .selectFrom("sending_recipients")
      .select("subscriber_id")
      .where("sending_id", "=", sendings[0]!.id)
      .execute();
    expect(sendings[0]!.recipients).toBe(recipients.length);
    expect(sendings[0]!.sent).toBe(recipients.length);
  });

  it("GetTriggerIdForAccount lists the account's triggers with the list", async () => {
    const triggers = await client().GetTriggerIdForAccount({});
    expect(triggers).toHaveLength(1);
    expect(triggers[0]).toMatchObject({
      Id: triggerId,
      Name: "Welcome",
      MailinglistId: listId,
      MailinglistName: "Welcome list",
    });
    expect(triggers[0]!.Created).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/);
    expect((await svc.client("bob", "bob-secret-12").GetTriggerIdForAccount({})).map((t) => t?.Id)).toEqual([
      bobTrigger,
    ]);
  });

  it("GetTriggerClicks and GetTriggerViews: the trigger's events in the interval, oldest first; NotFound for another account's trigger", async () => {
    const { db } = svc.app.store;
    const sending = await db
      .selectFrom("sendings")
      .select("id")
      .where("trigger_id", "=", triggerId)
      .executeTakeFirstOrThrow();
    const sub = await db
      .selectFrom("subscribers")
      .select(["id", "email", "name"])
      .where("email", "=", "new1@example.com")
      .executeTakeFirstOrThrow();
    const link = await db
      .insertInto("tracked_links")
      .values({ account_id: alice, sending_id: sending.id, url: "https://example.com/a" })
      .returning("id")
      .executeTakeFirstOrThrow();
    const t0 = Date.UTC(2026, 0, 10, 10, 0, 0);
    await db
      .insertInto("tracking_events")
      .values([
        {
          account_id: alice,
          sending_id: sending.id,
          subscriber_id: sub.id,
          kind: "click",
          link_id: link.id,
          value: null,
          created_at: t0 + 60_000,
        },
        {
          account_id: alice,
          sending_id: sending.id,
          subscriber_id: sub.id,
          kind: "click",
          link_id: link.id,
          value: null,
          created_at: t0,
        },
        {
          account_id: alice,
          sending_id: sending.id,
          subscriber_id: sub.id,
          kind: "click",
          link_id: link.id,
          value: null,
          created_at: t0 + 3_600_000,
        },
        {
          account_id: alice,
          sending_id: sending.id,
          subscriber_id: sub.id,
          kind: "view",
          link_id: null,
          value: null,
          created_at: t0 + 1500,
        },
      ])
      .execute();
    const clicks = await client().GetTriggerClicks({
      triggerId,
      fromDate: "2026-01-10T11:00:00",
      toDate: "2026-01-10T11:30:00+01:00",
    });
    expect(clicks).toEqual([
      {
        Link: "https://example.com/a",
        Email: sub.email,
        Name: sub.name,
        ClickTime: "2026-01-10T10:00:00.000Z",
        NewsletterName: "Welcome letter",
        SubscriberId: String(sub.id),
      },
      {
        Link: "https://example.com/a",
        Email: sub.email,
        Name: sub.name,
        ClickTime: "2026-01-10T10:01:00.000Z",
        NewsletterName: "Welcome letter",
        SubscriberId: String(sub.id),
      },
    ]);
    // no zone: the account's (Stockholm, UTC+1 in January); toDate covers its whole second
    const views = await client().GetTriggerViews({
      triggerId,
      fromDate: "2026-01-10T11:00:01",
      toDate: "2026-01-10T11:00:01",
    });
    expect(views).toEqual([
      {
        Email: sub.email,
        Name: sub.name,
        ViewTime: "2026-01-10T10:00:01.500Z",
        NewsletterName: "Welcome letter",
        SubscriberId: String(sub.id),
      },
    ]);
    expect(
      await client().GetTriggerViews({
        triggerId,
        fromDate: "2026-01-10T10:00:02Z",
        toDate: "2026-01-12T00:00:00Z",
      }),
    ).toEqual([]);
    expect(
      await svc.client("bob", "bob-secret-12").GetTriggerViews({
        triggerId: bobTrigger,
        fromDate: "2000-01-01T00:00:00Z",
        toDate: "2100-01-01T00:00:00Z",
      }),
    ).toEqual([]);
    for (const call of [
      () =>
        client().GetTriggerClicks({
          triggerId: bobTrigger,
          fromDate: "2026-01-01T00:00:00Z",
          toDate: "2027-01-01T00:00:00Z",
        }),
      () =>
        client().GetTriggerViews({
          triggerId: bobTrigger,
          fromDate: "2026-01-01T00:00:00Z",
          toDate: "2027-01-01T00:00:00Z",
        }),
      () =>
        client().GetTriggerViews({
          triggerId: 999_999,
          fromDate: "2026-01-01T00:00:00Z",
          toDate: "2027-01-01T00:00:00Z",
        }),
    ]) {
      const error = await fault(call());
      expect(error.errorCode).toBe("NotFound");
      expect(error.message).toContain("triggerId");
    }
  });

  it("wrong credentials are refused", async () => {
    for (const call of [
      () => svc.client("alice", "wrong-password").GetTriggerIdForAccount({}),
      () =>
        svc
          .client("alice", "wrong-password")
          .GetTriggerClicks({ triggerId, fromDate: "2026-01-01T00:00:00Z", toDate: "2027-01-01T00:00:00Z" }),
      () =>
        svc
          .client("alice", "wrong-password")
          .GetTriggerViews({ triggerId, fromDate: "2026-01-01T00:00:00Z", toDate: "2027-01-01T00:00:00Z" }),
    ]) {
      expect((await fault(call())).errorCode).toBe("InvalidCredentials");
    }
  });
});
