// The triggers table group (triggers, trigger_fired): an account's triggers, each mailing a newsletter to
// every subscriber who becomes an active member of a list after the trigger was made, and the subscribers
// each has fired for (once each). Made by the admin CLI (`trigger create`); fired by the trigger worker
// (workers/triggers.ts, which decides the batches); read by GetTriggerIdForAccount, the trigger reports,
// the admin CLI and the console. Which members are due is a query of the subscribers group
// (subscribers.ts triggerCandidates); the sending a trigger mails through is the sendings group's.

import type { Insertable, Selectable, SelectQueryBuilder } from "kysely";
import type { Db } from "../db/database.js";
import type { Database, TriggersTable } from "../db/schema.js";

type Trigger = Selectable<TriggersTable>;

/** Adds a trigger; returns it. */
export async function insertTrigger(db: Db, row: Omit<Insertable<TriggersTable>, "id">): Promise<Trigger> {
  return db.insertInto("triggers").values(row).returningAll().executeTakeFirstOrThrow();
}

/** The account's triggers by id, each with how many subscribers it has fired for. */
export async function triggersWithFired(
  db: Db,
  accountId: number,
): Promise<
  (Pick<Trigger, "id" | "name" | "list_id" | "newsletter_id" | "from_email" | "created_at"> & {
    fired: number | null;
  })[]
> {
  return db
    .selectFrom("triggers as t")
    .select((eb) => [
      "t.id",
      "t.name",
      "t.list_id",
      "t.newsletter_id",
      "t.from_email",
      "t.created_at",
      eb
        .selectFrom("trigger_fired as f")
        .select((e) => e.fn.countAll<number>().as("n"))
        .whereRef("f.trigger_id", "=", "t.id")
        .as("fired"),
    ])
    .where("t.account_id", "=", accountId)
    .orderBy("t.id")
    .execute();
}

/** The account's `limit` newest triggers with their lists' and newsletters' names (the console's page). */
export async function triggerPage(
  db: Db,
  accountId: number,
  limit: number,
): Promise<
  (Pick<Trigger, "id" | "name" | "from_email" | "created_at"> & { list: string; newsletter: string })[]
> {
  return db
    .selectFrom("triggers as t")
    .innerJoin("mailing_lists as l", "l.id", "t.list_id")
    .innerJoin("newsletters as n", "n.id", "t.newsletter_id")
    .select(["t.id", "t.name", "t.from_email", "t.created_at", "l.name as list", "n.name as newsletter"])
    .where("t.account_id", "=", accountId)
    .orderBy("t.id", "desc")
    .limit(limit)
    .execute();
}

/** The subscribers a trigger has fired for (a query of their ids, for a bounded count). */
export function firedSubscriberIds(
  db: Db,
  triggerId: number,
): SelectQueryBuilder<Database, "trigger_fired", { subscriber_id: number }> {
  return db.selectFrom("trigger_fired").select("subscriber_id").where("trigger_id", "=", triggerId);
}

/** The account's triggers by id, with their lists' ids and names (GetTriggerIdForAccount). */
export async function triggersWithLists(
  db: Db,
  accountId: number,
): Promise<(Pick<Trigger, "id" | "name" | "created_at" | "list_id"> & { list_name: string })[]> {
  return db
    .selectFrom("triggers as t")
    .innerJoin("mailing_lists as l", "l.id", "t.list_id")
    .select(["t.id", "t.name", "t.created_at", "t.list_id", "l.name as list_name"])
    .where("t.account_id", "=", accountId)
    .orderBy("t.id")
    .execute();
}

/** The account's trigger's id when the account has a trigger of that id; undefined otherwise. */
export async function accountTriggerId(db: Db, accountId: number, id: number): Promise<number | undefined> {
  const trigger = await db
    .selectFrom("triggers")
    .select("id")
    .where("id", "=", id)
    .where("account_id", "=", accountId)
    .executeTakeFirst();
  return trigger?.id;
}

/** A trigger as the worker fires it. */
export type FiringTrigger = Pick<
  Trigger,
  "id" | "account_id" | "list_id" | "newsletter_id" | "from_email" | "from_name" | "created_at"
>;

/** Every trigger of every account, by id (the worker's pass). */
export async function allTriggers(db: Db): Promise<FiringTrigger[]> {
  return db
    .selectFrom("triggers")
    .select(["id", "account_id", "list_id", "newsletter_id", "from_email", "from_name", "created_at"])
    .orderBy("id")
    .execute();
}

/** Locks the trigger's row for the transaction (PostgreSQL: one batch of a trigger at a time); false when it is gone. */
export async function lockTrigger(trx: Db, id: number): Promise<boolean> {
  const locked = await trx
    .selectFrom("triggers")
    .select("id")
    .where("id", "=", id)
    .forUpdate()
    .executeTakeFirst();
  return locked !== undefined;
}

/** Records that the trigger fired for the subscribers (once each); returns those newly recorded. */
export async function recordFired(
  trx: Db,
  triggerId: number,
  subscriberIds: readonly number[],
  at: number,
): Promise<number[]> {
  const inserted = await trx
    .insertInto("trigger_fired")
    .values(subscriberIds.map((id) => ({ trigger_id: triggerId, subscriber_id: id, fired_at: at })))
    .onConflict((oc) => oc.columns(["trigger_id", "subscriber_id"]).doNothing())
    .returning("subscriber_id")
    .execute();
  return inserted.map((row) => row.subscriber_id);
}
