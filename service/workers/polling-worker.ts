// The scheduling both delivery workers share (the mail outbox and the SMS outbox): a pass runs at start,
// when woken (something was queued) and every pollMs; a wake during a pass chains one more pass after
// it; stop() lets the pass in progress finish; exclusive() runs a caller's drain with no pass running.

import { type RawBuilder, type Selectable, type SqlBool, sql } from "kysely";
import type { Store } from "../db/database.js";
import type { Database } from "../db/schema.js";

export interface PollingOptions {
  readonly pollMs?: number;
  readonly log?: (entry: Record<string, unknown>) => void;
}

export abstract class PollingWorker {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private again = false;
  private holding = 0;
  protected stopped = true;

  protected constructor(
    private readonly label: string,
    private readonly polling: PollingOptions,
  ) {}

  /** One pass over the due work; resolves when nothing due is left (or the worker stops). */
  protected abstract pass(): Promise<unknown>;

  start(): void {
    this.stopped = false;
    this.wake();
  }

  /** Runs a pass now; a pass already running makes one more after it. */
  wake(): void {
    if (this.stopped) return;
    if (this.running !== undefined || this.holding > 0) {
      this.again = true;
      return;
    }
    clearTimeout(this.timer);
    this.running = this.pass()
      .then(() => undefined)
      .catch((error: unknown) => this.polling.log?.({ msg: `${this.label} pass failed`, err: String(error) }))
      .finally(() => {
        this.running = undefined;
        if (this.stopped) return;
        if (this.again) {
          this.again = false;
          this.wake();
        } else {
          this.timer = setTimeout(() => this.wake(), this.polling.pollMs ?? 1000);
          this.timer.unref();
        }
      });
  }

  /** Takes no more passes and waits for the one in progress. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
  }

  /**
   * Runs `work` (a caller's own drain) with no pass of this worker running: waits for the pass in
   * progress (and one it chained), and holds back passes that wake or the timer would start meanwhile,
   * running one afterwards. So no pass holds a lease the caller's drain should take.
   */
  protected async exclusive<T>(work: () => Promise<T>): Promise<T> {
    this.holding++;
    try {
      for (let i = 0; i < 100 && this.running !== undefined; i++) await this.running;
      return await work();
    } finally {
      if (--this.holding === 0 && this.again) {
        this.again = false;
        this.wake();
      }
    }
  }
}

/**
 * `state = value` written so that no index serves it, for statements that name their rows by id: next to
 * `id IN (...)`, SQLite (which keeps no statistics here) would otherwise walk an index on state over the
 * whole queue instead of looking the ids up (33 ms against 0.03 ms a claim with 100,000 mails queued).
 */
export function stateIs(value: string): RawBuilder<SqlBool> {
  return sql<SqlBool>`(${sql.ref("state")} || '') = ${value}`;
}

/** The delivery queues: same lease columns (state, next_attempt_at, lease_owner, lease_until). */
export type DeliveryTable = "mail_outbox" | "sms_messages";

/**
 * Claims up to `limit` queued rows of a delivery queue that are due at `now` and not leased (or whose
 * lease ran out) for `owner` until now + leaseMs, oldest first; PostgreSQL skips rows another worker is
 * claiming at the same moment.
 */
export async function claimDue<T extends DeliveryTable>(
  store: Store,
  table: T,
  owner: string,
  limit: number,
  now: number,
  leaseMs: number,
): Promise<Selectable<Database[T]>[]> {
  const { db, engine } = store;
  // Both tables have the same lease columns, so the queries are written once over either table.
  const queue: DeliveryTable = table;
  return db.transaction().execute(async (trx) => {
    const due = await trx
      .selectFrom(queue)
      .select("id")
      .where("state", "=", "queued")
      .where("next_attempt_at", "<=", now)
      .where((eb) => eb.or([eb("lease_until", "is", null), eb("lease_until", "<", now)]))
      .orderBy("id")
      .limit(limit)
      .$if(engine === "postgres", (q) => q.forUpdate().skipLocked())
      .execute();
    if (due.length === 0) return [];
    const claimed = await trx
      .updateTable(queue)
      .set({ lease_owner: owner, lease_until: now + leaseMs })
      .where(
        "id",
        "in",
        due.map((d) => d.id),
      )
      .where(stateIs("queued"))
      .returningAll()
      .execute();
    claimed.sort((a, b) => a.id - b.id);
    // The rows come from `table` itself: they have its row type.
    return claimed as Selectable<Database[T]>[];
  });
}
