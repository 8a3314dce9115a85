// The SMS table group (sms_messages, sms_stops, credit_ledger) with the accounts' SMS balance
// (accounts.sms_credits) and count of waiting SMS (accounts.sms_waiting), which change only with it. What
// is decided (pricing, paying now or waiting, refills paying the oldest first, refunds, STOP and START,
// receipts) is operations/transactional/sms.ts's and sms-events.ts's; the delivery worker
// (workers/sms-outbox.ts) claims and marks the queued messages; the admin CLI (`credits`, `sms`), the
// console's SMS and credits pages and the queue metrics read them. Every change of the balance writes a
// ledger row with the balance after it (changeCredits), in the transaction that locked the account row
// (lockedCredits).

import { type ExpressionBuilder, type Insertable, type Kysely, sql } from "kysely";
import { parseDecimal, formatDecimal } from "../common/decimal.js";
import type { Db, Store } from "../db/database.js";
import type { Account, Database, SmsMessage, SmsMessagesTable } from "../db/schema.js";
import { type AccountCheck, matchingAccountSql } from "./accounts.js";

/** last_error of an SMS kept, not sent, because its number sent STOP. */
export const STOPPED_ERROR = "the number sent STOP";

/** The numbers an SMS to +<cc><national> is known by: as given, and without a trunk 0. */
function numbersOf(countryCode: string, phoneNumber: string): string[] {
  const given = `${countryCode}${phoneNumber}`;
  const trunkless = `${countryCode}${phoneNumber.replace(/^0/, "")}`;
  return trunkless === given ? [given] : [given, trunkless];
}

/** The account's credits, price and waiting count, its row locked for the transaction on PostgreSQL (SQLite writes are serial). */
export async function lockedCredits(trx: Db, engine: Store["engine"], accountId: number) {
  const row = await trx
    .selectFrom("accounts")
    .select(["sms_credits", "sms_price", "sms_waiting"])
    .where("id", "=", accountId)
    .$if(engine === "postgres", (q) => q.forUpdate())
    .executeTakeFirstOrThrow();
  return {
    credits: parseDecimal(row.sms_credits, "accounts.sms_credits"),
    price: parseDecimal(row.sms_price, "accounts.sms_price"),
    waiting: Number(row.sms_waiting),
  };
}

/** The account's new balance, and its ledger row: `amount` changed it to `balance` for `reason`. */
export async function changeCredits(
  trx: Db,
  accountId: number,
  amount: bigint,
  balance: bigint,
  reason: string,
  smsId: number | null,
  now: number,
): Promise<void> {
  await trx
    .updateTable("accounts")
    .set({ sms_credits: formatDecimal(balance) })
    .where("id", "=", accountId)
    .execute();
  await trx
    .insertInto("credit_ledger")
    .values({
      account_id: accountId,
      amount: formatDecimal(amount),
      balance: formatDecimal(balance),
      reason,
      sms_id: smsId,
      created_at: now,
    })
    .execute();
}

/** Adds `change` to the account's count of waiting SMS (accounts.sms_waiting). */
export async function countWaiting(trx: Db, accountId: number, change: number): Promise<void> {
  await trx
    .updateTable("accounts")
    .set((eb) => ({ sms_waiting: eb("sms_waiting", "+", change) }))
    .where("id", "=", accountId)
    .execute();
}

/** Sets the account's SMS price per segment. */
export async function setSmsPrice(db: Db, accountId: number, price: string): Promise<void> {
  await db.updateTable("accounts").set({ sms_price: price }).where("id", "=", accountId).execute();
}

/** The account's SMS credits and price as stored. */
export async function smsCredits(
  db: Db,
  accountId: number,
): Promise<Pick<Account, "sms_credits" | "sms_price">> {
  return db
    .selectFrom("accounts")
    .select(["sms_credits", "sms_price"])
    .where("id", "=", accountId)
    .executeTakeFirstOrThrow();
}

/** Stores one SMS; returns its id. */
export async function insertSms(trx: Db, row: Omit<Insertable<SmsMessagesTable>, "id">): Promise<number> {
  const inserted = await trx.insertInto("sms_messages").values(row).returning("id").executeTakeFirstOrThrow();
  return inserted.id;
}

