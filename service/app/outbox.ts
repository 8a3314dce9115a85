// Delivery of queued mail. Issue 9 delivers to a folder: each message becomes `<id>.eml` (written to a
// temporary name and renamed, so a reader never sees half a file; a crash before the row is marked
// sent rewrites the same file, never a second one). Failures retry with backoff, then go dead.

import fs from "node:fs/promises";
import path from "node:path";
import { randomUUID } from "node:crypto";
import type { Store } from "../db/database.js";
import type { Mail } from "../db/schema.js";

export interface OutboxOptions {
  readonly dir: string;
  readonly leaseMs?: number;
  readonly pollMs?: number;
  readonly maxAttempts?: number;
  readonly now?: () => number;
  readonly log?: (entry: Record<string, unknown>) => void;
}

export class OutboxWorker {
  private readonly owner = `outbox-${randomUUID()}`;
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private stopped = true;
  private again = false;

  constructor(
    private readonly store: Store,
    private readonly options: OutboxOptions,
  ) {}

  start(): void {
    this.stopped = false;
    this.wake();
  }

  /** Runs a pass now (new mail was queued); a pass already running makes one more after it. */
  wake(): void {
    if (this.stopped) return;
    if (this.running !== undefined) {
      this.again = true;
      return;
    }
    clearTimeout(this.timer);
    this.running = this.drain()
      .then(() => undefined)
      .catch((error: unknown) => this.options.log?.({ msg: "outbox pass failed", err: String(error) }))
      .finally(() => {
        this.running = undefined;
        if (this.stopped) return;
        if (this.again) {
          this.again = false;
          this.wake();
        } else {
          this.timer = setTimeout(() => this.wake(), this.options.pollMs ?? 1000);
          this.timer.unref();
        }
      });
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
  }

  /** Waits for a pass in progress, then delivers whatever is still due (tests, the admin CLI). */
  async flush(): Promise<number> {
    await this.running;
    return this.drain();
  }

  /** Delivers every due message, one claimed batch at a time; returns when none is due. */
  async drain(): Promise<number> {
    let delivered = 0;
    for (let round = 0; round < 10_000 && !this.stopped; round++) {
      const batch = await this.claim(50);
      if (batch.length === 0) break;
      for (const mail of batch) delivered += (await this.deliver(mail)) ? 1 : 0;
    }
    return delivered;
  }

  private now(): number {
    return (this.options.now ?? Date.now)();
  }

  private async claim(limit: number): Promise<Mail[]> {
    const { db, engine } = this.store;
    const now = this.now();
    const leaseUntil = now + (this.options.leaseMs ?? 30_000);
    return db.transaction().execute(async (trx) => {
      const due = await trx
        .selectFrom("mail_outbox")
        .select("id")
        .where("state", "=", "queued")
        .where("next_attempt_at", "<=", now)
        .where((eb) => eb.or([eb("lease_until", "is", null), eb("lease_until", "<", now)]))
        .orderBy("id")
        .limit(limit)
        .$if(engine === "postgres", (q) => q.forUpdate().skipLocked())
        .execute();
      if (due.length === 0) return [];
      return trx
        .updateTable("mail_outbox")
        .set({ lease_owner: this.owner, lease_until: leaseUntil })
        .where("id", "in", due.map((d) => d.id))
        .where("state", "=", "queued")
        .returningAll()
        .execute();
    });
  }

  private async deliver(mail: Mail): Promise<boolean> {
    const { db } = this.store;
    try {
      await fs.mkdir(this.options.dir, { recursive: true });
      const final = path.join(this.options.dir, `${mail.id}.eml`);
      const temporary = `${final}.${this.owner}.tmp`;
      await fs.writeFile(temporary, mail.message, { flush: true });
      await fs.rename(temporary, final);
      await db
        .updateTable("mail_outbox")
        .set({ state: "sent", sent_at: this.now(), attempts: mail.attempts + 1, lease_owner: null, lease_until: null, last_error: null })
        .where("id", "=", mail.id)
        .where("lease_owner", "=", this.owner)
        .execute();
      return true;
    } catch (error) {
      const attempts = mail.attempts + 1;
      const dead = attempts >= (this.options.maxAttempts ?? 5);
      await db
        .updateTable("mail_outbox")
        .set({
          state: dead ? "dead" : "queued",
          attempts,
          next_attempt_at: this.now() + Math.min(3600_000, 1000 * 2 ** attempts),
          lease_owner: null,
          lease_until: null,
          last_error: error instanceof Error ? error.message.slice(0, 500) : String(error).slice(0, 500),
        })
        .where("id", "=", mail.id)
        .execute();
      this.options.log?.({ msg: "mail delivery failed", mailId: mail.id, attempts, dead });
      return false;
    }
  }
}
