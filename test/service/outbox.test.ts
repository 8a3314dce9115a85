// The outbox's security promises, on SQLite and PostgreSQL where the database is involved:
// - fairness: another account's transactional and confirmation mail goes out within a claim or two of
//   being queued behind one account's bulk backlog (and behind a flood of its transactional mail); two
//   bulk accounts progress at equal rates; on SQLite no claim statement scans or sorts the backlog;
// - retries: a greylisting server (451) is retried over days, 1 min doubling to 30 min, dead only 5 days
//   after the first attempt; a refused login is retried past the old 5 attempts and delivered once the
//   login works (a real SMTP server on loopback, the worker's clock injected: no sleeping);
// - TLS: with a user in an smtp:// URL and no STARTTLS offered, the password never goes over the wire
//   (a relay records every byte the client sent); with STARTTLS the login happens under TLS;
// - secrets at rest: a delivered message keeps only From, To, Subject, Date and Message-ID in the database
//   (at delivery, or after OUTBOX_RETENTION_DAYS); the database file, its -wal and -shm, the data folders
//   and the outbox and SMS files are owner-only under umask 022;
// - temporary files a killed writer left in the outbox and SMS folders are swept, another live writer's
//   are not.

import fs from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import SQLite from "better-sqlite3";
import { Kysely, Migrator, PostgresDialect, SqliteDialect } from "kysely";
import pg from "pg";
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from "vitest";
import { sweepTemporaries } from "../../service/delivery/drop-folder.js";
import { queueMail } from "../../service/delivery/mail.js";
import {
  type MailTransport,
  type OutgoingMail,
  smtpTransport,
} from "../../service/delivery/mail-transport.js";
import { OutboxWorker, deliveredCopy } from "../../service/workers/outbox.js";
import { SmsWorker } from "../../service/workers/sms-outbox.js";
import { type Store, openStore } from "../../service/db/database.js";
import { codeMigrations } from "../../service/db/migrations/index.js";
import type { Database } from "../../service/db/schema.js";
import { describeEngines, freshDatabaseUrl } from "./support/engines.js";
import { SMTP_PASSWORD, SMTP_USER, type TestSmtp, smtpUrl, startSmtp } from "./support/smtp.js";

const T0 = Date.UTC(2030, 0, 7, 9, 0);
/** SQLite without a log sync per commit: these tests are about order and content, not durability. */
const FAST = { sqliteSync: "NORMAL" } as const;
const MINUTE = 60_000;
const DAY = 24 * 3600_000;

/** A new folder under the run's temporary directory (removed when the run ends). */
function tempDir(label: string): string {
  return fs.mkdtempSync(path.join(inject("testTmpRoot") ?? tmpdir(), `eas-${label}-`));
}

async function account(store: Store, username: string): Promise<number> {
  const row = await store.db
    .insertInto("accounts")
    .values({ username, password_hash: "x", created_at: T0 })
    .returning("id")
    .executeTakeFirstOrThrow();
  return row.id;
}

/** Queues `count` mails of `kind` for the account in one transaction; returns their ids. */
async function queue(
  store: Store,
  accountId: number,
  kind: string,
  count: number,
  at = T0,
  extra: { html?: string; headers?: Record<string, string> } = {},
): Promise<number[]> {
  return store.write(async (trx) => {
    const ids: number[] = [];
    for (let i = 0; i < count; i++) {
      ids.push(
        await queueMail(
          trx,
          {
            accountId,
            kind,
            from: { name: "Sender", address: "sender@example.com" },
            to: { name: "", address: `r${accountId}-${i}@example.com` },
            subject: `${kind} ${i}`,
            text: "Hello\n",
            ...extra,
          },
          at,
          "example.com",
        ),
      );
    }
    return ids;
  });
}

/** A transport that keeps what it was given, and can run something before a given send. */
function memoryTransport(
  before?: (index: number) => Promise<void>,
): MailTransport & { sent: OutgoingMail[] } {
  const sent: OutgoingMail[] = [];
  return {
    description: "memory",
    sendTimeoutMs: 0,
    sent,
    async send(mail) {
      await before?.(sent.length);
      sent.push(mail);
    },
    async close() {},
  };
}