/** An SMS as SendSmsWithSenderName stores it. */
export interface NewSms {
  readonly sender: string;
  readonly countryCode: string;
  readonly phoneNumber: string;
  readonly message: string;
  readonly encoding: string;
  readonly segments: number;
}

/** What insertSmsPostgres wrote; `account` is null when the account no longer matched the check. */
export interface PostgresSmsRow {
  readonly account: Account | null;
  readonly sms_id: number | null;
  readonly paid: boolean | null;
  readonly cost: string | null;
  readonly credits_left: string | null;
}

/**
 * An SMS sent on PostgreSQL as one statement (one round trip, atomic on its own), the credentials check
 * included: the account row is locked (FOR UPDATE) only when it still matches `check`, and the decision
 * (stopped when the number sent STOP; else pay at once when no SMS of the account waits and the credits
 * cover the cost, else store it waiting) is taken on that locked row, the latest version whatever committed
 * while the statement waited for the lock; the SMS, the new balance or waiting count, and the ledger row
 * are written as the general path writes them. The decimals are PostgreSQL numerics printed by trim_scale
 * (PostgreSQL 13 and later), the same text as formatDecimal's. When the account no longer matches, nothing
 * is written.
 */
export async function insertSmsPostgres(
  db: Kysely<Database>,
  check: AccountCheck,
  sms: NewSms,
  now: number,
): Promise<PostgresSmsRow | undefined> {
  const numbers = numbersOf(sms.countryCode, sms.phoneNumber);
  const result = await sql<PostgresSmsRow>`
    with account as (${matchingAccountSql(check)} for update),
    stop as (select exists (select 1 from sms_stops where number in (${sql.join(numbers)})) as stopped),
    decision as (
      select id, credits, cost, stopped, not stopped and sms_waiting = 0 and credits >= cost as paid
      from (select id, sms_credits::numeric as credits, sms_waiting, stop.stopped,
        case when stop.stopped then 0 else sms_price::numeric * ${sms.segments} end as cost
        from account, stop) priced
    ),
    sms as (
      insert into sms_messages (account_id, sender_name, country_code, phone_number, message, encoding,
        segments, cost, state, next_attempt_at, lease_owner, lease_until, last_error, created_at, paid_at, sent_at)
      select id, ${sms.sender}, ${sms.countryCode}, ${sms.phoneNumber},
        ${sms.message}, ${sms.encoding}, ${sms.segments}, trim_scale(cost)::text,
        case when stopped then 'stopped' when paid then 'queued' else 'waiting' end, ${now}, null, null,
        case when stopped then ${STOPPED_ERROR} end, ${now}, case when paid then ${now}::bigint end, null
      from decision
      returning id
    ),
    balance as (
      update accounts set
        sms_credits = case when d.paid then trim_scale(d.credits - d.cost)::text else accounts.sms_credits end,
        sms_waiting = accounts.sms_waiting + case when d.paid or d.stopped then 0 else 1 end
      from decision d where accounts.id = d.id
    ),
    ledger as (
      insert into credit_ledger (account_id, amount, balance, reason, sms_id, created_at)
      select d.id, trim_scale(-d.cost)::text, trim_scale(d.credits - d.cost)::text, 'sms', sms.id, ${now}
      from decision d, sms where d.paid
    )
    select row_to_json(account) as account, sms.id as sms_id, d.paid, trim_scale(d.cost)::text as cost,
      trim_scale(case when d.paid then d.credits - d.cost else d.credits end)::text as credits_left
    from (select 1) one left join account on true left join decision d on true left join sms on true`.execute(
    db,
  );
  return result.rows[0];
}

/** The account's SMS waiting for credits, oldest first. */
export async function waitingSms(trx: Db, accountId: number): Promise<Pick<SmsMessage, "id" | "cost">[]> {
  return trx
    .selectFrom("sms_messages")
    .select(["id", "cost"])
    .where("account_id", "=", accountId)
    .where("state", "=", "waiting")
    .orderBy("id")
    .execute();
}

/** A waiting SMS paid: queued for delivery now. */
export async function queueWaitingSms(trx: Db, id: number, now: number): Promise<void> {
  await trx
    .updateTable("sms_messages")
    .set({ state: "queued", paid_at: now, next_attempt_at: now })
    .where("id", "=", id)
    .where("state", "=", "waiting")
    .execute();
}

