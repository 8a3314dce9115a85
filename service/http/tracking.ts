// The public tracking routes (/t/o, /t/c, /t/v) that record views, clicks and conversions of newsletter
// sendings, and their bounds; the tokens they take are made by operations/mailing/tracking.ts.
//
// What a token records is bounded (TRACKING_LIMITS, TrackingLimiter): a recipient's pixel records at most
// one view per window and a fixed number in all, a link at most one click per window and a fixed number
// in all, a conversion has a largest value and a fixed number per recipient and link. Past a bound the
// answer is the same (the GIF, the redirect, 204) and nothing is recorded, so a real person's link never
// breaks and a forwarded or replayed token cannot inflate the reports.

import type http from "node:http";
import type { Store, Db } from "../db/database.js";
import type { TrackingLimitsTable } from "../db/schema.js";
import { DecimalError, SCALE, formatDecimal, parseDecimal } from "../common/decimal.js";
import { sendingAccountId } from "../tables/sendings.js";
import { type TokenCounter, countTokenEvent, recordTrackingEvent, trackedLink } from "../tables/tracking.js";
import { page, sendPage } from "./pages.js";
import { type TokenKind, httpUrl, loadLinkKey, verifyToken } from "../operations/mailing/tracking.js";

// ---------------------------------------------------------------------------------------------------
// The bounds

/** An event kind of tracking_events and tracking_limits. */
export type EventKind = TrackingLimitsTable["kind"];

interface KindLimit {
  /** Events recorded per window (a window starts with the first event after the last one ended). */
  readonly perWindow: number;
  /** Events recorded in all. */
  readonly total: number;
}

export interface TrackingLimits extends Readonly<Record<EventKind, KindLimit>> {
  readonly windowMs: number;
  /** Largest conversion value, in millionths (decimal.ts). */
  readonly maxConversionValue: bigint;
  readonly cacheEntries: number;
}

/**
 * What one recipient's token records at most: views per recipient of a sending, clicks and conversions
 * per recipient and link. The reports count only what was recorded (docs/service.md "Tracking").
 */
export const TRACKING_LIMITS: TrackingLimits = {
  /** Length of a window, ms (10 minutes). */
  windowMs: 10 * 60_000,
  view: { perWindow: 1, total: 50 },
  click: { perWindow: 1, total: 20 },
  conversion: { perWindow: 10, total: 10 },
  /** Largest conversion value (1,000,000,000, with up to 6 places like every value). */
  maxConversionValue: 1_000_000_000n * 10n ** BigInt(SCALE),
  /** Keys the in-process cache of exhausted tokens keeps at most (least recently added dropped first). */
  cacheEntries: 10_000,
};

/** One token's counter: a recipient of a sending, and the link (0 for views). */
type LimitKey = TokenCounter;

/**
 * Admits tracking events within TRACKING_LIMITS. The count lives in the database (tracking_limits, one
 * row per token, updated by one atomic upsert in the transaction that records the event), so the bound
 * holds across instances and restarts. Each process also remembers, for at most `cacheEntries` tokens,
 * until when a token is exhausted, so a flood of one token's requests costs no database work until its
 * window ends: the cache only ever refuses what the database would refuse.
 */
export class TrackingLimiter {
  private readonly exhausted = new Map<string, number>();

  constructor(private readonly limits: TrackingLimits = TRACKING_LIMITS) {}

  private static id(key: LimitKey): string {
    return `${key.kind}.${key.sendingId}.${key.subscriberId}.${key.linkId}`;
  }

  /** Tokens the cache of exhausted tokens holds now (at most `cacheEntries`). */
  get cachedKeys(): number {
    return this.exhausted.size;
  }

  /** Whether the token is known to be exhausted at `now` (no database work). */
  exhaustedAt(key: LimitKey, now: number): boolean {
    const id = TrackingLimiter.id(key);
    const until = this.exhausted.get(id);
    if (until === undefined) return false;
    if (until > now) return true;
    this.exhausted.delete(id);
    return false;
  }

  /**
   * Counts one event of `key` in `trx` when it is within the bounds; false (nothing written) when not.
   * Record the event in the same transaction.
   */
  async admit(trx: Db, key: LimitKey, now: number): Promise<boolean> {
    const limit = this.limits[key.kind];
    const windowMs = this.limits.windowMs;
    const { admitted, count: state } = await countTokenEvent(trx, key, now, limit, windowMs);
    if (state !== undefined) {
      const until =
        state.total >= limit.total
          ? Number.POSITIVE_INFINITY
          : state.window_count >= limit.perWindow
            ? Number(state.window_start) + windowMs
            : undefined;
      if (until !== undefined) this.remember(TrackingLimiter.id(key), until);
    }
    return admitted;
  }

  private remember(id: string, until: number): void {
    this.exhausted.delete(id);
    if (this.exhausted.size >= this.limits.cacheEntries)
      this.exhausted.delete(this.exhausted.keys().next().value as string);
    this.exhausted.set(id, until);
  }
}

// ---------------------------------------------------------------------------------------------------
// The routes

