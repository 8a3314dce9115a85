// The accounts table: who signs in (user name, scrypt hash, password version) and each account's settings
// (demographic fields, time zone, default sender, SMS credits and price). Made and changed by the admin CLI
// (`account create|set|set-password`); read by sign-in (auth/authenticator.ts: by name, and by id for a
// cached pair, also as one SQLite prepared statement and as a PostgreSQL CTE that re-checks the
// credentials inside a single-statement write), the import worker and /healthz. The SMS credits and the
// count of waiting SMS are changed by the SMS group (credits.ts), in the transactions that write its ledger.

import { type RawBuilder, sql } from "kysely";
import type { Db } from "../db/database.js";
import type { Account, AccountsTable } from "../db/schema.js";
import type { Insertable } from "kysely";

/** A verified pair's account, as a cached sign-in knows it (Authenticator.cached). */
export interface AccountCheck {
  readonly username: string;
  readonly accountId: number;
  readonly passwordVersion: number;
}

/** The cache-hit check's read, as a prepared statement on SQLite. */
export const ACCOUNT_BY_ID = "select * from accounts where id = ?";

/**
 * The account row of a cached check when it still matches (accountMatches, in SQL): no row when the
 * password or the name changed since. PostgreSQL's single-statement writes put it in a CTE, so the check
 * and the write are one round trip; a statement that finds no row writes nothing.
 */
export function matchingAccountSql(check: AccountCheck): RawBuilder<Account> {
  return sql<Account>`select * from accounts where id = ${check.accountId} and password_version = ${check.passwordVersion} and username = ${check.username}`;
}

/** The check an account row read just now passes (for a write that re-checks the row it was given). */
export function checkOf(account: Account): AccountCheck {
  return { username: account.username, accountId: account.id, passwordVersion: account.password_version };
}

/** Whether the account row read for a cached check is still that pair's account. */
export function accountMatches(check: AccountCheck, account: Account | undefined): account is Account {
  // A password changed anywhere (admin CLI, another instance) bumps the version: the pair is stale.
  return (
    account !== undefined &&
    account.password_version === check.passwordVersion &&
    account.username === check.username
  );
}

/** The account of that id. */
export async function accountById(db: Db, id: number): Promise<Account | undefined> {
  return db.selectFrom("accounts").selectAll().where("id", "=", id).executeTakeFirst();
}

/** The account of exactly that user name. */
export async function accountByName(db: Db, username: string): Promise<Account | undefined> {
  return db.selectFrom("accounts").selectAll().where("username", "=", username).executeTakeFirst();
}

/** The accounts whose user name is `username` regardless of case (user names are unique that way). */
export async function accountsByFoldedName(db: Db, username: string): Promise<Account[]> {
  return db
    .selectFrom("accounts")
    .selectAll()
    .where((eb) => eb(eb.fn("lower", ["username"]), "=", username.toLowerCase()))
    .execute();
}

/** The user name of an account named `username` regardless of case, if any. */
export async function takenUsername(db: Db, username: string): Promise<string | undefined> {
  const taken = await db
    .selectFrom("accounts")
    .select("username")
    .where((eb) => eb(eb.fn("lower", ["username"]), "=", username.toLowerCase()))
    .executeTakeFirst();
  return taken?.username;
}

/** Adds an account; returns it. */
export async function insertAccount(db: Db, row: Omit<Insertable<AccountsTable>, "id">): Promise<Account> {
  return db.insertInto("accounts").values(row).returningAll().executeTakeFirstOrThrow();
}

/** Sets an account's password hash and bumps its password version (cached pairs go stale). */
export async function setPasswordHash(
  db: Db,
  id: number,
  passwordHash: string,
): Promise<Pick<Account, "id" | "username" | "password_version">> {
  return db
    .updateTable("accounts")
    .set((eb) => ({ password_hash: passwordHash, password_version: eb("password_version", "+", 1) }))
    .where("id", "=", id)
    .returning(["id", "username", "password_version"])
    .executeTakeFirstOrThrow();
}

/** Changes an account's settings; returns the account. */
export async function updateAccount(
  db: Db,
  id: number,
  changes: Partial<Pick<Account, "dd_fields" | "time_zone" | "from_name" | "from_email">>,
): Promise<Account> {
  return db
    .updateTable("accounts")
    .set(changes)
    .where("id", "=", id)
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** Every account, by id. */
export async function allAccounts(db: Db): Promise<Account[]> {
  return db.selectFrom("accounts").selectAll().orderBy("id").execute();
}

/** One cheap read of the accounts table (GET /healthz: is the database there). */
export async function probeAccounts(db: Db): Promise<void> {
  await db.selectFrom("accounts").select("id").limit(1).execute();
}
