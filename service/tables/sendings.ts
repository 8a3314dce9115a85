// The sendings table group (sendings, sending_recipients): a newsletter sending (SendNewsletter's, or the
// one each trigger mails through) and the subscribers it goes to, one row each with its state (queued,
// sent, skipped, cancelled). Every write and read of the two tables is here
// (test/repo/table-ownership.test.ts); the rules they serve are told
// where they are decided: the sending worker's lease and batches (service/workers/sendings.ts), the
// trigger worker (service/workers/triggers.ts), pause, resume and cancel
// (service/operations/mailing/sending-control.ts).

import type { Insertable, Kysely, Selectable, SelectQueryBuilder } from "kysely";
import { type SqlBool, sql } from "kysely";
import { VALUES_CHUNK, valuesTable } from "../db/bulk.js";
import type { Db } from "../db/database.js";
import type { Engine } from "../db/engine.js";
import type { Database, SendingState, SendingsTable, Subscriber } from "../db/schema.js";

/** States a worker works (claims, expands, sends). */
const ACTIVE: readonly SendingState[] = ["scheduled", "expanding", "sending"];

/** Recipient rows per insert statement. */
const RECIPIENTS_PER_INSERT = 500;

// ---- Making sendings --------------------------------------------------------------------------------

/** Adds a sending (no lease, not finished); returns its id. */
export async function insertSending(
  db: Db,
  row: Omit<Insertable<SendingsTable>, "lease_owner" | "lease_until" | "finished_at">,
): Promise<number> {
  const inserted = await db
    .insertInto("sendings")
    .values({ ...row, lease_owner: null, lease_until: null, finished_at: null })
    .returning("id")
    .executeTakeFirstOrThrow();
  return inserted.id;
}

/** The account's sending's id when the account has a sending of that id; undefined otherwise. */
export async function accountSendingId(db: Db, accountId: number, id: number): Promise<number | undefined> {
  const found = await db
    .selectFrom("sendings")
    .select("id")
    .where("id", "=", id)
    .where("account_id", "=", accountId)
    .executeTakeFirst();
  return found?.id;
}

/** The account's sending of that id as its page shows it; undefined when the account has none of that id. */
export async function accountSending(
  db: Db,
  accountId: number,
  id: number,
): Promise<
  | Pick<Selectable<SendingsTable>, "id" | "state" | "sent" | "recipients" | "send_at" | "trigger_id">
  | undefined
> {
  return db
    .selectFrom("sendings")
    .select(["id", "state", "sent", "recipients", "send_at", "trigger_id"])
    .where("id", "=", id)
    .where("account_id", "=", accountId)
    .executeTakeFirst();
}

/** The account a sending belongs to; undefined when there is no such sending. */
export async function sendingAccountId(db: Db, id: number): Promise<number | undefined> {
  const found = await db.selectFrom("sendings").select("account_id").where("id", "=", id).executeTakeFirst();
  return found?.account_id;
}

/** The filters the newsletter's sendings were made with (a subquery of filter ids). */
export function newsletterSendingFilterIds(
  db: Db,
  newsletterId: number,
): SelectQueryBuilder<Database, "sendings", { filter_id: number }> {
  return db
    .selectFrom("sendings")
    .select("filter_id")
    .where("newsletter_id", "=", newsletterId)
    .where("filter_id", "is not", null)
    .$narrowType<{ filter_id: number }>();
}

/** A line of the admin CLI's list of sendings. */
export interface SendingSummary {
  readonly id: number;
  readonly newsletter_id: number;
  readonly list_id: number;
  readonly state: SendingState;
  readonly recipients: number;
  readonly sent: number;
  readonly skipped: number;
  readonly send_at: number;
  readonly finished_at: number | null;
}

/** The account's sendings, newest first, at most `limit` (only `id` when given). */
export async function sendingSummaries(
  db: Db,
  accountId: number,
  options: { readonly id?: number | undefined; readonly limit: number },
): Promise<SendingSummary[]> {
  let query = db
    .selectFrom("sendings as s")
    .select((eb) => [
      "s.id",
      "s.newsletter_id",
      "s.list_id",
      "s.state",
      "s.recipients",
      "s.sent",
      "s.send_at",
      "s.finished_at",
      eb
        .selectFrom("sending_recipients as r")
        .select((e) => e.fn.countAll<number>().as("n"))
        .whereRef("r.sending_id", "=", "s.id")
        .where("r.state", "=", "skipped")
        .as("skipped"),
    ])
    .where("s.account_id", "=", accountId)
    .orderBy("s.id", "desc")
    .limit(options.limit);
  if (options.id !== undefined) query = query.where("s.id", "=", options.id);
  const rows = await query.execute();
  return rows.map((r) => ({ ...r, skipped: Number(r.skipped ?? 0) }));
}