describeEngines("outbox fairness", (engine) => {
  let store: Store;
  beforeAll(async () => {
    store = await openStore(await freshDatabaseUrl(engine, "outbox-fair"), FAST);
  }, 60_000);
  afterAll(async () => {
    await store?.close();
  });

  it("another account's transactional and confirmation mail go out within the next claim behind a 1,000-mail bulk backlog", async () => {
    const bulk = await account(store, "bulk-sender");
    const shop = await account(store, "shop");
    const club = await account(store, "club");
    const backlog = await queue(store, bulk, "newsletter", 1000);
    let urgent: number[] = [];
    // 120 of the backlog are out when the shop's receipt and the club's confirmation are queued
    const transport = memoryTransport(async (index) => {
      if (index === 120)
        urgent = [
          ...(await queue(store, shop, "transactional", 1, T0 + 1)),
          ...(await queue(store, club, "confirmation", 1, T0 + 1)),
        ];
    });
    const worker = new OutboxWorker(store, {
      dir: "/nonexistent",
      transport,
      now: () => T0 + 2,
      batchSize: 50,
    });
    expect(await worker.flush()).toBe(1002);
    const order = transport.sent.map((m) => m.id);
    const positions = urgent.map((id) => order.indexOf(id));
    // the batch in flight (at most 50) finishes, then the next claim takes them first
    for (const position of positions) {
      expect(position).toBeGreaterThanOrEqual(120);
      expect(position).toBeLessThan(120 + 50 + 2);
    }
    expect(order.filter((id) => backlog.includes(id))).toHaveLength(1000);
  });

  it("one account's flood of transactional mail does not hold up another account's", async () => {
    const flood = await account(store, "flooder");
    const quiet = await account(store, "quiet");
    await queue(store, flood, "transactional", 1000);
    const [single] = await queue(store, quiet, "transactional", 1, T0 + 1);
    const transport = memoryTransport();
    const worker = new OutboxWorker(store, {
      dir: "/nonexistent",
      transport,
      now: () => T0 + 2,
      batchSize: 50,
    });
    await worker.flush();
    // both accounts share the first claim
    expect(transport.sent.map((m) => m.id).indexOf(single!)).toBeLessThan(50);
  });

  it("two bulk accounts progress at equal rates, whoever queued first", async () => {
    const early = await account(store, "early-bird");
    const late = await account(store, "late-comer");
    const earlyIds = new Set(await queue(store, early, "newsletter", 600));
    const lateIds = new Set(await queue(store, late, "newsletter", 600, T0 + 1));
    const transport = memoryTransport();
    const worker = new OutboxWorker(store, {
      dir: "/nonexistent",
      transport,
      now: () => T0 + 2,
      batchSize: 50,
    });
    await worker.flush();
    expect(transport.sent).toHaveLength(1200);
    // after every 100 deliveries, each account has had half, give or take one claim's share
    for (let done = 100; done <= 1000; done += 100) {
      const first = transport.sent.slice(0, done);
      const a = first.filter((m) => earlyIds.has(m.id)).length;
      const b = first.filter((m) => lateIds.has(m.id)).length;
      expect(Math.abs(a - b), `after ${done}: ${a} and ${b}`).toBeLessThanOrEqual(25);
    }
  });

  it("two workers draining the same queue at once deliver each message once", async () => {
    const accounts = [
      await account(store, "pair-a"),
      await account(store, "pair-b"),
      await account(store, "pair-c"),
    ];
    const queued = new Set<number>();
    for (const id of accounts)
      for (const mail of await queue(store, id, id === accounts[0] ? "transactional" : "newsletter", 150))
        queued.add(mail);
    const transports = [memoryTransport(), memoryTransport()];
    const workers = transports.map(
      (transport) =>
        new OutboxWorker(store, { dir: "/nonexistent", transport, now: () => T0 + 2, batchSize: 20 }),
    );
    await Promise.all(workers.map((worker) => worker.flush()));
    const sent = transports.flatMap((t) => t.sent.map((m) => m.id));
    expect(sent.length).toBe(queued.size);
    expect(new Set(sent)).toEqual(queued);
    if (engine === "postgres")
      for (const transport of transports) expect(transport.sent.length).toBeGreaterThan(0);
  });

  it("a claim skips accounts whose mail is scheduled later or leased, and comes back to them when due", async () => {
    const later = await account(store, "scheduled");
    const now = await account(store, "now");
    const [future] = await queue(store, later, "transactional", 1, T0, {});
    await store.db
      .updateTable("mail_outbox")
      .set({ next_attempt_at: T0 + DAY })
      .where("id", "=", future!)
      .execute();
    const [due] = await queue(store, now, "transactional", 1);
    const worker = new OutboxWorker(store, {
      dir: "/nonexistent",
      transport: memoryTransport(),
      now: () => T0 + 5,
      batchSize: 50,
    });
    expect((await worker.claim(50, T0 + 5)).map((m) => m.id)).toEqual([due]);
    // leased now: not claimed again until the lease runs out
    expect(await worker.claim(50, T0 + 6)).toEqual([]);
    expect((await worker.claim(50, T0 + 6 + 30_000)).map((m) => m.id)).toEqual([due]);
    expect((await worker.claim(50, T0 + DAY + 60_000)).map((m) => m.id)).toEqual([future, due]);
  });
});

