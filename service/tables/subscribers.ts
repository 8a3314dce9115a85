// The subscribers table group (subscribers, memberships): every write to them goes through this module
// or the insert beside it (subscriber-insert.ts), and every read through these modules or a join of
// another group's module in service/tables/ (a sending's queued recipients, sendings.ts; the view and
// trigger reports, tracking.ts); the opt-out-all set is optouts.ts. test/repo/table-ownership.test.ts
// fails on a query against them elsewhere.

import type { Kysely, SelectQueryBuilder } from "kysely";
import type { Db } from "../db/database.js";
import type { Account, Database, MembershipState, Subscriber } from "../db/schema.js";
import { notFound } from "../common/errors.js";
import { idFromText } from "../common/input.js";

/** The stored key of an address: lower-cased (subscribers.email_key, optouts.email_key). */
export function emailKey(email: string): string {
  return email.toLowerCase();
}

/**
 * The account's subscriber named by id (when one is given: a non-number matches nothing) or else by
 * e-mail, case-insensitively; NotFound naming the parameter that was used.
 */
export async function subscriberOf(
  db: Db,
  account: Account,
  idText: string | undefined,
  email: string | undefined,
): Promise<Pick<Subscriber, "id" | "email" | "format" | "fields">> {
  const byId = idText !== undefined && idText !== "";
  const id = idFromText(idText);
  const query = db
    .selectFrom("subscribers")
    .select(["id", "email", "format", "fields"])
    .where("account_id", "=", account.id);
  const found = byId
    ? id === undefined
      ? undefined
      : await query.where("id", "=", id).executeTakeFirst()
    : await query.where("email_key", "=", emailKey((email ?? "").trim())).executeTakeFirst();
  if (found === undefined) throw notFound("subscriber", byId ? "strSubscriberId" : "strEmail");
  return found;
}

/** The subscriber's account and address, by id alone (an unsubscribe token names it); undefined when gone. */
export async function subscriberById(
  db: Db,
  id: number,
): Promise<Pick<Subscriber, "account_id" | "email"> | undefined> {
  return db.selectFrom("subscribers").select(["account_id", "email"]).where("id", "=", id).executeTakeFirst();
}

/** The account's subscriber of that id; undefined when the account has none of that id. */
export async function accountSubscriber(
  db: Db,
  accountId: number,
  id: number,
): Promise<Subscriber | undefined> {
  return db
    .selectFrom("subscribers")
    .selectAll()
    .where("id", "=", id)
    .where("account_id", "=", accountId)
    .executeTakeFirst();
}

/** The account's subscriber of that address key (emailKey); undefined when there is none. */
export async function accountSubscriberByKey(
  db: Db,
  accountId: number,
  key: string,
): Promise<Subscriber | undefined> {
  return db
    .selectFrom("subscribers")
    .selectAll()
    .where("account_id", "=", accountId)
    .where("email_key", "=", key)
    .executeTakeFirst();
}

/** A subscriber's mail format (HTML or Text), by id alone; undefined when gone. */
export async function subscriberFormat(db: Db, id: number): Promise<string | undefined> {
  const row = await db.selectFrom("subscribers").select("format").where("id", "=", id).executeTakeFirst();
  return row?.format;
}

/** Sets a subscriber's mail format; false when the subscriber is gone. */
export async function setSubscriberFormat(db: Db, id: number, format: "HTML" | "Text"): Promise<boolean> {
  const updated = await db.updateTable("subscribers").set({ format }).where("id", "=", id).executeTakeFirst();
  return updated.numUpdatedRows > 0n;
}

/** Replaces a subscriber's demographic fields (JSON by field number). */
export async function setSubscriberFields(db: Db, subscriberId: number, fields: string): Promise<void> {
  await db.updateTable("subscribers").set({ fields }).where("id", "=", subscriberId).execute();
}

/** A subscriber's own fields, as the console's edit form sets them (demographic fields as JSON). */
export interface SubscriberDetails {
  readonly name: string;
  readonly format: string;
  readonly country_code: string;
  readonly phone: string;
  readonly fields: string;
}

/** Sets the account's subscriber's name, format, phone and demographic fields; false when none matched. */
export async function setSubscriberDetails(
  db: Db,
  accountId: number,
  subscriberId: number,
  details: SubscriberDetails,
): Promise<boolean> {
  const changed = await db
    .updateTable("subscribers")
    .set({ ...details })
    .where("id", "=", subscriberId)
    .where("account_id", "=", accountId)
    .executeTakeFirst();
  return Number(changed.numUpdatedRows) === 1;
}

