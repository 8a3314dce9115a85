// The opt-out-all set (docs/service-interface.md "States"): per account, lower-cased e-mail
// addresses that no list may mail. Written by the admin CLI (`optout add|remove`) and by the
// unsubscribe-from-all link; read by every insert path (upsertSubscribers skips these addresses).
//
// Opting out keeps (or makes) a bare subscriber record, so single inserts of the address still return an
// id, and turns each of that subscriber's memberships in the account to `unsubscribed`.

import type { SelectQueryBuilder } from "kysely";
import type { Db } from "../db/database.js";
import type { Database } from "../db/schema.js";
import { emailKey, keepSubscriber, unsubscribeEverywhere } from "./subscribers.js";

export interface OptoutOutcome {
  /** The lower-cased address now on the set. */
  readonly emailKey: string;
  /** False when the address was on the set already. */
  readonly added: boolean;
  /** The account's subscriber record of the address (kept, or made bare). */
  readonly subscriberId: number;
  /** Memberships turned to `unsubscribed` by this call. */
  readonly unsubscribed: number;
}

export interface Optout {
  readonly emailKey: string;
  readonly createdAt: number;
}

/** The set's key of an address: trimmed and lower-cased (the same key as subscribers.email_key). */
export function optoutKey(email: string): string {
  return emailKey(email.trim());
}

/**
 * Puts the address on the account's opt-out-all set. Several statements: call it inside a transaction
 * (`db.transaction().execute((trx) => addOptout(trx, ...))`) so it happens whole or not at all.
 */
export async function addOptout(
  trx: Db,
  accountId: number,
  email: string,
  now: number,
): Promise<OptoutOutcome> {
  const trimmed = email.trim();
  const key = optoutKey(trimmed);
  const inserted = await trx
    .insertInto("optouts")
    .values({ account_id: accountId, email_key: key, created_at: now })
    .onConflict((oc) => oc.columns(["account_id", "email_key"]).doNothing())
    .returning("email_key")
    .executeTakeFirst();
  const subscriberId = await keepSubscriber(trx, accountId, trimmed, key, now);
  const unsubscribed = await unsubscribeEverywhere(trx, accountId, subscriberId, now);
  return { emailKey: key, added: inserted !== undefined, subscriberId, unsubscribed };
}

/**
 * Takes the address off the set; true when it was on it. Memberships stay `unsubscribed`: joining a
 * list again is the subscriber's own act (an insert or a confirmation).
 */
export async function removeOptout(db: Db, accountId: number, email: string): Promise<boolean> {
  const result = await db
    .deleteFrom("optouts")
    .where("account_id", "=", accountId)
    .where("email_key", "=", optoutKey(email))
    .executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

/** When the address key (emailKey) went on the account's set; undefined when it is not on it. */
export async function optoutSince(db: Db, accountId: number, key: string): Promise<number | undefined> {
  const row = await db
    .selectFrom("optouts")
    .select("created_at")
    .where("account_id", "=", accountId)
    .where("email_key", "=", key)
    .executeTakeFirst();
  return row?.created_at;
}

/** The account's set, by address. */
export async function listOptouts(db: Db, accountId: number): Promise<Optout[]> {
  const rows = await db
    .selectFrom("optouts")
    .select(["email_key", "created_at"])
    .where("account_id", "=", accountId)
    .orderBy("email_key")
    .execute();
  return rows.map((r) => ({ emailKey: r.email_key, createdAt: r.created_at }));
}

/** The account's opted-out addresses (a query of their keys, for a bounded count). */
export function accountOptoutKeys(
  db: Db,
  accountId: number,
): SelectQueryBuilder<Database, "optouts", { email_key: string }> {
  return db.selectFrom("optouts").select("email_key").where("account_id", "=", accountId);
}