describeEngines("outbox batches through send()", (engine) => {
  let store: Store;
  beforeAll(async () => {
    store = await openStore(await freshDatabaseUrl(engine, "outbox-ahead"), FAST);
  }, 60_000);
  afterAll(async () => {
    await store?.close();
  });

  it("claims the next batch while the last sends of a batch are under way, each message sent once", async () => {
    const ids = await queue(store, await account(store, "ahead"), "newsletter", 6);
    // The first batch's last send (the second message) waits for a send of the next batch to start; it
    // gives up after 5 s, so the old order (claim only after the whole batch ended) fails without hanging.
    let nextBatchStarted: () => void = () => {};
    const started = new Promise<boolean>((resolve) => {
      nextBatchStarted = () => resolve(true);
      setTimeout(() => resolve(false), 5000).unref();
    });
    const order: string[] = [];
    const sent: number[] = [];
    const transport: MailTransport = {
      description: "two lanes",
      sendTimeoutMs: 0,
      concurrency: 2,
      async send(mail) {
        order.push(`start ${mail.id}`);
        if (mail.id === ids[2] || mail.id === ids[3]) nextBatchStarted();
        if (mail.id === ids[1]) order.push(`overlapped ${await started}`);
        sent.push(mail.id);
      },
      async close() {},
    };
    const worker = new OutboxWorker(store, {
      dir: "/nonexistent",
      transport,
      now: () => T0 + 2,
      batchSize: 2,
    });
    expect(await worker.flush()).toBe(6);
    expect(order).toContain("overlapped true");
    expect([...sent].sort((a, b) => a - b)).toEqual(ids);
    const states = await store.db.selectFrom("mail_outbox").select("state").where("id", "in", ids).execute();
    expect(states.map((r) => r.state)).toEqual(Array(6).fill("sent"));
  });
});

describeEngines("migration 0008 on a database made before it", (engine) => {
  it("applies after a later migration (0010), marks confirmation and transactional mail first and earlier deliveries for cutting", async () => {
    const url = await freshDatabaseUrl(engine, "outbox-upgrade");
    const dialect =
      engine === "sqlite"
        ? new SqliteDialect({ database: new SQLite(url.slice("sqlite:".length)) })
        : new PostgresDialect({ pool: new pg.Pool({ connectionString: url, max: 2 }) });
    // the database as the service made it before 0008: every other migration, 0010 included
    const before = new Kysely<any>({ dialect }); // eslint-disable-line @typescript-eslint/no-explicit-any -- the schema before 0008
    const older = Object.fromEntries(
      Object.entries(codeMigrations(engine)).filter(([name]) => name !== "0008_outbox_security"),
    );
    const { error } = await new Migrator({
      db: before,
      provider: { getMigrations: async () => older },
    }).migrateToLatest();
    expect(error).toBeUndefined();
    const { id: owner } = await before
      .insertInto("accounts")
      .values({ username: "upgrade", password_hash: "x", created_at: T0 })
      .returning("id")
      .executeTakeFirstOrThrow();
    const row = (kind: string, state: string) => ({
      account_id: owner,
      kind,
      to_address: "r@example.com",
      subject: kind,
      message:
        "From: <a@example.com>\r\nList-Unsubscribe: <https://svc.example/u/token>\r\n\r\nbody with https://svc.example/t/c/token\r\n",
      state,
      attempts: 0,
      next_attempt_at: T0,
      created_at: T0,
      sent_at: state === "sent" ? T0 : null,
    });
    const ids = [];
    for (const [kind, state] of [
      ["newsletter", "queued"],
      ["transactional", "queued"],
      ["confirmation", "queued"],
      ["newsletter", "sent"],
    ]) {
      ids.push(
        (
          await before
            .insertInto("mail_outbox")
            .values(row(kind!, state!))
            .returning("id")
            .executeTakeFirstOrThrow()
        ).id as number,
      );
    }
    await before.destroy();

    const store = await openStore(url, FAST);
    try {
      const rows = await store.db
        .selectFrom("mail_outbox")
        .select(["id", "priority", "retained_since"])
        .orderBy("id")
        .execute();
      expect(rows).toEqual([
        { id: ids[0], priority: 1, retained_since: null },
        { id: ids[1], priority: 0, retained_since: null },
        { id: ids[2], priority: 0, retained_since: null },
        { id: ids[3], priority: 1, retained_since: T0 },
      ]);
      const worker = new OutboxWorker(store, {
        dir: "/nonexistent",
        transport: memoryTransport(),
        now: () => T0 + 1,
      });
      expect(await worker.purge(T0 + 1)).toBe(1);
      const cut = await store.db
        .selectFrom("mail_outbox")
        .select("message")
        .where("id", "=", ids[3]!)
        .executeTakeFirstOrThrow();
      expect(cut.message).toBe("From: <a@example.com>\r\n\r\n");
      expect((await worker.claim(50, T0 + 1)).map((m) => m.id)).toEqual([ids[1], ids[2], ids[0]]);
    } finally {
      await store.close();
    }
  });
});

