// Newsletter sendings on SQLite and PostgreSQL: SendNewsletter (defaults, send time in the account's zone,
// other accounts' newsletter, list and filter NotFound), the sending worker (only active, not opted-out
// members matching the filter get exactly one message; List-Unsubscribe headers; a second run sends
// nothing), one-click unsubscribe (RFC 8058), kill -9 of a worker process mid-way through 10,000
// recipients, tracking per the newsletter, and (PostgreSQL) a second worker taking a sending over while the first still runs.

import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import fs from "node:fs";
import path from "node:path";
import { PassThrough, Readable } from "node:stream";
import { afterAll, beforeAll, expect, it } from "vitest";
import { runAdmin } from "../../service/admin/cli.js";
import { openStore } from "../../service/db/database.js";
import { sendNewsletter, sendingTime } from "../../service/operations/mailing/sendings.js";
import { zonedInstant } from "../../service/common/zoned-time.js";
import { describeEngines, freshDatabaseUrl } from "./support/engines.js";
import { addMembers, countRows, seedAccount, seedNewsletter, waitFor } from "./support/sendings.js";
import { type TestService, fault, startService } from "./support/service.js";
import { SendingWorker } from "../../service/workers/sendings.js";
import { unsubscribeToken, verifyUnsubscribeToken } from "../../service/operations/mailing/unsubscribe.js";

const ROOT = new URL("../../", import.meta.url).pathname;
const CHILD = "test/service/fixtures/worker.ts";
const ZONE = "Europe/Stockholm";

/** The .eml files of the outbox folder: file name → message text. */
function emls(dir: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const name of fs.readdirSync(dir))
    if (name.endsWith(".eml")) out.set(name, fs.readFileSync(path.join(dir, name), "utf8"));
  return out;
}

function header(message: string, name: string): string | undefined {
  const head = message.split("\r\n\r\n", 1)[0]!;
  const line = head.split("\r\n").find((l) => l.toLowerCase().startsWith(`${name.toLowerCase()}:`));
  return line?.slice(name.length + 1).trim();
}

/** The decoded text of a part of the given content type. */
function part(message: string, type: string): string | undefined {
  const m = new RegExp(
    `Content-Type: ${type}; charset=utf-8\\r\\nContent-Transfer-Encoding: base64\\r\\n\\r\\n([A-Za-z0-9+/=\\r\\n]+)`,
  ).exec(message);
  return m === null ? undefined : Buffer.from(m[1]!.replace(/\r\n/g, ""), "base64").toString("utf8");
}

it("sendingTime: date and time in the zone, date alone 00:00, time alone today, past or omitted now", () => {
  const now = Date.UTC(2026, 0, 15, 12, 0); // 13:00 in Stockholm (winter, UTC+1)
  expect(sendingTime(undefined, undefined, ZONE, now)).toBe(now);
  expect(sendingTime("2026-01-20", "08:15", ZONE, now)).toBe(Date.UTC(2026, 0, 20, 7, 15));
  expect(sendingTime("2026-07-20", "08:15", ZONE, now)).toBe(Date.UTC(2026, 6, 20, 6, 15));
  expect(sendingTime("2026-01-20", undefined, ZONE, now)).toBe(Date.UTC(2026, 0, 19, 23, 0));
  expect(sendingTime(undefined, "18:30", ZONE, now)).toBe(Date.UTC(2026, 0, 15, 17, 30));
  expect(sendingTime(undefined, "09:00", ZONE, now)).toBe(now);
  expect(sendingTime("2025-01-20", "08:15", ZONE, now)).toBe(now);
  expect(() => sendingTime("2026-02-30", undefined, ZONE, now)).toThrow(/strSendDate/);
});

it("unsubscribe tokens verify only as made, under the key that made them", () => {
  const key = Buffer.from("k".repeat(32));
  const token = unsubscribeToken(key, 7, 42, 3);
  expect(verifyUnsubscribeToken(key, token)).toEqual({ sendingId: 7, subscriberId: 42, listId: 3 });
  expect(verifyUnsubscribeToken(Buffer.from("x".repeat(32)), token)).toBeUndefined();
  expect(verifyUnsubscribeToken(key, token.replace("7.42.3", "7.43.3"))).toBeUndefined();
  expect(verifyUnsubscribeToken(key, `${token}x`)).toBeUndefined();
});

