// Delivery of queued mail through a MailTransport: by default a folder where each message becomes
// `<id>.eml` (a crash before the row is marked sent rewrites the same file, never a second one), or an
// SMTP server.
//
// Order: mail someone is waiting for (confirmation, transactional: priority 0) is claimed before bulk
// mail (newsletters, triggers: priority 1), and within each class the accounts with due mail take turns
// (round robin from where the last claim stopped, an equal share of the batch each), so one account's
// backlog never holds up another account's mail. Each claim walks the index (state, priority,
// account_id, next_attempt_at, id): one seek per account, then the oldest due messages of each, never a
// scan of the backlog. Through SMTP a batch goes out over the pool's connections at once, each recipient
// domain within MAIL_DOMAIN_CONCURRENCY and MAIL_DOMAIN_RATE (deliverPolitely).
//
// Failures: a permanent refusal (SMTP 5xx to the message) is dead at once; anything else (4xx such as
// greylisting, a refused login, the network) is retried after 1 min, doubling up to
// MAIL_RETRY_MAX_INTERVAL_MS (30 min), each wait jittered to between half and all of that, until
// MAIL_RETRY_MAX_AGE_MS (5 days) after the first attempt (RFC 5321 4.5.4.1), or MAIL_MAX_ATTEMPTS when set. last_error keeps the transport's (secret-free)
// reason.
//
// Retention: a delivered message's text holds links that act for its recipient (confirmation,
// unsubscribe, tracking); it is cut to its From, To, Subject, Date and Message-ID headers at delivery, or
// OUTBOX_RETENTION_DAYS after it.

import { randomUUID } from "node:crypto";
import { VALUES_CHUNK, valuesTable } from "../db/bulk.js";
import { sql, type Transaction } from "kysely";
import type { Store } from "../db/database.js";
import type { Database, Mail, MailState } from "../db/schema.js";
import { folderTransport, type MailTransport, OUTBOX_OWNER_PREFIX } from "../delivery/mail-transport.js";
import { PollingWorker, stateIs } from "./polling-worker.js";
import { PermanentDeliveryError } from "../delivery/errors.js";
import { type DkimSigner, signingTransport } from "../delivery/dkim.js";
import { DomainGate, type DomainLimits, recipientDomain } from "../delivery/domain-gate.js";

const PRIORITIES = [0, 1] as const;

const DEFAULT_RETRY_MAX_AGE_MS = 5 * 24 * 3600_000;
const DEFAULT_RETRY_MAX_INTERVAL_MS = 30 * 60_000;
/** The first retry's wait; each next one doubles, up to the maximum interval. */
const FIRST_RETRY_MS = 60_000;

/** Accounts one claim looks at per class (each an index seek), from where the last claim stopped. */
const ACCOUNT_WALK = 256;
/** Walks one claim makes at most per class (so up to 64 * 256 accounts without due mail are passed over). */
const MAX_LAPS = 64;
/** Delivered messages cut to their headers per statement, and statements per pass at most. */
const PURGE_BATCH = 500;
const PURGE_BATCHES_PER_PASS = 20;

export interface OutboxOptions {
  /** The folder of the default transport (used when `transport` is not given). */
  readonly dir: string;
  /** Where messages go (default: `.eml` files in `dir`). The worker closes it on stop. */
  readonly transport?: MailTransport;
  readonly leaseMs?: number;
  readonly pollMs?: number;
  /** Messages claimed at once (default 50). */
  readonly batchSize?: number;
  /** MAIL_MAX_ATTEMPTS: dead after this many attempts even before retryMaxAgeMs (default: no limit). */
  readonly maxAttempts?: number | undefined;
  /** MAIL_RETRY_MAX_AGE_MS: how long after its first attempt a message is retried (default 5 days). */
  readonly retryMaxAgeMs?: number;
  /** MAIL_RETRY_MAX_INTERVAL_MS: the longest wait between two attempts (default 30 min). */
  readonly retryMaxIntervalMs?: number;
  /** MAIL_DOMAIN_CONCURRENCY and MAIL_DOMAIN_RATE: limits per recipient domain (default: none). */
  readonly domainLimits?: DomainLimits;
  /** Random numbers in [0, 1) for the retry jitter (tests fix them); default Math.random. */
  readonly random?: () => number;
  /** OUTBOX_RETENTION_DAYS in ms: how long a delivered message keeps its whole text (default 0). */
  readonly retentionMs?: number;
  readonly now?: () => number;
  readonly log?: (entry: Record<string, unknown>) => void;
  /** DKIM_KEYS: signs each message at delivery (by its From domain's key); default: unsigned. */
  readonly sign?: DkimSigner | undefined;
  /** The envelope sender of a message (BOUNCE_DOMAIN: its VERP address); default: its From. */
  readonly returnPath?: (mailId: number) => Promise<string | undefined>;
  /**
   * Told in the transaction that makes a message dead because the server refused it (SMTP 5xx): records
   * the hard bounce (bounces.ts).
   */
  readonly onRefused?: (trx: Transaction<Database>, mail: Mail, reason: string, at: number) => Promise<void>;
}