/** How many SMS the account has waiting, and the oldest's id. */
export async function waitingSummary(
  db: Db,
  accountId: number,
): Promise<{ n: number; oldest: number | string | bigint | null }> {
  return db
    .selectFrom("sms_messages")
    .select([(eb) => eb.fn.countAll<number>().as("n"), (eb) => eb.fn.min("id").as("oldest")])
    .where("account_id", "=", accountId)
    .where("state", "=", "waiting")
    .executeTakeFirstOrThrow();
}

/** How many SMS the account has waiting (the console's credits page). */
export async function waitingCount(db: Db, accountId: number): Promise<{ n: number }> {
  return db
    .selectFrom("sms_messages")
    .select(sql<number>`count(*)`.as("n"))
    .where("state", "=", "waiting")
    .where("account_id", "=", accountId)
    .executeTakeFirstOrThrow();
}

/** The account's ledger rows, newest first, at most `limit`, older than `before` when given. */
export async function ledgerRows(db: Db, accountId: number, limit: number, before?: number) {
  return db
    .selectFrom("credit_ledger")
    .select(["id", "amount", "balance", "reason", "sms_id", "created_at"])
    .where("account_id", "=", accountId)
    .$if(before !== undefined, (q) => q.where("id", "<", before!))
    .orderBy("id", "desc")
    .limit(limit)
    .execute();
}

/** The account's SMS of that id. */
export async function accountSms(db: Db, accountId: number, id: number): Promise<SmsMessage | undefined> {
  return db
    .selectFrom("sms_messages")
    .selectAll()
    .where("id", "=", id)
    .where("account_id", "=", accountId)
    .executeTakeFirst();
}

/** The account's SMS, newest first, at most `limit`, older than `before` when given (the console's list). */
export async function accountSmsPage(db: Db, accountId: number, limit: number, before: number | undefined) {
  return db
    .selectFrom("sms_messages")
    .select([
      "id",
      "sender_name",
      "country_code",
      "phone_number",
      "message",
      "segments",
      "cost",
      "state",
      "created_at",
      "sent_at",
      "last_error",
    ])
    .where("account_id", "=", accountId)
    .$if(before !== undefined, (q) => q.where("id", "<", before!))
    .orderBy("id", "desc")
    .limit(limit)
    .execute();
}

/** SMS waiting, queued and dead, by state (the queue gauges). */
export async function smsStateCounts(db: Db): Promise<{ state: string; n: number }[]> {
  return db
    .selectFrom("sms_messages")
    .select(["state", (eb) => eb.fn.countAll<number>().as("n")])
    .where("state", "in", ["waiting", "queued", "dead"])
    .groupBy("state")
    .execute();
}

/** Whether the recipient sent STOP (and no START since). */
export async function isStopped(db: Db, countryCode: string, phoneNumber: string): Promise<boolean> {
  const row = await db
    .selectFrom("sms_stops")
    .select("number")
    .where("number", "in", numbersOf(countryCode, phoneNumber))
    .executeTakeFirst();
  return row !== undefined;
}

/**
 * Puts a number (E.164 digits) on the STOP list and stops its SMS waiting for credits; returns how many
 * were stopped. Waiting SMS are not paid, so nothing is given back; each account's count of waiting SMS
 * goes down by its own. Their accounts are locked first, in id order, as a send or a refill locks the
 * account before its SMS rows. The country code is 1 to 3 digits.
 */
export async function addStop(
  trx: Db,
  engine: Store["engine"],
  number: string,
  keyword: string,
  now: number,
): Promise<number> {
  await trx
    .insertInto("sms_stops")
    .values({ number, keyword, created_at: now })
    .onConflict((oc) => oc.column("number").doNothing())
    .execute();
  const toNumber = (cc: number) => {
    const national = number.slice(cc);
    return (eb: ExpressionBuilder<Database, "sms_messages">) =>
      eb.and([
        eb("country_code", "=", number.slice(0, cc)),
        eb("phone_number", "in", [national, `0${national}`]),
        eb("state", "=", "waiting"),
      ]);
  };
  const codes = [1, 2, 3].filter((cc) => cc < number.length);
  const waitingToNumber = (eb: ExpressionBuilder<Database, "sms_messages">) =>
    eb.or(codes.map((cc) => toNumber(cc)(eb)));
  const owners = await trx
    .selectFrom("sms_messages")
    .select("account_id")
    .distinct()
    .where(waitingToNumber)
    .execute();
  if (owners.length > 0) {
    await trx
      .selectFrom("accounts")
      .select("id")
      .where(
        "id",
        "in",
        owners.map((o) => o.account_id),
      )
      .orderBy("id")
      .$if(engine === "postgres", (q) => q.forUpdate())
      .execute();
  }
  // One statement for every way the number can be split into country code and national number.
  const updated = await trx
    .updateTable("sms_messages")
    .set({ state: "stopped", last_error: STOPPED_ERROR })
    .where(waitingToNumber)
    .returning("account_id")
    .execute();
  const byAccount = new Map<number, number>();
  for (const row of updated) byAccount.set(row.account_id, (byAccount.get(row.account_id) ?? 0) + 1);
  let stoppedWaiting = 0;
  for (const [accountId, n] of byAccount) {
    await countWaiting(trx, accountId, -n);
    stoppedWaiting += n;
  }
  return stoppedWaiting;
}