describe("outbox claims on SQLite use the index", () => {
  it("no statement of a claim or a delivery scans mail_outbox, walks its queue or sorts it (EXPLAIN QUERY PLAN, 3 accounts, 3,000 queued)", async () => {
    const url = await freshDatabaseUrl("sqlite", "outbox-plan");
    const store = await openStore(url, FAST);
    const raw = new SQLite(url.slice("sqlite:".length));
    try {
      const ids = [await account(store, "a"), await account(store, "b"), await account(store, "c")];
      for (const id of ids) await queue(store, id, id === ids[0] ? "newsletter" : "transactional", 1000);
      const statements: { sql: string; parameters: readonly unknown[] }[] = [];
      const logged = new Kysely<Database>({
        dialect: new SqliteDialect({ database: raw }),
        log: (event) => {
          if (event.level === "query")
            statements.push({ sql: event.query.sql, parameters: event.query.parameters });
        },
      });
      const tapped: Store = { ...store, db: logged, write: (work) => logged.transaction().execute(work) };
      const worker = new OutboxWorker(tapped, {
        dir: "/nonexistent",
        transport: memoryTransport(),
        now: () => T0 + 1,
        batchSize: 50,
      });
      await worker.claim(50, T0 + 1);
      await worker.claim(50, T0 + 1);
      const claimStatements = statements.length;
      await worker.flush(T0 + 40_000);
      expect(claimStatements).toBeGreaterThan(3);
      const plans = new Map<string, string[]>();
      for (const { sql, parameters } of statements) {
        if (!/^\s*(with|select|update|delete)/i.test(sql) || plans.has(sql)) continue;
        const rows = raw.prepare(`explain query plan ${sql}`).all(...(parameters as unknown[])) as {
          detail: string;
        }[];
        plans.set(
          sql,
          rows.map((r) => r.detail),
        );
      }
      for (const [sql, details] of plans) {
        for (const detail of details) {
          const why = `${sql}\n${details.join("\n")}`;
          expect(detail, why).not.toMatch(/^SCAN (mail_outbox|m|d)\b/);
          expect(detail, why).not.toMatch(/TEMP B-TREE/);
          // an index used for state (and priority) alone walks the whole queue
          const search = /^SEARCH (mail_outbox|m|d) USING (?:COVERING )?INDEX \w+ \((.*)\)/.exec(detail);
          if (search !== null) expect(search[2], why).toMatch(/account_id|retained_since/);
        }
      }
      expect([...plans.values()].flat().some((d) => /USING (COVERING )?INDEX mail_outbox_fair/.test(d))).toBe(
        true,
      );
    } finally {
      raw.close();
      await store.close();
    }
  });
});