/**
 * The wait before the attempt after `attempts` failed ones: 1 min doubling, at most `maxIntervalMs`,
 * then jittered to between half of that and all of it ("equal jitter"), so messages that failed
 * together (a server's 421, a greylisting burst) come back spread out, never later than the maximum.
 */
export function retryDelay(attempts: number, maxIntervalMs: number, random: number): number {
  const base = Math.min(maxIntervalMs, FIRST_RETRY_MS * 2 ** Math.min(30, Math.max(0, attempts - 1)));
  return Math.round(base / 2 + (base / 2) * Math.min(1, Math.max(0, random)));
}

/** Header fields a delivered message keeps: who, what, when, and the id a bounce or the MTA log names. */
const KEPT_HEADERS = new Set(["from", "to", "subject", "date", "message-id"]);

/**
 * What is kept of a delivered message: its From, To, Subject, Date and Message-ID fields (folded lines
 * included) and an empty body. Every other header (List-Unsubscribe carries a token) and the body (the
 * links) are dropped.
 */
export function deliveredCopy(message: string): string {
  const end = message.indexOf("\r\n\r\n");
  const head = end < 0 ? message : message.slice(0, end);
  const kept = head.split(/\r\n(?![ \t])/).filter((field) => {
    const colon = field.indexOf(":");
    return colon > 0 && KEPT_HEADERS.has(field.slice(0, colon).trim().toLowerCase());
  });
  return `${kept.join("\r\n")}\r\n\r\n`;
}

/** markSent's statement on SQLite (its values: sent_at, first attempt, message, retained_since, id, owner). */
const MARK_SENT_SQLITE =
  "update mail_outbox set state = 'sent', sent_at = ?, attempts = attempts + 1, " +
  "first_attempt_at = coalesce(first_attempt_at, ?), lease_owner = null, lease_until = null, last_error = null, " +
  "message = ?, retained_since = ? where id = ? and lease_owner = ?";

/** LeaseReads' statement on SQLite (its values: id, owner). */
const HELD_SQLITE = "select 1 from mail_outbox where id = ? and lease_owner = ? and state = 'queued'";

export class OutboxWorker extends PollingWorker {
  private readonly owner = `${OUTBOX_OWNER_PREFIX}${randomUUID()}`;
  private readonly transport: MailTransport;
  /** Per priority: the last account a claim served (the next claim starts after it). */
  private readonly cursors = [0, 0];
  private readonly gate: DomainGate;
  /** Lanes waiting for a send to end (their domains at their concurrency), of whichever batch. */
  private sendEnded: (() => void)[] = [];

  constructor(
    private readonly store: Store,
    private readonly options: OutboxOptions,
  ) {
    super("outbox", options);
    this.transport = signingTransport(
      options.transport ??
        folderTransport(options.dir, this.owner, { staleMs: options.leaseMs ?? 30_000, log: options.log }),
      options.sign,
    );
    this.gate = new DomainGate(options.domainLimits ?? { concurrency: 0, perMinute: 0 });
  }

  /** Where this worker delivers (for the start-up log): the folder, or the SMTP URL without password. */
  get destination(): string {
    return this.transport.description;
  }

  override async stop(): Promise<void> {
    await super.stop();
    await this.transport.close();
  }

