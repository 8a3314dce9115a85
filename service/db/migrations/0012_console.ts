// Migration 0012_console: the operator's console (service/console/): its sign-in sessions, and the
// indexes its pages read through (keyset pages and bounded counts, never a scan of another account's rows).
// Shipped: never edit it; add the next migration instead.

import { sql } from "kysely";
import type { Engine } from "../engine.js";
import type { AnyDb } from "./tables.js";

export async function up(db: AnyDb, engine: Engine): Promise<void> {
  // One row per signed-in browser: a hash of the cookie's token (never the token), the account, and when
  // it ends (and the password version it signed in with: a password change ends it); the oldest of an account's sessions beyond the limit are deleted at sign-in.
  await db.schema
    .createTable("console_sessions")
    .addColumn("token_hash", "text", (c) => c.primaryKey())
    .addColumn("account_id", "bigint", (c) => c.notNull())
    .addColumn("password_version", "integer", (c) => c.notNull())
    .addColumn("created_at", "bigint", (c) => c.notNull())
    .addColumn("expires_at", "bigint", (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex("console_sessions_account")
    .on("console_sessions")
    .columns(["account_id", "created_at"])
    .execute();
  await db.schema
    .createIndex("console_sessions_expires")
    .on("console_sessions")
    .column("expires_at")
    .execute();
  // Subscriber counts by state (bounded), and a list's members by state.
  await db.schema
    .createIndex("memberships_account_state")
    .on("memberships")
    .columns(["account_id", "state"])
    .execute();
  await db.schema
    .createIndex("memberships_list_state")
    .on("memberships")
    .columns(["list_id", "state"])
    .execute();
  // Subscriber search: by address prefix (the unique (account_id, email_key) index, in byte order on
  // PostgreSQL too) and by lower-cased name prefix, each a keyset page.
  const binary = engine === "postgres" ? sql` collate "C"` : sql``;
  await sql`create index subscribers_console_email on subscribers (account_id, email_key${binary}, id)`.execute(
    db,
  );
  await sql`create index subscribers_console_name on subscribers (account_id, (lower(name))${binary}, id)`.execute(
    db,
  );
  // Newest first, per account: sendings, imports, outbox mail, SMS, ledger entries.
  for (const table of ["sendings", "imports", "mail_outbox", "sms_messages", "credit_ledger", "transactions"])
    await db.schema.createIndex(`${table}_account_id`).on(table).columns(["account_id", "id"]).execute();
}
