// Reads the console's pages share. Every one is scoped by the account; counts are bounded (a page never
// counts a whole big table: past COUNT_CAP it says "more than").

import { sql } from "kysely";
import type { Store } from "../db/database.js";

export type Db = Store["db"];

/** Rows a page's count reads at most; a count that reaches it is shown as "COUNT_CAP+". */
const COUNT_CAP = 100_000;

/** A bounded count: the number, and whether it reached the cap. */
export interface Bounded {
  readonly n: number;
  readonly more: boolean;
}

/** Counts the rows a query selects, reading at most COUNT_CAP + 1 of them. */
export async function boundedCount(
  db: Db,
  // biome-ignore lint/suspicious/noExplicitAny: any select query of the store
  query: { limit(n: number): any },
): Promise<Bounded> {
  const row = await db
    .selectFrom(query.limit(COUNT_CAP + 1).as("t"))
    .select(sql<number>`count(*)`.as("n"))
    .executeTakeFirstOrThrow();
  const n = Number(row.n);
  return n > COUNT_CAP ? { n: COUNT_CAP, more: true } : { n, more: false };
}

/** A whole-number id from a path or query part; undefined for anything else. */
export function idOf(text: string | null | undefined): number | undefined {
  if (text === null || text === undefined || !/^[1-9]\d{0,15}$/.test(text)) return undefined;
  const n = Number(text);
  return Number.isSafeInteger(n) ? n : undefined;
}

/** A sending as the console shows it: its counts and unique opens and clicks. */
export interface SendingStats {
  readonly id: number;
  readonly newsletter: string;
  readonly list: string;
  readonly state: string;
  readonly sendAt: number;
  readonly finishedAt: number | null;
  readonly recipients: number;
  readonly sent: number;
  readonly bounced: number;
  readonly delivered: number;
  readonly uniqueOpens: number;
  readonly uniqueClicks: number;
}

/**
 * The account's sendings newest first (before `beforeId` when given), at most `limit`, with their counts:
 * bounced is the messages with a hard or soft bounce, delivered the sent ones without; unique opens and
 * clicks are recipients with at least one (the tracking bounds keep one row per recipient, link and kind).
 */
export async function sendingStats(
  db: Db,
  accountId: number,
  options: { limit: number; beforeId?: number; id?: number },
): Promise<SendingStats[]> {
  const rows = await db
    .selectFrom("sendings as s")
    .innerJoin("newsletters as n", "n.id", "s.newsletter_id")
    .innerJoin("mailing_lists as l", "l.id", "s.list_id")
    .select([
      "s.id",
      "n.name as newsletter",
      "l.name as list",
      "s.state",
      "s.send_at",
      "s.finished_at",
      "s.recipients",
      "s.sent",
    ])
    .where("s.account_id", "=", accountId)
    .$if(options.beforeId !== undefined, (q) => q.where("s.id", "<", options.beforeId!))
    .$if(options.id !== undefined, (q) => q.where("s.id", "=", options.id!))
    .orderBy("s.id", "desc")
    .limit(options.limit)
    .execute();
  if (rows.length === 0) return [];
  const ids = rows.map((r) => r.id);
  const bounces = await db
    .selectFrom("mail_events")
    .select(["sending_id", sql<number>`count(distinct mail_id)`.as("n")])
    .where("sending_id", "in", ids)
    .where("account_id", "=", accountId)
    .where("kind", "in", ["hard", "soft"])
    .groupBy("sending_id")
    .execute();
  const opens = await db
    .selectFrom("tracking_limits")
    .select(["sending_id", sql<number>`count(*)`.as("n")])
    .where("sending_id", "in", ids)
    .where("kind", "=", "view")
    .groupBy("sending_id")
    .execute();
  const clicks = await db
    .selectFrom("tracking_limits")
    .select(["sending_id", sql<number>`count(distinct subscriber_id)`.as("n")])
    .where("sending_id", "in", ids)
    .where("kind", "=", "click")
    .groupBy("sending_id")
    .execute();
  const by = (list: readonly { sending_id: number | null; n: number }[]) =>
    new Map(list.map((r) => [Number(r.sending_id), Number(r.n)]));
  const [b, o, c] = [by(bounces), by(opens), by(clicks)];
  return rows.map((r) => {
    const bounced = b.get(r.id) ?? 0;
    return {
      id: r.id,
      newsletter: r.newsletter,
      list: r.list,
      state: r.state,
      sendAt: Number(r.send_at),
      finishedAt: r.finished_at === null ? null : Number(r.finished_at),
      recipients: Number(r.recipients),
      sent: Number(r.sent),
      bounced,
      delivered: Math.max(0, Number(r.sent) - bounced),
      uniqueOpens: o.get(r.id) ?? 0,
      uniqueClicks: c.get(r.id) ?? 0,
    };
  });
}
