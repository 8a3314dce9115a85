// The trigger worker (docs/service.md "What the service decides", Triggers): an admin-defined trigger
// mails a newsletter to each subscriber who becomes active on its list after the trigger was made, exactly
// once per subscriber.
//
// - Firing is decoupled from the write paths (inserts, imports, /confirm): the TriggerWorker's pass looks,
//   per trigger, for memberships of the list with state `active` and changed_at ≥ the trigger's
//   created_at whose subscriber has no trigger_fired row yet and whose address is not opted out. Per
//   batch, ONE write transaction (on PostgreSQL after locking the trigger row FOR UPDATE, so two workers
//   never make two sendings nor race on a batch) inserts the trigger_fired rows (ON CONFLICT DO NOTHING:
//   only rows actually inserted count), makes or reuses the trigger's sending (one `sendings` row per
//   trigger, trigger_id set, created in state `sending` so the SendingWorker never "expands" it to the
//   whole list), adds those subscribers as queued sending_recipients, bumps its recipients count and sets
//   it back to `sending`. The SendingWorker then delivers each queued recipient exactly once. So a
//   subscriber who is unsubscribed and re-activated is not mailed twice (trigger_fired is keyed
//   (trigger, subscriber)); members active before the trigger existed get nothing.
// - The SendingWorker sets a sending `done` after a batch finds no queued recipient; if a trigger pass adds
//   recipients in between, the sending ends `done` with queued rows. Each trigger pass first puts such a
//   trigger sending back to `sending`, so they go out at the latest one poll later.

import type { Store } from "../db/database.js";
import {
  addRecipients,
  addTriggerRecipients,
  insertSending,
  reviveTriggerSendings,
  triggerSendingId,
} from "../tables/sendings.js";
import { triggerCandidates } from "../tables/subscribers.js";
import { type FiringTrigger, allTriggers, lockTrigger, recordFired } from "../tables/triggers.js";
import { PollingWorker } from "./polling-worker.js";

export interface TriggerWorkerOptions {
  readonly pollMs?: number;
  /** Subscribers fired per transaction (default 500). */
  readonly batchSize?: number;
  readonly now?: () => number;
  readonly log?: (entry: Record<string, unknown>) => void;
  /** Told after a batch queued recipients on a trigger's sending (wakes the SendingWorker). */
  readonly onRecipientsQueued?: () => void;
}

export class TriggerWorker extends PollingWorker {
  private readonly batchSize: number;

  constructor(
    private readonly store: Store,
    private readonly options: TriggerWorkerOptions = {},
  ) {
    super("triggers", options);
    this.batchSize = Math.max(1, options.batchSize ?? 500);
  }

  /** Waits for a pass in progress, then fires every trigger due now; returns the subscribers fired. */
  async flush(): Promise<number> {
    return this.exclusive(() => this.drain());
  }

  protected pass(): Promise<number> {
    return this.drain();
  }

  private now(): number {
    return (this.options.now ?? Date.now)();
  }

  /** One pass over every trigger; returns the subscribers newly queued. */
  async drain(): Promise<number> {
    const { db } = this.store;
    // Trigger sendings a SendingWorker finished while a trigger pass added recipients: back to `sending`.
    const revived = await reviveTriggerSendings(db);
    let fired = 0;
    const triggers = await allTriggers(db);
    for (const trigger of triggers) {
      for (let round = 0; round < 10_000; round++) {
        const n = await this.fire(trigger);
        if (n === undefined) break;
        fired += n;
      }
    }
    if (fired > 0 || revived > 0) this.options.onRecipientsQueued?.();
    return fired;
  }

  /** One batch of one trigger in one transaction; undefined when none of its members is left to fire. */
  private async fire(trigger: FiringTrigger): Promise<number | undefined> {
    const at = this.now();
    const result = await this.store.write(async (trx) => {
      if (this.store.engine === "postgres" && !(await lockTrigger(trx, trigger.id))) return undefined; // deleted meanwhile
      const candidates = await triggerCandidates(trx, trigger, this.batchSize);
      if (candidates.length === 0) return undefined;
      const inserted = await recordFired(trx, trigger.id, candidates, at);
      if (inserted.length === 0) return 0;
      const sendingId =
        (await triggerSendingId(trx, trigger.id)) ??
        (await insertSending(trx, {
          account_id: trigger.account_id,
          newsletter_id: trigger.newsletter_id,
          list_id: trigger.list_id,
          filter_id: null,
          from_email: trigger.from_email,
          from_name: trigger.from_name,
          send_at: at,
          state: "sending",
          created_at: at,
          trigger_id: trigger.id,
        }));
      const added = await addRecipients(trx, { id: sendingId, accountId: trigger.account_id }, inserted, at);
      await addTriggerRecipients(trx, sendingId, added);
      return added;
    });
    if (result !== undefined && result > 0)
      this.options.log?.({ event: "trigger.fired", trigger: trigger.id, subscribers: result });
    return result;
  }
}