  /**
   * Waits for a pass in progress, then delivers whatever is still due, started or not (tests, the admin
   * CLI); `at` (epoch ms, default now) is the time the pass acts at, so a test can reach a retry's time.
   */
  async flush(at?: number): Promise<number> {
    return this.exclusive(() => this.drain(at, true));
  }

  protected async pass(): Promise<number> {
    await this.transport.maintain?.(this.now());
    return this.drain();
  }

  /**
   * Cuts delivered messages kept longer than the retention to their headers (and those delivered before
   * retention existed), at most PURGE_BATCHES_PER_PASS batches; returns how many were cut.
   */
  async purge(at?: number): Promise<number> {
    const now = at ?? this.now();
    const cutoff = now - (this.options.retentionMs ?? 0);
    let cut = 0;
    for (let round = 0; round < PURGE_BATCHES_PER_PASS; round++) {
      const rows = await this.store.db
        .selectFrom("mail_outbox")
        .select(["id", "message"])
        .where("retained_since", "<=", cutoff)
        .orderBy("retained_since")
        .limit(PURGE_BATCH)
        .execute();
      if (rows.length === 0) break;
      await this.store.write(async (trx) => {
        for (const row of rows) {
          await trx
            .updateTable("mail_outbox")
            .set({ message: deliveredCopy(row.message), retained_since: null })
            .where("id", "=", row.id)
            .where("state", "=", "sent")
            .execute();
        }
      });
      cut += rows.length;
      if (rows.length < PURGE_BATCH) break;
    }
    return cut;
  }

  /** Delivers every message due at `at` (default now), one claimed batch at a time; returns when none is due. */
  async drain(at?: number, evenStopped = false): Promise<number> {
    const now = () => at ?? this.now();
    await this.purge(now());
    let delivered = 0;
    const batchSize = this.options.batchSize ?? (this.transport.sendBatch === undefined ? 50 : 200);
    if (this.transport.sendBatch === undefined)
      return delivered + (await this.drainPolitely(batchSize, now, evenStopped));
    for (let round = 0; round < 10_000 && (evenStopped || !this.stopped); round++) {
      const batch = await this.claim(batchSize, now());
      if (batch.length === 0) break;
      delivered += await this.deliverBatch(batch, now);
    }
    return delivered;
  }

  /**
   * Claimed batches through send() back to back: the next batch is claimed as soon as every message of the
   * current one has started, while its last sends and marks are still under way, so the pool's connections
   * do not stand idle for a claim between batches (measured: 200 claims, each a transaction with its log
   * sync, for 10,000 messages in batches of 50). At most two batches are in progress: the one before must
   * have ended before the one after next is claimed.
   */
  private async drainPolitely(batchSize: number, now: () => number, evenStopped: boolean): Promise<number> {
    let delivered = 0;
    let previous: Promise<number> = Promise.resolve(0);
    try {
      for (let round = 0; round < 10_000 && (evenStopped || !this.stopped); round++) {
        const batch = await this.claim(batchSize, now());
        if (batch.length === 0) break;
        let allStarted!: () => void;
        const started = new Promise<void>((resolve) => (allStarted = resolve));
        const delivering = this.deliverPolitely(batch, now, allStarted);
        // (a batch that fails before all its messages started ends the drain with its error)
        await Promise.race([started, delivering]);
        delivered += await previous;
        previous = delivering;
      }
      return delivered + (await previous);
    } finally {
      // whatever failed, no batch is left running unawaited
      await previous.catch(() => 0);
    }
  }

  private now(): number {
    return (this.options.now ?? Date.now)();
  }

