// Migration 0007_auth_throttle: sign-in throttling shared by every instance, and its key.
// Shipped: never edit it; add the next migration instead.

import { randomBytes } from "node:crypto";
import type { AnyDb } from "./tables.js";

export async function up(db: AnyDb): Promise<void> {
  // Sign-in throttling shared by every instance (service/auth/throttle.ts): one row per key, a
  // keyed hash of a lower-cased user name, a source address, or the two (never the name or address).
  await db.schema
    .createTable("auth_throttle")
    .addColumn("key", "text", (c) => c.primaryKey())
    .addColumn("failures", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("last_failure_at", "bigint", (c) => c.notNull().defaultTo(0))
    .addColumn("blocked_until", "bigint", (c) => c.notNull().defaultTo(0))
    .addColumn("trusted_until", "bigint", (c) => c.notNull().defaultTo(0))
    .addColumn("expires_at", "bigint", (c) => c.notNull())
    .execute();
  await db.schema.createIndex("auth_throttle_expires").on("auth_throttle").column("expires_at").execute();
  // The key of those hashes, the same for every instance.
  await db
    .insertInto("secrets")
    .values({ name: "auth_key", value: randomBytes(32).toString("base64url") })
    .execute();
}
