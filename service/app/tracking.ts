// Tracking of newsletter sendings: signed tokens, the HTML rewrite a sending worker applies to each
// recipient's message (tracked links, open pixel), and the public routes that record views, clicks and
// conversions.
//
// A token is `base64url(payload).base64url(mac)`: the payload is the text `o.<sending>.<subscriber>`
// (open), `c.<sending>.<subscriber>.<link>` (click) or `v.<sending>.<subscriber>.<link>` (conversion);
// the mac is HMAC-SHA256(link_key, "track\0" + payload) cut to 128 bits. Everything a token names is
// under the mac, so a token of one message is worth nothing for another, and a click only ever
// redirects to a tracked_links row of the token's own sending, whose URL was checked to be http(s) when
// it was registered (and again before the redirect): the click route cannot be an open redirect.
//
// What a token records is bounded (TRACKING_LIMITS, TrackingLimiter): a recipient's pixel records at most
// one view per window and a fixed number in all, a link at most one click per window and a fixed number
// in all, a conversion has a largest value and a fixed number per recipient and link. Past a bound the
// answer is the same (the GIF, the redirect, 204) and nothing is recorded, so a real person's link never
// breaks and a forwarded or replayed token cannot inflate the reports.

import { createHmac, timingSafeEqual } from "node:crypto";
import type http from "node:http";
import { type Kysely, type Transaction, sql } from "kysely";
import type { Store } from "../db/database.js";
import type { Database, Tracking, TrackingLimitsTable } from "../db/schema.js";
import { DecimalError, SCALE, formatDecimal, parseDecimal } from "./decimal.js";
import { page, sendPage } from "./pages.js";

type Db = Kysely<Database> | Transaction<Database>;

/** What a token is for: an open (pixel), a click, a conversion. */
export type TokenKind = "o" | "c" | "v";

/** What a valid token names. `linkId` is set exactly for click and conversion tokens. */
export interface TrackingToken {
  readonly kind: TokenKind;
  readonly sendingId: number;
  readonly subscriberId: number;
  readonly linkId?: number;
}

/** Bytes of the HMAC kept in a token (128 bits). */
const MAC_BYTES = 16;
/** Longest token accepted: far above any real one (ids are below 2^53). */
const MAX_TOKEN_LENGTH = 160;
const BASE64URL = /^[A-Za-z0-9_-]+$/;
const PAYLOAD = /^([ocv])\.([1-9]\d{0,15})\.([1-9]\d{0,15})(?:\.([1-9]\d{0,15}))?$/;

const keys = new WeakMap<Store, Promise<Buffer>>();

/** The signing key (`secrets.link_key`, made by migration 0001), read once per store. */
export function loadLinkKey(store: Store): Promise<Buffer> {
  let key = keys.get(store);
  if (key === undefined) {
    key = store.db
      .selectFrom("secrets")
      .select("value")
      .where("name", "=", "link_key")
      .executeTakeFirstOrThrow(() => new Error("secrets.link_key is missing: the database was not migrated"))
      .then((row) => Buffer.from(row.value, "base64url"));
    keys.set(store, key);
    // A failed read is not cached: the next call tries again.
    key.catch(() => keys.delete(store));
  }
  return key;
}

function mac(key: Buffer, payload: string): Buffer {
  return createHmac("sha256", key).update(`track\0${payload}`, "utf8").digest().subarray(0, MAC_BYTES);
}

/** A signed token for `token` (a click or conversion token needs `linkId`, an open token must not have one). */
export function signToken(key: Buffer, token: TrackingToken): string {
  const ids = [token.sendingId, token.subscriberId, ...(token.linkId === undefined ? [] : [token.linkId])];
  if (
    (token.kind === "o") !== (token.linkId === undefined) ||
    !ids.every((id) => Number.isSafeInteger(id) && id > 0)
  ) {
    throw new Error(`not a valid ${token.kind} token: ${JSON.stringify(token)}`);
  }
  const payload = `${token.kind}.${ids.join(".")}`;
  return `${Buffer.from(payload, "utf8").toString("base64url")}.${mac(key, payload).toString("base64url")}`;
}