/** Takes a number off the STOP list; true when it was on it. */
export async function removeStop(db: Db, number: string): Promise<boolean> {
  const deleted = await db.deleteFrom("sms_stops").where("number", "=", number).executeTakeFirst();
  return deleted.numDeletedRows > 0n;
}

/** The STOP list, newest first. */
export function listStops(
  db: Db,
  limit: number,
): Promise<{ number: string; keyword: string; created_at: number }[]> {
  return db
    .selectFrom("sms_stops")
    .select(["number", "keyword", "created_at"])
    .orderBy("created_at", "desc")
    .orderBy("number")
    .limit(limit)
    .execute();
}

/** An SMS's state and delivery receipt so far. */
export async function receiptOf(
  trx: Db,
  id: number,
): Promise<Pick<SmsMessage, "state" | "receipt_status" | "receipt_at"> | undefined> {
  return trx
    .selectFrom("sms_messages")
    .select(["state", "receipt_status", "receipt_at"])
    .where("id", "=", id)
    .executeTakeFirst();
}

/** Records a delivery receipt on its SMS. */
export async function setReceipt(
  trx: Db,
  id: number,
  status: string,
  detail: string | null,
  at: number,
): Promise<void> {
  await trx
    .updateTable("sms_messages")
    .set({ receipt_status: status, receipt_detail: detail, receipt_at: at })
    .where("id", "=", id)
    .execute();
}

/** A claimed SMS whose number sent STOP: stopped, its lease released; false when it was no longer `owner`'s queued SMS. */
export async function stopClaimedSms(trx: Db, id: number, owner: string): Promise<boolean> {
  const updated = await trx
    .updateTable("sms_messages")
    .set({ state: "stopped", lease_owner: null, lease_until: null, last_error: STOPPED_ERROR })
    .where("id", "=", id)
    .where("lease_owner", "=", owner)
    .where("state", "=", "queued")
    .executeTakeFirst();
  return updated.numUpdatedRows === 1n;
}

/** A claimed SMS handed to the gateway: sent. */
export async function markSmsSent(
  db: Db,
  id: number,
  owner: string,
  attempts: number,
  now: number,
): Promise<void> {
  await db
    .updateTable("sms_messages")
    .set({
      state: "sent",
      sent_at: now,
      attempts,
      lease_owner: null,
      lease_until: null,
      last_error: null,
    })
    .where("id", "=", id)
    .where("lease_owner", "=", owner)
    .execute();
}

/**
 * A claimed SMS whose delivery failed: dead, or queued again at `nextAttemptAt`; false when it was no
 * longer `owner`'s queued SMS (so only the update that made it dead refunds it).
 */
export async function failClaimedSms(
  trx: Db,
  id: number,
  owner: string,
  failure: { dead: boolean; attempts: number; nextAttemptAt: number; lastError: string },
): Promise<boolean> {
  const updated = await trx
    .updateTable("sms_messages")
    .set({
      state: failure.dead ? "dead" : "queued",
      attempts: failure.attempts,
      next_attempt_at: failure.nextAttemptAt,
      lease_owner: null,
      lease_until: null,
      last_error: failure.lastError,
    })
    .where("id", "=", id)
    .where("lease_owner", "=", owner)
    .where("state", "=", "queued")
    .executeTakeFirst();
  return updated.numUpdatedRows === 1n;
}
