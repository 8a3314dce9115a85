// The outbox's security promises:
// - TLS: with a user in an smtp:// URL and no STARTTLS offered, the password never goes over the wire
//   (a relay records every byte the client sent); with STARTTLS the login happens under TLS;
// - files, on SQLite: the database file, its -wal and -shm, the data folders and the outbox and SMS files
//   are owner-only under umask 022;
// - temporary files a killed writer left in the outbox and SMS folders are swept, another live writer's
//   are not.

import fs from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { sweepTemporaries } from "../../service/app/drop-folder.js";
import { queueMail } from "../../service/app/mail.js";
import { smtpTransport } from "../../service/app/mail-transport.js";
import { OutboxWorker } from "../../service/app/outbox.js";
import { SmsWorker } from "../../service/app/sms-outbox.js";
import { type Store, openStore } from "../../service/db/database.js";
import { freshDatabaseUrl } from "./support/engines.js";
import { SMTP_PASSWORD, SMTP_USER, type TestSmtp, smtpUrl, startSmtp } from "./support/smtp.js";

const T0 = Date.UTC(2030, 0, 7, 9, 0);
/** SQLite without a log sync per commit: these tests are about order and content, not durability. */
const FAST = { sqliteSync: "NORMAL" } as const;

function tempDir(label: string): string {
  return fs.mkdtempSync(path.join(tmpdir(), `eas-${label}-`));
}

async function account(store: Store, username: string): Promise<number> {
  const row = await store.db.insertInto("accounts").values({ username, password_hash: "x", created_at: T0 }).returning("id").executeTakeFirstOrThrow();
  return row.id;
}

/** Queues `count` mails of `kind` for the account in one transaction; returns their ids. */
async function queue(store: Store, accountId: number, kind: string, count: number, at = T0, extra: { html?: string; headers?: Record<string, string> } = {}): Promise<number[]> {
  return store.write(async (trx) => {
    const ids: number[] = [];
    for (let i = 0; i < count; i++) {
      ids.push(
        await queueMail(
          trx,
          { accountId, kind, from: { name: "Sender", address: "sender@example.com" }, to: { name: "", address: `r${accountId}-${i}@example.com` }, subject: `${kind} ${i}`, text: "Hello\n", ...extra },
          at,
          "example.com",
        ),
      );
    }
    return ids;
  });
}

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
    const transport = smtpTransport(smtpUrl(smtp.port), { fallbackFrom: "x@example.com", allowPlaintextAuth, timeoutMs: 5000, tls: { rejectUnauthorized: false } });
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
    const file = path.join(root, "data", "nested", "service.db");
    const store = await openStore(`sqlite:${file}`);
    try {
      await account(store, "modes");
      expect(mode(path.join(root, "data"))).toBe(0o700);
      expect(mode(path.join(root, "data", "nested"))).toBe(0o700);
      for (const name of [file, `${file}-wal`, `${file}-shm`]) expect([name, mode(name)]).toEqual([name, 0o600]);
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
        .values({ account_id: owner, sender_name: "Shop", country_code: "46", phone_number: "701234567", message: "Your code is 123456", encoding: "GSM-7", segments: 1, cost: "1", state: "queued", next_attempt_at: T0, lease_owner: null, lease_until: null, last_error: null, created_at: T0, paid_at: T0, sent_at: null })
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
    plant([`12.eml.outbox-${uuid(1)}.tmp`, `13.eml.outbox-${uuid(2)}.tmp`, `14.eml.outbox-${uuid(9)}.tmp`, "notes.tmp", `15.eml.tmp`, `16.eml.sms-${uuid(3)}.tmp`, "17.eml"], true);
    plant([`18.eml.outbox-${uuid(4)}.tmp`], false);
    const removed = await sweepTemporaries(dir, { finalName: "\\d+\\.eml", ownerPrefix: "outbox-" }, `outbox-${uuid(9)}`, Date.now() - 30_000);
    expect(removed.sort()).toEqual([`12.eml.outbox-${uuid(1)}.tmp`, `13.eml.outbox-${uuid(2)}.tmp`]);
    expect(fs.readdirSync(dir).sort()).toEqual([`14.eml.outbox-${uuid(9)}.tmp`, `15.eml.tmp`, `16.eml.sms-${uuid(3)}.tmp`, "17.eml", `18.eml.outbox-${uuid(4)}.tmp`, "notes.tmp"].sort());
    expect(await sweepTemporaries(path.join(dir, "missing"), { finalName: "\\d+\\.eml", ownerPrefix: "outbox-" }, "x", Date.now())).toEqual([]);
  });

  it("the outbox and SMS workers sweep their folders when they start, leaving a live writer's fresh file", async () => {
    dir = tempDir("sweep-workers");
    const store = await openStore(await freshDatabaseUrl("sqlite", "outbox-sweep"), FAST);
    try {
      const mailDir = path.join(dir, "mail");
      const smsDir = path.join(dir, "sms");
      fs.mkdirSync(mailDir);
      fs.mkdirSync(smsDir);
      const stale = [path.join(mailDir, `3.eml.outbox-${uuid(1)}.tmp`), path.join(smsDir, `4.json.sms-${uuid(2)}.tmp`)];
      const live = [path.join(mailDir, `5.eml.outbox-${uuid(3)}.tmp`), path.join(smsDir, `6.json.sms-${uuid(4)}.tmp`)];
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
