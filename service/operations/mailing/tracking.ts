// Tracking of newsletter sendings, as a sending's messages are made: signed tokens and the HTML rewrite a
// sending worker applies to each recipient's message (tracked links, open pixel). The public routes that
// record views, clicks and conversions are service/http/tracking.ts.
//
// A token is `base64url(payload).base64url(mac)`: the payload is the text `o.<sending>.<subscriber>`
// (open), `c.<sending>.<subscriber>.<link>` (click) or `v.<sending>.<subscriber>.<link>` (conversion);
// the mac is HMAC-SHA256(link_key, "track\0" + payload) cut to 128 bits. Everything a token names is
// under the mac, so a token of one message is worth nothing for another, and a click only ever
// redirects to a tracked_links row of the token's own sending, whose URL was checked to be http(s) when
// it was registered (and again before the redirect): the click route cannot be an open redirect.

import { createHmac, timingSafeEqual } from "node:crypto";
import type { Kysely, Transaction } from "kysely";
import type { Store } from "../../db/database.js";
import type { Database, Tracking } from "../../db/schema.js";
import { secretValue } from "../../tables/secrets.js";
import { trackedLinkIds } from "../../tables/tracking.js";

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
    key = secretValue(store.db, "link_key").then((value) => Buffer.from(value, "base64url"));
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
  const [out] = await prepareTrackingBatch(
    trx,
    message,
    [{ subscriberId: message.subscriberId, html }],
    publicUrl,
    key,
  );
  return out!;
}

/** One recipient's HTML in a batch of prepareTrackingBatch. */
export interface TrackedHtml {
  readonly subscriberId: number;
  readonly html: string;
}

/**
 * prepareTracking for many recipients of one sending at once: the links of every HTML are registered
 * and read in one go (a few statements for the batch, not a few per recipient). The result is each
 * recipient's HTML, in the order given.
 */
export async function prepareTrackingBatch(
  trx: Db,
  sending: Omit<TrackingMessage, "subscriberId">,
  items: readonly TrackedHtml[],
  publicUrl: string,
  key: Buffer,
): Promise<string[]> {
  if (sending.tracking !== "all" && sending.tracking !== "roi") return items.map((item) => item.html);
  const base = publicUrl.replace(/\/+$/, "");
  const own = [`${base}/u/`, `${base}/t/`];
  const found = items.map(({ html }) => {
    const spans = findAnchorHrefs(html);
    const targets = spans.map((span) => {
      const raw = decodeAttribute(html.slice(span.start, span.end));
      const url = raw.length > MAX_TRACKED_URL ? undefined : httpUrl(raw.trim());
      return url === undefined || url.length > MAX_TRACKED_URL || own.some((prefix) => url.startsWith(prefix))
        ? undefined
        : url;
    });
    return { spans, targets };
  });
  const urls = new Set<string>();
  for (const { targets } of found) for (const url of targets) if (url !== undefined) urls.add(url);
  const ids = await trackedLinkIds(trx, sending.accountId, sending.sendingId, [...urls]);
  return items.map(({ subscriberId, html }, n) => {
    const { spans, targets } = found[n]!;
    const parts: string[] = [];
    let at = 0;
    spans.forEach((span, k) => {
      const url = targets[k];
      const linkId = url === undefined ? undefined : ids.get(url);
      if (linkId === undefined) return;
      const tracked = `${base}/t/c/${signToken(key, { kind: "c", sendingId: sending.sendingId, subscriberId, linkId })}`;
      parts.push(html.slice(at, span.start), span.quoted ? tracked : `"${tracked}"`);
      at = span.end;
    });
    parts.push(html.slice(at));
    let out = parts.join("");
    if (sending.tracking === "all") {
      const pixel = `<img src="${base}/t/o/${signToken(key, { kind: "o", sendingId: sending.sendingId, subscriberId })}" width="1" height="1" alt="">`;
      const body = out.toLowerCase().lastIndexOf("</body>");
      out = body < 0 ? out + pixel : out.slice(0, body) + pixel + out.slice(body);
    }
    return out;
  });
}
