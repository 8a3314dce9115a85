// The tracking table group (tracked_links, tracking_events, tracking_limits): the links a sending's HTML
// was rewritten to (operations/mailing/tracking.ts makes the tokens), the opens (kind `view`), clicks,
// conversions and unsubscribes recorded through them (http/tracking.ts, http/unsubscribe*.ts), and what
// each token has recorded so far, its bound (http/tracking.ts TrackingLimiter decides the bounds). Every
// write and read of the three tables is here (test/repo/table-ownership.test.ts).

import { type Insertable, sql } from "kysely";
import type { Db } from "../db/database.js";
import type { TrackingEventsTable, TrackingLimitsTable, Tracking } from "../db/schema.js";
import { sendingAccountId } from "./sendings.js";

/** URLs per statement when tracked links are looked up by URL. */
const URLS_PER_QUERY = 500;

// ---- Tracked links ----------------------------------------------------------------------------------

/**
 * The tracked_links ids of `urls` for the sending, registering the new ones (insert-or-ignore on (sending,
 * url), then read again: safe against concurrent workers).
 */
export async function trackedLinkIds(
  db: Db,
  accountId: number,
  sendingId: number,
  urls: readonly string[],
): Promise<Map<string, number>> {
  const ids = new Map<string, number>();
  if (urls.length === 0) return ids;
  const read = async (wanted: readonly string[]) => {
    for (let k = 0; k < wanted.length; k += URLS_PER_QUERY) {
      const rows = await db
        .selectFrom("tracked_links")
        .select(["id", "url"])
        .where("sending_id", "=", sendingId)
        .where("url", "in", wanted.slice(k, k + URLS_PER_QUERY))
        .execute();
      for (const row of rows) ids.set(row.url, row.id);
    }
  };
  await read(urls);
  const missing = urls.filter((url) => !ids.has(url));
  if (missing.length > 0) {
    await db
      .insertInto("tracked_links")
      .values(missing.map((url) => ({ account_id: accountId, sending_id: sendingId, url })))
      .onConflict((oc) => oc.columns(["sending_id", "url"]).doNothing())
      .execute();
    await read(missing);
  }
  return ids;
}

/** The account's sending's tracked links, by id. */
export async function sendingLinks(
  db: Db,
  accountId: number,
  sendingId: number,
): Promise<{ id: number; url: string }[]> {
  return db
    .selectFrom("tracked_links")
    .select(["id", "url"])
    .where("account_id", "=", accountId)
    .where("sending_id", "=", sendingId)
    .orderBy("id")
    .execute();
}

/** A tracked link with its account, sending and the tracking its newsletter asked for. */
export interface TrackedLink {
  readonly account_id: number;
  readonly sending_id: number;
  readonly url: string;
  readonly tracking: Tracking;
}

/** The tracked link of that id; undefined when there is none. */
export async function trackedLink(db: Db, linkId: number): Promise<TrackedLink | undefined> {
  return db
    .selectFrom("tracked_links")
    .innerJoin("sendings", "sendings.id", "tracked_links.sending_id")
    .innerJoin("newsletters", "newsletters.id", "sendings.newsletter_id")
    .select([
      "tracked_links.account_id",
      "tracked_links.sending_id",
      "tracked_links.url",
      "newsletters.tracking",
    ])
    .where("tracked_links.id", "=", linkId)
    .executeTakeFirst();
}

/** A tracked link with its clicks: `unique` recipients who clicked it, `total` clicks. */
export interface LinkClickCount {
  readonly id: number;
  readonly url: string;
  readonly unique: number;
  readonly total: number;
}

/**
 * The account's sending's tracked links with their click counters (tables/sending-counters.ts; 0 for a
 * link never clicked), most unique clicks first (ties by link id), at most `limit`.
 */
export async function linkClickCounts(
  db: Db,
  accountId: number,
  sendingId: number,
  limit: number,
): Promise<LinkClickCount[]> {
  const rows = await db
    .selectFrom("tracked_links as l")
    .leftJoin("sending_link_counters as c", (j) =>
      j.onRef("c.sending_id", "=", "l.sending_id").onRef("c.link_id", "=", "l.id"),
    )
    .select([
      "l.id",
      "l.url",
      sql<number>`coalesce(c.clickers, 0)`.as("unique"),
      sql<number>`coalesce(c.clicks, 0)`.as("total"),
    ])
    .where("l.sending_id", "=", sendingId)
    .where("l.account_id", "=", accountId)
    .orderBy(sql`coalesce(c.clickers, 0)`, "desc")
    .orderBy("l.id")
    .limit(limit)
    .execute();
  return rows.map((r) => ({
    id: r.id,
    url: r.url,
    unique: Number(r.unique ?? 0),
    total: Number(r.total ?? 0),
  }));
}

