// SMTP delivery (SMTP_URL) through the whole service into a real SMTP server on loopback (smtp-server),
// on SQLite and PostgreSQL: a double opt-in confirmation arrives byte for byte as queued, with its
// envelope from the message, and parses with mailparser to the confirmation link; a 451 answer is
// retried and then sent, a 550 answer is dead at once, an unreachable server is retried up to
// MAIL_MAX_ATTEMPTS and then dead, and `outbox retry` brings a dead one back; the SMTP password shows in
// no last_error and no log line, even when the server echoes it back. Retries are reached by flushing at
// the row's next_attempt_at, never by waiting.

import { simpleParser } from "mailparser";
import { describe, afterAll, beforeAll, expect, it } from "vitest";
import { queueMail } from "../../service/delivery/mail.js";
import type { MailTransport } from "../../service/delivery/mail-transport.js";
import { OutboxWorker } from "../../service/workers/outbox.js";
import { openStore } from "../../service/db/database.js";
import { readConfig, ServiceConfigError } from "../../service/config.js";
import { describeEngines, freshDatabaseUrl } from "./support/engines.js";
import { startService, type TestService, admin } from "./support/service.js";
import {
  SMTP_PASSWORD as PASSWORD,
  SMTP_USER as USER,
  type TestSmtp,
  smtpUrl,
  startSmtp,
} from "./support/smtp.js";

/** The test servers offer no STARTTLS: the login in clear text has to be allowed (loopback only). */
const PLAINTEXT = { SMTP_ALLOW_PLAINTEXT_AUTH: "true" };

describeEngines("SMTP delivery", (engine) => {
  let smtp: TestSmtp;
  let svc: TestService;
  let listId: number;
  let serial = 0;

  beforeAll(async () => {
    smtp = await startSmtp();
    svc = await startService(engine, "smtp", { SMTP_URL: smtpUrl(smtp.port), ...PLAINTEXT });
    const account = await svc.createAccount("alice", "alice-secret-1");
    listId = await svc.createList(account, "Alice news");
  }, 60_000);
  afterAll(async () => {
    await svc?.close();
    await smtp?.close();
  });

  /** A pending insert, which queues a confirmation mail; returns that mail's row. */
  async function queueConfirmation(name: string) {
    const email = `${name}.${++serial}@example.com`;
    await svc.client("alice", "alice-secret-1").InsertSubscriberWithDemDataPendingOption({
      strEmail: email,
      strName: name,
      strMailingListID: String(listId),
      strPending: "true",
    });
    return svc.app.store.db
      .selectFrom("mail_outbox")
      .selectAll()
      .where("to_address", "=", email)
      .executeTakeFirstOrThrow();
  }
  const row = (id: number) =>
    svc.app.store.db.selectFrom("mail_outbox").selectAll().where("id", "=", id).executeTakeFirstOrThrow();

  it("delivers the confirmation as queued, with the envelope from the message, and mailparser reads the link", async () => {
    const before = smtp.arrivals.length;
    const queued = await queueConfirmation("Pat");
    await svc.app.outbox!.flush();
    expect(await row(queued.id)).toMatchObject({ state: "sent", attempts: 1, last_error: null });
    expect(smtp.arrivals.length).toBe(before + 1);
    const arrival = smtp.arrivals[before]!;
    expect(arrival.raw).toBe(queued.message);
    expect(arrival.from).toBe("no-reply@127.0.0.1");
    expect(arrival.to).toEqual([queued.to_address]);
    const parsed = await simpleParser(arrival.raw);
    expect(parsed.from?.value).toEqual([{ name: "", address: "no-reply@127.0.0.1" }]);
    expect(parsed.to).toMatchObject({ value: [{ name: "Pat", address: queued.to_address }] });
    expect(parsed.subject).toBe("Please confirm your subscription to Alice news");
    const link = /http:\/\/127\.0\.0\.1:1\/confirm\/([A-Za-z0-9_-]{43})/.exec(parsed.text ?? "");
    expect(link).not.toBeNull();
    // the link in the arrived mail is the one the service honours
    expect((await fetch(`${svc.url}/confirm/${link![1]}`, { method: "POST" })).status).toBe(200);
    // the start-up line names the SMTP server without the password
    expect(svc.logs).toContainEqual(
      expect.objectContaining({ msg: "mail delivery", outbox: `smtp://${USER}:***@127.0.0.1:${smtp.port}` }),
    );
  });

  it("a 451 answer is retried: queued with the reason, then sent at the next attempt's time", async () => {
    const before = smtp.arrivals.length;
    smtp.plan.push(451);
    const queued = await queueConfirmation("Tem");
    await svc.app.outbox!.flush();
    const failed = await row(queued.id);
    expect(failed).toMatchObject({ state: "queued", attempts: 1 });
    expect(failed.last_error).toContain("451");
    expect(failed.next_attempt_at).toBeGreaterThan(queued.next_attempt_at);
    expect(smtp.arrivals.length).toBe(before);
    await svc.app.outbox!.flush(failed.next_attempt_at);
    expect(await row(queued.id)).toMatchObject({ state: "sent", attempts: 2, last_error: null });
    expect(smtp.arrivals.length).toBe(before + 1);
    expect(smtp.arrivals[before]!.raw).toBe(queued.message);
  });

  it("a 550 answer is dead at once with the reason, and never tried again", async () => {
    const before = smtp.arrivals.length;
    smtp.plan.push(550);
    const queued = await queueConfirmation("Perm");
    await svc.app.outbox!.flush();
    const dead = await row(queued.id);
    expect(dead).toMatchObject({ state: "dead", attempts: 1 });
    expect(dead.last_error).toContain("550");
    expect(dead.last_error).toContain("refused by plan");
    await svc.app.outbox!.flush(dead.next_attempt_at + 7 * 24 * 3600_000);
    expect(await row(queued.id)).toMatchObject({ state: "dead", attempts: 1 });
    expect(smtp.arrivals.length).toBe(before);
    expect(smtp.plan).toEqual([]);
  });

  it("outbox retry --id queues a dead message again with its attempts reset; the next pass sends it; a sent one is refused", async () => {
    const before = smtp.arrivals.length;
    smtp.plan.push(554);
    const queued = await queueConfirmation("Again");
    await svc.app.outbox!.flush();
    expect(await row(queued.id)).toMatchObject({ state: "dead", attempts: 1 });
    const retried = await admin(svc.databaseUrl, ["outbox", "retry", "--id", String(queued.id)]);
    expect(retried).toMatchObject({ code: 0, stderr: "" });
    expect(retried.stdout).toContain(
      `Message ${queued.id} is queued and due now (was dead after 1 attempt: `,
    );
    expect(await row(queued.id)).toMatchObject({ state: "queued", attempts: 0 });
    await svc.app.outbox!.flush();
    expect(await row(queued.id)).toMatchObject({ state: "sent", attempts: 1 });
    expect(smtp.arrivals.slice(before).map((a) => a.raw)).toEqual([queued.message]);
    expect(await admin(svc.databaseUrl, ["outbox", "retry", "--id", String(queued.id)])).toEqual({
      code: 1,
      stdout: "",
      stderr: `error: --id: message ${queued.id} was sent already; it is not sent twice, and nothing was retried\n`,
    });
    expect(await admin(svc.databaseUrl, ["outbox", "retry", "--id", "999999"])).toMatchObject({
      code: 1,
      stderr: "error: --id: there is no message 999999 in the outbox; nothing was retried\n",
    });
  });
});

