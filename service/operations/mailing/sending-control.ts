// Pause, resume and cancel a newsletter sending (admin CLI `sending pause|resume|cancel`, the console).
//
// Each is one write transaction on the sending row and its messages, so it holds under crashes and any
// number of workers:
// - pause: a scheduled or running sending becomes `paused` and loses its lease; its messages still
//   waiting in the outbox become `held` (the outbox claims only `queued` ones).
// - resume: a paused sending becomes `sending` again (`scheduled` when its recipients were never listed)
//   with no lease, so the next worker claims it and goes on with the recipients still queued; its held
//   messages are queued again.
// - cancel: a scheduled, running or paused sending becomes `cancelled` (finished now); its recipients
//   still queued become `cancelled`, its messages waiting or held in the outbox `cancelled` with their
//   outbox leases dropped.
// A sending worker renews its lease `WHERE lease_owner = me AND state IN (scheduled, expanding, sending)`
// first in every transaction that takes recipients (workers/sendings.ts): once the pause or cancel has
// committed, no worker queues another message of it. The outbox checks before each send that the message
// is still queued and leased to it, so a held or cancelled message is not sent, except one whose delivery
// was already under way when the change committed: pause and resume keep the outbox lease, so that one is
// marked sent as it was (never queued again; a failed attempt leaves it held, workers/outbox.ts); cancel
// drops it, so a failed attempt cannot queue a cancelled message again.
// A trigger's sending lives as long as its trigger and is not paused or cancelled here. The statements are
// service/tables/sendings.ts's.

import type { Db, Store } from "../../db/database.js";
import type { SendingState } from "../../db/schema.js";
import {
  cancelQueuedRecipients,
  cancelSendingRow,
  moveSendingMessages,
  pauseSendingRow,
  resumeSendingRow,
  sendingState,
  sentRecipientCount,
} from "../../tables/sendings.js";

/** A refusal: no such sending, or its state does not allow the change; the message says which. */
export class SendingControlError extends Error {}

export interface SendingControlOutcome {
  readonly id: number;
  /** The state the sending is in now. */
  readonly state: SendingState;
  /** Outbox messages held (pause), queued again (resume) or withdrawn (cancel). */
  readonly messages: number;
  /** Recipients still queued that were cancelled (cancel only; 0 otherwise). */
  readonly recipients: number;
  /** Recipients whose message had been queued when the change committed: no more will be. */
  readonly sent: number;
}

/**
 * Why the sending cannot change (read after the conditional update changed nothing): no such sending of
 * the account, a trigger's, or a state other than `allowed`.
 */
async function refusal(
  trx: Db,
  accountId: number,
  id: number,
  verb: string,
  allowed: string,
): Promise<never> {
  const row = await sendingState(trx, accountId, id);
  if (row === undefined) throw new SendingControlError(`there is no sending ${id}`);
  if (row.trigger_id !== null)
    throw new SendingControlError(
      `sending ${id} belongs to trigger ${row.trigger_id}: it runs as long as the trigger`,
    );
  throw new SendingControlError(`sending ${id} is ${row.state}: only ${allowed} sending can be ${verb}`);
}

/** Pauses a scheduled or running sending (see the top of this file). */
export function pauseSending(store: Store, accountId: number, id: number): Promise<SendingControlOutcome> {
  // The change is the first statement: on SQLite a transaction that read first could not take the write
  // lock once another process (a worker) committed meanwhile.
  return store.write(async (trx) => {
    if (!(await pauseSendingRow(trx, accountId, id)))
      await refusal(trx, accountId, id, "paused", "a scheduled or running");
    const messages = await moveSendingMessages(trx, id, ["queued"], "held");
    return { id, state: "paused", messages, recipients: 0, sent: await sentRecipientCount(trx, id) };
  });
}

/** Resumes a paused sending (see the top of this file). */
export function resumeSending(store: Store, accountId: number, id: number): Promise<SendingControlOutcome> {
  return store.write(async (trx) => {
    const state = await resumeSendingRow(trx, accountId, id);
    if (state === undefined) return refusal(trx, accountId, id, "resumed", "a paused");
    const messages = await moveSendingMessages(trx, id, ["held"], "queued");
    return { id, state, messages, recipients: 0, sent: await sentRecipientCount(trx, id) };
  });
}

/** Cancels a scheduled, running or paused sending (see the top of this file). */
export function cancelSending(
  store: Store,
  accountId: number,
  id: number,
  now: number,
): Promise<SendingControlOutcome> {
  return store.write(async (trx) => {
    if (!(await cancelSendingRow(trx, accountId, id, now)))
      await refusal(trx, accountId, id, "cancelled", "a scheduled, running or paused");
    const recipients = await cancelQueuedRecipients(trx, id);
    const messages = await moveSendingMessages(trx, id, ["queued", "held"], "cancelled", true);
    return { id, state: "cancelled", messages, recipients, sent: await sentRecipientCount(trx, id) };
  });
}