/** The base64url text's bytes, when the text is the canonical base64url of them (no lenient decoding). */
function canonicalBase64url(text: string): Buffer | undefined {
  if (!BASE64URL.test(text)) return undefined;
  const bytes = Buffer.from(text, "base64url");
  return bytes.toString("base64url") === text ? bytes : undefined;
}

/** What `text` names when it is a token signed with `key`; undefined for anything else (never throws). */
export function verifyToken(key: Buffer, text: string): TrackingToken | undefined {
  if (text.length > MAX_TOKEN_LENGTH) return undefined;
  const dot = text.indexOf(".");
  if (dot < 0) return undefined;
  const payloadBytes = canonicalBase64url(text.slice(0, dot));
  const given = canonicalBase64url(text.slice(dot + 1));
  if (payloadBytes === undefined || given === undefined || given.length !== MAC_BYTES) return undefined;
  const payload = payloadBytes.toString("latin1");
  if (!timingSafeEqual(given, mac(key, payload))) return undefined;
  const match = PAYLOAD.exec(payload);
  if (match === null) return undefined;
  const [, kind, sending, subscriber, link] = match;
  if ((kind === "o") !== (link === undefined)) return undefined;
  const ids = [sending!, subscriber!, ...(link === undefined ? [] : [link])].map(Number);
  if (!ids.every(Number.isSafeInteger)) return undefined;
  return {
    kind: kind as TokenKind,
    sendingId: ids[0]!,
    subscriberId: ids[1]!,
    ...(link === undefined ? {} : { linkId: ids[2]! }),
  };
}

// ---------------------------------------------------------------------------------------------------
// The HTML rewrite

/** One recipient's message of one sending. */
export interface TrackingMessage {
  readonly accountId: number;
  readonly sendingId: number;
  readonly subscriberId: number;
  /** The newsletter's tracking: `all` (links and pixel), `roi` (links), `no` (nothing). */
  readonly tracking: Tracking;
}

/** Longest URL that is tracked; a longer one is left as it is. */
const MAX_TRACKED_URL = 4096;

/** An `href` value found in an `<a>` tag: where its raw text is in the HTML (quotes excluded). */
interface HrefSpan {
  readonly start: number;
  readonly end: number;
  /** Whether the value was quoted (the replacement then keeps those quotes). */
  readonly quoted: boolean;
}

const isSpace = (c: number): boolean => c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0c || c === 0x0d;
const lower = (c: number): number => (c >= 0x41 && c <= 0x5a ? c + 0x20 : c);

/**
 * The `href` value of every `<a>` tag of `html`, in order. One forward pass: every character is looked
 * at a bounded number of times (a tag is scanned once, quotes included, and the scan resumes after it),
 * so hostile input costs linear time. A tag that never closes ends the scan (nothing after it is a tag).
 */
export function findAnchorHrefs(html: string): HrefSpan[] {
  const spans: HrefSpan[] = [];
  const n = html.length;
  let i = 0;
  while (i < n) {
    const lt = html.indexOf("<", i);
    if (lt < 0 || lt + 2 >= n) break;
    i = lt + 1;
    if (lower(html.charCodeAt(lt + 1)) !== 0x61 /* a */ || !isSpace(html.charCodeAt(lt + 2))) continue;
    // Attributes of an <a> tag: name [= value], up to '>'.
    let p = lt + 2;
    let href: HrefSpan | undefined;
    let closed = false;
    while (p < n) {
      while (p < n && (isSpace(html.charCodeAt(p)) || html.charCodeAt(p) === 0x2f)) p++;
      if (p >= n) break;
      if (html.charCodeAt(p) === 0x3e /* > */) {
        closed = true;
        p++;
        break;
      }
      const nameStart = p;
      while (p < n) {
        const c = html.charCodeAt(p);
        if (isSpace(c) || c === 0x3d || c === 0x3e || c === 0x2f) break;
        p++;
      }
      if (p === nameStart) p++; // a stray character (cannot happen, but never loop in place)
      const name = p - nameStart === 4 ? html.slice(nameStart, p).toLowerCase() : "";
      let q = p;
      while (q < n && isSpace(html.charCodeAt(q))) q++;
      if (q >= n || html.charCodeAt(q) !== 0x3d /* = */) continue; // no value: p stays after the name
      q++;
      while (q < n && isSpace(html.charCodeAt(q))) q++;
      if (q >= n) {
        p = q;
        break;
      }
      const quote = html.charCodeAt(q);
      let span: HrefSpan;
      if (quote === 0x22 || quote === 0x27) {
        const close = html.indexOf(quote === 0x22 ? '"' : "'", q + 1);
        if (close < 0) {
          p = n;
          break;
        }
        span = { start: q + 1, end: close, quoted: true };
        p = close + 1;
      } else {
        let e = q;
        while (e < n && !isSpace(html.charCodeAt(e)) && html.charCodeAt(e) !== 0x3e) e++;
        span = { start: q, end: e, quoted: false };
        p = e;
      }
      if (name === "href" && href === undefined) href = span;
    }
    if (!closed) break;
    if (href !== undefined) spans.push(href);
    i = p;
  }
  return spans;
}

