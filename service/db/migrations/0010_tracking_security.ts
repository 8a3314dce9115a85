// Migration 0010_tracking_security: per-token bounds of views, clicks and conversions.
// Shipped: never edit it; add the next migration instead.

import type { AnyDb } from "./tables.js";

export async function up(db: AnyDb): Promise<void> {
  // What each tracking token recorded, so a token's views, clicks and conversions stay within their
  // bound on every instance (tracking.ts TrackingLimiter); link_id 0 for views.
  await db.schema
    .createTable("tracking_limits")
    .addColumn("sending_id", "bigint", (c) => c.notNull())
    .addColumn("subscriber_id", "bigint", (c) => c.notNull())
    .addColumn("link_id", "bigint", (c) => c.notNull())
    .addColumn("kind", "text", (c) => c.notNull())
    .addColumn("window_start", "bigint", (c) => c.notNull())
    .addColumn("window_count", "integer", (c) => c.notNull())
    .addColumn("total", "integer", (c) => c.notNull())
    .addPrimaryKeyConstraint("tracking_limits_pk", ["sending_id", "subscriber_id", "link_id", "kind"])
    .execute();
}