/** A sending as its statistics show it: its row with its newsletter's and list's names. */
export interface SendingOverview {
  readonly id: number;
  readonly newsletter_id: number;
  readonly newsletter_name: string;
  readonly list_id: number;
  readonly list_name: string;
  readonly state: SendingState;
  readonly from_email: string;
  readonly send_at: number;
  readonly finished_at: number | null;
  readonly recipients: number;
}

/**
 * The account's sendings newest first: the one of `id` when given, else those before `beforeId` when
 * given; at most `limit`.
 */
export async function sendingOverviews(
  db: Db,
  accountId: number,
  options: { readonly id?: number; readonly beforeId?: number | undefined; readonly limit: number },
): Promise<SendingOverview[]> {
  return db
    .selectFrom("sendings as s")
    .innerJoin("newsletters as n", "n.id", "s.newsletter_id")
    .innerJoin("mailing_lists as l", "l.id", "s.list_id")
    .select([
      "s.id",
      "s.newsletter_id",
      "n.name as newsletter_name",
      "s.list_id",
      "l.name as list_name",
      "s.state",
      "s.from_email",
      "s.send_at",
      "s.finished_at",
      "s.recipients",
    ])
    .where("s.account_id", "=", accountId)
    .$if(options.id !== undefined, (q) => q.where("s.id", "=", options.id!))
    .$if(options.beforeId !== undefined, (q) => q.where("s.id", "<", options.beforeId!))
    .orderBy("s.id", "desc")
    .limit(options.limit)
    .execute();
}

// ---- The sending worker: lease, expansion, batches ------------------------------------------------

/** A sending as a worker claimed it. */
export interface ClaimedSending {
  readonly id: number;
  readonly account_id: number;
  readonly newsletter_id: number;
  readonly list_id: number;
  readonly filter_id: number | null;
  readonly from_email: string;
  readonly from_name: string;
  readonly state: string;
}

/**
 * Leases the next due sending (worked state, send_at reached, no live lease; oldest first) to `workerId`
 * until `leaseUntil`; undefined when none is due. On PostgreSQL the candidate row is taken FOR UPDATE
 * SKIP LOCKED, so several workers share the queue.
 */
export async function claimSending(
  db: Kysely<Database>,
  engine: Engine,
  workerId: string,
  at: number,
  leaseUntil: number,
): Promise<ClaimedSending | undefined> {
  const next = db
    .selectFrom("sendings")
    .select("id")
    .where("state", "in", ACTIVE)
    .where("send_at", "<=", at)
    .where((eb) => eb.or([eb("lease_until", "is", null), eb("lease_until", "<", at)]))
    .orderBy("send_at")
    .orderBy("id")
    .limit(1)
    .$if(engine === "postgres", (q) => q.forUpdate().skipLocked());
  return db
    .updateTable("sendings")
    .set({ lease_owner: workerId, lease_until: leaseUntil })
    .where("id", "=", next)
    .where("state", "in", ACTIVE)
    .where((eb) => eb.or([eb("lease_until", "is", null), eb("lease_until", "<", at)]))
    .returning([
      "id",
      "account_id",
      "newsletter_id",
      "list_id",
      "filter_id",
      "from_email",
      "from_name",
      "state",
    ])
    .executeTakeFirst();
}

/**
 * Extends the sending's lease to `leaseUntil` while `workerId` holds it and the sending is still worked
 * (not paused, cancelled or done); false otherwise, and nothing changed.
 */
export async function renewSendingLease(
  db: Db,
  id: number,
  workerId: string,
  leaseUntil: number,
): Promise<boolean> {
  const renewed = await db
    .updateTable("sendings")
    .set({ lease_until: leaseUntil })
    .where("id", "=", id)
    .where("lease_owner", "=", workerId)
    .where("state", "in", ACTIVE)
    .executeTakeFirst();
  return Number(renewed.numUpdatedRows) === 1;
}

