// Delivery of queued mail through a MailTransport: by default a folder where each message becomes
// `<id>.eml` (a crash before the row is marked sent rewrites the same file, never a second one), or an
// SMTP server. Failures retry with backoff, then go dead after maxAttempts; a permanent refusal (SMTP
// 5xx to the message) goes dead at once. last_error keeps the transport's (secret-free) reason.

import { randomUUID } from "node:crypto";
import type { Store } from "../db/database.js";
import type { Mail } from "../db/schema.js";
import { folderTransport, type MailTransport, OUTBOX_OWNER_PREFIX, PermanentMailError } from "./mail-transport.js";
import { claimDue, PollingWorker } from "./polling-worker.js";

export interface OutboxOptions {
  /** The folder of the default transport (used when `transport` is not given). */
  readonly dir: string;
  /** Where messages go (default: `.eml` files in `dir`). The worker closes it on stop. */
  readonly transport?: MailTransport;
  readonly leaseMs?: number;
  readonly pollMs?: number;
  readonly maxAttempts?: number;
  readonly now?: () => number;
  readonly log?: (entry: Record<string, unknown>) => void;
}

export class OutboxWorker extends PollingWorker {
  private readonly owner = `${OUTBOX_OWNER_PREFIX}${randomUUID()}`;
  private readonly transport: MailTransport;

  constructor(
    private readonly store: Store,
    private readonly options: OutboxOptions,
  ) {
    super("outbox", options);
    this.transport = options.transport ?? folderTransport(options.dir, this.owner, { staleMs: options.leaseMs ?? 30_000, log: options.log });
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

  /** Delivers every message due at `at` (default now), one claimed batch at a time; returns when none is due. */
  async drain(at?: number, evenStopped = false): Promise<number> {
    const now = () => at ?? this.now();
    let delivered = 0;
    for (let round = 0; round < 10_000 && (evenStopped || !this.stopped); round++) {
      const batch = await this.claim(50, now());
      if (batch.length === 0) break;
      const late: number[] = [];
      for (const [index, mail] of batch.entries()) {
        // A send that could outlast the lease might run while another worker takes the message over:
        // give the lease back instead, so the next claim takes it with a fresh one (the first of a
        // batch always goes, so a lease shorter than a send still makes progress).
        if (index > 0 && now() + this.transport.sendTimeoutMs > (mail.lease_until ?? 0)) late.push(mail.id);
        else delivered += (await this.deliver(mail, now)) ? 1 : 0;
      }
      if (late.length > 0) {
        await this.store.db
          .updateTable("mail_outbox")
          .set({ lease_owner: null, lease_until: null })
          .where("id", "in", late)
          .where("lease_owner", "=", this.owner)
          .where("state", "=", "queued")
          .execute();
      }
    }
    return delivered;
  }

  private now(): number {
    return (this.options.now ?? Date.now)();
  }

  private claim(limit: number, now: number): Promise<Mail[]> {
    return claimDue(this.store, "mail_outbox", this.owner, limit, now, this.options.leaseMs ?? 30_000);
  }


  private async deliver(mail: Mail, now: () => number): Promise<boolean> {
    const { db } = this.store;
    try {
      await this.transport.send(mail);
      await db
        .updateTable("mail_outbox")
        .set({ state: "sent", sent_at: now(), attempts: mail.attempts + 1, lease_owner: null, lease_until: null, last_error: null })
        .where("id", "=", mail.id)
        .where("lease_owner", "=", this.owner)
        .execute();
      return true;
    } catch (error) {
      const attempts = mail.attempts + 1;
      const dead = error instanceof PermanentMailError || attempts >= (this.options.maxAttempts ?? 5);
      const reason = (error instanceof Error ? error.message : String(error)).slice(0, 500);
      await db
        .updateTable("mail_outbox")
        .set({
          state: dead ? "dead" : "queued",
          attempts,
          next_attempt_at: now() + Math.min(3600_000, 1000 * 2 ** attempts),
          lease_owner: null,
          lease_until: null,
          last_error: reason,
        })
        .where("id", "=", mail.id)
        .execute();
      this.options.log?.({ msg: "mail delivery failed", mailId: mail.id, attempts, dead, err: reason });
      return false;
    }
  }
}
