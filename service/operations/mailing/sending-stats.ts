// Sending statistics: what became of one newsletter sending, for the admin CLI (`sending show`, `sending
// stats`) and the console. Every query is scoped by the account and reads one sending's own rows through
// its indexes (sending_recipients by sending, mail_outbox by id, mail_events by sending, tracking_limits by
// sending): never another sending's or account's.
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

import { type Kysely, type Transaction, sql } from "kysely";
import type { Database } from "../../db/schema.js";

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

/** The sending's statistics (see the top of this file); undefined when the account has no such sending. */
export async function sendingStatistics(
  db: Db,
  accountId: number,
  sendingId: number,
): Promise<SendingStatistics | undefined> {
  const s = await db
    .selectFrom("sendings as s")
    .innerJoin("newsletters as n", "n.id", "s.newsletter_id")
    .innerJoin("mailing_lists as l", "l.id", "s.list_id")
    .select([
      "s.id",
      "s.newsletter_id",
      "n.name as newsletter_name",
      "s.list_id",
      "l.name as list_name",
      "s.state",
      "s.from_email",
      "s.send_at",
      "s.finished_at",
      "s.recipients",
    ])
    .where("s.id", "=", sendingId)
    .where("s.account_id", "=", accountId)
    .executeTakeFirst();
  if (s === undefined) return undefined;

  const byRecipient = await db
    .selectFrom("sending_recipients")
    .select(["state", (eb) => eb.fn.countAll().as("n")])
    .where("sending_id", "=", s.id)
    .groupBy("state")
    .execute();
  const recipientStates = new Map(byRecipient.map((r) => [String(r.state), num(r.n)]));

  const byMail = await db
    .selectFrom("sending_recipients as r")
    .innerJoin("mail_outbox as m", "m.id", "r.mail_id")
    .select(["m.state", (eb) => eb.fn.countAll().as("n")])
    .where("r.sending_id", "=", s.id)
    .groupBy("m.state")
    .execute();
  const mailStates = new Map(byMail.map((r) => [String(r.state), num(r.n)]));

  // One row per message: whether it has a hard bounce, a soft one, a complaint; accepted or not.
  const events = await db
    .selectFrom("mail_events as e")
    .leftJoin("mail_outbox as m", "m.id", "e.mail_id")
    .select([
      "e.mail_id",
      sql<number>`max(case when e.kind = 'hard' then 1 else 0 end)`.as("hard"),
      sql<number>`max(case when e.kind = 'soft' then 1 else 0 end)`.as("soft"),
      sql<number>`max(case when e.kind = 'complaint' then 1 else 0 end)`.as("complaint"),
      sql<number>`max(case when m.state = 'sent' then 1 else 0 end)`.as("accepted"),
    ])
    .where("e.sending_id", "=", s.id)
    .where("e.account_id", "=", accountId)
    .groupBy("e.mail_id")
    .execute();
  let hard = 0;
  let soft = 0;
  let complaints = 0;
  let acceptedBounced = 0;
  for (const e of events) {
    const isHard = num(e.hard) === 1;
    const isSoft = !isHard && num(e.soft) === 1;
    if (isHard) hard++;
    if (isSoft) soft++;
    if (num(e.complaint) === 1) complaints++;
    if ((isHard || isSoft) && num(e.accepted) === 1) acceptedBounced++;
  }

  const tracked = await db
    .selectFrom("tracking_limits")
    .select(["kind", (eb) => eb.fn.countAll().as("rows"), (eb) => eb.fn.sum("total").as("total")])
    .where("sending_id", "=", s.id)
    .where("kind", "in", ["view", "click"])
    .groupBy("kind")
    .execute();
  // Views have one row per recipient (link 0); clicks one per recipient and link.
  const uniqueClicks = await db
    .selectFrom("tracking_limits")
    .select(sql<number>`count(distinct subscriber_id)`.as("n"))
    .where("sending_id", "=", s.id)
    .where("kind", "=", "click")
    .executeTakeFirstOrThrow();
  const view = tracked.find((t) => t.kind === "view");
  const click = tracked.find((t) => t.kind === "click");

  const unsubscribed = await db
    .selectFrom("tracking_events")
    .select(sql<number>`count(distinct subscriber_id)`.as("n"))
    .where("sending_id", "=", s.id)
    .where("account_id", "=", accountId)
    .where("kind", "=", "unsubscribe")
    .executeTakeFirstOrThrow();

  const sent = recipientStates.get("sent") ?? 0;
  const accepted = mailStates.get("sent") ?? 0;
  const delivered = accepted - acceptedBounced;
  const opens = { unique: num(view?.rows), total: num(view?.total) };
  const clicks = { unique: num(uniqueClicks.n), total: num(click?.total) };
  const unsubscribes = num(unsubscribed.n);
  return {
    id: s.id,
    newsletter: { id: s.newsletter_id, name: s.newsletter_name },
    list: { id: s.list_id, name: s.list_name },
    state: s.state,
    fromEmail: s.from_email,
    sendAt: num(s.send_at),
    finishedAt: s.finished_at === null ? null : num(s.finished_at),
    recipients: num(s.recipients),
    sent,
    skipped: recipientStates.get("skipped") ?? 0,
    cancelled: recipientStates.get("cancelled") ?? 0,
    accepted,
    pending: (mailStates.get("queued") ?? 0) + (mailStates.get("held") ?? 0),
    failed: mailStates.get("dead") ?? 0,
    withdrawn: mailStates.get("cancelled") ?? 0,
    delivered,
    bounced: { hard, soft, total: hard + soft },
    complaints,
    opens,
    clicks,
    unsubscribes,
    rates: {
      delivery: rate(delivered, sent),
      bounce: rate(hard + soft, sent),
      hardBounce: rate(hard, sent),
      softBounce: rate(soft, sent),
      complaint: rate(complaints, delivered),
      open: rate(opens.unique, delivered),
      click: rate(clicks.unique, delivered),
      clickToOpen: rate(clicks.unique, opens.unique),
      unsubscribe: rate(unsubscribes, delivered),
    },
  };
}

/** Clicks per tracked link of the sending, most unique clicks first, at most `limit` links. */
export async function sendingLinkClicks(
  db: Db,
  accountId: number,
  sendingId: number,
  limit = 100,
): Promise<LinkClicks[]> {
  const rows = await db
    .selectFrom("tracked_links as l")
    .leftJoin("tracking_limits as t", (j) =>
      j.onRef("t.sending_id", "=", "l.sending_id").onRef("t.link_id", "=", "l.id").on("t.kind", "=", "click"),
    )
    .select([
      "l.id",
      "l.url",
      sql<number>`count(t.subscriber_id)`.as("unique"),
      sql<number>`coalesce(sum(t.total), 0)`.as("total"),
    ])
    .where("l.sending_id", "=", sendingId)
    .where("l.account_id", "=", accountId)
    .groupBy(["l.id", "l.url"])
    .orderBy(sql`count(t.subscriber_id)`, "desc")
    .orderBy("l.id")
    .limit(limit)
    .execute();
  return rows.map((r) => ({ linkId: r.id, url: r.url, unique: num(r.unique), total: num(r.total) }));
}