/** The sending becomes `done` (finished at `at`, lease dropped) if `workerId` holds it and it is worked. */
export async function finishSending(db: Db, id: number, workerId: string, at: number): Promise<void> {
  await db
    .updateTable("sendings")
    .set({ state: "done", finished_at: at, lease_owner: null, lease_until: null })
    .where("id", "=", id)
    .where("lease_owner", "=", workerId)
    .where("state", "in", ACTIVE)
    .execute();
}

/**
 * The subscribers become queued recipients of the sending (one already there stays as it is); returns how
 * many were added.
 */
export async function addRecipients(
  db: Db,
  sending: { readonly id: number; readonly accountId: number },
  subscriberIds: readonly number[],
  at: number,
): Promise<number> {
  let added = 0;
  for (let i = 0; i < subscriberIds.length; i += RECIPIENTS_PER_INSERT) {
    const inserted = await db
      .insertInto("sending_recipients")
      .values(
        subscriberIds.slice(i, i + RECIPIENTS_PER_INSERT).map((subscriberId) => ({
          sending_id: sending.id,
          subscriber_id: subscriberId,
          account_id: sending.accountId,
          mail_id: null,
          created_at: at,
        })),
      )
      .onConflict((oc) => oc.columns(["sending_id", "subscriber_id"]).doNothing())
      .executeTakeFirst();
    added += Number(inserted.numInsertedOrUpdatedRows ?? 0n);
  }
  return added;
}

/** The sending is being expanded (its recipients listed page by page): from `scheduled`, `expanding`. */
export async function markExpanding(db: Db, id: number): Promise<void> {
  await db.updateTable("sendings").set({ state: "expanding" }).where("id", "=", id).execute();
}

/** The highest subscriber id among the sending's recipients (0 when none): where an expansion goes on. */
export async function lastRecipientId(db: Db, id: number): Promise<number> {
  const row = await db
    .selectFrom("sending_recipients")
    .select("subscriber_id")
    .where("sending_id", "=", id)
    .orderBy("subscriber_id", "desc")
    .limit(1)
    .executeTakeFirst();
  return Number(row?.subscriber_id ?? 0);
}

/** After the expansion: the sending is `sending`, its count of recipients that of its rows. */
export async function markExpanded(db: Db, id: number): Promise<void> {
  const total = await db
    .selectFrom("sending_recipients")
    .select((eb) => eb.fn.countAll<number>().as("n"))
    .where("sending_id", "=", id)
    .executeTakeFirstOrThrow();
  await db
    .updateTable("sendings")
    .set({ state: "sending", recipients: Number(total.n) })
    .where("id", "=", id)
    .execute();
}

/** A queued recipient as the sending worker mails it: the subscriber's merge data, re-checked. */
export type QueuedRecipient = Pick<
  Subscriber,
  "id" | "email" | "name" | "format" | "country_code" | "phone" | "fields"
> & {
  /** Still an active member of the sending's list and not on the account's opt-out-all set. */
  readonly mailable: boolean;
};

/**
 * Up to `limit` of the sending's queued recipients after subscriber `after` (0: from the first), by
 * subscriber id (a range of the primary key), each re-checked at this moment: a member who left the list
 * (or never was on it) or an address opted out since the expansion is not mailable, and is to be marked
 * skipped.
 */
export async function queuedRecipients(
  db: Db,
  sending: { readonly id: number; readonly list_id: number },
  limit: number,
  after = 0,
): Promise<QueuedRecipient[]> {
  const rows = await db
    .selectFrom("sending_recipients as r")
    .innerJoin("subscribers as s", "s.id", "r.subscriber_id")
    .leftJoin("memberships as m", (j) =>
      j.onRef("m.subscriber_id", "=", "r.subscriber_id").on("m.list_id", "=", sending.list_id),
    )
    .leftJoin("optouts as o", (j) =>
      j.onRef("o.account_id", "=", "s.account_id").onRef("o.email_key", "=", "s.email_key"),
    )
    .select([
      "s.id",
      "s.email",
      "s.name",
      "s.format",
      "s.country_code",
      "s.phone",
      "s.fields",
      "m.state as membership",
      "o.email_key as optedOut",
    ])
    .where("r.sending_id", "=", sending.id)
    .where("r.subscriber_id", ">", after)
    .where("r.state", "=", "queued")
    .orderBy("r.subscriber_id")
    .limit(limit)
    .execute();
  return rows.map(({ membership, optedOut, ...subscriber }) => ({
    ...subscriber,
    mailable: membership === "active" && optedOut === null,
  }));
}