/**
 * The account's subscriber id of an address (key: emailKey), made bare (no name, HTML, no fields) when
 * the account has none: an opted-out address keeps a record, so single inserts of it return an id.
 */
export async function keepSubscriber(
  db: Db,
  accountId: number,
  email: string,
  key: string,
  now: number,
): Promise<number> {
  await db
    .insertInto("subscribers")
    .values({ account_id: accountId, email, email_key: key, created_at: now })
    .onConflict((oc) => oc.columns(["account_id", "email_key"]).doNothing())
    .execute();
  const subscriber = await db
    .selectFrom("subscribers")
    .select("id")
    .where("account_id", "=", accountId)
    .where("email_key", "=", key)
    .executeTakeFirstOrThrow();
  return subscriber.id;
}

/** Every membership of the subscriber in the account becomes `unsubscribed`; returns how many changed. */
export async function unsubscribeEverywhere(
  db: Db,
  accountId: number,
  subscriberId: number,
  now: number,
): Promise<number> {
  const changed = await db
    .updateTable("memberships")
    .set({ state: "unsubscribed", changed_at: now })
    .where("account_id", "=", accountId)
    .where("subscriber_id", "=", subscriberId)
    .where("state", "<>", "unsubscribed")
    .executeTakeFirst();
  return Number(changed.numUpdatedRows);
}

/** The membership of the subscriber in the list becomes `unsubscribed` (the one-click link). */
export async function unsubscribeMembership(
  db: Db,
  listId: number,
  subscriberId: number,
  now: number,
): Promise<void> {
  await db
    .updateTable("memberships")
    .set({ state: "unsubscribed", changed_at: now })
    .where("list_id", "=", listId)
    .where("subscriber_id", "=", subscriberId)
    .where("state", "!=", "unsubscribed")
    .execute();
}

/** A pending membership becomes active (a confirmation); any other state stays. */
export async function confirmMembership(
  db: Db,
  listId: number,
  subscriberId: number,
  at: number,
): Promise<void> {
  await db
    .updateTable("memberships")
    .set({ state: "active", changed_at: at })
    .where("list_id", "=", listId)
    .where("subscriber_id", "=", subscriberId)
    .where("state", "=", "pending")
    .execute();
}

/** The account's lists the subscriber is an active member of, by list id, with when it joined. */
export async function activeListsOf(
  db: Db,
  accountId: number,
  subscriberId: number,
): Promise<{ id: number; name: string; changed_at: number }[]> {
  return db
    .selectFrom("memberships")
    .innerJoin("mailing_lists", "mailing_lists.id", "memberships.list_id")
    .select(["mailing_lists.id", "mailing_lists.name", "memberships.changed_at"])
    .where("memberships.subscriber_id", "=", subscriberId)
    .where("memberships.account_id", "=", accountId)
    .where("memberships.state", "=", "active")
    .orderBy("mailing_lists.id")
    .execute();
}

/**
 * The list's active members whose address is not on the account's opt-out-all set, by subscriber id:
 * those after subscriber `page.after`, at most `page.limit` (a keyset page), or all.
 */
export async function mailableMembers(
  db: Db,
  accountId: number,
  listId: number,
  page?: { readonly after: number; readonly limit: number },
): Promise<Pick<Subscriber, "id" | "email" | "name" | "format" | "country_code" | "phone" | "fields">[]> {
  let query = db
    .selectFrom("memberships as m")
    .innerJoin("subscribers as s", "s.id", "m.subscriber_id")
    .leftJoin("optouts as o", (j) =>
      j.onRef("o.account_id", "=", "s.account_id").onRef("o.email_key", "=", "s.email_key"),
    )
    .select(["s.id", "s.email", "s.name", "s.format", "s.country_code", "s.phone", "s.fields"])
    .where("m.list_id", "=", listId)
    .where("m.account_id", "=", accountId)
    .where("m.state", "=", "active")
    .where("o.email_key", "is", null)
    .orderBy("m.subscriber_id");
  // By the membership key's order (list_id, subscriber_id): a page is a range of it, never a sort of
  // every member after `after` (ordered by s.id, SQLite sorted them all for each page).
  if (page !== undefined) query = query.where("m.subscriber_id", ">", page.after).limit(page.limit);
  return query.execute();
}

