// Migration 0011_bounces: the Message-ID of outbox mail, and the bounces and complaints that came back.
// Shipped: never edit it; add the next migration instead.

import type { Engine } from "../engine.js";
import { type AnyDb, idTable } from "./tables.js";

export async function up(db: AnyDb, engine: Engine): Promise<void> {
  const idColumn = (table: string) => idTable(db, engine, table);
  // Bounces and complaints (service/operations/mailing/bounces.ts): a report names a message by its Message-ID,
  // and what came back is one row per message and kind.
  await db.schema.alterTable("mail_outbox").addColumn("message_id", "text").execute();
  await db.schema.createIndex("mail_outbox_message_id").on("mail_outbox").column("message_id").execute();
  await idColumn("mail_events")
    .addColumn("account_id", "bigint", (c) => c.notNull())
    .addColumn("mail_id", "bigint", (c) => c.notNull())
    .addColumn("sending_id", "bigint")
    .addColumn("subscriber_id", "bigint")
    .addColumn("email_key", "text", (c) => c.notNull())
    .addColumn("kind", "text", (c) => c.notNull())
    .addColumn("source", "text", (c) => c.notNull())
    .addColumn("status", "text", (c) => c.notNull())
    .addColumn("detail", "text", (c) => c.notNull())
    .addColumn("created_at", "bigint", (c) => c.notNull())
    .addUniqueConstraint("mail_events_mail_kind", ["mail_id", "kind"])
    .execute();
  await db.schema
    .createIndex("mail_events_address")
    .on("mail_events")
    .columns(["account_id", "email_key", "kind", "created_at"])
    .execute();
  await db.schema.createIndex("mail_events_sending").on("mail_events").column("sending_id").execute();
}
