// Migration 0001_accounts_subscribers_lists: accounts, mailing lists, subscribers and their memberships, opt-outs, confirmations, the
// mail outbox, imports and the secrets table with the link key.
// Shipped: never edit it; add the next migration instead.

import { randomBytes } from "node:crypto";
import type { Engine } from "../engine.js";
import { type AnyDb, idTable } from "./tables.js";

export async function up(db: AnyDb, engine: Engine): Promise<void> {
  const idColumn = (table: string) => idTable(db, engine, table);
  await idColumn("accounts")
    .addColumn("username", "text", (c) => c.notNull().unique())
    .addColumn("password_hash", "text", (c) => c.notNull())
    .addColumn("password_version", "integer", (c) => c.notNull().defaultTo(1))
    .addColumn("dd_fields", "integer", (c) => c.notNull().defaultTo(25))
    .addColumn("time_zone", "text", (c) => c.notNull().defaultTo("UTC"))
    .addColumn("from_name", "text", (c) => c.notNull().defaultTo(""))
    .addColumn("from_email", "text", (c) => c.notNull().defaultTo(""))
    .addColumn("sms_credits", "text", (c) => c.notNull().defaultTo("0"))
    .addColumn("sms_price", "text", (c) => c.notNull().defaultTo("1"))
    .addColumn("created_at", "bigint", (c) => c.notNull())
    .execute();
  await idColumn("mailing_lists")
    .addColumn("account_id", "bigint", (c) => c.notNull().references("accounts.id"))
    .addColumn("name", "text", (c) => c.notNull())
    .addColumn("from_name", "text", (c) => c.notNull().defaultTo(""))
    .addColumn("from_email", "text", (c) => c.notNull().defaultTo(""))
    .addColumn("description", "text", (c) => c.notNull().defaultTo(""))
    .addColumn("charset", "text", (c) => c.notNull().defaultTo("utf-8"))
    .addColumn("created_at", "bigint", (c) => c.notNull())
    .execute();
  await db.schema.createIndex("mailing_lists_account").on("mailing_lists").column("account_id").execute();
  await idColumn("subscribers")
    .addColumn("account_id", "bigint", (c) => c.notNull().references("accounts.id"))
    .addColumn("email", "text", (c) => c.notNull())
    .addColumn("email_key", "text", (c) => c.notNull())
    .addColumn("name", "text", (c) => c.notNull().defaultTo(""))
    .addColumn("format", "text", (c) => c.notNull().defaultTo("HTML"))
    .addColumn("country_code", "text", (c) => c.notNull().defaultTo(""))
    .addColumn("phone", "text", (c) => c.notNull().defaultTo(""))
    .addColumn("fields", "text", (c) => c.notNull().defaultTo("{}"))
    .addColumn("created_at", "bigint", (c) => c.notNull())
    .addUniqueConstraint("subscribers_account_email", ["account_id", "email_key"])
    .execute();
  await db.schema
    .createTable("memberships")
    .addColumn("list_id", "bigint", (c) => c.notNull().references("mailing_lists.id"))
    .addColumn("subscriber_id", "bigint", (c) => c.notNull().references("subscribers.id"))
    .addColumn("account_id", "bigint", (c) => c.notNull())
    .addColumn("state", "text", (c) => c.notNull())
    .addColumn("created_at", "bigint", (c) => c.notNull())
    .addColumn("changed_at", "bigint", (c) => c.notNull())
    .addPrimaryKeyConstraint("memberships_pk", ["list_id", "subscriber_id"])
    .execute();
  await db.schema.createIndex("memberships_subscriber").on("memberships").column("subscriber_id").execute();
  await db.schema
    .createTable("optouts")
    .addColumn("account_id", "bigint", (c) => c.notNull())
    .addColumn("email_key", "text", (c) => c.notNull())
    .addColumn("created_at", "bigint", (c) => c.notNull())
    .addPrimaryKeyConstraint("optouts_pk", ["account_id", "email_key"])
    .execute();
  await db.schema
    .createTable("confirmations")
    .addColumn("token_hash", "text", (c) => c.primaryKey())
    .addColumn("account_id", "bigint", (c) => c.notNull())
    .addColumn("list_id", "bigint", (c) => c.notNull())
    .addColumn("subscriber_id", "bigint", (c) => c.notNull())
    .addColumn("expires_at", "bigint", (c) => c.notNull())
    .addColumn("used_at", "bigint")
    .execute();
  await idColumn("mail_outbox")
    .addColumn("account_id", "bigint", (c) => c.notNull())
    .addColumn("kind", "text", (c) => c.notNull())
    .addColumn("to_address", "text", (c) => c.notNull())
    .addColumn("subject", "text", (c) => c.notNull())
    .addColumn("message", "text", (c) => c.notNull())
    .addColumn("state", "text", (c) => c.notNull().defaultTo("queued"))
    .addColumn("attempts", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("next_attempt_at", "bigint", (c) => c.notNull())
    .addColumn("lease_owner", "text")
    .addColumn("lease_until", "bigint")
    .addColumn("last_error", "text")
    .addColumn("created_at", "bigint", (c) => c.notNull())
    .addColumn("sent_at", "bigint")
    .execute();
  await db.schema
    .createIndex("mail_outbox_due")
    .on("mail_outbox")
    .columns(["state", "next_attempt_at"])
    .execute();
  await idColumn("imports")
    .addColumn("account_id", "bigint", (c) => c.notNull())
    .addColumn("list_id", "bigint", (c) => c.notNull())
    .addColumn("url", "text", (c) => c.notNull())
    .addColumn("state", "text", (c) => c.notNull().defaultTo("queued"))
    .addColumn("lines_done", "bigint", (c) => c.notNull().defaultTo(0))
    .addColumn("rows_imported", "bigint", (c) => c.notNull().defaultTo(0))
    .addColumn("rows_skipped", "bigint", (c) => c.notNull().defaultTo(0))
    .addColumn("rows_bad", "bigint", (c) => c.notNull().defaultTo(0))
    .addColumn("first_errors", "text", (c) => c.notNull().defaultTo("[]"))
    .addColumn("error", "text")
    .addColumn("attempts", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("lease_owner", "text")
    .addColumn("lease_until", "bigint")
    .addColumn("created_at", "bigint", (c) => c.notNull())
    .addColumn("updated_at", "bigint", (c) => c.notNull())
    .addColumn("finished_at", "bigint")
    .execute();
  await db.schema.createIndex("imports_state").on("imports").column("state").execute();
  await db.schema
    .createTable("secrets")
    .addColumn("name", "text", (c) => c.primaryKey())
    .addColumn("value", "text", (c) => c.notNull())
    .execute();
  // The key that signs links (confirmation, tracking): made once per database, never on the wire.
  await db
    .insertInto("secrets")
    .values({ name: "link_key", value: randomBytes(32).toString("base64url") })
    .execute();
}