  /**
   * A claimed batch through send(), the transport's `concurrency` messages at once (the SMTP pool's
   * connections), each recipient domain within its limits (delivery/domain-gate.ts): a message whose
   * domain has its concurrency in flight waits for one of them; one the domain's rate does not allow now
   * goes back to the queue, due when the rate allows it, no attempt counted. A send that could outlast
   * the lease might run while another worker takes the message over: that message is given back instead,
   * so the next claim takes it with a fresh lease (the first send of a batch always goes, so a lease
   * shorter than a send still makes progress).
   *
   * Each send starts only after a read, begun after the send was asked for, found the message still held
   * by this worker (a pause or cancel takes it back without waiting for the batch to end); the lanes'
   * reads are shared (LeaseReads: one statement for every message asked meanwhile). A message counts as
   * delivered when the server has accepted it (SMTP: the 250 answer to its DATA); it is then marked sent
   * together with the others accepted meanwhile (SentMarks: one write for the group), while the lanes go
   * on. A process that dies between the 250 and that write leaves the message queued under its lease: it
   * is sent again once the lease has run out (at least once, never lost; at most the messages accepted
   * while one mark was being written). The batch ends when every mark is written.
   */
  private async deliverPolitely(
    batch: readonly Mail[],
    now: () => number,
    allStarted: () => void = () => {},
  ): Promise<number> {
    const pending = [...batch];
    const late: number[] = [];
    const deferred: { id: number; at: number }[] = [];
    const waiting = new Map<string, number>();
    const held = new LeaseReads(this.store, this.owner);
    const marks = new SentMarks((mails) => this.markSent(mails, now()));
    let started = 0;
    const lane = async (): Promise<void> => {
      while (pending.length > 0 && marks.error === undefined) {
        let picked: Mail | undefined;
        let busy = false;
        for (let k = 0; k < pending.length && picked === undefined; k++) {
          const mail = pending[k]!;
          const domain = recipientDomain(mail.to_address);
          const verdict = this.gate.take(domain, now(), waiting.get(domain) ?? 0);
          if (verdict === "busy") {
            busy = true;
            continue;
          }
          pending.splice(k--, 1);
          if (verdict === true) picked = mail;
          else {
            deferred.push({ id: mail.id, at: verdict });
            waiting.set(domain, (waiting.get(domain) ?? 0) + 1);
          }
        }
        if (pending.length === 0) allStarted();
        if (picked === undefined) {
          // every message left is of a domain at its concurrency: wait for a send (of any batch) to end
          if (busy) await new Promise<void>((resolve) => this.sendEnded.push(resolve));
          continue;
        }
        const domain = recipientDomain(picked.to_address);
        try {
          if (started > 0 && now() + this.transport.sendTimeoutMs > (picked.lease_until ?? 0))
            late.push(picked.id);
          else {
            started++;
            if (await this.deliver(picked, now, held)) marks.add(picked, now());
          }
        } finally {
          this.gate.release(domain);
          const woken = this.sendEnded;
          this.sendEnded = [];
          for (const resolve of woken) resolve();
        }
      }
    };
    const lanes = Math.max(1, Math.min(this.transport.concurrency ?? 1, batch.length));
    try {
      await Promise.all(Array.from({ length: lanes }, lane));
    } finally {
      allStarted();
    }
    const delivered = await marks.settled();
    if (late.length > 0 || deferred.length > 0) {
      await this.store.write(async (trx) => {
        if (late.length > 0)
          await trx
            .updateTable("mail_outbox")
            .set({ lease_owner: null, lease_until: null })
            .where("id", "in", late)
            .where("lease_owner", "=", this.owner)
            .where(stateIs("queued"))
            .execute();
        for (const { id, at } of deferred)
          await trx
            .updateTable("mail_outbox")
            .set({ lease_owner: null, lease_until: null, next_attempt_at: at })
            .where("id", "=", id)
            .where("lease_owner", "=", this.owner)
            .where(stateIs("queued"))
            .execute();
      });
    }
    return delivered;
  }

  /**
   * Claims up to `limit` due messages: priority 0 first, then bulk; in each class the accounts with due
   * mail in turn from the one after the last served, each an equal share of what is left of the batch,
   * oldest due first. PostgreSQL skips rows another worker is claiming at the same moment. The batch is
   * returned in claim order (priority mail first).
   */
  claim(limit: number, now: number): Promise<Mail[]> {
    const postgres = this.store.engine === "postgres";
    return this.store.db.transaction().execute(async (trx) => {
      const ids: number[] = [];
      for (const priority of PRIORITIES) {
        if (ids.length >= limit) break;
        const accounts = await dueAccounts(trx, priority, this.cursors[priority]!, limit - ids.length, now);
        for (const [index, account] of accounts.entries()) {
          const share = Math.ceil((limit - ids.length) / (accounts.length - index));
          const rows = await trx
            .selectFrom("mail_outbox")
            .select("id")
            .where("state", "=", "queued")
            .where("priority", "=", priority)
            .where("account_id", "=", account)
            .where("next_attempt_at", "<=", now)
            .where((eb) => eb.or([eb("lease_until", "is", null), eb("lease_until", "<", now)]))
            .orderBy("next_attempt_at")
            .orderBy("id")
            .limit(share)
            .$if(postgres, (q) => q.forUpdate().skipLocked())
            .execute();
          for (const row of rows) ids.push(row.id);
          this.cursors[priority] = account;
          if (ids.length >= limit) break;
        }
      }
      if (ids.length === 0) return [];
      const claimed = await trx
        .updateTable("mail_outbox")
        .set({ lease_owner: this.owner, lease_until: now + (this.options.leaseMs ?? 30_000) })
        .where("id", "in", ids)
        .where(stateIs("queued"))
        .where((eb) => eb.or([eb("lease_until", "is", null), eb("lease_until", "<", now)]))
        .returningAll()
        .execute();
      const order = new Map(ids.map((id, index) => [id, index]));
      return claimed.sort((a, b) => order.get(a.id)! - order.get(b.id)!);
    });
  }

