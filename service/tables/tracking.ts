// The tracking table group (tracked_links, tracking_events, tracking_limits): the links a sending's HTML
// was rewritten to, and the opens (kind `view`), clicks and conversions recorded through them.

import type { Db } from "../db/database.js";
import type { Tracking } from "../db/schema.js";

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