describeEngines("outbox retries against a real SMTP server", (engine) => {
  let store: Store;
  let smtp: TestSmtp;
  let owner: number;
  beforeAll(async () => {
    store = await openStore(await freshDatabaseUrl(engine, "outbox-retry"), FAST);
    smtp = await startSmtp();
    owner = await account(store, "sender");
  }, 60_000);
  afterAll(async () => {
    await store?.close();
    await smtp?.close();
  });

  const row = (id: number) =>
    store.db.selectFrom("mail_outbox").selectAll().where("id", "=", id).executeTakeFirstOrThrow();

  function worker(): OutboxWorker {
    const transport = smtpTransport(smtpUrl(smtp.port), {
      fallbackFrom: "x@example.com",
      allowPlaintextAuth: true,
      timeoutMs: 5000,
    });
    // the jitter at its top: each wait is the whole of the doubling schedule's (test/service/polite-delivery.test.ts has the jitter)
    return new OutboxWorker(store, { dir: "/nonexistent", transport, now: () => T0, random: () => 1 });
  }

  it("a 451 (greylisting) is retried 1, 2, 4, 8, 16 min and then every 30 min, and is dead only 5 days after the first attempt", async () => {
    const outbox = worker();
    const [id] = await queue(store, owner, "transactional", 1);
    smtp.refuseAllWith = 451;
    const refusedBefore = smtp.refused();
    const waits: number[] = [];
    let at = T0;
    let current = await row(id!);
    try {
      for (let i = 0; i < 400 && current.state === "queued"; i++) {
        await outbox.flush(at);
        current = await row(id!);
        if (current.state === "queued") {
          waits.push(current.next_attempt_at - at);
          at = current.next_attempt_at;
        }
        // a day before the end it is still being tried
        if (at <= T0 + 4 * DAY) expect(current.state).toBe("queued");
      }
    } finally {
      smtp.refuseAllWith = undefined;
      await outbox.stop();
    }
    expect(waits.slice(0, 7)).toEqual([1, 2, 4, 8, 16, 30, 30].map((m) => m * MINUTE));
    expect(Math.max(...waits)).toBe(30 * MINUTE);
    expect(current).toMatchObject({ state: "dead", first_attempt_at: T0 });
    // the last attempt was at the give-up time itself, 5 days after the first
    expect(at).toBe(T0 + 5 * DAY);
    expect(current.attempts).toBe(waits.length + 1);
    expect(current.attempts).toBeGreaterThan(200);
    expect(smtp.refused() - refusedBefore).toBe(current.attempts);
    expect(current.last_error).toContain("451");
  }, 120_000);

  it("a greylisted message is delivered at the first retry after the server lets it through", async () => {
    const outbox = worker();
    const [id] = await queue(store, owner, "confirmation", 1);
    const arrived = smtp.arrivals.length;
    smtp.plan.push(451, 451, 451);
    try {
      let at = T0;
      for (let i = 0; i < 3; i++) {
        await outbox.flush(at);
        at = (await row(id!)).next_attempt_at;
      }
      expect(at).toBe(T0 + 7 * MINUTE);
      await outbox.flush(at);
    } finally {
      await outbox.stop();
    }
    expect(await row(id!)).toMatchObject({
      state: "sent",
      attempts: 4,
      sent_at: T0 + 7 * MINUTE,
      last_error: null,
    });
    expect(smtp.arrivals.length).toBe(arrived + 1);
  });

  it("a refused login is retried (past the old limit of 5 attempts) and the mail goes once the login works", async () => {
    const outbox = worker();
    const [id] = await queue(store, owner, "transactional", 1);
    const arrived = smtp.arrivals.length;
    smtp.refuseLogins = true;
    let at = T0;
    try {
      for (let i = 0; i < 8; i++) {
        await outbox.flush(at);
        const current = await row(id!);
        expect(current).toMatchObject({ state: "queued", attempts: i + 1 });
        expect(current.last_error).toContain("535");
        at = current.next_attempt_at;
      }
      smtp.refuseLogins = false;
      await outbox.flush(at);
    } finally {
      smtp.refuseLogins = false;
      await outbox.stop();
    }
    expect(await row(id!)).toMatchObject({ state: "sent", attempts: 9 });
    expect(smtp.arrivals.length).toBe(arrived + 1);
  });

  it("a 5xx refusal of the message is dead at once; MAIL_MAX_ATTEMPTS, when set, still ends retries early", async () => {
    const transport = smtpTransport(smtpUrl(smtp.port), {
      fallbackFrom: "x@example.com",
      allowPlaintextAuth: true,
      timeoutMs: 5000,
    });
    const outbox = new OutboxWorker(store, { dir: "/nonexistent", transport, now: () => T0, maxAttempts: 2 });
    const [refused] = await queue(store, owner, "transactional", 1);
    try {
      smtp.plan.push(550);
      await outbox.flush(T0);
      expect(await row(refused!)).toMatchObject({ state: "dead", attempts: 1 });
      const [limited] = await queue(store, owner, "transactional", 1);
      smtp.refuseAllWith = 452;
      await outbox.flush(T0);
      await outbox.flush(T0 + MINUTE);
      expect(await row(limited!)).toMatchObject({ state: "dead", attempts: 2 });
    } finally {
      smtp.refuseAllWith = undefined;
      await outbox.stop();
    }
  });
});