  /**
   * One message through send() once `held` has found it still held by this worker; true when the server
   * accepted it (the caller marks it sent), false when it was no longer held or failed (then recorded).
   */
  private async deliver(mail: Mail, now: () => number, held: LeaseReads): Promise<boolean> {
    const firstAttempt = mail.first_attempt_at ?? now();
    if (!(await held.stillHeld(mail.id))) return false;
    try {
      const returnPath = await this.options.returnPath?.(mail.id);
      await this.transport.send(returnPath === undefined ? mail : { ...mail, returnPath });
    } catch (error) {
      await this.failed(mail, firstAttempt, error, now());
      return false;
    }
    return true;
  }

  /**
   * A claimed batch through the transport's sendBatch (the folder): the messages it reports durable are
   * marked sent together in one statement, after the whole batch is on disk (drop-folder.ts writeDurably:
   * each file synced and renamed, then the folder synced); a crash before that leaves them queued, to be
   * written again under the same names. The failed ones take the retry path one by one.
   */
  private async deliverBatch(batch: readonly Mail[], now: () => number): Promise<number> {
    const firstAttempt = now();
    const returnPaths = await Promise.all(batch.map((mail) => this.options.returnPath?.(mail.id)));
    const results = await this.transport.sendBatch!(
      batch.map((mail, k) => (returnPaths[k] === undefined ? mail : { ...mail, returnPath: returnPaths[k] })),
    );
    const sent = batch.filter((_, k) => results[k] === undefined);
    await this.markSent(
      sent.map((mail) => ({ mail, firstAttempt })),
      now(),
    );
    for (const [k, mail] of batch.entries()) {
      const error = results[k];
      if (error !== undefined) await this.failed(mail, mail.first_attempt_at ?? firstAttempt, error, now());
    }
    return sent.length;
  }

  /**
   * Marks delivered messages sent (one statement for the lot), each cut to its headers unless retention
   * keeps it whole; only those this worker still leases. `firstAttempt` stands in for a message that had
   * no attempt before.
   */
  private async markSent(
    sent: readonly { readonly mail: Mail; readonly firstAttempt: number }[],
    at: number,
  ): Promise<void> {
    if (sent.length === 0) return;
    const keep = (this.options.retentionMs ?? 0) > 0;
    const kept = (mail: Mail) => (keep ? mail.message : deliveredCopy(mail.message));
    const sqlite = this.store.sqlite;
    if (sqlite !== undefined) {
      // SQLite: a prepared statement a message, in the group commit (no round trips to save; an UPDATE ...
      // FROM a values table measured 100 times slower there, 57 ms against 0.5 ms for 200 messages).
      const update = sqlite.statement(MARK_SENT_SQLITE);
      const retained = keep ? at : null;
      await sqlite.writeSync(() => {
        for (const { mail, firstAttempt } of sent)
          update.run(at, firstAttempt, kept(mail), retained, mail.id, this.owner);
      });
      return;
    }
    // PostgreSQL: one statement for the batch (one round trip).
    await this.store.write(async (trx) => {
      for (let k = 0; k < sent.length; k += VALUES_CHUNK) {
        const part = sent.slice(k, k + VALUES_CHUNK);
        await sql`with ${valuesTable(
          "v",
          [
            ["id", "bigint"],
            ["message", "text"],
            ["first_attempt_at", "bigint"],
          ],
          part.map(({ mail, firstAttempt }) => [mail.id, kept(mail), firstAttempt]),
        )}
          update mail_outbox set state = 'sent', sent_at = ${at}, attempts = mail_outbox.attempts + 1,
            first_attempt_at = coalesce(mail_outbox.first_attempt_at, v.first_attempt_at),
            lease_owner = null, lease_until = null, last_error = null,
            message = v.message, retained_since = ${keep ? at : null}
          from v
          where mail_outbox.id = v.id and mail_outbox.lease_owner = ${this.owner}`.execute(trx);
      }
    });
  }

