// Migration 0004_newsletters: templates, modules, filters, newsletters and their modules.
// Shipped: never edit it; add the next migration instead.

import type { Engine } from "../engine.js";
import { type AnyDb, idTable } from "./tables.js";

export async function up(db: AnyDb, engine: Engine): Promise<void> {
  const idColumn = (table: string) => idTable(db, engine, table);
  await idColumn("templates")
    .addColumn("account_id", "bigint", (c) => c.notNull().references("accounts.id"))
    // What strTemplateName names: unique per account.
    .addColumn("name", "text", (c) => c.notNull())
    .addColumn("subject", "text", (c) => c.notNull().defaultTo(""))
    // HTML and text with merge tags ({{Name}}, {{DD3}}, {{unsubscribe}}) and module holders {{holder:N}}.
    .addColumn("html", "text", (c) => c.notNull())
    .addColumn("text", "text", (c) => c.notNull().defaultTo(""))
    .addColumn("created_at", "bigint", (c) => c.notNull())
    .addUniqueConstraint("templates_account_name", ["account_id", "name"])
    .execute();
  await idColumn("modules")
    .addColumn("account_id", "bigint", (c) => c.notNull().references("accounts.id"))
    .addColumn("name", "text", (c) => c.notNull())
    // The module's original code (HTML with merge tags); a newsletter's copy may replace it.
    .addColumn("code", "text", (c) => c.notNull())
    .addColumn("created_at", "bigint", (c) => c.notNull())
    .execute();
  await idColumn("filters")
    .addColumn("account_id", "bigint", (c) => c.notNull().references("accounts.id"))
    .addColumn("name", "text", (c) => c.notNull())
    // One condition on a subscriber field: field (Email, Name, Format, CountryCode, Phone, DD1..DD100),
    // operator (=, !=, contains, startsWith, empty, notEmpty) and value; evaluated in code, never as SQL.
    .addColumn("field", "text", (c) => c.notNull())
    .addColumn("operator", "text", (c) => c.notNull())
    .addColumn("value", "text", (c) => c.notNull().defaultTo(""))
    .addColumn("created_at", "bigint", (c) => c.notNull())
    .execute();
  await idColumn("newsletters")
    .addColumn("account_id", "bigint", (c) => c.notNull().references("accounts.id"))
    .addColumn("template_id", "bigint", (c) => c.notNull().references("templates.id"))
    .addColumn("name", "text", (c) => c.notNull())
    .addColumn("subject", "text", (c) => c.notNull())
    // all | no | roi
    .addColumn("tracking", "text", (c) => c.notNull())
    .addColumn("created_at", "bigint", (c) => c.notNull())
    .execute();
  await idColumn("newsletter_modules")
    .addColumn("account_id", "bigint", (c) => c.notNull())
    .addColumn("newsletter_id", "bigint", (c) => c.notNull().references("newsletters.id"))
    .addColumn("module_id", "bigint", (c) => c.notNull().references("modules.id"))
    .addColumn("code", "text", (c) => c.notNull())
    .addColumn("module_index", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("holder_id", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("filter_id", "bigint", (c) => c.references("filters.id"))
    .addColumn("created_at", "bigint", (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex("newsletter_modules_newsletter")
    .on("newsletter_modules")
    .column("newsletter_id")
    .execute();
}
