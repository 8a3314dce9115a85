// Migration 0009_import_security: fair import claims, the staged file's validators, staged batches.
// Shipped: never edit it; add the next migration instead.

import type { AnyDb } from "./tables.js";

export async function up(db: AnyDb): Promise<void> {
  // Imports: the account whose import was claimed longest ago goes first (per-account fairness),
  // and the validators of the file version being staged (a resumed download of another version
  // starts over instead of mixing versions).
  await db.schema.alterTable("imports").addColumn("claimed_at", "bigint").execute();
  await db.schema.alterTable("imports").addColumn("file_etag", "text").execute();
  await db.schema.alterTable("imports").addColumn("file_last_modified", "text").execute();
  await db.schema.alterTable("imports").addColumn("file_length", "bigint").execute();
  await db.schema
    .createIndex("imports_account_claimed")
    .on("imports")
    .columns(["account_id", "claimed_at"])
    .execute();
  // An import's good rows, a batch of lines per row, staged until the whole file is read, then
  // applied in order.
  await db.schema
    .createTable("import_batches")
    .addColumn("import_id", "bigint", (c) => c.notNull())
    .addColumn("first_line", "bigint", (c) => c.notNull())
    .addColumn("last_line", "bigint", (c) => c.notNull())
    .addColumn("rows", "text", (c) => c.notNull())
    .addPrimaryKeyConstraint("import_batches_pk", ["import_id", "first_line"])
    .execute();
}