// ---- Recording events ---------------------------------------------------------------------------------

/** An event to record (its id made by the database). */
export type NewTrackingEvent = Omit<Insertable<TrackingEventsTable>, "id">;

/** Records one event. */
export async function recordTrackingEvent(db: Db, event: NewTrackingEvent): Promise<void> {
  await db.insertInto("tracking_events").values(event).execute();
}

/**
 * Records that a recipient used the sending's unsubscribe link (this list or all lists): once per
 * recipient and sending, so a replayed link adds no row; nothing for a sending that is gone.
 */
export async function recordUnsubscribe(
  db: Db,
  sendingId: number,
  subscriberId: number,
  now: number,
): Promise<void> {
  const accountId = await sendingAccountId(db, sendingId);
  if (accountId === undefined) return;
  const seen = await db
    .selectFrom("tracking_events")
    .select("id")
    .where("sending_id", "=", sendingId)
    .where("kind", "=", "unsubscribe")
    .where("subscriber_id", "=", subscriberId)
    .executeTakeFirst();
  if (seen !== undefined) return;
  await recordTrackingEvent(db, {
    account_id: accountId,
    sending_id: sendingId,
    subscriber_id: subscriberId,
    kind: "unsubscribe",
    link_id: null,
    value: null,
    created_at: now,
  });
}

/** One token's counter: a recipient of a sending, and the link (0 for views). */
export interface TokenCounter {
  readonly kind: TrackingLimitsTable["kind"];
  readonly sendingId: number;
  readonly subscriberId: number;
  readonly linkId: number;
}

/** What a token has recorded: in its current window (started at window_start), and in all. */
export interface TokenCount {
  readonly window_start: number;
  readonly window_count: number;
  readonly total: number;
}

/**
 * Counts one event of the token, in one atomic upsert, when it stays within `limit` (at most `perWindow`
 * in a window of `windowMs` that starts with the first event after the last one ended, `total` in all);
 * `admitted` false (nothing written) when not. `count` is the token's count after the call (undefined
 * only if its row vanished meanwhile). Record the event in the same transaction.
 */
export async function countTokenEvent(
  db: Db,
  key: TokenCounter,
  now: number,
  limit: { readonly perWindow: number; readonly total: number },
  windowMs: number,
): Promise<{ admitted: boolean; count: TokenCount | undefined }> {
  const ended = now - windowMs;
  const counted = await db
    .insertInto("tracking_limits")
    .values({
      sending_id: key.sendingId,
      subscriber_id: key.subscriberId,
      link_id: key.linkId,
      kind: key.kind,
      window_start: now,
      window_count: 1,
      total: 1,
    })
    .onConflict((oc) =>
      oc
        .columns(["sending_id", "subscriber_id", "link_id", "kind"])
        .doUpdateSet({
          window_start: sql<number>`case when tracking_limits.window_start <= ${ended} then ${now} else tracking_limits.window_start end`,
          window_count: sql<number>`case when tracking_limits.window_start <= ${ended} then 1 else tracking_limits.window_count + 1 end`,
          total: sql<number>`tracking_limits.total + 1`,
        })
        .where(
          sql<boolean>`tracking_limits.total < ${limit.total} and (tracking_limits.window_start <= ${ended} or tracking_limits.window_count < ${limit.perWindow})`,
        ),
    )
    .returning(["window_start", "window_count", "total"])
    .executeTakeFirst();
  const count =
    counted ??
    (await db
      .selectFrom("tracking_limits")
      .select(["window_start", "window_count", "total"])
      .where("sending_id", "=", key.sendingId)
      .where("subscriber_id", "=", key.subscriberId)
      .where("link_id", "=", key.linkId)
      .where("kind", "=", key.kind)
      .executeTakeFirst());
  return { admitted: counted !== undefined, count };
}

// ---- Reports ----------------------------------------------------------------------------------------

/** The account's sending's clicks per tracked link (links without clicks absent). */
export async function clicksByLink(
  db: Db,
  accountId: number,
  sendingId: number,
): Promise<Map<number, number>> {
  const rows = await db
    .selectFrom("tracking_events")
    .select(["link_id", (eb) => eb.fn.countAll<number | string | bigint>().as("n")])
    .where("account_id", "=", accountId)
    .where("sending_id", "=", sendingId)
    .where("kind", "=", "click")
    .groupBy("link_id")
    .execute();
  const counts = new Map<number, number>();
  for (const row of rows) if (row.link_id !== null) counts.set(row.link_id, Number(row.n));
  return counts;
}

