// Migration 0008_outbox_security: outbox priorities, retry age, retention of delivered mail, the fair claim index.
// Shipped: never edit it; add the next migration instead.

import type { AnyDb } from "./tables.js";

export async function up(db: AnyDb): Promise<void> {
  // 0: mail someone waits for (confirmation, transactional), claimed before 1: bulk (newsletters,
  // triggers). The worker claims per class and account in turn, so one index walk finds the next
  // account with queued mail and its oldest due messages without scanning a backlog.
  await db.schema
    .alterTable("mail_outbox")
    .addColumn("priority", "integer", (c) => c.notNull().defaultTo(1))
    .execute();
  await db
    .updateTable("mail_outbox")
    .set({ priority: 0 })
    .where("kind", "in", ["confirmation", "transactional"])
    .execute();
  // When the message was first tried: retries stop MAIL_RETRY_MAX_AGE_MS after it.
  await db.schema.alterTable("mail_outbox").addColumn("first_attempt_at", "bigint").execute();
  // When a delivered message was sent while its whole text is still kept (OUTBOX_RETENTION_DAYS);
  // null once it is cut to its headers. Messages delivered before this migration are cut first.
  await db.schema.alterTable("mail_outbox").addColumn("retained_since", "bigint").execute();
  await db
    .updateTable("mail_outbox")
    .set((eb) => ({ retained_since: eb.ref("sent_at") }))
    .where("state", "=", "sent")
    .execute();
  await db.schema.dropIndex("mail_outbox_due").execute();
  await db.schema
    .createIndex("mail_outbox_fair")
    .on("mail_outbox")
    .columns(["state", "priority", "account_id", "next_attempt_at", "id"])
    .execute();
  await db.schema.createIndex("mail_outbox_retained").on("mail_outbox").column("retained_since").execute();
}
