// Migration 0017_consents: the record of each consent given or withdrawn (service/tables/consents.ts):
// when, how, from where (IP address and user agent where known) and the text the person was shown.
// Shipped: never edit it; add the next migration instead.

import type { Engine } from "../engine.js";
import { type AnyDb, idTable } from "./tables.js";

export async function up(db: AnyDb, engine: Engine): Promise<void> {
  await idTable(db, engine, "consents")
    .addColumn("account_id", "bigint", (c) => c.notNull())
    .addColumn("subscriber_id", "bigint", (c) => c.notNull())
    .addColumn("list_id", "bigint")
    .addColumn("kind", "text", (c) => c.notNull())
    .addColumn("source", "text", (c) => c.notNull())
    .addColumn("ip", "text")
    .addColumn("user_agent", "text")
    .addColumn("text", "text", (c) => c.notNull())
    .addColumn("created_at", "bigint", (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex("consents_subscriber")
    .on("consents")
    .columns(["subscriber_id", "id"])
    .execute();
}
