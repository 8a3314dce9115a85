// The auth_throttle table: one row per throttle key (a keyed hash of a name, a source or a (name, source)
// pair) with its recent failures, its delay, its trust and when it may be deleted. What the counts mean and
// which delay a count sets is auth/throttle.ts's; this module reads, counts, delays, trusts and prunes the
// rows, each write in the caller's transaction.

import { sql } from "kysely";
import type { Db, Store } from "../db/database.js";

export interface ThrottleRow {
  readonly key: string;
  readonly failures: number;
  readonly last_failure_at: number;
  readonly blocked_until: number;
  readonly trusted_until: number;
  readonly expires_at: number;
}

const COLUMNS = [
  "key",
  "failures",
  "last_failure_at",
  "blocked_until",
  "trusted_until",
  "expires_at",
] as const;

/** The read of an attempt's three rows, as a prepared statement on SQLite (its three keys). */
export const ROWS_BY_KEY = `select ${COLUMNS.join(", ")} from auth_throttle where key in (?, ?, ?)`;

/** The rows of these keys (those that exist). */
export async function throttleRows(db: Db, keys: readonly string[]): Promise<ThrottleRow[]> {
  return db.selectFrom("auth_throttle").select(COLUMNS).where("key", "in", keys).execute();
}

/**
 * Counts one failure on each key (a new row, or the count left after one failure forgotten per `decayMs`,
 * plus this one, at most `maxCount`); the rows stay locked until the commit on PostgreSQL.
 */
export async function countFailures(
  trx: Db,
  keys: readonly string[],
  now: number,
  decayMs: number,
  maxCount: number,
): Promise<Pick<ThrottleRow, "key" | "failures" | "blocked_until" | "trusted_until">[]> {
  const left = sql<number>`(auth_throttle.failures - (cast(${now} as bigint) - auth_throttle.last_failure_at) / ${sql.lit(decayMs)})`;
  return trx
    .insertInto("auth_throttle")
    .values(
      keys.map((key) => ({
        key,
        failures: 1,
        last_failure_at: now,
        blocked_until: 0,
        trusted_until: 0,
        expires_at: now + decayMs,
      })),
    )
    .onConflict((oc) =>
      oc.column("key").doUpdateSet({
        failures: sql<number>`case when ${left} >= ${sql.lit(maxCount)} then ${sql.lit(maxCount)} when ${left} > 0 then ${left} + 1 else 1 end`,
        last_failure_at: now,
      }),
    )
    .returning(["key", "failures", "blocked_until", "trusted_until"])
    .execute();
}

/** Sets each key's delay end and expiry, in one statement; returns the rows. */
export async function setDelays(
  trx: Db,
  delays: readonly { key: string; blocked: number; expires: number }[],
): Promise<ThrottleRow[]> {
  const byKey = (pick: (d: (typeof delays)[number]) => number) =>
    sql<number>`case ${sql.join(
      delays.map((d) => sql`when key = ${d.key} then cast(${pick(d)} as bigint)`),
      sql` `,
    )} end`;
  return trx
    .updateTable("auth_throttle")
    .set({ blocked_until: byKey((d) => d.blocked), expires_at: byKey((d) => d.expires) })
    .where(
      "key",
      "in",
      delays.map((d) => d.key),
    )
    .returning(COLUMNS)
    .execute();
}

/** Makes the pair's key trusted until `until` and clears its own failures; returns its row. */
export async function trustKey(trx: Db, key: string, until: number): Promise<ThrottleRow> {
  return trx
    .insertInto("auth_throttle")
    .values({
      key,
      failures: 0,
      last_failure_at: 0,
      blocked_until: 0,
      trusted_until: until,
      expires_at: until,
    })
    .onConflict((oc) =>
      oc.column("key").doUpdateSet({
        failures: 0,
        last_failure_at: 0,
        blocked_until: 0,
        trusted_until: until,
        expires_at: until,
      }),
    )
    .returning(COLUMNS)
    .executeTakeFirstOrThrow();
}

/**
 * Deletes at most `limit` expired rows, oldest first. PostgreSQL: rows another transaction holds are
 * skipped, never waited for (no lock-order deadlock).
 */
export async function pruneThrottle(
  trx: Db,
  engine: Store["engine"],
  now: number,
  limit: number,
): Promise<void> {
  const expired = trx
    .selectFrom("auth_throttle")
    .select("key")
    .where("expires_at", "<=", now)
    .orderBy("expires_at")
    .limit(limit);
  await trx
    .deleteFrom("auth_throttle")
    .where("key", "in", engine === "postgres" ? expired.forUpdate().skipLocked() : expired)
    .where("expires_at", "<=", now)
    .execute();
}