describe("SMTP login needs TLS", () => {
  let store: Store;
  let owner: number;
  const servers: TestSmtp[] = [];
  beforeAll(async () => {
    store = await openStore(await freshDatabaseUrl("sqlite", "outbox-tls"), FAST);
    owner = await account(store, "tls");
  });
  afterAll(async () => {
    await store?.close();
    for (const server of servers) await server.close();
  });

  async function deliverOne(smtp: TestSmtp, allowPlaintextAuth: boolean) {
    const transport = smtpTransport(smtpUrl(smtp.port), {
      fallbackFrom: "x@example.com",
      allowPlaintextAuth,
      timeoutMs: 5000,
      tls: { rejectUnauthorized: false },
    });
    const outbox = new OutboxWorker(store, { dir: "/nonexistent", transport, now: () => T0 });
    const [id] = await queue(store, owner, "transactional", 1);
    try {
      await outbox.flush(T0);
    } finally {
      await outbox.stop();
    }
    return store.db.selectFrom("mail_outbox").selectAll().where("id", "=", id!).executeTakeFirstOrThrow();
  }

  /** Every form the password takes in AUTH PLAIN and AUTH LOGIN, as written and base64. */
  const secretForms = [
    SMTP_PASSWORD,
    encodeURIComponent(SMTP_PASSWORD),
    Buffer.from(SMTP_PASSWORD).toString("base64"),
    Buffer.from(`\0${SMTP_USER}\0${SMTP_PASSWORD}`).toString("base64"),
  ];

  it("a server without STARTTLS never gets the password: the mail waits with the reason", async () => {
    const smtp = await startSmtp({ record: true });
    servers.push(smtp);
    const mail = await deliverOne(smtp, false);
    expect(mail).toMatchObject({ state: "queued", attempts: 1 });
    expect(mail.last_error).toContain("STARTTLS");
    expect(mail.last_error).toContain("SMTP_ALLOW_PLAINTEXT_AUTH");
    expect(smtp.logins).toEqual([]);
    const wire = smtp.sent();
    expect(wire).toContain("EHLO");
    expect(wire).not.toMatch(/AUTH/i);
    for (const form of secretForms) expect(wire).not.toContain(form);
  });

  it("SMTP_ALLOW_PLAINTEXT_AUTH=true logs in without TLS (and the recording sees the password: the test above can fail)", async () => {
    const smtp = await startSmtp({ record: true });
    servers.push(smtp);
    const mail = await deliverOne(smtp, true);
    expect(mail).toMatchObject({ state: "sent" });
    expect(smtp.logins).toEqual([{ username: SMTP_USER, secure: false }]);
    expect(secretForms.some((form) => smtp.sent().includes(form))).toBe(true);
  });

  it("a server with STARTTLS gets the login under TLS, and nothing of it in clear", async () => {
    const smtp = await startSmtp({ record: true, starttls: true });
    servers.push(smtp);
    const mail = await deliverOne(smtp, false);
    expect(mail).toMatchObject({ state: "sent", last_error: null });
    expect(smtp.logins).toEqual([{ username: SMTP_USER, secure: true }]);
    const wire = smtp.sent();
    expect(wire).toContain("STARTTLS");
    for (const form of secretForms) expect(wire).not.toContain(form);
  });
});

