// The signed one-click unsubscribe link of a sending's messages. Each message has `List-Unsubscribe:
// <{publicUrl}/u/{token}>` and `List-Unsubscribe-Post: List-Unsubscribe=One-Click` (RFC 8058);
// `{{unsubscribe}}` in the template is the same link. The token binds sending, subscriber and list with an
// HMAC-SHA256 under the `link_key` secret ("unsub\0" is prefixed to the MAC input, so it can never pass
// for a tracking token). The route that takes it is service/http/unsubscribe.ts.

import { createHmac, timingSafeEqual } from "node:crypto";
import type { Db } from "../../db/database.js";
import { secretValue } from "../../tables/secrets.js";

/** The `link_key` secret as bytes (made by the migrations). */
export async function unsubscribeKey(db: Db): Promise<Buffer> {
  return Buffer.from(await secretValue(db, "link_key"), "base64url");
}

function unsubscribeMac(key: Buffer, payload: string): Buffer {
  return createHmac("sha256", key).update(`unsub\0${payload}`).digest();
}

/** The token of one recipient's unsubscribe link: `sending.subscriber.list.mac` (mac base64url). */
export function unsubscribeToken(
  key: Buffer,
  sendingId: number,
  subscriberId: number,
  listId: number,
): string {
  const payload = `${sendingId}.${subscriberId}.${listId}`;
  return `${payload}.${unsubscribeMac(key, payload).toString("base64url")}`;
}

/** The ids a token names when its MAC verifies; undefined otherwise. */
export function verifyUnsubscribeToken(
  key: Buffer,
  token: string,
): { sendingId: number; subscriberId: number; listId: number } | undefined {
  const m = /^(\d{1,15})\.(\d{1,15})\.(\d{1,15})\.([A-Za-z0-9_-]{43})$/.exec(token);
  if (m === null) return undefined;
  const given = Buffer.from(m[4]!, "base64url");
  // One spelling per token: the last character's two unused bits must be zero (a decoder ignores them, so
  // four spellings would otherwise name the same MAC).
  if (given.toString("base64url") !== m[4]) return undefined;
  const expected = unsubscribeMac(key, `${m[1]}.${m[2]}.${m[3]}`);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined;
  return { sendingId: Number(m[1]), subscriberId: Number(m[2]), listId: Number(m[3]) };
}