/** A 1×1 transparent GIF. */
const PIXEL_GIF = Buffer.from("R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7", "base64");

const NOT_FOUND_PAGE = page(
  "Link not valid",
  "<p>This link is not valid: it is not complete or not one of ours.</p>",
);

const ROUTE = /^\/t\/([ocv])\/([^/]*)$/;

/**
 * Answers `GET|HEAD /t/o/{token}` (always the 1×1 GIF; a valid token's GET records a view),
 * `/t/c/{token}` (a valid click token of a link of its own sending: GET records a click; 302 to the
 * link's URL; anything else 404, never a redirect) and `/t/v/{token}?value=12.50` (a click or conversion
 * token of a `roi` sending: GET records a conversion with the exact value, 0 when omitted, and answers
 * 204; a value that is not a decimal from 0 to 1,000,000,000 with at most 6 places 400; other tokens
 * 404). A GET records only within `limiter`'s bounds; past them it answers the same and records nothing.
 * Returns false, touching nothing, for any other path.
 */
export async function handleTrackingRequest(
  store: Store,
  req: http.IncomingMessage,
  res: http.ServerResponse,
  now: number,
  limiter: TrackingLimiter,
): Promise<boolean> {
  const [path = "", query = ""] = (req.url ?? "/").split("?", 2);
  const route = ROUTE.exec(path);
  if (route === null) return false;
  const [, kind, text] = route;
  const record = req.method === "GET";
  const key = await loadLinkKey(store);
  const token = verifyToken(key, text!);
  const answer = (status: number, headers: Record<string, string>, body?: string | Buffer) => {
    res.writeHead(status, {
      "cache-control": "no-store, private",
      "referrer-policy": "no-referrer",
      "x-content-type-options": "nosniff",
      ...headers,
    });
    res.end(req.method === "HEAD" ? undefined : body);
  };
  const notFound = () => sendPage(req, res, 404, NOT_FOUND_PAGE);

  if (kind === "o") {
    const counter =
      token?.kind === "o"
        ? ({ kind: "view", sendingId: token.sendingId, subscriberId: token.subscriberId, linkId: 0 } as const)
        : undefined;
    if (record && counter !== undefined && !limiter.exhaustedAt(counter, now)) {
      const accountId = await sendingAccountId(store.db, counter.sendingId);
      if (accountId !== undefined) {
        await store.write(async (trx) => {
          if (!(await limiter.admit(trx, counter, now))) return;
          await recordTrackingEvent(trx, {
            account_id: accountId,
            sending_id: counter.sendingId,
            subscriber_id: counter.subscriberId,
            kind: "view",
            link_id: null,
            value: null,
            created_at: now,
          });
        });
      }
    }
    answer(200, { "content-type": "image/gif", "content-length": String(PIXEL_GIF.length) }, PIXEL_GIF);
    return true;
  }

  const wanted: TokenKind[] = kind === "c" ? ["c"] : ["c", "v"];
  if (token === undefined || !wanted.includes(token.kind) || token.linkId === undefined) {
    notFound();
    return true;
  }
  const link = await trackedLink(store.db, token.linkId);
  const url = link === undefined ? undefined : httpUrl(link.url);
  if (link === undefined || link.sending_id !== token.sendingId || url === undefined) {
    notFound();
    return true;
  }
  const event = {
    account_id: link.account_id,
    sending_id: token.sendingId,
    subscriber_id: token.subscriberId,
    link_id: token.linkId,
    created_at: now,
  };
  /** Records the event when the token's bound admits it (an exhausted token costs no database work). */
  const recordWithin = async (kind: "click" | "conversion", value: string | null) => {
    const counter = {
      kind,
      sendingId: token.sendingId,
      subscriberId: token.subscriberId,
      linkId: token.linkId!,
    };
    if (!record || limiter.exhaustedAt(counter, now)) return;
    await store.write(async (trx) => {
      if (await limiter.admit(trx, counter, now)) await recordTrackingEvent(trx, { ...event, kind, value });
    });
  };

  if (kind === "c") {
    await recordWithin("click", null);
    answer(302, { location: url, "content-type": "text/plain; charset=utf-8" }, "Found.\n");
    return true;
  }

  if (link.tracking !== "roi") {
    notFound();
    return true;
  }
  const values = new URLSearchParams(query).getAll("value");
  let value: string;
  try {
    if (values.length > 1) throw new DecimalError("value is given more than once");
    const parsed = values.length === 0 ? 0n : parseDecimal(values[0]!);
    if (parsed < 0n) throw new DecimalError("value must not be negative");
    if (parsed > TRACKING_LIMITS.maxConversionValue)
      throw new DecimalError(`value must be at most ${formatDecimal(TRACKING_LIMITS.maxConversionValue)}`);
    value = formatDecimal(parsed);
  } catch (error) {
    if (!(error instanceof DecimalError)) throw error;
    answer(400, { "content-type": "text/plain; charset=utf-8" }, `${error.message}\n`);
    return true;
  }
  await recordWithin("conversion", value);
  answer(204, {});
  return true;
}