describeEngines("delivered mail at rest", (engine) => {
  let store: Store;
  let owner: number;
  beforeAll(async () => {
    store = await openStore(await freshDatabaseUrl(engine, "outbox-rest"), FAST);
    owner = await account(store, "rest");
  }, 60_000);
  afterAll(async () => {
    await store?.close();
  });

  const token = "c2VjcmV0LXVuc3Vic2NyaWJlLXRva2Vu.bWFj";
  const withLinks = {
    html: `<p><a href="https://svc.example/t/c/${token}">Offer</a></p>`,
    headers: { "List-Unsubscribe": `<https://svc.example/u/${token}>` },
  };
  const row = (id: number) =>
    store.db.selectFrom("mail_outbox").selectAll().where("id", "=", id).executeTakeFirstOrThrow();

  it("by default a delivered message keeps only From, To, Subject, Date and Message-ID; the transport got it whole", async () => {
    const [id] = await queue(store, owner, "newsletter", 1, T0, withLinks);
    const whole = (await row(id!)).message;
    expect(whole).toContain(token);
    const transport = memoryTransport();
    await new OutboxWorker(store, { dir: "/nonexistent", transport, now: () => T0 }).flush(T0);
    expect(transport.sent.map((m) => m.message)).toEqual([whole]);
    const kept = await row(id!);
    expect(kept).toMatchObject({ state: "sent", retained_since: null });
    expect(kept.message).toBe(deliveredCopy(whole));
    expect(kept.message).toMatch(
      /^From: "Sender" <sender@example\.com>\r\nTo: <r\d+-0@example\.com>\r\nSubject: newsletter 0\r\nDate: .*\r\nMessage-ID: <[0-9a-f]+@example\.com>\r\n\r\n$/,
    );
    expect(kept.message).not.toContain(token);
    expect(kept.message).not.toContain("List-Unsubscribe");
    expect(kept.message.length).toBeLessThan(250);
  });

  it("with OUTBOX_RETENTION_DAYS the whole text stays that long and is cut after it; older deliveries are cut at the first pass", async () => {
    const [id] = await queue(store, owner, "newsletter", 1, T0, withLinks);
    const whole = (await row(id!)).message;
    const outbox = new OutboxWorker(store, {
      dir: "/nonexistent",
      transport: memoryTransport(),
      now: () => T0,
      retentionMs: 2 * DAY,
    });
    await outbox.flush(T0);
    expect(await row(id!)).toMatchObject({ state: "sent", message: whole, retained_since: T0 });
    await outbox.flush(T0 + 2 * DAY - 1);
    expect((await row(id!)).message).toBe(whole);
    await outbox.flush(T0 + 2 * DAY);
    expect(await row(id!)).toMatchObject({ message: deliveredCopy(whole), retained_since: null });

    // a message delivered before retention existed (the migration marks it retained since its delivery)
    const [old] = await queue(store, owner, "newsletter", 1, T0, withLinks);
    await store.db
      .updateTable("mail_outbox")
      .set({ state: "sent", sent_at: T0 - 30 * DAY, retained_since: T0 - 30 * DAY })
      .where("id", "=", old!)
      .execute();
    expect(
      await new OutboxWorker(store, {
        dir: "/nonexistent",
        transport: memoryTransport(),
        now: () => T0,
      }).purge(T0),
    ).toBe(1);
    expect((await row(old!)).message).not.toContain(token);
    // queued and dead messages keep their text: they are still to be delivered
    const [waiting] = await queue(store, owner, "newsletter", 1, T0 + DAY, withLinks);
    await outbox.purge(T0 + 10 * DAY);
    expect((await row(waiting!)).message).toContain(token);
  });
});

describe("data files are owner-only under umask 022", () => {
  let umask: number;
  beforeAll(() => {
    umask = process.umask(0o022);
  });
  afterAll(() => {
    process.umask(umask);
  });
  const mode = (file: string) => fs.statSync(file).mode & 0o777;

  it("the SQLite file, its -wal and -shm 0600, its new folders 0700; an existing world-readable file is narrowed", async () => {
    const root = tempDir("modes");
    // The file's own folder is made (0700); its parent must exist (DATABASE_URL refuses a missing one).
    fs.mkdirSync(path.join(root, "data"), { mode: 0o755 });
    const file = path.join(root, "data", "nested", "service.db");
    const store = await openStore(`sqlite:${file}`);
    try {
      await account(store, "modes");
      expect(mode(path.join(root, "data", "nested"))).toBe(0o700);
      for (const name of [file, `${file}-wal`, `${file}-shm`])
        expect([name, mode(name)]).toEqual([name, 0o600]);
    } finally {
      await store.close();
    }
    const existing = path.join(root, "old.db");
    fs.writeFileSync(existing, "", { mode: 0o644 });
    expect(mode(existing)).toBe(0o644);
    const reopened = await openStore(`sqlite:${existing}`);
    await reopened.close();
    expect(mode(existing)).toBe(0o600);
  });

  it("outbox .eml and SMS .json files 0600 in 0700 folders", async () => {
    const root = tempDir("drops");
    const store = await openStore(await freshDatabaseUrl("sqlite", "outbox-modes"), FAST);
    try {
      const owner = await account(store, "drops");
      const [id] = await queue(store, owner, "transactional", 1);
      const outboxDir = path.join(root, "outbox", "mail");
      await new OutboxWorker(store, { dir: outboxDir, now: () => T0 }).flush(T0);
      expect(mode(path.join(root, "outbox"))).toBe(0o700);
      expect(mode(outboxDir)).toBe(0o700);
      expect(mode(path.join(outboxDir, `${id}.eml`))).toBe(0o600);

      const sms = await store.db
        .insertInto("sms_messages")
        .values({
          account_id: owner,
          sender_name: "Shop",
          country_code: "46",
          phone_number: "701234567",
          message: "Your code is 123456",
          encoding: "GSM-7",
          segments: 1,
          cost: "1",
          state: "queued",
          next_attempt_at: T0,
          lease_owner: null,
          lease_until: null,
          last_error: null,
          created_at: T0,
          paid_at: T0,
          sent_at: null,
        })
        .returning("id")
        .executeTakeFirstOrThrow();
      const smsDir = path.join(root, "sms");
      await new SmsWorker(store, { dir: smsDir, now: () => T0 }).flush();
      expect(mode(smsDir)).toBe(0o700);
      expect(mode(path.join(smsDir, `${sms.id}.json`))).toBe(0o600);
    } finally {
      await store.close();
    }
  });
});

