// Sending statistics: what became of one newsletter sending, for the admin CLI (`sending show`, `sending
// stats`) and the console. Every query is scoped by the account; the counts are the sending's counters
// (service/tables/sending-counters.ts: kept as each event is written, equal to a recount of the raw rows),
// so a sending of a million recipients reads one row.
//
// The counts:
// - recipients: the members the sending was expanded to; sent: those whose message was queued;
//   skipped: unsubscribed or opted out before their turn; cancelled: still waiting when it was cancelled.
// - Of the queued messages (mail_outbox): accepted (the receiving server took it), pending (waiting for
//   delivery or a retry, or held while the sending is paused), failed (given up: refused or retried for
//   the whole period), withdrawn (cancelled before delivery).
// - bounced: messages with a bounce reported (hard: permanent, soft: temporary; a message counts once, as
//   hard when it has both); complaints: messages reported as spam (feedback loops); delivered: accepted
//   messages with no bounce reported.
// - opens and clicks: unique is recipients with at least one, total is every one recorded (within the
//   tracking bounds: a replayed token records nothing more). Clicks per link likewise.
// - unsubscribes: recipients who used this sending's unsubscribe link (this list or all lists).
// - Rates are fractions (0 to 1, null when the base is 0): delivery and bounce of the sent messages;
//   complaint, open, click and unsubscribe of the delivered ones; click-to-open is unique clicks of unique
//   opens.

import type { Kysely, Transaction } from "kysely";
import type { Database } from "../../db/schema.js";
import { type SendingCounters, readSendingCounters } from "../../tables/sending-counters.js";
import { type SendingOverview, sendingOverviews } from "../../tables/sendings.js";
import { linkClickCounts } from "../../tables/tracking.js";

type Db = Kysely<Database> | Transaction<Database>;

export interface SendingRates {
  readonly delivery: number | null;
  readonly bounce: number | null;
  readonly hardBounce: number | null;
  readonly softBounce: number | null;
  readonly complaint: number | null;
  readonly open: number | null;
  readonly click: number | null;
  readonly clickToOpen: number | null;
  readonly unsubscribe: number | null;
}

export interface SendingStatistics {
  readonly id: number;
  readonly newsletter: { readonly id: number; readonly name: string };
  readonly list: { readonly id: number; readonly name: string };
  readonly state: string;
  readonly fromEmail: string;
  readonly sendAt: number;
  readonly finishedAt: number | null;
  readonly recipients: number;
  readonly sent: number;
  readonly skipped: number;
  readonly cancelled: number;
  readonly accepted: number;
  readonly pending: number;
  readonly failed: number;
  readonly withdrawn: number;
  readonly delivered: number;
  readonly bounced: { readonly hard: number; readonly soft: number; readonly total: number };
  readonly complaints: number;
  readonly opens: { readonly unique: number; readonly total: number };
  readonly clicks: { readonly unique: number; readonly total: number };
  readonly unsubscribes: number;
  readonly rates: SendingRates;
}

export interface LinkClicks {
  readonly linkId: number;
  readonly url: string;
  readonly unique: number;
  readonly total: number;
}

/** `part / whole` (0 to 1), null when `whole` is 0. */
function rate(part: number, whole: number): number | null {
  return whole > 0 ? part / whole : null;
}

/** A count column as a number (PostgreSQL returns bigint counts as text). */
const num = (value: unknown): number => Number(value ?? 0);

/** A sending's statistics from its row and its counters. */
function statisticsOf(s: SendingOverview, c: SendingCounters): SendingStatistics {
  const delivered = c.accepted - c.accepted_bounced;
  const bounced = c.hard + c.soft;
  const opens = { unique: c.opens, total: c.opens_total };
  const clicks = { unique: c.clickers, total: c.clicks_total };
  return {
    id: s.id,
    newsletter: { id: s.newsletter_id, name: s.newsletter_name },
    list: { id: s.list_id, name: s.list_name },
    state: s.state,
    fromEmail: s.from_email,
    sendAt: num(s.send_at),
    finishedAt: s.finished_at === null ? null : num(s.finished_at),
    recipients: num(s.recipients),
    sent: c.sent,
    skipped: c.skipped,
    cancelled: c.cancelled,
    accepted: c.accepted,
    pending: c.pending,
    failed: c.failed,
    withdrawn: c.withdrawn,
    delivered,
    bounced: { hard: c.hard, soft: c.soft, total: bounced },
    complaints: c.complaints,
    opens,
    clicks,
    unsubscribes: c.unsubscribes,
    rates: {
      delivery: rate(delivered, c.sent),
      bounce: rate(bounced, c.sent),
      hardBounce: rate(c.hard, c.sent),
      softBounce: rate(c.soft, c.sent),
      complaint: rate(c.complaints, delivered),
      open: rate(opens.unique, delivered),
      click: rate(clicks.unique, delivered),
      clickToOpen: rate(clicks.unique, opens.unique),
      unsubscribe: rate(c.unsubscribes, delivered),
    },
  };
}

/** The sending's statistics (see the top of this file); undefined when the account has no such sending. */
export async function sendingStatistics(
  db: Db,
  accountId: number,
  sendingId: number,
): Promise<SendingStatistics | undefined> {
  const [s] = await sendingOverviews(db, accountId, { id: sendingId, limit: 1 });
  if (s === undefined) return undefined;
  const counters = await readSendingCounters(db, [s.id]);
  return statisticsOf(s, counters.get(s.id)!);
}

/**
 * The account's sendings newest first (those before `beforeId` when given), at most `limit`, each with its
 * statistics: one keyset page of sendings and one read of their counters.
 */
export async function listSendingStatistics(
  db: Db,
  accountId: number,
  options: { readonly limit: number; readonly beforeId?: number },
): Promise<SendingStatistics[]> {
  const rows = await sendingOverviews(db, accountId, options);
  const counters = await readSendingCounters(
    db,
    rows.map((r) => r.id),
  );
  return rows.map((r) => statisticsOf(r, counters.get(r.id)!));
}

/** Clicks per tracked link of the sending, most unique clicks first, at most `limit` links. */
export async function sendingLinkClicks(
  db: Db,
  accountId: number,
  sendingId: number,
  limit = 100,
): Promise<LinkClicks[]> {
  const rows = await linkClickCounts(db, accountId, sendingId, limit);
  return rows.map((r) => ({ linkId: r.id, url: r.url, unique: r.unique, total: r.total }));
}