/** The account's sending's conversions: the link of each and its value (decimal text, or null/empty). */
export async function sendingConversions(
  db: Db,
  accountId: number,
  sendingId: number,
): Promise<{ link_id: number | null; value: string | null }[]> {
  return db
    .selectFrom("tracking_events")
    .select(["link_id", "value"])
    .where("account_id", "=", accountId)
    .where("sending_id", "=", sendingId)
    .where("kind", "=", "conversion")
    .execute();
}

/** A view of a sending, with the subscriber it was recorded for (null fields when that one is gone). */
export interface SubscriberView {
  readonly subscriber_id: number;
  readonly created_at: number;
  readonly email: string | null;
  readonly name: string | null;
  /** The subscriber's demographic fields (JSON by field number). */
  readonly fields: string | null;
}

/**
 * The views of the account's sending recorded in [from, to] (epoch ms, both inclusive), oldest first (ties
 * by event id), each with its subscriber's address, name and fields when the account still has it.
 */
export async function sendingViews(
  db: Db,
  accountId: number,
  sendingId: number,
  from: number,
  to: number,
): Promise<SubscriberView[]> {
  return db
    .selectFrom("tracking_events")
    .leftJoin("subscribers", (join) =>
      join
        .onRef("subscribers.id", "=", "tracking_events.subscriber_id")
        .on("subscribers.account_id", "=", accountId),
    )
    .select([
      "tracking_events.subscriber_id",
      "tracking_events.created_at",
      "subscribers.email",
      "subscribers.name",
      "subscribers.fields",
    ])
    .where("tracking_events.account_id", "=", accountId)
    .where("tracking_events.sending_id", "=", sendingId)
    .where("tracking_events.kind", "=", "view")
    .where("tracking_events.created_at", ">=", from)
    .where("tracking_events.created_at", "<=", to)
    .orderBy("tracking_events.created_at")
    .orderBy("tracking_events.id")
    .execute();
}

/** An open, click, conversion or unsubscribe of a subscriber, with its newsletter and link. */
export interface SubscriberEvent {
  readonly id: number;
  readonly kind: TrackingEventsTable["kind"];
  readonly created_at: number;
  readonly sending_id: number;
  readonly newsletter: string;
  /** The tracked link's URL (null for a view). */
  readonly url: string | null;
}

/** The account's subscriber's `limit` most recent events, newest first, each with its sending's newsletter. */
export async function subscriberEvents(
  db: Db,
  accountId: number,
  subscriberId: number,
  limit: number,
): Promise<SubscriberEvent[]> {
  return db
    .selectFrom("tracking_events as e")
    .innerJoin("sendings as se", "se.id", "e.sending_id")
    .innerJoin("newsletters as n", "n.id", "se.newsletter_id")
    .leftJoin("tracked_links as t", "t.id", "e.link_id")
    .select(["e.id", "e.kind", "e.created_at", "e.sending_id", "n.name as newsletter", "t.url"])
    .where("e.subscriber_id", "=", subscriberId)
    .where("e.account_id", "=", accountId)
    .orderBy("e.id", "desc")
    .limit(limit)
    .execute();
}

/** A click or view in a trigger's mailings, with its subscriber, newsletter and link. */
export interface TriggerEvent {
  /** The tracked link's URL (null for a view). */
  readonly url: string | null;
  readonly email: string;
  readonly name: string;
  readonly at: number;
  readonly newsletter: string;
  readonly subscriberId: number;
}

/**
 * The account's events of `kind` on the sendings of its trigger recorded in [from, to] (epoch ms, both
 * inclusive), oldest first (ties by event id); events of subscribers no longer there are left out.
 */
export async function triggerEvents(
  db: Db,
  accountId: number,
  triggerId: number,
  kind: "click" | "view",
  from: number,
  to: number,
): Promise<TriggerEvent[]> {
  const rows = await db
    .selectFrom("tracking_events as e")
    .innerJoin("sendings as s", "s.id", "e.sending_id")
    .innerJoin("subscribers as sub", "sub.id", "e.subscriber_id")
    .innerJoin("newsletters as n", "n.id", "s.newsletter_id")
    .leftJoin("tracked_links as l", "l.id", "e.link_id")
    .select(["l.url", "sub.email", "sub.name", "e.created_at", "n.name as newsletter", "e.subscriber_id"])
    .where("s.trigger_id", "=", triggerId)
    .where("s.account_id", "=", accountId)
    .where("e.account_id", "=", accountId)
    .where("e.kind", "=", kind)
    .where("e.created_at", ">=", from)
    .where("e.created_at", "<=", to)
    .orderBy("e.created_at")
    .orderBy("e.id")
    .execute();
  return rows.map((r) => ({
    url: r.url,
    email: r.email,
    name: r.name,
    at: Number(r.created_at),
    newsletter: r.newsletter,
    subscriberId: r.subscriber_id,
  }));
}