describe("temporary files left by a killed writer", () => {
  const uuid = (n: number) => `0000000${n}-1111-2222-3333-444444444444`;
  const hourAgo = (Date.now() - 3600_000) / 1000;
  let dir: string;
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  function plant(names: readonly string[], old: boolean): void {
    for (const name of names) {
      fs.writeFileSync(path.join(dir, name), "partial");
      if (old) fs.utimesSync(path.join(dir, name), hourAgo, hourAgo);
    }
  }

  it("the sweep removes this naming's files older than the bound, never a fresh one, its own, or other names", async () => {
    dir = tempDir("sweep");
    plant(
      [
        `12.eml.outbox-${uuid(1)}.tmp`,
        `13.eml.outbox-${uuid(2)}.tmp`,
        `14.eml.outbox-${uuid(9)}.tmp`,
        "notes.tmp",
        `15.eml.tmp`,
        `16.eml.sms-${uuid(3)}.tmp`,
        "17.eml",
      ],
      true,
    );
    plant([`18.eml.outbox-${uuid(4)}.tmp`], false);
    const removed = await sweepTemporaries(
      dir,
      { finalName: "\\d+\\.eml", ownerPrefix: "outbox-" },
      `outbox-${uuid(9)}`,
      Date.now() - 30_000,
    );
    expect(removed.sort()).toEqual([`12.eml.outbox-${uuid(1)}.tmp`, `13.eml.outbox-${uuid(2)}.tmp`]);
    expect(fs.readdirSync(dir).sort()).toEqual(
      [
        `14.eml.outbox-${uuid(9)}.tmp`,
        `15.eml.tmp`,
        `16.eml.sms-${uuid(3)}.tmp`,
        "17.eml",
        `18.eml.outbox-${uuid(4)}.tmp`,
        "notes.tmp",
      ].sort(),
    );
    expect(
      await sweepTemporaries(
        path.join(dir, "missing"),
        { finalName: "\\d+\\.eml", ownerPrefix: "outbox-" },
        "x",
        Date.now(),
      ),
    ).toEqual([]);
  });

  it("the outbox and SMS workers sweep their folders when they start, leaving a live writer's fresh file", async () => {
    dir = tempDir("sweep-workers");
    const store = await openStore(await freshDatabaseUrl("sqlite", "outbox-sweep"), FAST);
    try {
      const mailDir = path.join(dir, "mail");
      const smsDir = path.join(dir, "sms");
      fs.mkdirSync(mailDir);
      fs.mkdirSync(smsDir);
      const stale = [
        path.join(mailDir, `3.eml.outbox-${uuid(1)}.tmp`),
        path.join(smsDir, `4.json.sms-${uuid(2)}.tmp`),
      ];
      const live = [
        path.join(mailDir, `5.eml.outbox-${uuid(3)}.tmp`),
        path.join(smsDir, `6.json.sms-${uuid(4)}.tmp`),
      ];
      for (const file of [...stale, ...live]) fs.writeFileSync(file, "partial");
      for (const file of stale) fs.utimesSync(file, hourAgo, hourAgo);
      const outbox = new OutboxWorker(store, { dir: mailDir, leaseMs: 30_000 });
      const sms = new SmsWorker(store, { dir: smsDir, leaseMs: 30_000 });
      outbox.start();
      sms.start();
      await outbox.flush();
      await sms.flush();
      await outbox.stop();
      await sms.stop();
      for (const file of stale) expect(fs.existsSync(file), file).toBe(false);
      for (const file of live) expect(fs.existsSync(file), file).toBe(true);
    } finally {
      await store.close();
    }
  });
});
