// Counters of what became of each newsletter sending, kept by the database itself in the transaction that
// records each event, so a sending's statistics (service/operations/mailing/sending-stats.ts: the admin
// CLI and the console) read one row instead of counting a million:
//
// - sending_counters, one row per sending: its recipients by state (sent, skipped, cancelled), their
//   messages by outbox state (pending = queued or held, accepted, failed = dead, withdrawn = cancelled),
//   messages with a bounce (hard; soft = a soft bounce and no hard one), complaints, accepted messages with
//   a bounce (delivered = accepted - accepted_bounced), unique opens (recipients with a view) and every
//   open, unique clickers and every click, and recipients who used its unsubscribe link.
// - sending_link_counters, one row per clicked link: the recipients who clicked it and every click.
// - sending_event_buckets: opens and clicks per minute and per hour (bucket = the bucket's first ms), for
//   a sending's chart over any span in at most a few thousand rows.
//
// Each counter is the count of the raw rows it stands for (sending_recipients, mail_outbox, mail_events,
// tracking_limits, tracking_events; none of them is ever deleted), and the recounts below compute the same
// from those rows (migration 0016's definition): the migration filled the counters from it, the tests
// compare the two.
// They are kept by triggers (defined and created by migration 0016) rather than by each writer, so
// every writer, now and later, keeps them: the sending worker, the outbox's batches, pause and cancel,
// tracking, bounces, unsubscribes. On SQLite a trigger runs per row, inside the writing statement. On
// PostgreSQL it runs once per statement over the statement's rows (transition tables), adding each
// sending's total in sending-id order: a batch of a thousand messages updates each counter row once, and
// two transactions take the counter rows' locks in the same order. Tracking and bounces write one row a
// statement; a bulk load of raw rows (the console bench) calls rebuildSendingCounters afterwards.

import { sql } from "kysely";
import {
  BUCKET_WIDTHS,
  COUNTER_COLUMNS,
  type CounterColumn,
  RECOUNT_LINKS,
  RECOUNT_SENDINGS,
  recountBuckets,
} from "../db/migrations/0016_sending_counters.js";
import type { Db } from "../db/database.js";

export { BUCKET_WIDTHS, rebuildSendingCounters } from "../db/migrations/0016_sending_counters.js";

export type SendingCounters = Record<CounterColumn, number>;

const num = (value: unknown): number => Number(value ?? 0);

/** The counters of these sendings computed from the raw rows (what the counters must equal). */
export async function recountSendingCounters(
  db: Db,
  ids: readonly number[],
): Promise<Map<number, SendingCounters>> {
  if (ids.length === 0) return new Map();
  const { rows } = await sql<
    Record<string, unknown>
  >`${sql.raw(RECOUNT_SENDINGS)} where s.id in (${sql.join(ids)})`.execute(db);
  return new Map(rows.map((r) => [num(r.sending_id), countersOf(r)]));
}

function countersOf(row: Record<string, unknown>): SendingCounters {
  return Object.fromEntries(COUNTER_COLUMNS.map((c) => [c, num(row[c])])) as SendingCounters;
}

/** Zero of every counter: a sending nothing has happened to yet has no row. */
const NO_COUNTS: SendingCounters = countersOf({});

/** The counters of these sendings (no row: all zero). */
export async function readSendingCounters(
  db: Db,
  ids: readonly number[],
): Promise<Map<number, SendingCounters>> {
  const found = new Map<number, SendingCounters>(ids.map((id) => [id, NO_COUNTS]));
  if (ids.length === 0) return found;
  const rows = await db.selectFrom("sending_counters").selectAll().where("sending_id", "in", ids).execute();
  for (const r of rows) found.set(num(r.sending_id), countersOf(r as unknown as Record<string, unknown>));
  return found;
}

export interface LinkCount {
  readonly linkId: number;
  readonly clickers: number;
  readonly clicks: number;
}

/** A sending's clicked links' counts, from the counters or (`recount`) from the raw rows, by link id. */
export async function linkCounts(db: Db, sendingId: number, recount = false): Promise<LinkCount[]> {
  const { rows } = recount
    ? await sql<
        Record<string, unknown>
      >`${sql.raw(RECOUNT_LINKS)} and sending_id = ${sendingId} group by sending_id, link_id order by link_id`.execute(
        db,
      )
    : await sql<
        Record<string, unknown>
      >`select link_id, clickers, clicks from sending_link_counters where sending_id = ${sendingId} order by link_id`.execute(
        db,
      );
  return rows.map((r) => ({ linkId: num(r.link_id), clickers: num(r.clickers), clicks: num(r.clicks) }));
}

export interface EventBucket {
  /** The bucket's first ms. */
  readonly bucket: number;
  readonly opens: number;
  readonly clicks: number;
}

/**
 * A sending's opens and clicks per `width` bucket (one of BUCKET_WIDTHS) from `from` (ms, inclusive) to
 * `to` (exclusive), oldest first; from the counters or (`recount`) from the raw rows.
 */
export async function eventBuckets(
  db: Db,
  sendingId: number,
  width: (typeof BUCKET_WIDTHS)[number],
  from: number,
  to: number,
  recount = false,
): Promise<EventBucket[]> {
  const { rows } = recount
    ? await sql<
        Record<string, unknown>
      >`select * from (${sql.raw(recountBuckets(width))} and sending_id = ${sendingId} group by sending_id, created_at - created_at % ${sql.lit(width)}) b where bucket >= ${from} and bucket < ${to} order by bucket`.execute(
        db,
      )
    : await sql<
        Record<string, unknown>
      >`select bucket, opens, clicks from sending_event_buckets where sending_id = ${sendingId} and width = ${width} and bucket >= ${from} and bucket < ${to} order by bucket`.execute(
        db,
      );
  return rows.map((r) => ({ bucket: num(r.bucket), opens: num(r.opens), clicks: num(r.clicks) }));
}

/** The first and last minute (ms) with an open or click of the sending; undefined when none. */
export async function eventSpan(
  db: Db,
  sendingId: number,
): Promise<{ first: number; last: number } | undefined> {
  const row = await db
    .selectFrom("sending_event_buckets")
    .select([sql<number | null>`min(bucket)`.as("first"), sql<number | null>`max(bucket)`.as("last")])
    .where("sending_id", "=", sendingId)
    .where("width", "=", BUCKET_WIDTHS[0])
    .executeTakeFirst();
  if (row?.first === null || row?.first === undefined || row.last === null) return undefined;
  return { first: num(row.first), last: num(row.last) };
}