const ENTITY = /&(?:(amp|lt|gt|quot|apos)|#(\d{1,7})|#[xX]([0-9a-fA-F]{1,6}));/g;
const NAMED: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'" };

/** An attribute value's text with the character references a URL may carry decoded. */
function decodeAttribute(value: string): string {
  return value.replace(
    ENTITY,
    (whole, name: string | undefined, dec: string | undefined, hex: string | undefined) => {
      if (name !== undefined) return NAMED[name]!;
      const code = Number.parseInt(dec ?? hex!, dec === undefined ? 16 : 10);
      return code > 0 && code <= 0x10ffff && (code < 0xd800 || code > 0xdfff)
        ? String.fromCodePoint(code)
        : whole;
    },
  );
}

/** The URL's normalized text when it is an absolute http(s) URL; undefined otherwise. */
export function httpUrl(text: string): string | undefined {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return undefined;
  }
  return url.protocol === "http:" || url.protocol === "https:" ? url.href : undefined;
}

/** The tracked_links ids of `urls` for the sending, registering the new ones (safe against concurrent workers). */
async function linkIds(
  trx: Db,
  accountId: number,
  sendingId: number,
  urls: string[],
): Promise<Map<string, number>> {
  const ids = new Map<string, number>();
  if (urls.length === 0) return ids;
  const read = async (wanted: string[]) => {
    for (let k = 0; k < wanted.length; k += 500) {
      const rows = await trx
        .selectFrom("tracked_links")
        .select(["id", "url"])
        .where("sending_id", "=", sendingId)
        .where("url", "in", wanted.slice(k, k + 500))
        .execute();
      for (const row of rows) ids.set(row.url, row.id);
    }
  };
  await read(urls);
  const missing = urls.filter((url) => !ids.has(url));
  if (missing.length > 0) {
    await trx
      .insertInto("tracked_links")
      .values(missing.map((url) => ({ account_id: accountId, sending_id: sendingId, url })))
      .onConflict((oc) => oc.columns(["sending_id", "url"]).doNothing())
      .execute();
    await read(missing);
  }
  return ids;
}

/**
 * One recipient's HTML with tracking per `message.tracking`: for `all` and `roi` every `<a href>` with an
 * absolute http(s) URL becomes `${publicUrl}/t/c/{click token}` (the URL registered in tracked_links for
 * the sending, once per URL); for `all` an open pixel `<img src="${publicUrl}/t/o/{token}">` goes before
 * `</body>` (or at the end). `no` returns the HTML unchanged. mailto:, tel:, relative links, #anchors and
 * the service's own links (`${publicUrl}/u/…` unsubscribe, `${publicUrl}/t/…`) are left alone. Call it in
 * the transaction that records the message, so a link id is never handed out for a row rolled back.
 */