describeEngines("SMTP delivery to a failing server", (engine) => {
  let smtp: TestSmtp;
  let svc: TestService;

  beforeAll(async () => {
    smtp = await startSmtp({ echoPasswordOnAuth: true });
    svc = await startService(engine, "smtp-down", {
      SMTP_URL: smtpUrl(smtp.port),
      MAIL_MAX_ATTEMPTS: "3",
      ...PLAINTEXT,
    });
  }, 60_000);
  afterAll(async () => {
    await svc?.close();
    await smtp?.close();
  });

  it("retries a refused login and an unreachable server, dead after MAIL_MAX_ATTEMPTS; the password is never written", async () => {
    const account = await svc.createAccount("bob", "bob-secret-12");
    const listId = await svc.createList(account, "Bob news");
    await svc.client("bob", "bob-secret-12").InsertSubscriberWithDemDataPendingOption({
      strEmail: "down@example.com",
      strMailingListID: String(listId),
      strPending: "true",
    });
    const row = () =>
      svc.app.store.db
        .selectFrom("mail_outbox")
        .selectAll()
        .where("to_address", "=", "down@example.com")
        .executeTakeFirstOrThrow();

    // attempt 1: the server refuses the login and echoes the password in its 535 answer
    await svc.app.outbox!.flush();
    const first = await row();
    expect(first).toMatchObject({ state: "queued", attempts: 1 });
    expect(first.last_error).toContain("535");
    expect(first.last_error).toContain("with password ***");

    // attempts 2 and 3: nothing listens any more
    await smtp.close();
    await svc.app.outbox!.flush(first.next_attempt_at);
    const second = await row();
    expect(second).toMatchObject({ state: "queued", attempts: 2 });
    expect(second.last_error).toMatch(/ECONNREFUSED|ECONNECTION/);
    await svc.app.outbox!.flush(second.next_attempt_at);
    const third = await row();
    expect(third).toMatchObject({ state: "dead", attempts: 3 });
    await svc.app.outbox!.flush(third.next_attempt_at + 7 * 24 * 3600_000);
    expect(await row()).toMatchObject({ state: "dead", attempts: 3 });

    // the failures were logged, and neither the password nor its URL form appears anywhere
    const failures = svc.logs.filter((l) => l.msg === "mail delivery failed");
    expect(failures.map((l) => [l.attempts, l.dead])).toEqual([
      [1, false],
      [2, false],
      [3, true],
    ]);
    expect(String(failures[0]!.err)).toContain("535");
    const written = JSON.stringify([first, second, third, svc.logs]);
    expect(written).not.toContain(PASSWORD);
    expect(written).not.toContain(encodeURIComponent(PASSWORD));
  });
});