describeEngines("sendings", (engine) => {
  let svc: TestService;
  let alice: number;
  let bob: number;
  let content: { newsletterId: number; filterId: number };
  let bobContent: { newsletterId: number; filterId: number };
  let bobList: number;
  const client = () => svc.client("alice", "alice-secret-1");

  beforeAll(async () => {
    svc = await startService(engine, "sendings");
    alice = await svc.createAccount("alice", "alice-secret-1");
    bob = await svc.createAccount("bob", "bob-secret-12");
    await svc.app.store.db.updateTable("accounts").set({ time_zone: ZONE }).where("id", "=", alice).execute();
    content = await seedNewsletter(svc.app.store, alice, "Main");
    bobContent = await seedNewsletter(svc.app.store, bob, "Bob's");
    bobList = await svc.createList(bob, "bob list");
  }, 60_000);
  afterAll(async () => {
    await svc?.close();
  });

  it("SendNewsletter returns the sending's id with the defaults: due now, from name empty, no filter", async () => {
    const listId = await svc.createList(alice, "empty");
    const before = Date.now();
    const id = await client().SendNewsletter({
      strFromEmail: " news@example.com ",
      strNewsletterId: String(content.newsletterId),
      strMailingListId: String(listId),
    });
    const row = await svc.app.store.db
      .selectFrom("sendings")
      .selectAll()
      .where("id", "=", id)
      .executeTakeFirstOrThrow();
    expect(row).toMatchObject({
      account_id: alice,
      newsletter_id: content.newsletterId,
      list_id: listId,
      filter_id: null,
      from_email: "news@example.com",
      from_name: "",
    });
    expect(row.send_at).toBeGreaterThanOrEqual(before);
    expect(row.send_at).toBeLessThanOrEqual(Date.now());
    await svc.app.sendings!.flush();
    expect(
      await svc.app.store.db
        .selectFrom("sendings")
        .select(["state", "recipients"])
        .where("id", "=", id)
        .executeTakeFirstOrThrow(),
    ).toEqual({ state: "done", recipients: 0 });
  });

  it("SendNewsletter refuses another account's newsletter, list and filter (NotFound naming the parameter) and a bad sender", async () => {
    const listId = await svc.createList(alice, "refusals");
    const base = {
      strFromEmail: "news@example.com",
      strNewsletterId: String(content.newsletterId),
      strMailingListId: String(listId),
    };
    const cases: [Record<string, string>, string][] = [
      [{ strNewsletterId: String(bobContent.newsletterId) }, "strNewsletterId"],
      [{ strNewsletterId: "999999" }, "strNewsletterId"],
      [{ strMailingListId: String(bobList) }, "strMailingListId"],
      [{ strFilterId: String(bobContent.filterId) }, "strFilterId"],
    ];
    for (const [over, parameter] of cases) {
      const error = await fault(client().SendNewsletter({ ...base, ...over }));
      expect(error.errorCode).toBe("NotFound");
      expect(error.message).toContain(parameter);
    }
    expect(
      (await fault(client().SendNewsletter({ ...base, strFromEmail: "not an address" }))).errorCode,
    ).not.toBe("NotFound");
    expect(
      await svc.app.store.db.selectFrom("sendings").select("id").where("list_id", "=", listId).execute(),
    ).toEqual([]);
  });

  it("a sending goes to the active, not opted-out members only, exactly once each, with List-Unsubscribe; a second run sends nothing", async () => {
    const listId = await svc.createList(alice, "main list");
    const ids = await addMembers(svc.app.store, alice, listId, [
      { email: "active1@example.com", state: "active", dd3: "SE" },
      { email: "active2@example.com", state: "active", dd3: "NO" },
      { email: "pending@example.com", state: "pending", dd3: "SE" },
      { email: "gone@example.com", state: "unsubscribed", dd3: "SE" },
      { email: "optedout@example.com", state: "active", dd3: "SE", optedOut: true },
    ]);
    const before = new Set(emls(svc.outboxDir).keys());
    const id = await client().SendNewsletter({
      strFromEmail: "news@example.com",
      strFromName: "The News",
      strNewsletterId: String(content.newsletterId),
      strMailingListId: String(listId),
    });
    await svc.app.sendings!.flush();
    await svc.app.outbox!.flush();
    const sending = await svc.app.store.db
      .selectFrom("sendings")
      .selectAll()
      .where("id", "=", id)
      .executeTakeFirstOrThrow();
    expect(sending).toMatchObject({ state: "done", recipients: 2, sent: 2, lease_owner: null });
    expect(await countRows(svc.app.store, id)).toEqual({ sent: 2 });
    const fresh = [...emls(svc.outboxDir)].filter(([name]) => !before.has(name)).map(([, text]) => text);
    expect(fresh.map((m) => header(m, "To")).sort()).toEqual([
      '"active1" <active1@example.com>',
      '"active2" <active2@example.com>',
    ]);
    const first = fresh.find((m) => header(m, "To")!.includes("active1"))!;
    expect(header(first, "From")).toBe('"The News" <news@example.com>');
    expect(header(first, "Subject")).toBe("News for active1");
    expect(header(first, "List-Unsubscribe-Post")).toBe("List-Unsubscribe=One-Click");
    const link = /^<(http:\/\/127\.0\.0\.1:1\/u\/[^>]+)>$/.exec(header(first, "List-Unsubscribe")!)![1]!;
    expect(part(first, "text/plain")).toContain(`Unsubscribe: ${link}`);
    expect(part(first, "text/html")).toContain("<p>Module SE</p>");

    // One-click unsubscribe: GET only shows the button; POST unsubscribes; a forged token is 404.
    const at = `${svc.url}${new URL(link).pathname}`;
    const page = await fetch(at);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('<form method="post">');
    // The token is in the URL: no Referer carries it off, no cache keeps the page; nothing runs or frames it.
    expect(page.headers.get("referrer-policy")).toBe("no-referrer");
    expect(page.headers.get("cache-control")).toBe("no-store");
    expect(page.headers.get("content-security-policy")).toBe(
      "default-src 'none'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
    );
    const membership = () =>
      svc.app.store.db
        .selectFrom("memberships")
        .select("state")
        .where("list_id", "=", listId)
        .where("subscriber_id", "=", ids.get("active1@example.com")!)
        .executeTakeFirstOrThrow();
    expect((await membership()).state).toBe("active");
    const post = await fetch(at, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: "List-Unsubscribe=One-Click",
    });
    expect(post.status).toBe(200);
    expect((await membership()).state).toBe("unsubscribed");
    const forged = at.replace(`.${ids.get("active1@example.com")}.`, `.${ids.get("active2@example.com")}.`);
    expect((await fetch(forged, { method: "POST", body: "List-Unsubscribe=One-Click" })).status).toBe(404);
    expect((await fetch(`${svc.url}/u/junk`)).status).toBe(404);

    // A second run sends nothing new; a new sending skips the one who unsubscribed.
    const count = emls(svc.outboxDir).size;
    expect(await svc.app.sendings!.flush()).toBe(0);
    await svc.app.outbox!.flush();
    expect(emls(svc.outboxDir).size).toBe(count);
    const again = await client().SendNewsletter({
      strFromEmail: "news@example.com",
      strNewsletterId: String(content.newsletterId),
      strMailingListId: String(listId),
    });
    await svc.app.sendings!.flush();
    expect(
      await svc.app.store.db
        .selectFrom("sendings")
        .select(["recipients", "sent"])
        .where("id", "=", again)
        .executeTakeFirstOrThrow(),
    ).toEqual({ recipients: 1, sent: 1 });
  });

  it("a filter limits the recipients; a future send time in the account's zone delivers nothing before it", async () => {
    const listId = await svc.createList(alice, "filtered");
    await addMembers(svc.app.store, alice, listId, [
      { email: "se1@example.com", state: "active", dd3: "se" },
      { email: "se2@example.com", state: "active", dd3: "SE" },
      { email: "no1@example.com", state: "active", dd3: "NO" },
    ]);
    const day = new Date(Date.now() + 3 * 86_400_000);
    const date = `${day.getUTCFullYear()}-${String(day.getUTCMonth() + 1).padStart(2, "0")}-${String(day.getUTCDate()).padStart(2, "0")}`;
    const id = await client().SendNewsletter({
      strFromEmail: "news@example.com",
      strNewsletterId: String(content.newsletterId),
      strMailingListId: String(listId),
      strFilterId: String(content.filterId),
      strSendDate: date,
      strSendTime: "10:30",
    });
    const due = zonedInstant(ZONE, day.getUTCFullYear(), day.getUTCMonth() + 1, day.getUTCDate(), 10, 30);
    const row = () =>
      svc.app.store.db.selectFrom("sendings").selectAll().where("id", "=", id).executeTakeFirstOrThrow();
    expect((await row()).send_at).toBe(due);
    await svc.app.sendings!.flush();
    await svc.app.sendings!.flush(due - 60_000);
    expect((await row()).state).toBe("scheduled");
    expect(await countRows(svc.app.store, id)).toEqual({});
    await svc.app.sendings!.flush(due);
    expect(await row()).toMatchObject({ state: "done", recipients: 2, sent: 2 });
    const mails = await svc.app.store.db
      .selectFrom("sending_recipients as r")
      .innerJoin("mail_outbox as m", "m.id", "r.mail_id")
      .select(["m.to_address", "m.next_attempt_at"])
      .where("r.sending_id", "=", id)
      .orderBy("m.to_address")
      .execute();
    expect(mails).toEqual([
      { to_address: "se1@example.com", next_attempt_at: due },
      { to_address: "se2@example.com", next_attempt_at: due },
    ]);
  });

  it("a recipient who unsubscribed or opted out after the recipients were listed is skipped; sending show reports it", async () => {
    const listId = await svc.createList(alice, "late changes");
    const ids = await addMembers(svc.app.store, alice, listId, [
      { email: "stays@example.com", state: "active" },
      { email: "leaves@example.com", state: "active" },
      { email: "optsout@example.com", state: "active" },
    ]);
    const { db } = svc.app.store;
    const now = Date.now();
    // A sending whose recipients were listed (state sending) before two of them changed their minds.
    const sending = await db
      .insertInto("sendings")
      .values({
        account_id: alice,
        newsletter_id: content.newsletterId,
        list_id: listId,
        filter_id: null,
        from_email: "news@example.com",
        send_at: now,
        state: "sending",
        recipients: 3,
        lease_owner: null,
        lease_until: null,
        created_at: now,
        finished_at: null,
      })
      .returning("id")
      .executeTakeFirstOrThrow();
    await db
      .insertInto("sending_recipients")
      .values(
        [...ids.values()].map((subscriber_id) => ({
          sending_id: sending.id,
          subscriber_id,
          account_id: alice,
          mail_id: null,
          created_at: now,
        })),
      )
      .execute();
    await db
      .updateTable("memberships")
      .set({ state: "unsubscribed" })
      .where("subscriber_id", "=", ids.get("leaves@example.com")!)
      .execute();
    await db
      .insertInto("optouts")
      .values({ account_id: alice, email_key: "optsout@example.com", created_at: now })
      .execute();
    await svc.app.sendings!.flush();
    expect(await countRows(svc.app.store, sending.id)).toEqual({ sent: 1, skipped: 2 });
    expect(
      await db
        .selectFrom("sendings")
        .select(["state", "sent"])
        .where("id", "=", sending.id)
        .executeTakeFirstOrThrow(),
    ).toEqual({ state: "done", sent: 1 });

    const stdout = new PassThrough();
    let out = "";
    stdout.on("data", (c: Buffer) => (out += c.toString("utf8")));
    const code = await runAdmin(
      ["sending", "show", "--account", "alice", "--id", String(sending.id), "--json"],
      {
        stdin: Readable.from([""]),
        stdout,
        stderr: new PassThrough(),
        env: { DATABASE_URL: svc.databaseUrl },
      },
    );
    expect(code).toBe(0);
    expect(JSON.parse(out)).toEqual([
      expect.objectContaining({ id: sending.id, state: "done", recipients: 3, sent: 1, skipped: 2 }),
    ]);
  });

  it("a newsletter tracked 'all' gets tracked links and the open pixel; the unsubscribe link stays as it is", async () => {
    const listId = await svc.createList(alice, "tracked");
    await addMembers(svc.app.store, alice, listId, [{ email: "tracked@example.com", state: "active" }]);
    const tracked = await seedNewsletter(svc.app.store, alice, "Tracked");
    const { db } = svc.app.store;
    const newsletter = await db
      .selectFrom("newsletters")
      .select("template_id")
      .where("id", "=", tracked.newsletterId)
      .executeTakeFirstOrThrow();
    await db
      .updateTable("newsletters")
      .set({ tracking: "all" })
      .where("id", "=", tracked.newsletterId)
      .execute();
    await db
      .updateTable("templates")
      .set({
        html: '<html><body><a href="https://example.com/offer">Offer</a> <a href="{{unsubscribe}}">Unsubscribe</a></body></html>',
      })
      .where("id", "=", newsletter.template_id)
      .execute();
    const id = await client().SendNewsletter({
      strFromEmail: "news@example.com",
      strNewsletterId: String(tracked.newsletterId),
      strMailingListId: String(listId),
    });
    await svc.app.sendings!.flush();
    const recipient = await db
      .selectFrom("sending_recipients")
      .select("mail_id")
      .where("sending_id", "=", id)
      .executeTakeFirstOrThrow();
    // the delivered message is its .eml (the stored copy keeps only the headers after delivery)
    await svc.app.outbox!.flush();
    const mail = { message: fs.readFileSync(path.join(svc.outboxDir, `${recipient.mail_id}.eml`), "utf8") };
    const html = part(mail.message, "text/html")!;
    expect(html).not.toContain("https://example.com/offer");
    expect(html).toMatch(/href="http:\/\/127\.0\.0\.1:1\/t\/c\/[^"]+">Offer/);
    expect(html).toMatch(/<img src="http:\/\/127\.0\.0\.1:1\/t\/o\/[^"]+"/);
    const unsubscribe = /^<([^>]+)>$/.exec(header(mail.message, "List-Unsubscribe")!)![1]!;
    expect(html).toContain(`href="${unsubscribe}">Unsubscribe`);
    expect(await db.selectFrom("tracked_links").select("url").where("sending_id", "=", id).execute()).toEqual(
      [{ url: "https://example.com/offer" }],
    );
  });

  it("kill -9 of a worker process during a sending of 10,000 recipients: after a restart each has exactly one message", async () => {
    const url = await freshDatabaseUrl(engine, "sendkill");
    const store = await openStore(url);
    try {
      const acc = await seedAccount(store, "k");
      const list = await store.db
        .insertInto("mailing_lists")
        .values({ account_id: acc.id, name: "big", created_at: Date.now() })
        .returning("id")
        .executeTakeFirstOrThrow();
      const n = 10_000;
      await addMembers(
        store,
        acc.id,
        list.id,
        Array.from({ length: n }, (_, i) => ({
          email: `r${i}@example.com`,
          state: "active" as const,
          dd3: "SE",
        })),
      );
      const { newsletterId } = await seedNewsletter(store, acc.id, "big");
      const id = await sendNewsletter(
        store,
        acc,
        {
          strFromEmail: "news@example.com",
          strNewsletterId: String(newsletterId),
          strMailingListId: String(list.id),
        },
        Date.now(),
      );

      const options = {
        publicUrl: "http://127.0.0.1:1",
        domain: "127.0.0.1",
        batchSize: 50,
        leaseMs: 1500,
        pollMs: 20,
        workerId: "child",
      };
      const child: ChildProcess = spawn(
        process.execPath,
        ["--import", "tsx", CHILD, "sending", url, JSON.stringify(options)],
        { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"] },
      );
      let stderr = "";
      child.stderr?.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
      const exited = once(child, "exit");
      const sending = () =>
        store.db.selectFrom("sendings").selectAll().where("id", "=", id).executeTakeFirstOrThrow();
      try {
        await waitFor("the child to send", async () => (await sending()).sent > 0, 60_000);
      } catch (error) {
        child.kill("SIGKILL");
        throw new Error(`${String(error)}; child stderr: ${stderr.slice(-2000)}`);
      }
      child.kill("SIGKILL");
      const [code, signal] = (await exited) as [number | null, string | null];
      expect(code).toBeNull();
      expect(signal).toBe("SIGKILL");
      const killed = await sending();
      expect(killed).toMatchObject({ state: "sending", recipients: n, lease_owner: "child" });
      expect(killed.sent).toBeGreaterThan(0);
      expect(killed.sent).toBeLessThan(n);

      // The restart: a new worker takes the sending once the dead one's lease ran out.
      const logs: Record<string, unknown>[] = [];
      const worker = new SendingWorker(store, {
        publicUrl: "http://127.0.0.1:1",
        domain: "127.0.0.1",
        batchSize: 500,
        leaseMs: 30_000,
        log: (e) => logs.push(e),
      });
      // (On PostgreSQL the killed process's open transaction may hold the row a moment longer: the claim
      // skips a locked row, so the restarted worker polls, as its timer would.)
      let resent = 0;
      for (let i = 0; i < 400 && (await sending()).state !== "done"; i++) {
        resent += await worker.flush(Date.now() + 60_000);
        await new Promise((r) => setTimeout(r, 25));
      }
      expect(resent).toBe(n - killed.sent);
      expect(logs.find((e) => e.event === "sending.claimed")).toMatchObject({
        sending: id,
        state: "sending",
      });
      expect(await sending()).toMatchObject({ state: "done", recipients: n, sent: n });
      expect(await countRows(store, id)).toEqual({ sent: n });
      const mail = await store.db
        .selectFrom("mail_outbox")
        .select((eb) => [
          eb.fn.countAll<number>().as("n"),
          eb.fn.count<number>("to_address").distinct().as("distinct"),
        ])
        .where("account_id", "=", acc.id)
        .where("kind", "=", "newsletter")
        .executeTakeFirstOrThrow();
      expect({ n: Number(mail.n), distinct: Number(mail.distinct) }).toEqual({ n, distinct: n });
      const linked = await store.db
        .selectFrom("sending_recipients as r")
        .innerJoin("mail_outbox as m", "m.id", "r.mail_id")
        .innerJoin("subscribers as s", "s.id", "r.subscriber_id")
        .select((eb) => eb.fn.countAll<number>().as("n"))
        .where("r.sending_id", "=", id)
        .whereRef("m.to_address", "=", "s.email")
        .executeTakeFirstOrThrow();
      expect(Number(linked.n)).toBe(n);
    } finally {
      await store.close();
    }
  }, 180_000);

  if (engine === "postgres") {
    it("two workers on one PostgreSQL database, the second taking the sending over mid-way: one message per recipient", async () => {
      const url = await freshDatabaseUrl(engine, "sendtwo");
      const a = await openStore(url);
      const b = await openStore(url);
      try {
        const acc = await seedAccount(a, "t");
        const list = await a.db
          .insertInto("mailing_lists")
          .values({ account_id: acc.id, name: "two", created_at: Date.now() })
          .returning("id")
          .executeTakeFirstOrThrow();
        const n = 3000;
        await addMembers(
          a,
          acc.id,
          list.id,
          Array.from({ length: n }, (_, i) => ({ email: `t${i}@example.com`, state: "active" as const })),
        );
        const { newsletterId } = await seedNewsletter(a, acc.id, "two");
        const id = await sendNewsletter(
          a,
          acc,
          {
            strFromEmail: "news@example.com",
            strNewsletterId: String(newsletterId),
            strMailingListId: String(list.id),
          },
          Date.now(),
        );
        const common = { publicUrl: "http://127.0.0.1:1", domain: "127.0.0.1", batchSize: 25 };
        const first = new SendingWorker(a, { ...common, leaseMs: 60_000, workerId: "first" });
        // The second worker's clock is ahead: it sees the first one's lease as run out and takes over.
        const second = new SendingWorker(b, {
          ...common,
          leaseMs: 60_000,
          workerId: "second",
          now: () => Date.now() + 120_000,
        });
        const running = first.flush();
        await waitFor(
          "the first worker to send",
          async () =>
            (await a.db.selectFrom("sendings").select("sent").where("id", "=", id).executeTakeFirstOrThrow())
              .sent > 0,
          30_000,
        );
        const takeOver = async () => {
          let taken = 0;
          for (let i = 0; i < 500 && taken === 0; i++) {
            taken += await second.flush();
            if (
              (
                await b.db
                  .selectFrom("sendings")
                  .select("state")
                  .where("id", "=", id)
                  .executeTakeFirstOrThrow()
              ).state === "done"
            )
              break;
            await new Promise((r) => setTimeout(r, 5));
          }
          return taken;
        };
        const [x, y] = await Promise.all([running, takeOver()]);
        expect(x + y).toBe(n);
        expect(y).toBeGreaterThan(0);
        expect(await countRows(a, id)).toEqual({ sent: n });
        const mail = await a.db
          .selectFrom("mail_outbox")
          .select((eb) => [
            eb.fn.countAll<number>().as("n"),
            eb.fn.count<number>("to_address").distinct().as("distinct"),
          ])
          .where("account_id", "=", acc.id)
          .executeTakeFirstOrThrow();
        expect({ n: Number(mail.n), distinct: Number(mail.distinct) }).toEqual({ n, distinct: n });
      } finally {
        await a.close();
        await b.close();
      }
    }, 120_000);
  }
});
