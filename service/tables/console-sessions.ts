// The console_sessions table: the console's sign-ins, each kept as the SHA-256 of its cookie token with its
// account, the account's password version when it began (a password change ends it) and a fixed end.
// console/sessions.ts makes the tokens and decides the rules (how many an account keeps, how many expired
// rows a sign-in prunes); this module stores, finds and ends them.

import type { Insertable, Kysely } from "kysely";
import type { Db } from "../db/database.js";
import type { Account, ConsoleSessionsTable, Database } from "../db/schema.js";

/**
 * Stores a session, then, in the same transaction, ends the account's sessions beyond its `keep` newest
 * (looking at `keep + prune` of them) and deletes at most `prune` expired sessions of any account.
 */
export async function insertSession(
  db: Kysely<Database>,
  row: Insertable<ConsoleSessionsTable>,
  keep: number,
  prune: number,
  now: number,
): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await trx.insertInto("console_sessions").values(row).execute();
    const newest = await trx
      .selectFrom("console_sessions")
      .select("token_hash")
      .where("account_id", "=", row.account_id)
      .orderBy("created_at", "desc")
      .orderBy("token_hash")
      .limit(keep + prune)
      .execute();
    const beyond = newest.slice(keep).map((r) => r.token_hash);
    if (beyond.length > 0)
      await trx.deleteFrom("console_sessions").where("token_hash", "in", beyond).execute();
    const expired = await trx
      .selectFrom("console_sessions")
      .select("token_hash")
      .where("expires_at", "<=", now)
      .limit(prune)
      .execute();
    if (expired.length > 0)
      await trx
        .deleteFrom("console_sessions")
        .where(
          "token_hash",
          "in",
          expired.map((r) => r.token_hash),
        )
        .execute();
  });
}

/** The live session of a token hash with its account (the password version unchanged since it began). */
export async function sessionAccount(
  db: Db,
  tokenHash: string,
  now: number,
): Promise<(Account & { session_expires_at: number }) | undefined> {
  return db
    .selectFrom("console_sessions as s")
    .innerJoin("accounts as a", "a.id", "s.account_id")
    .selectAll("a")
    .select("s.expires_at as session_expires_at")
    .where("s.token_hash", "=", tokenHash)
    .where("s.expires_at", ">", now)
    .whereRef("s.password_version", "=", "a.password_version")
    .executeTakeFirst();
}

/** Ends the session of a token hash. */
export async function deleteSession(db: Db, tokenHash: string): Promise<void> {
  await db.deleteFrom("console_sessions").where("token_hash", "=", tokenHash).execute();
}
