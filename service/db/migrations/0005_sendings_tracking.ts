// Migration 0005_sendings_tracking: sendings, their recipients, tracked links and tracking events.
// Shipped: never edit it; add the next migration instead.

import type { Engine } from "../engine.js";
import { type AnyDb, idTable } from "./tables.js";

export async function up(db: AnyDb, engine: Engine): Promise<void> {
  const idColumn = (table: string) => idTable(db, engine, table);
  await idColumn("sendings")
    .addColumn("account_id", "bigint", (c) => c.notNull().references("accounts.id"))
    .addColumn("newsletter_id", "bigint", (c) => c.notNull().references("newsletters.id"))
    .addColumn("list_id", "bigint", (c) => c.notNull().references("mailing_lists.id"))
    .addColumn("filter_id", "bigint", (c) => c.references("filters.id"))
    .addColumn("from_email", "text", (c) => c.notNull())
    .addColumn("from_name", "text", (c) => c.notNull().defaultTo(""))
    .addColumn("send_at", "bigint", (c) => c.notNull())
    // scheduled -> expanding (recipients being listed) -> sending -> done
    .addColumn("state", "text", (c) => c.notNull().defaultTo("scheduled"))
    .addColumn("recipients", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("sent", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("lease_owner", "text")
    .addColumn("lease_until", "bigint")
    .addColumn("created_at", "bigint", (c) => c.notNull())
    .addColumn("finished_at", "bigint")
    .execute();
  await db.schema.createIndex("sendings_state").on("sendings").columns(["state", "send_at"]).execute();
  // One row per recipient, made once when the sending starts: (sending, subscriber) is the key that
  // makes delivery exactly once; mail_id is set in the transaction that queues the recipient's mail.
  await db.schema
    .createTable("sending_recipients")
    .addColumn("sending_id", "bigint", (c) => c.notNull().references("sendings.id"))
    .addColumn("subscriber_id", "bigint", (c) => c.notNull().references("subscribers.id"))
    .addColumn("account_id", "bigint", (c) => c.notNull())
    // queued -> sent (mail queued) | skipped (opted out or unsubscribed meanwhile)
    .addColumn("state", "text", (c) => c.notNull().defaultTo("queued"))
    .addColumn("mail_id", "bigint")
    .addColumn("created_at", "bigint", (c) => c.notNull())
    .addPrimaryKeyConstraint("sending_recipients_pk", ["sending_id", "subscriber_id"])
    .execute();
  await db.schema
    .createIndex("sending_recipients_state")
    .on("sending_recipients")
    .columns(["sending_id", "state"])
    .execute();
  // Links of a sending's messages, so a click token names a link id and the redirect goes only there.
  await idColumn("tracked_links")
    .addColumn("account_id", "bigint", (c) => c.notNull())
    .addColumn("sending_id", "bigint", (c) => c.notNull().references("sendings.id"))
    .addColumn("url", "text", (c) => c.notNull())
    .addUniqueConstraint("tracked_links_sending_url", ["sending_id", "url"])
    .execute();
  await idColumn("tracking_events")
    .addColumn("account_id", "bigint", (c) => c.notNull())
    .addColumn("sending_id", "bigint", (c) => c.notNull())
    .addColumn("subscriber_id", "bigint", (c) => c.notNull())
    // view | click | conversion
    .addColumn("kind", "text", (c) => c.notNull())
    .addColumn("link_id", "bigint")
    // Exact decimal text (conversions of roi newsletters).
    .addColumn("value", "text")
    .addColumn("created_at", "bigint", (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex("tracking_events_sending")
    .on("tracking_events")
    .columns(["sending_id", "kind", "created_at"])
    .execute();
}
