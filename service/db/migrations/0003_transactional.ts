// Migration 0003_transactional: transactional projects and transactions.
// Shipped: never edit it; add the next migration instead.

import type { Engine } from "../engine.js";
import { type AnyDb, idTable } from "./tables.js";

export async function up(db: AnyDb, engine: Engine): Promise<void> {
  const idColumn = (table: string) => idTable(db, engine, table);
  await idColumn("projects")
    .addColumn("account_id", "bigint", (c) => c.notNull().references("accounts.id"))
    .addColumn("name", "text", (c) => c.notNull())
    // Templates with merge tags ({{Name}}, {{Email}}, {{DD3}}); html may be empty (text only).
    .addColumn("subject", "text", (c) => c.notNull())
    .addColumn("text_body", "text", (c) => c.notNull())
    .addColumn("html_body", "text", (c) => c.notNull().defaultTo(""))
    .addColumn("from_name", "text", (c) => c.notNull().defaultTo(""))
    .addColumn("from_email", "text", (c) => c.notNull().defaultTo(""))
    .addColumn("created_at", "bigint", (c) => c.notNull())
    .execute();
  await idColumn("transactions")
    .addColumn("account_id", "bigint", (c) => c.notNull().references("accounts.id"))
    .addColumn("project_id", "bigint", (c) => c.notNull().references("projects.id"))
    // The caller's reference: same project + identifier within 24 h is the same transaction.
    .addColumn("identifier", "text")
    .addColumn("email", "text", (c) => c.notNull())
    .addColumn("send_at", "bigint", (c) => c.notNull())
    .addColumn("mail_id", "bigint")
    .addColumn("created_at", "bigint", (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex("transactions_identifier")
    .on("transactions")
    .columns(["project_id", "identifier", "created_at"])
    .execute();
}