  /** A failed attempt: queued again after the retry delay, or dead (see the top of this file). */
  private async failed(mail: Mail, firstAttempt: number, error: unknown, at: number): Promise<void> {
    const attempts = mail.attempts + 1;
    const giveUpAt = firstAttempt + (this.options.retryMaxAgeMs ?? DEFAULT_RETRY_MAX_AGE_MS);
    const permanent = error instanceof PermanentDeliveryError;
    const dead =
      permanent ||
      at >= giveUpAt ||
      (this.options.maxAttempts !== undefined && attempts >= this.options.maxAttempts);
    const reason = (error instanceof Error ? error.message : String(error)).slice(0, 500);
    // The last retry falls at the give-up time itself, so a message is tried for the whole period.
    const wait = retryDelay(
      attempts,
      this.options.retryMaxIntervalMs ?? DEFAULT_RETRY_MAX_INTERVAL_MS,
      (this.options.random ?? Math.random)(),
    );
    const next = Math.min(at + wait, giveUpAt);
    await this.store.write(async (trx) => {
      const failed = await trx
        .updateTable("mail_outbox")
        .set({
          // A message held by a pause while this attempt was under way stays held: queued, it would be
          // delivered while its sending is paused (resume queues it again).
          state: dead ? "dead" : sql<MailState>`case when state = 'held' then 'held' else 'queued' end`,
          attempts,
          first_attempt_at: firstAttempt,
          next_attempt_at: dead ? at : next,
          lease_owner: null,
          lease_until: null,
          last_error: reason,
        })
        .where("id", "=", mail.id)
        .where("lease_owner", "=", this.owner)
        .executeTakeFirst();
      if (permanent && Number(failed.numUpdatedRows) === 1)
        await this.options.onRefused?.(trx, mail, reason, at);
    });
    this.options.log?.({
      msg: "mail delivery failed",
      mailId: mail.id,
      attempts,
      dead,
      ...(dead
        ? {
            why: permanent ? "refused" : at >= giveUpAt ? "retried for the whole period" : "maximum attempts",
          }
        : { nextAttemptAt: new Date(next).toISOString() }),
      err: reason,
    });
  }
}

/**
 * Whether claimed messages are still held by this worker (queued, its lease), asked by the lanes of a
 * batch before each send: every question is answered by a read that began after it was asked, and the
 * questions asked while a read runs are answered together by the next one (one statement for all).
 */
class LeaseReads {
  private asked: { id: number; resolve: (held: boolean) => void; reject: (error: unknown) => void }[] = [];
  private reading = false;

  constructor(
    private readonly store: Store,
    private readonly owner: string,
  ) {}

  stillHeld(id: number): Promise<boolean> {
    // SQLite: a prepared statement now when no transaction is open. It may see writeSync work whose log
    // sync is in flight: the only such work on a message this worker leases is its own markSent, and a
    // message marked sent is not to be sent again either way.
    const sqlite = this.store.sqlite;
    const quick = sqlite?.readNow(() => sqlite.statement(HELD_SQLITE).get(id, this.owner) !== undefined);
    if (quick !== undefined) return Promise.resolve(quick.value);
    return new Promise((resolve, reject) => {
      this.asked.push({ id, resolve, reject });
      if (!this.reading) {
        this.reading = true;
        // the questions of this turn of the event loop go in the same read
        setImmediate(() => void this.read());
      }
    });
  }

