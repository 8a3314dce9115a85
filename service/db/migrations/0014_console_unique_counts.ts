// Migration 0014_console_unique_counts: a sending's unique opens (its view rows) and unique clickers (its
// click rows' subscribers, in order) as one range of an index each, for the console's sending rates.
// Shipped: never edit it; add the next migration instead.

import type { AnyDb } from "./tables.js";

export async function up(db: AnyDb): Promise<void> {
  await db.schema
    .createIndex("tracking_limits_sending_kind")
    .on("tracking_limits")
    .columns(["sending_id", "kind", "subscriber_id"])
    .execute();
}
