// Migration 0002_sms: the SMS messages and the credit ledger.
// Shipped: never edit it; add the next migration instead.

import type { Engine } from "../engine.js";
import { type AnyDb, idTable } from "./tables.js";

export async function up(db: AnyDb, engine: Engine): Promise<void> {
  const idColumn = (table: string) => idTable(db, engine, table);
  await idColumn("sms_messages")
    .addColumn("account_id", "bigint", (c) => c.notNull().references("accounts.id"))
    .addColumn("sender_name", "text", (c) => c.notNull())
    .addColumn("country_code", "text", (c) => c.notNull())
    .addColumn("phone_number", "text", (c) => c.notNull())
    .addColumn("message", "text", (c) => c.notNull())
    .addColumn("encoding", "text", (c) => c.notNull())
    .addColumn("segments", "integer", (c) => c.notNull())
    // Exact decimal text, as accounts.sms_credits.
    .addColumn("cost", "text", (c) => c.notNull())
    // waiting (for credits, oldest first) -> queued (paid, to deliver) -> sent | dead
    .addColumn("state", "text", (c) => c.notNull())
    .addColumn("attempts", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("next_attempt_at", "bigint", (c) => c.notNull())
    .addColumn("lease_owner", "text")
    .addColumn("lease_until", "bigint")
    .addColumn("last_error", "text")
    .addColumn("created_at", "bigint", (c) => c.notNull())
    .addColumn("paid_at", "bigint")
    .addColumn("sent_at", "bigint")
    .execute();
  await db.schema
    .createIndex("sms_messages_state")
    .on("sms_messages")
    .columns(["state", "account_id", "id"])
    .execute();
  await idColumn("credit_ledger")
    .addColumn("account_id", "bigint", (c) => c.notNull().references("accounts.id"))
    // Signed exact decimal text: + refill, - an SMS paid.
    .addColumn("amount", "text", (c) => c.notNull())
    .addColumn("balance", "text", (c) => c.notNull())
    .addColumn("reason", "text", (c) => c.notNull())
    .addColumn("sms_id", "bigint")
    .addColumn("created_at", "bigint", (c) => c.notNull())
    .execute();
}
