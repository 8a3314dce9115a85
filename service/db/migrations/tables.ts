// What the migrations share: the untyped database they run on, and a table whose id comes from the
// engine's own sequence.

import type { CreateTableBuilder, Kysely } from "kysely";
import type { Engine } from "../engine.js";

// biome-ignore lint/suspicious/noExplicitAny: migrations run before the schema exists
export type AnyDb = Kysely<any>;

/** A new table whose `id` is never reused (SQLite AUTOINCREMENT, PostgreSQL identity). */
export function idTable(db: AnyDb, engine: Engine, table: string): CreateTableBuilder<string, "id"> {
  return db.schema
    .createTable(table)
    .addColumn("id", engine === "sqlite" ? "integer" : "bigint", (c) =>
      engine === "sqlite" ? c.primaryKey().autoIncrement() : c.primaryKey().generatedByDefaultAsIdentity(),
    );
}
