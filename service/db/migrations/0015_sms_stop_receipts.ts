// Migration 0015_sms_stop_receipts: numbers that sent STOP to the SMS gateway, and each SMS's delivery
// receipt (operations/transactional/sms-events.ts).
// Shipped: never edit it; add the next migration instead.

import type { AnyDb } from "./tables.js";

export async function up(db: AnyDb): Promise<void> {
  // One row per number (E.164 digits, no "+") that is opted out of every SMS of the service.
  await db.schema
    .createTable("sms_stops")
    .addColumn("number", "text", (c) => c.primaryKey())
    .addColumn("keyword", "text", (c) => c.notNull())
    .addColumn("created_at", "bigint", (c) => c.notNull())
    .execute();
  await db.schema.alterTable("sms_messages").addColumn("receipt_status", "text").execute();
  await db.schema.alterTable("sms_messages").addColumn("receipt_detail", "text").execute();
  await db.schema.alterTable("sms_messages").addColumn("receipt_at", "bigint").execute();
  // The SMS to one number still to send (STOP marks its waiting ones stopped).
  await db.schema
    .createIndex("sms_messages_number")
    .on("sms_messages")
    .columns(["country_code", "phone_number", "state"])
    .execute();
}