describe("SMTP configuration", () => {
  it("defaults to the folder, retries for 5 days at most 30 min apart, no attempt limit, no plain-text login; reads each setting", () => {
    expect(readConfig({})).toMatchObject({
      smtpUrl: undefined,
      mailMaxAttempts: undefined,
      mailRetryMaxAgeMs: 5 * 24 * 3600_000,
      mailRetryMaxIntervalMs: 30 * 60_000,
      smtpAllowPlaintextAuth: false,
      outboxRetentionDays: 0,
    });
    expect(
      readConfig({
        SMTP_URL: "smtps://u:p@mail.example:465",
        MAIL_MAX_ATTEMPTS: "8",
        MAIL_RETRY_MAX_AGE_MS: "86400000",
        MAIL_RETRY_MAX_INTERVAL_MS: "600000",
        SMTP_ALLOW_PLAINTEXT_AUTH: "TRUE",
        OUTBOX_RETENTION_DAYS: "7",
      }),
    ).toMatchObject({
      smtpUrl: "smtps://u:p@mail.example:465",
      mailMaxAttempts: 8,
      mailRetryMaxAgeMs: 86_400_000,
      mailRetryMaxIntervalMs: 600_000,
      smtpAllowPlaintextAuth: true,
      outboxRetentionDays: 7,
    });
    expect(readConfig({ SMTP_ALLOW_PLAINTEXT_AUTH: "false" }).smtpAllowPlaintextAuth).toBe(false);
  });

  it.each(["http://u:hunter22@mail.example", "smtp://u:hunter22@", "hunter22"])(
    "refuses SMTP_URL %s without repeating it",
    (url) => {
      expect(() => readConfig({ SMTP_URL: url })).toThrow(ServiceConfigError);
      expect(() => readConfig({ SMTP_URL: url })).toThrow("SMTP_URL");
      expect(() => readConfig({ SMTP_URL: url })).not.toThrow("hunter22");
    },
  );

  it.each([
    ["MAIL_MAX_ATTEMPTS", "0"],
    ["MAIL_RETRY_MAX_AGE_MS", "-1"],
    ["MAIL_RETRY_MAX_INTERVAL_MS", "10"],
    ["OUTBOX_RETENTION_DAYS", "forever"],
    ["SMTP_ALLOW_PLAINTEXT_AUTH", "sometimes"],
  ])("refuses %s=%s naming it", (name, value) => {
    expect(() => readConfig({ [name]: value })).toThrow(ServiceConfigError);
    expect(() => readConfig({ [name]: value })).toThrow(name);
  });
});

describe("outbox leases with a slow transport", () => {
  it("sends a claimed message only while its lease outlasts the send timeout; the rest are given back and sent on a fresh lease", async () => {
    const store = await openStore(await freshDatabaseUrl("sqlite", "smtp-lease"));
    try {
      const t0 = Date.now();
      let clock = t0;
      const account = await store.db
        .insertInto("accounts")
        .values({ username: "lease", password_hash: "x", created_at: t0 })
        .returning("id")
        .executeTakeFirstOrThrow();
      for (const n of [1, 2, 3]) {
        await queueMail(
          store.db,
          {
            accountId: account.id,
            kind: "test",
            from: { name: "", address: "a@example.com" },
            to: { name: "", address: `r${n}@example.com` },
            subject: `m${n}`,
            text: "hi",
          },
          t0,
          "example.com",
        );
      }
      // every send takes 8 s of the (fake) clock; the lease is 20 s and a send may take up to 10 s
      const sends: { to: string; at: number; leaseUntil: number }[] = [];
      const transport: MailTransport = {
        description: "slow",
        sendTimeoutMs: 10_000,
        async send(mail) {
          const row = await store.db
            .selectFrom("mail_outbox")
            .select("lease_until")
            .where("id", "=", mail.id)
            .executeTakeFirstOrThrow();
          sends.push({ to: mail.to_address, at: clock, leaseUntil: row.lease_until! });
          clock += 8_000;
        },
        async close() {},
      };
      const worker = new OutboxWorker(store, {
        dir: "/nonexistent",
        transport,
        leaseMs: 20_000,
        now: () => clock,
      });
      worker.start();
      await worker.flush();
      await worker.stop();
      expect(sends.map((s) => s.to)).toEqual(["r1@example.com", "r2@example.com", "r3@example.com"]);
      // the third came at t0 + 16 s, with 4 s of its first lease left: it went back and was claimed again
      for (const send of sends) expect(send.leaseUntil - send.at).toBeGreaterThanOrEqual(10_000);
      expect(sends[2]!.leaseUntil).toBe(t0 + 16_000 + 20_000);
      const rows = await store.db
        .selectFrom("mail_outbox")
        .select(["state", "attempts", "lease_owner"])
        .execute();
      expect(rows).toEqual([1, 2, 3].map(() => ({ state: "sent", attempts: 1, lease_owner: null })));
    } finally {
      await store.close();
    }
  });
});
