// The confirmations table: double opt-in requests, each the hash of a random token (never the token), the
// membership it confirms and until when it may. Made with the pending insert that queues the confirmation
// mail and used once by POST /confirm/{token} (operations/subscriber/confirmations.ts decides both); read by
// the console's subscriber page; exported and deleted with the person (subscriber-data.ts).

import type { Db } from "../db/database.js";

export interface NewConfirmation {
  readonly tokenHash: string;
  readonly accountId: number;
  readonly listId: number;
  readonly subscriberId: number;
  readonly expiresAt: number;
}

/** Records a confirmation request, unused. */
export async function insertConfirmation(db: Db, confirmation: NewConfirmation): Promise<void> {
  await db
    .insertInto("confirmations")
    .values({
      token_hash: confirmation.tokenHash,
      account_id: confirmation.accountId,
      list_id: confirmation.listId,
      subscriber_id: confirmation.subscriberId,
      expires_at: confirmation.expiresAt,
      used_at: null,
    })
    .execute();
}

/** Whether the token's confirmation is unused and not expired at `at` (reads only). */
export async function confirmationUsable(db: Db, tokenHash: string, at: number): Promise<boolean> {
  const row = await db
    .selectFrom("confirmations")
    .select("subscriber_id")
    .where("token_hash", "=", tokenHash)
    .where("used_at", "is", null)
    .where("expires_at", ">", at)
    .executeTakeFirst();
  return row !== undefined;
}

/** Marks the token's confirmation used at `at` when it is unused and not expired; what it confirms, or undefined. */
export async function useConfirmation(
  db: Db,
  tokenHash: string,
  at: number,
): Promise<{ account_id: number; list_id: number; subscriber_id: number } | undefined> {
  return db
    .updateTable("confirmations")
    .set({ used_at: at })
    .where("token_hash", "=", tokenHash)
    .where("used_at", "is", null)
    .where("expires_at", ">", at)
    .returning(["account_id", "list_id", "subscriber_id"])
    .executeTakeFirst();
}

/** A subscriber's confirmations (any account: the caller scoped the subscriber). */
export async function confirmationsOf(
  db: Db,
  subscriberId: number,
): Promise<{ list_id: number; expires_at: number; used_at: number | null }[]> {
  return db
    .selectFrom("confirmations")
    .select(["list_id", "expires_at", "used_at"])
    .where("subscriber_id", "=", subscriberId)
    .execute();
}

/** The account's subscriber's confirmations with their lists' names, newest expiry first, at most `limit`. */
export async function confirmationsWithLists(
  db: Db,
  accountId: number,
  subscriberId: number,
  limit: number,
): Promise<{ name: string; expires_at: number; used_at: number | null }[]> {
  return db
    .selectFrom("confirmations as c")
    .innerJoin("mailing_lists as l", "l.id", "c.list_id")
    .select(["l.name", "c.expires_at", "c.used_at"])
    .where("c.subscriber_id", "=", subscriberId)
    .where("c.account_id", "=", accountId)
    .orderBy("c.expires_at", "desc")
    .limit(limit)
    .execute();
}

/** Deletes a subscriber's confirmations (erasure). */
export async function deleteConfirmations(db: Db, subscriberId: number): Promise<void> {
  await db.deleteFrom("confirmations").where("subscriber_id", "=", subscriberId).execute();
}