/** A subscriber's memberships in the account with their lists' names, by list id, at most `limit`. */
export async function membershipsWithLists(
  db: Db,
  accountId: number,
  subscriberId: number,
  limit: number,
): Promise<{ id: number; name: string; state: MembershipState; created_at: number; changed_at: number }[]> {
  return db
    .selectFrom("memberships as m")
    .innerJoin("mailing_lists as l", "l.id", "m.list_id")
    .select(["l.id", "l.name", "m.state", "m.created_at", "m.changed_at"])
    .where("m.subscriber_id", "=", subscriberId)
    .where("m.account_id", "=", accountId)
    .orderBy("l.id")
    .limit(limit)
    .execute();
}

/** The list's members in `state` (a query of their ids, for a bounded count). */
export function listMemberIds(
  db: Db,
  listId: number,
  state: MembershipState,
): SelectQueryBuilder<Database, "memberships", { subscriber_id: number }> {
  return db
    .selectFrom("memberships")
    .select("subscriber_id")
    .where("list_id", "=", listId)
    .where("state", "=", state);
}

/** Members of a list by state. */
export type MemberCounts = Record<MembershipState, number>;

/** Members of each of the account's lists by state (lists without members are absent). */
export async function memberCounts(
  db: Kysely<Database>,
  accountId: number,
  listId?: number,
): Promise<Map<number, MemberCounts>> {
  let query = db
    .selectFrom("memberships")
    .select((eb) => ["list_id", "state", eb.fn.countAll().as("n")])
    .where("account_id", "=", accountId)
    .groupBy(["list_id", "state"]);
  if (listId !== undefined) query = query.where("list_id", "=", listId);
  const counts = new Map<number, MemberCounts>();
  for (const row of await query.execute()) {
    const entry = counts.get(row.list_id) ?? { active: 0, pending: 0, unsubscribed: 0 };
    entry[row.state] = Number(row.n);
    counts.set(row.list_id, entry);
  }
  return counts;
}

/** The account's subscriber by id (digits) or address (any case); undefined when there is none. */
export async function findSubscriber(
  db: Db,
  accountId: number,
  idOrEmail: string,
): Promise<Subscriber | undefined> {
  const text = idOrEmail.trim();
  const query = db.selectFrom("subscribers").selectAll().where("account_id", "=", accountId);
  return /^\d{1,15}$/.test(text)
    ? query.where("id", "=", Number(text)).executeTakeFirst()
    : query.where("email_key", "=", emailKey(text)).executeTakeFirst();
}

/** The list a trigger fires for, and since when its new members count. */
export interface TriggerScope {
  readonly id: number;
  readonly account_id: number;
  readonly list_id: number;
  readonly created_at: number;
}

/**
 * Up to `limit` subscribers the trigger has not fired for yet, by id: active members of its list since
 * the trigger was made (membership changed at or after its creation) whose address is not on the
 * account's opt-out-all set.
 */
export async function triggerCandidates(db: Db, trigger: TriggerScope, limit: number): Promise<number[]> {
  const rows = await db
    .selectFrom("memberships as m")
    .innerJoin("subscribers as s", "s.id", "m.subscriber_id")
    .leftJoin("optouts as o", (j) =>
      j.onRef("o.account_id", "=", "s.account_id").onRef("o.email_key", "=", "s.email_key"),
    )
    .leftJoin("trigger_fired as f", (j) =>
      j.onRef("f.subscriber_id", "=", "m.subscriber_id").on("f.trigger_id", "=", trigger.id),
    )
    .select("m.subscriber_id")
    .where("m.list_id", "=", trigger.list_id)
    .where("m.account_id", "=", trigger.account_id)
    .where("m.state", "=", "active")
    .where("m.changed_at", ">=", trigger.created_at)
    .where("o.email_key", "is", null)
    .where("f.subscriber_id", "is", null)
    .orderBy("m.subscriber_id")
    .limit(limit)
    .execute();
  return rows.map((row) => row.subscriber_id);
}

/** The account's subscribers (a query of their ids, for a bounded count). */
export function accountSubscriberIds(
  db: Db,
  accountId: number,
): SelectQueryBuilder<Database, "subscribers", { id: number }> {
  return db.selectFrom("subscribers").select("id").where("account_id", "=", accountId);
}

/** The account's memberships in `state` (a query of their lists' ids, for a bounded count). */
export function accountMemberships(
  db: Db,
  accountId: number,
  state: MembershipState,
): SelectQueryBuilder<Database, "memberships", { list_id: number }> {
  return db
    .selectFrom("memberships")
    .select("list_id")
    .where("account_id", "=", accountId)
    .where("state", "=", state);
}
