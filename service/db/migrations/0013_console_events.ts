// Migration 0013_console_events: a subscriber's opens and clicks, newest first, for the console's
// subscriber page (without it the page would scan every tracking event).
// Shipped: never edit it; add the next migration instead.

import type { AnyDb } from "./tables.js";

export async function up(db: AnyDb): Promise<void> {
  await db.schema
    .createIndex("tracking_events_subscriber")
    .on("tracking_events")
    .columns(["subscriber_id", "id"])
    .execute();
}
