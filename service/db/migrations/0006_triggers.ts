// Migration 0006_triggers: triggers, the sending a trigger made, and whom each trigger fired for.
// Shipped: never edit it; add the next migration instead.

import type { Engine } from "../engine.js";
import { type AnyDb, idTable } from "./tables.js";

export async function up(db: AnyDb, engine: Engine): Promise<void> {
  const idColumn = (table: string) => idTable(db, engine, table);
  await idColumn("triggers")
    .addColumn("account_id", "bigint", (c) => c.notNull().references("accounts.id"))
    .addColumn("name", "text", (c) => c.notNull())
    // Fires when a subscriber becomes active on this list (a single insert, a CSV or file import, a
    // double opt-in confirmation) after the trigger was made: sends this newsletter to them, once.
    .addColumn("list_id", "bigint", (c) => c.notNull().references("mailing_lists.id"))
    .addColumn("newsletter_id", "bigint", (c) => c.notNull().references("newsletters.id"))
    .addColumn("from_email", "text", (c) => c.notNull())
    .addColumn("from_name", "text", (c) => c.notNull().defaultTo(""))
    .addColumn("created_at", "bigint", (c) => c.notNull())
    .execute();
  // The sending a trigger made (one per trigger), so its views and clicks are the trigger's.
  await db.schema.alterTable("sendings").addColumn("trigger_id", "bigint").execute();
  // Who a trigger has fired for: the key that makes it once per subscriber.
  await db.schema
    .createTable("trigger_fired")
    .addColumn("trigger_id", "bigint", (c) => c.notNull().references("triggers.id"))
    .addColumn("subscriber_id", "bigint", (c) => c.notNull().references("subscribers.id"))
    .addColumn("fired_at", "bigint", (c) => c.notNull())
    .addPrimaryKeyConstraint("trigger_fired_pk", ["trigger_id", "subscriber_id"])
    .execute();
}
