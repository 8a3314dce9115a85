// `POST /sms/webhook` on the service's port: what the SMS gateway reports back (operations/transactional/
// sms-events.ts records it). `Authorization: Bearer <SMS_WEBHOOK_TOKEN>` (without the token set there is no
// such route). The body is JSON, one event or an array of at most 100:
//
//   {"type":"inbound","from":"+46701234567","text":"STOP"}            a message sent to the gateway's number
//   {"type":"receipt","id":17,"status":"delivered","at":"…Z","detail":"…"}   a delivery receipt of SMS 17
//
// Every event is checked before any is recorded: one bad event is 400 naming its index and field, and
// nothing changes. 200 with `{"results":[…]}`, one per event: `{"action":"stopped"|"started"|"none"}` or
// `{"receipt":"recorded"|"kept"|"unknown"}`. 401 for a wrong token, 413 past 64 KiB, 415 for a body that
// is not JSON, 429 past SMS_WEBHOOK_RATE requests a minute from one address.

import type http from "node:http";
import type { Store } from "../db/database.js";
import {
  e164,
  parseReceipt,
  type Receipt,
  recordInbound,
  recordReceipt,
  SmsEventError,
} from "../operations/transactional/sms-events.js";
import { clientAddress } from "./client-address.js";
import { RateLimiter, readBody, tokenMatches } from "./webhook.js";

const SMS_WEBHOOK_MAX_BYTES = 64 * 1024;
const MAX_EVENTS = 100;
/** Longest inbound text read (a concatenated SMS of 10 parts is 1,530 characters at most). */
const MAX_TEXT = 2000;

export interface SmsWebhookOptions {
  /** SHA-256 of SMS_WEBHOOK_TOKEN. */
  readonly tokenHash: Buffer;
  readonly perMinute: number;
  readonly now: () => number;
  readonly log: (entry: Record<string, unknown>) => void;
}

type SmsEvent =
  | { readonly type: "inbound"; readonly from: string; readonly text: string }
  | { readonly type: "receipt"; readonly receipt: Receipt };

function parseEvent(value: unknown, at: string, now: number): SmsEvent {
  if (typeof value !== "object" || value === null || Array.isArray(value))
    throw new SmsEventError(`${at} must be an object with "type"`);
  const event = value as Record<string, unknown>;
  try {
    if (event.type === "inbound") {
      if (typeof event.text !== "string" || event.text.length > MAX_TEXT)
        throw new SmsEventError(`text must be the message's text (at most ${MAX_TEXT} characters)`);
      return { type: "inbound", from: e164(event.from, "from"), text: event.text };
    }
    if (event.type === "receipt") return { type: "receipt", receipt: parseReceipt(event, now) };
    throw new SmsEventError('type must be "inbound" or "receipt"');
  } catch (error) {
    if (error instanceof SmsEventError) throw new SmsEventError(`${at}: ${error.message}`);
    throw error;
  }
}

/** The events of a body; throws SmsEventError naming what is wrong. */
function parseSmsEvents(body: Buffer, now: number): SmsEvent[] {
  let json: unknown;
  try {
    json = JSON.parse(body.toString("utf8"));
  } catch {
    throw new SmsEventError("the body must be JSON: one event object or an array of them");
  }
  if (!Array.isArray(json)) return [parseEvent(json, "the event", now)];
  if (json.length === 0 || json.length > MAX_EVENTS)
    throw new SmsEventError(`an array of events holds 1 to ${MAX_EVENTS}`);
  return json.map((value, i) => parseEvent(value, `event ${i}`, now));
}

/** `POST /sms/webhook` (see the top of this file). */
export function smsWebhook(store: Store, options: SmsWebhookOptions) {
  const limiter = new RateLimiter(options.perMinute);
  return async (req: http.IncomingMessage, res: http.ServerResponse): Promise<void> => {
    const send = (status: number, body: unknown, extra: Record<string, string> = {}) => {
      res.writeHead(status, { "content-type": "application/json", "cache-control": "no-store", ...extra });
      res.end(`${JSON.stringify(body)}\n`);
    };
    if (req.method !== "POST") return send(405, { error: "POST only" }, { allow: "POST" });
    const source = clientAddress(req);
    if (!limiter.take(source, options.now()))
      return send(429, { error: "too many requests" }, { "retry-after": "60", connection: "close" });
    if (!tokenMatches(req, options.tokenHash))
      return send(
        401,
        { error: "Authorization: Bearer <SMS_WEBHOOK_TOKEN> needed" },
        { "www-authenticate": 'Bearer realm="sms"', connection: "close" },
      );
    if (!/^application\/json\b/i.test(req.headers["content-type"] ?? ""))
      return send(415, { error: "Content-Type must be application/json" }, { connection: "close" });
    const body = await readBody(req, SMS_WEBHOOK_MAX_BYTES);
    if (body === undefined)
      return send(
        413,
        { error: `the body is at most ${SMS_WEBHOOK_MAX_BYTES} bytes` },
        { connection: "close" },
      );
    let events: SmsEvent[];
    try {
      events = parseSmsEvents(body, options.now());
    } catch (error) {
      if (error instanceof SmsEventError) return send(400, { error: error.message });
      throw error;
    }
    const results: Record<string, unknown>[] = [];
    for (const event of events) {
      if (event.type === "inbound") {
        const outcome = await recordInbound(store, event.from, event.text, options.now());
        // The number is personal data: the log keeps only what was done.
        if (outcome.action !== "none")
          options.log({ event: `sms.${outcome.action}`, stoppedWaiting: outcome.stoppedWaiting });
        results.push({ action: outcome.action });
      } else {
        const outcome = await recordReceipt(store, event.receipt);
        results.push({ receipt: outcome });
      }
    }
    return send(200, { results });
  };
}