/**
 * The sending's queued recipients among `sent` become `sent` with their message's id, in statements of
 * VALUES_CHUNK rows, and its count of sent messages grows by as many; false (the caller's transaction
 * must roll back) when one of them was no longer queued.
 */
export async function markRecipientsSent(
  db: Db,
  sendingId: number,
  sent: readonly { readonly subscriberId: number; readonly mailId: number }[],
): Promise<boolean> {
  for (let k = 0; k < sent.length; k += VALUES_CHUNK) {
    const part = sent.slice(k, k + VALUES_CHUNK);
    const marked = await sql`with ${valuesTable(
      "v",
      [
        ["subscriber_id", "bigint"],
        ["mail_id", "bigint"],
      ],
      part.map((r) => [r.subscriberId, r.mailId]),
    )}
      update sending_recipients set state = 'sent', mail_id = v.mail_id from v
      where sending_recipients.sending_id = ${sendingId}
        and sending_recipients.subscriber_id = v.subscriber_id
        and sending_recipients.state = 'queued'`.execute(db);
    if (Number(marked.numAffectedRows) !== part.length) return false;
  }
  if (sent.length > 0)
    await db
      .updateTable("sendings")
      .set((eb) => ({ sent: eb("sent", "+", sent.length) }))
      .where("id", "=", sendingId)
      .execute();
  return true;
}

/** The sending's recipients among `subscriberIds` still queued become `skipped`. */
export async function markRecipientsSkipped(
  db: Db,
  sendingId: number,
  subscriberIds: readonly number[],
): Promise<void> {
  if (subscriberIds.length === 0) return;
  await db
    .updateTable("sending_recipients")
    .set({ state: "skipped" })
    .where("sending_id", "=", sendingId)
    .where("subscriber_id", "in", subscriberIds)
    .where("state", "=", "queued")
    .execute();
}

/** The sending and subscriber a message of a sending went to; undefined for any other message. */
export async function recipientOfMail(
  db: Db,
  mailId: number,
): Promise<{ sending_id: number; subscriber_id: number } | undefined> {
  return db
    .selectFrom("sending_recipients")
    .select(["sending_id", "subscriber_id"])
    .where("mail_id", "=", mailId)
    .executeTakeFirst();
}

// ---- Triggers' sendings ---------------------------------------------------------------------------

/**
 * Trigger sendings a sending worker finished while a trigger pass added recipients go back to `sending`;
 * returns how many.
 */
export async function reviveTriggerSendings(db: Db): Promise<number> {
  const revived = await db
    .updateTable("sendings")
    .set({ state: "sending", finished_at: null })
    .where("trigger_id", "is not", null)
    .where("state", "=", "done")
    .where((eb) =>
      eb.exists(
        eb
          .selectFrom("sending_recipients as r")
          .select("r.subscriber_id")
          .whereRef("r.sending_id", "=", "sendings.id")
          .where("r.state", "=", "queued"),
      ),
    )
    .executeTakeFirst();
  return Number(revived.numUpdatedRows);
}

/** The sending a trigger mails through (its first); undefined before its first firing. */
export async function triggerSendingId(db: Db, triggerId: number): Promise<number | undefined> {
  const sending = await db
    .selectFrom("sendings")
    .select("id")
    .where("trigger_id", "=", triggerId)
    .orderBy("id")
    .limit(1)
    .executeTakeFirst();
  return sending?.id;
}

/** A trigger's sending got `added` recipients: counted, and it is `sending` (not finished) again. */
export async function addTriggerRecipients(db: Db, sendingId: number, added: number): Promise<void> {
  await db
    .updateTable("sendings")
    .set((eb) => ({ recipients: eb("recipients", "+", added), state: "sending", finished_at: null }))
    .where("id", "=", sendingId)
    .execute();
}

// ---- Pause, resume, cancel -------------------------------------------------------------------------

