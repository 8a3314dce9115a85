// Sending counters (service/tables/sending-counters.ts) on SQLite and PostgreSQL: migration 0016 fills them
// from the rows a database already had, and then its triggers keep them equal to a recount of the raw rows
// through a long seeded mix of the writes the service makes (recipients listed, skipped, sent in batches,
// cancelled; messages held, queued again, accepted, failed, withdrawn; hard and soft bounces and complaints
// in any order, before and after delivery; views and clicks, first and repeated; unsubscribes), each written
// row by row or many rows a statement, as the sending worker, the outbox, tracking and bounces do.

import SQLite from "better-sqlite3";
import { Kysely, Migrator, PostgresDialect, SqliteDialect, sql } from "kysely";
import pg from "pg";
import { afterAll, beforeAll, expect, it } from "vitest";
import { parseDatabaseUrl } from "../../service/db/database.js";
import { codeMigrations, migrate } from "../../service/db/migrations/index.js";
import type { Database } from "../../service/db/schema.js";
import { expectCountersMatchRecount } from "./support/counters.js";
import { describeEngines, freshDatabaseUrl } from "./support/engines.js";

const T0 = Date.UTC(2026, 10, 1);
const SUBSCRIBERS = 200;
const SENDINGS = 3;
const LINKS = 3;