export async function prepareTracking(
  trx: Db,
  message: TrackingMessage,
  html: string,
  publicUrl: string,
  key: Buffer,
): Promise<string> {
  if (message.tracking !== "all" && message.tracking !== "roi") return html;
  const base = publicUrl.replace(/\/+$/, "");
  const own = [`${base}/u/`, `${base}/t/`];
  const spans = findAnchorHrefs(html);
  const targets = spans.map((span) => {
    const raw = decodeAttribute(html.slice(span.start, span.end));
    const url = raw.length > MAX_TRACKED_URL ? undefined : httpUrl(raw.trim());
    return url === undefined || url.length > MAX_TRACKED_URL || own.some((prefix) => url.startsWith(prefix))
      ? undefined
      : url;
  });
  const ids = await linkIds(trx, message.accountId, message.sendingId, [
    ...new Set(targets.filter((u) => u !== undefined)),
  ]);
  const parts: string[] = [];
  let at = 0;
  spans.forEach((span, k) => {
    const url = targets[k];
    const linkId = url === undefined ? undefined : ids.get(url);
    if (linkId === undefined) return;
    const tracked = `${base}/t/c/${signToken(key, { kind: "c", sendingId: message.sendingId, subscriberId: message.subscriberId, linkId })}`;
    parts.push(html.slice(at, span.start), span.quoted ? tracked : `"${tracked}"`);
    at = span.end;
  });
  parts.push(html.slice(at));
  let out = parts.join("");
  if (message.tracking === "all") {
    const pixel = `<img src="${base}/t/o/${signToken(key, { kind: "o", sendingId: message.sendingId, subscriberId: message.subscriberId })}" width="1" height="1" alt="">`;
    const body = out.toLowerCase().lastIndexOf("</body>");
    out = body < 0 ? out + pixel : out.slice(0, body) + pixel + out.slice(body);
  }
  return out;
}

/** The conversion URL for a click of a roi sending (`?value=12.50` is added by the shop's page). */
export function conversionUrl(publicUrl: string, key: Buffer, token: TrackingToken): string {
  return `${publicUrl.replace(/\/+$/, "")}/t/v/${signToken(key, { ...token, kind: "v" })}`;
}

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
export interface LimitKey {
  readonly kind: EventKind;
  readonly sendingId: number;
  readonly subscriberId: number;
  readonly linkId: number;
}

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
    const ended = now - windowMs;
    const values = {
      sending_id: key.sendingId,
      subscriber_id: key.subscriberId,
      link_id: key.linkId,
      kind: key.kind,
    };
    const counted = await trx
      .insertInto("tracking_limits")
      .values({ ...values, window_start: now, window_count: 1, total: 1 })
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
    const state =
      counted ??
      (await trx
        .selectFrom("tracking_limits")
        .select(["window_start", "window_count", "total"])
        .where("sending_id", "=", key.sendingId)
        .where("subscriber_id", "=", key.subscriberId)
        .where("link_id", "=", key.linkId)
        .where("kind", "=", key.kind)
        .executeTakeFirst());
    if (state !== undefined) {
      const until =
        state.total >= limit.total
          ? Number.POSITIVE_INFINITY
          : state.window_count >= limit.perWindow
            ? Number(state.window_start) + windowMs
            : undefined;
      if (until !== undefined) this.remember(TrackingLimiter.id(key), until);
    }
    return counted !== undefined;
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
export const PIXEL_GIF = Buffer.from("R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7", "base64");

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
      const sending = await store.db
        .selectFrom("sendings")
        .select("account_id")
        .where("id", "=", counter.sendingId)
        .executeTakeFirst();
      if (sending !== undefined) {
        await store.write(async (trx) => {
          if (!(await limiter.admit(trx, counter, now))) return;
          await trx
            .insertInto("tracking_events")
            .values({
              account_id: sending.account_id,
              sending_id: counter.sendingId,
              subscriber_id: counter.subscriberId,
              kind: "view",
              link_id: null,
              value: null,
              created_at: now,
            })
            .execute();
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
  const link = await store.db
    .selectFrom("tracked_links")
    .innerJoin("sendings", "sendings.id", "tracked_links.sending_id")
    .innerJoin("newsletters", "newsletters.id", "sendings.newsletter_id")
    .select([
      "tracked_links.account_id",
      "tracked_links.sending_id",
      "tracked_links.url",
      "newsletters.tracking",
    ])
    .where("tracked_links.id", "=", token.linkId)
    .executeTakeFirst();
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
      if (await limiter.admit(trx, counter, now))
        await trx
          .insertInto("tracking_events")
          .values({ ...event, kind, value })
          .execute();
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