  private async read(): Promise<void> {
    while (this.asked.length > 0) {
      const asked = this.asked;
      this.asked = [];
      try {
        const held = new Set<number>();
        for (let k = 0; k < asked.length; k += VALUES_CHUNK) {
          const rows = await this.store.db
            .selectFrom("mail_outbox")
            .select("id")
            .where(
              "id",
              "in",
              asked.slice(k, k + VALUES_CHUNK).map((a) => a.id),
            )
            .where("lease_owner", "=", this.owner)
            .where(stateIs("queued"))
            .execute();
          for (const row of rows) held.add(Number(row.id));
        }
        for (const a of asked) a.resolve(held.has(a.id));
      } catch (error) {
        for (const a of asked) a.reject(error);
      }
    }
    this.reading = false;
  }
}

/**
 * The messages of a batch the server accepted, marked sent in groups while the lanes go on: one write at
 * a time, with every message accepted while the previous one ran. `settled` waits for the last write and
 * returns how many were marked; after a failed write, the error (the lanes stop starting sends).
 */
class SentMarks {
  private waiting: { mail: Mail; firstAttempt: number }[] = [];
  private writing: Promise<void> | undefined;
  private marked = 0;
  error: unknown;

  constructor(
    private readonly write: (
      sent: readonly { readonly mail: Mail; readonly firstAttempt: number }[],
    ) => Promise<void>,
  ) {}

  /** The message was accepted at `at` (its first attempt when it had none before). */
  add(mail: Mail, at: number): void {
    this.waiting.push({ mail, firstAttempt: mail.first_attempt_at ?? at });
    this.writing ??= this.flush();
  }

  private async flush(): Promise<void> {
    try {
      while (this.waiting.length > 0 && this.error === undefined) {
        const group = this.waiting;
        this.waiting = [];
        await this.write(group);
        this.marked += group.length;
      }
    } catch (error) {
      this.error = error;
    } finally {
      this.writing = undefined;
    }
  }

  async settled(): Promise<number> {
    while (this.writing !== undefined) await this.writing;
    if (this.error !== undefined) throw this.error;
    return this.marked;
  }
}

/**
 * Up to `max` accounts with due, unleased mail of `priority`, in account order starting after `after`
 * and wrapping around once. Each lap is one statement walking at most ACCOUNT_WALK accounts that have
 * queued mail of the class (one index seek each for the next account id, one more for a due message), so
 * a claim costs seeks per account, not a scan of anyone's backlog.
 */
async function dueAccounts(
  trx: Transaction<Database>,
  priority: number,
  after: number,
  max: number,
  now: number,
): Promise<number[]> {
  const found: number[] = [];
  let from = after;
  let secondLap = false;
  for (let lap = 0; lap < MAX_LAPS; lap++) {
    const { rows } = await sql<{ account_id: number; step: number; due: unknown }>`
      with recursive walk(account_id, step) as (
        select (select account_id from mail_outbox
                where state = 'queued' and priority = ${priority} and account_id > ${from}
                order by account_id limit 1), 1
        union all
        select (select m.account_id from mail_outbox m
                where m.state = 'queued' and m.priority = ${priority} and m.account_id > walk.account_id
                order by m.account_id limit 1), walk.step + 1
        from walk
        where walk.account_id is not null and walk.step < ${ACCOUNT_WALK}
      )
      select walk.account_id, walk.step, exists (
        select 1 from mail_outbox d
        where d.state = 'queued' and d.priority = ${priority} and d.account_id = walk.account_id
          and d.next_attempt_at <= ${now} and (d.lease_until is null or d.lease_until < ${now})) as due
      from walk
      where walk.account_id is not null`.execute(trx);
    // In walk order (sorted here: an ORDER BY would sort in the database too, on a temporary tree).
    rows.sort((a, b) => Number(a.step) - Number(b.step));
    let last = from;
    let passed = false;
    for (const row of rows) {
      last = Number(row.account_id);
      if (secondLap && last > after) {
        passed = true;
        break;
      }
      if ((row.due === true || Number(row.due) === 1) && !found.includes(last)) found.push(last);
      if (found.length >= max) break;
    }
    if (passed || found.length >= max) break;
    if (rows.length === ACCOUNT_WALK) {
      from = last;
      continue;
    }
    // the walk reached the highest account id: go on from the lowest, up to where it started
    if (secondLap || after === 0) break;
    secondLap = true;
    from = 0;
  }
  return found;
}