/** A small deterministic PRNG (mulberry32): the mix is the same on every run and engine. */
function prng(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describeEngines("sending counters", (engine) => {
  let db: Kysely<Database>;
  const random = prng(26);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)]!;

  beforeAll(async () => {
    const { target } = parseDatabaseUrl(await freshDatabaseUrl(engine, "counters"));
    db = new Kysely<Database>({
      dialect:
        engine === "sqlite"
          ? new SqliteDialect({ database: new SQLite(target) })
          : new PostgresDialect({ pool: new pg.Pool({ connectionString: target, max: 2 }) }),
    });
    // The schema as it was before the counters.
    const migrator = new Migrator({ db, provider: { getMigrations: async () => codeMigrations(engine) } });
    const names = Object.keys(codeMigrations(engine));
    const before = await migrator.migrateTo(names[names.indexOf("0016_sending_counters") - 1]!);
    expect(before.error).toBeUndefined();
  });
  afterAll(async () => {
    await db?.destroy();
  });

  /** The ids of the fixed rows: accounts 1, list 1, subscribers 1..SUBSCRIBERS, links per sending. */
  async function seed(): Promise<void> {
    await db
      .insertInto("accounts")
      .values({ username: "counters", password_hash: "x", created_at: T0 } as never)
      .execute();
    await db.insertInto("mailing_lists").values({ account_id: 1, name: "All", created_at: T0 }).execute();
    await db
      .insertInto("subscribers")
      .values(
        Array.from({ length: SUBSCRIBERS }, (_, i) => ({
          account_id: 1,
          email: `s${i}@example.com`,
          email_key: `s${i}@example.com`,
          created_at: T0,
        })) as never,
      )
      .execute();
    await db
      .insertInto("templates")
      .values({ account_id: 1, name: "T", subject: "S", html: "<p>x</p>", created_at: T0 } as never)
      .execute();
    for (let s = 1; s <= SENDINGS; s++) {
      await db
        .insertInto("newsletters")
        .values({
          account_id: 1,
          template_id: 1,
          name: `N${s}`,
          subject: "S",
          tracking: "all",
          created_at: T0,
        } as never)
        .execute();
      await db
        .insertInto("sendings")
        .values({
          account_id: 1,
          newsletter_id: s,
          list_id: 1,
          from_email: "news@example.com",
          send_at: T0,
          state: "sending",
          created_at: T0,
        } as never)
        .execute();
      for (let l = 0; l < LINKS; l++)
        await db
          .insertInto("tracked_links")
          .values({ account_id: 1, sending_id: s, url: `https://example.com/${s}/${l}` })
          .execute();
    }
  }

  const recipients = new Map<string, { mail: number | null; state: string }>();
  const mails: number[] = [];
  let now = T0;

  /** Lists `n` recipients of a sending as queued (one statement), as the worker's expansion does. */
  async function list(sendingId: number, n: number): Promise<void> {
    const values = [];
    for (let i = 0; i < n; i++) {
      const subscriber = 1 + Math.floor(random() * SUBSCRIBERS);
      const key = `${sendingId}:${subscriber}`;
      if (recipients.has(key)) continue;
      recipients.set(key, { mail: null, state: "queued" });
      values.push({ sending_id: sendingId, subscriber_id: subscriber, account_id: 1, created_at: now });
    }
    if (values.length > 0) await db.insertInto("sending_recipients").values(values).execute();
  }

  /** Queues a message for each queued recipient picked, or skips them: one statement per kind. */
  async function sendBatch(): Promise<void> {
    const queued = [...recipients].filter(([, r]) => r.state === "queued").slice(0, 8);
    const skipped: [string, { mail: number | null; state: string }][] = [];
    for (const entry of queued) {
      if (random() < 0.2) {
        skipped.push(entry);
        continue;
      }
      const [key, r] = entry;
      const [sendingId, subscriber] = key.split(":").map(Number) as [number, number];
      const mail = await db
        .insertInto("mail_outbox")
        .values({
          account_id: 1,
          kind: "newsletter",
          to_address: `s${subscriber}@example.com`,
          subject: "S",
          message: "x",
          next_attempt_at: now,
          created_at: now,
        })
        .returning("id")
        .executeTakeFirstOrThrow();
      await db
        .updateTable("sending_recipients")
        .set({ state: "sent", mail_id: mail.id })
        .where("sending_id", "=", sendingId)
        .where("subscriber_id", "=", subscriber)
        .execute();
      r.state = "sent";
      r.mail = mail.id;
      mails.push(mail.id);
    }
    for (const [key, r] of skipped) {
      const [sendingId, subscriber] = key.split(":").map(Number) as [number, number];
      r.state = "skipped";
      await db
        .updateTable("sending_recipients")
        .set({ state: "skipped" })
        .where("sending_id", "=", sendingId)
        .where("subscriber_id", "=", subscriber)
        .execute();
    }
  }

  /** Moves some messages between outbox states, several a statement (as pause, resume, the outbox do). */
  async function moveMail(): Promise<void> {
    if (mails.length === 0) return;
    const ids = Array.from({ length: 1 + Math.floor(random() * 6) }, () => pick(mails));
    const to = pick(["held", "queued", "sent", "sent", "dead", "cancelled"] as const);
    await db.updateTable("mail_outbox").set({ state: to }).where("id", "in", ids).execute();
    // A write that changes no state (a lease) counts nothing.
    await db.updateTable("mail_outbox").set({ lease_until: now }).where("id", "in", ids).execute();
  }

  /** A bounce or complaint about a message (at most one of each kind per message), row by row. */
  async function bounce(): Promise<void> {
    if (mails.length === 0) return;
    const mail = pick(mails);
    const recipient = await db
      .selectFrom("sending_recipients")
      .select(["sending_id", "subscriber_id"])
      .where("mail_id", "=", mail)
      .executeTakeFirstOrThrow();
    await db
      .insertInto("mail_events")
      .values({
        account_id: 1,
        mail_id: mail,
        sending_id: recipient.sending_id,
        subscriber_id: recipient.subscriber_id,
        email_key: "x",
        kind: pick(["hard", "soft", "soft", "complaint"] as const),
        source: "test",
        status: "5.0.0",
        detail: "",
        created_at: now,
      })
      .onConflict((oc) => oc.columns(["mail_id", "kind"]).doNothing())
      .execute();
  }

  async function trackingEvent(
    sendingId: number,
    subscriber: number,
    kind: "view" | "click" | "unsubscribe",
    link: number | null,
  ): Promise<void> {
    await db
      .insertInto("tracking_events")
      .values({
        account_id: 1,
        sending_id: sendingId,
        subscriber_id: subscriber,
        kind,
        link_id: link,
        value: null,
        created_at: now,
      })
      .execute();
  }

  /** A view or click as tracking records it: the token's bound row (first or again), then the event. */
  async function track(): Promise<void> {
    const sendingId = 1 + Math.floor(random() * SENDINGS);
    const subscriber = 1 + Math.floor(random() * SUBSCRIBERS);
    const click = random() < 0.5;
    const link = click ? (sendingId - 1) * LINKS + 1 + Math.floor(random() * LINKS) : 0;
    const kind = click ? "click" : "view";
    await db
      .insertInto("tracking_limits")
      .values({
        sending_id: sendingId,
        subscriber_id: subscriber,
        link_id: link,
        kind,
        window_start: now,
        window_count: 1,
        total: 1,
      })
      .onConflict((oc) =>
        oc.columns(["sending_id", "subscriber_id", "link_id", "kind"]).doUpdateSet({
          total: sql`tracking_limits.total + 1`,
          window_count: sql`tracking_limits.window_count + 1`,
        }),
      )
      .execute();
    await trackingEvent(sendingId, subscriber, kind, click ? link : null);
    if (random() < 0.1) {
      const seen = await db
        .selectFrom("tracking_events")
        .select("id")
        .where("sending_id", "=", sendingId)
        .where("subscriber_id", "=", subscriber)
        .where("kind", "=", "unsubscribe")
        .executeTakeFirst();
      if (seen === undefined) await trackingEvent(sendingId, subscriber, "unsubscribe", null);
    }
  }

  /** Cancels a sending's queued recipients (one statement), as cancel does. */
  async function cancel(sendingId: number): Promise<void> {
    await db
      .updateTable("sending_recipients")
      .set({ state: "cancelled" })
      .where("sending_id", "=", sendingId)
      .where("state", "=", "queued")
      .execute();
    for (const [key, r] of recipients)
      if (key.startsWith(`${sendingId}:`) && r.state === "queued") r.state = "cancelled";
  }

  async function mix(steps: number): Promise<void> {
    for (let i = 0; i < steps; i++) {
      now += Math.floor(random() * 20 * 60_000);
      const r = random();
      if (r < 0.1) await list(1 + Math.floor(random() * SENDINGS), 10);
      else if (r < 0.3) await sendBatch();
      else if (r < 0.45) await moveMail();
      else if (r < 0.6) await bounce();
      else await track();
    }
  }

  it("migration 0016 fills the counters from the rows written before it", async () => {
    await seed();
    await mix(150);
    await migrate(db, engine);
    const counted = await expectCountersMatchRecount(db);
    const sum = (column: "sent" | "opens" | "clickers" | "hard" | "soft" | "accepted" | "unsubscribes") =>
      [...counted.values()].reduce((n, c) => n + c[column], 0);
    // The mix reached every kind of counter.
    for (const column of ["sent", "opens", "clickers", "hard", "soft", "accepted", "unsubscribes"] as const)
      expect(sum(column), column).toBeGreaterThan(0);
  });

  it("the triggers keep them equal to a recount through a long mix of writes", async () => {
    for (let round = 0; round < 4; round++) {
      await mix(80);
      await expectCountersMatchRecount(db);
    }
    await list(2, 20);
    await cancel(2);
    const counted = await expectCountersMatchRecount(db);
    expect(counted.get(2)!.cancelled).toBeGreaterThan(0);
    expect(
      [...counted.values()].reduce((n, c) => n + c.accepted_bounced + c.withdrawn + c.failed, 0),
    ).toBeGreaterThan(0);
  });
});