/** The account's sending that is not a trigger's, in one of `from`, gets `state` (lease dropped); whether it did. */
async function changeState(
  db: Db,
  accountId: number,
  id: number,
  from: readonly SendingState[],
  set: { readonly state: SendingState; readonly finished_at?: number },
): Promise<boolean> {
  const changed = await db
    .updateTable("sendings")
    .set({ ...set, lease_owner: null, lease_until: null })
    .where("id", "=", id)
    .where("account_id", "=", accountId)
    .where("trigger_id", "is", null)
    .where("state", "in", from)
    .executeTakeFirst();
  return Number(changed.numUpdatedRows) === 1;
}

/** A scheduled or running sending of the account (not a trigger's) becomes `paused`; whether it did. */
export function pauseSendingRow(db: Db, accountId: number, id: number): Promise<boolean> {
  return changeState(db, accountId, id, ACTIVE, { state: "paused" });
}

/** A worked or paused sending of the account (not a trigger's) becomes `cancelled`; whether it did. */
export function cancelSendingRow(db: Db, accountId: number, id: number, at: number): Promise<boolean> {
  return changeState(db, accountId, id, [...ACTIVE, "paused"], { state: "cancelled", finished_at: at });
}

/**
 * A paused sending of the account (not a trigger's) becomes `sending` again, or `scheduled` when its
 * recipients were never all listed (paused before the first claim, or while they were being listed: the
 * count of recipients is set when the listing ends), with no lease; its new state, undefined when it was
 * not paused.
 */
export async function resumeSendingRow(
  db: Db,
  accountId: number,
  id: number,
): Promise<SendingState | undefined> {
  const changed = await db
    .updateTable("sendings")
    .set({
      state: sql<SendingState>`case when sendings.recipients > 0 then 'sending' else 'scheduled' end`,
      lease_owner: null,
      lease_until: null,
    })
    .where("id", "=", id)
    .where("account_id", "=", accountId)
    .where("trigger_id", "is", null)
    .where("state", "=", "paused")
    .returning("state")
    .executeTakeFirst();
  return changed?.state;
}

/** The account's sending's state and trigger; undefined when the account has no such sending. */
export async function sendingState(
  db: Db,
  accountId: number,
  id: number,
): Promise<{ state: SendingState; trigger_id: number | null } | undefined> {
  return db
    .selectFrom("sendings")
    .select(["state", "trigger_id"])
    .where("id", "=", id)
    .where("account_id", "=", accountId)
    .executeTakeFirst();
}

/** The sending's recipients whose message was queued. */
export async function sentRecipientCount(db: Db, sendingId: number): Promise<number> {
  const row = await db
    .selectFrom("sending_recipients")
    .select((eb) => eb.fn.countAll().as("n"))
    .where("sending_id", "=", sendingId)
    .where("state", "=", "sent")
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** The sending's recipients still queued become `cancelled`; returns how many. */
export async function cancelQueuedRecipients(db: Db, sendingId: number): Promise<number> {
  const cancelled = await db
    .updateTable("sending_recipients")
    .set({ state: "cancelled" })
    .where("sending_id", "=", sendingId)
    .where("state", "=", "queued")
    .executeTakeFirst();
  return Number(cancelled.numUpdatedRows);
}

/**
 * The outbox messages of the sending's sent recipients in `from` states: moved to `to` (the outbox lease
 * kept, or dropped with `dropLease`); returns how many.
 */
export async function moveSendingMessages(
  db: Db,
  sendingId: number,
  from: readonly ("queued" | "held")[],
  to: "queued" | "held" | "cancelled",
  dropLease = false,
): Promise<number> {
  const moved = await db
    .updateTable("mail_outbox")
    .set(dropLease ? { state: to, lease_owner: null, lease_until: null } : { state: to })
    // (state || '') keeps SQLite from walking the state index over the whole queue: the ids lead.
    .where(sql<SqlBool>`(${sql.ref("state")} || '') in (${sql.join(from)})`)
    .where("id", "in", (eb) =>
      eb
        .selectFrom("sending_recipients")
        .select("mail_id")
        .where("sending_id", "=", sendingId)
        .where("state", "=", "sent")
        .where("mail_id", "is not", null),
    )
    .executeTakeFirst();
  return Number(moved.numUpdatedRows);
}
