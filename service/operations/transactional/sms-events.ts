// What the SMS gateway reports back (http/sms-webhook.ts takes it): messages people send to the gateway's
// number, of which STOP and START are acted on, and delivery receipts of the SMS the service sent.
//
// STOP: the gateway's number is the service's, shared by every account (a sender name is only a label),
// so a recipient who answers STOP cannot say which account they mean: the number is opted out of every
// SMS of the service (table sms_stops). Its SMS still waiting for credits become `stopped` at once; one
// already paid becomes `stopped` when the delivery worker reaches it, and its credits go back; a later
// SendSmsWithSenderName to it is answered (an id, CreditCost 0) and stored `stopped`, never sent or
// charged. START takes the number off again; what was stopped stays stopped.
//
// Numbers are compared as E.164 digits. A national number given with its trunk 0 (`+46 0701…`) is the
// same number as without (`+46 701…`) for STOP, as the gateway reports the sender without it.

import type { Store } from "../../db/database.js";
import { addStop, receiptOf, removeStop, setReceipt } from "../../tables/sms.js";

/** Keywords acted on (the whole message, any case, surrounding spaces and punctuation ignored). */
const STOP_WORDS = new Set(["stop", "stopall", "unsubscribe", "cancel", "end", "quit"]);
const START_WORDS = new Set(["start", "unstop"]);

/** Receipt statuses a gateway may report; the final ones are never replaced by a later other one. */
const RECEIPT_STATUSES = [
  "accepted",
  "queued",
  "sent",
  "delivered",
  "undelivered",
  "failed",
  "expired",
  "rejected",
] as const;
export type ReceiptStatus = (typeof RECEIPT_STATUSES)[number];
const FINAL: ReadonlySet<string> = new Set(["delivered", "undelivered", "failed", "expired", "rejected"]);

/** An event the gateway sent that cannot be taken: names the field and the rule. */
export class SmsEventError extends Error {}

/** `+46701234567`, `0046 70-123 45 67` → "46701234567"; refused unless 8 to 15 digits with a country code. */
export function e164(text: unknown, field: string): string {
  if (typeof text !== "string")
    throw new SmsEventError(`${field} must be a phone number in international form, as +46701234567`);
  const compact = text.trim().replace(/[\s().-]+/g, "");
  const digits = compact.startsWith("+")
    ? compact.slice(1)
    : compact.startsWith("00")
      ? compact.slice(2)
      : "";
  if (!/^[1-9]\d{7,14}$/.test(digits))
    throw new SmsEventError(
      `${field} must be a phone number in international form (+ and 8 to 15 digits), as +46701234567`,
    );
  return digits;
}

export interface InboundOutcome {
  readonly action: "stopped" | "started" | "none";
  /** E.164 digits of the sender. */
  readonly number: string;
  /** SMS waiting for credits that became stopped. */
  readonly stoppedWaiting: number;
}

/** The keyword a message is, if any. */
export function keywordOf(text: string): "stop" | "start" | undefined {
  const word = text
    .trim()
    .replace(/^[\s\p{P}]+|[\s\p{P}]+$/gu, "")
    .toLowerCase();
  if (STOP_WORDS.has(word)) return "stop";
  if (START_WORDS.has(word)) return "start";
  return undefined;
}

/** A message someone sent to the gateway's number: STOP, START or anything else (nothing done). */
export async function recordInbound(
  store: Store,
  from: string,
  text: string,
  now: number,
): Promise<InboundOutcome> {
  const keyword = keywordOf(text);
  if (keyword === "stop") return stopNumber(store, from, text.trim().slice(0, 32).toUpperCase(), now);
  if (keyword === "start") {
    await startNumber(store, from);
    return { action: "started", number: from, stoppedWaiting: 0 };
  }
  return { action: "none", number: from, stoppedWaiting: 0 };
}

/** Opts a number (E.164 digits) out of every SMS; its SMS waiting for credits become stopped. */
export async function stopNumber(
  store: Store,
  number: string,
  keyword: string,
  now: number,
): Promise<InboundOutcome> {
  return store.write(async (trx) => {
    const stoppedWaiting = await addStop(trx, store.engine, number, keyword, now);
    return { action: "stopped", number, stoppedWaiting };
  });
}

/** Takes a number off the STOP list; true when it was on it. What was stopped stays stopped. */
export async function startNumber(store: Store, number: string): Promise<boolean> {
  return removeStop(store.db, number);
}

export interface Receipt {
  readonly id: number;
  readonly status: ReceiptStatus;
  readonly detail: string | undefined;
  /** When the gateway says it happened (ms); the time it arrived when not given. */
  readonly at: number;
}

/** Reads one receipt object; throws SmsEventError naming the field. */
export function parseReceipt(value: Record<string, unknown>, now: number): Receipt {
  const id = value.id;
  if (typeof id !== "number" || !Number.isSafeInteger(id) || id < 1)
    throw new SmsEventError("id must be the SMS's id as the service sent it (a positive integer)");
  const status = typeof value.status === "string" ? value.status.trim().toLowerCase() : "";
  if (!(RECEIPT_STATUSES as readonly string[]).includes(status))
    throw new SmsEventError(`status must be one of ${RECEIPT_STATUSES.join(", ")}`);
  let at = now;
  if (value.at !== undefined) {
    at = typeof value.at === "string" ? Date.parse(value.at) : Number.NaN;
    if (!Number.isFinite(at)) throw new SmsEventError("at must be a time in ISO 8601 form with a zone");
  }
  if (value.detail !== undefined && typeof value.detail !== "string")
    throw new SmsEventError("detail must be text");
  const detail = typeof value.detail === "string" ? value.detail.slice(0, 500) : undefined;
  return { id, status: status as ReceiptStatus, detail, at };
}

/**
 * Records a delivery receipt on its SMS. "unknown": no SMS has that id, or it was never handed to the
 * gateway; "kept": the SMS already has a final status and this one is not newer and final.
 */
export async function recordReceipt(
  store: Store,
  receipt: Receipt,
): Promise<"recorded" | "kept" | "unknown"> {
  return store.write(async (trx) => {
    const sms = await receiptOf(trx, receipt.id);
    // Waiting or stopped SMS never reached the gateway. A queued one may have: the gateway can answer
    // before the worker has marked it sent.
    if (sms === undefined || sms.state === "waiting" || sms.state === "stopped") return "unknown";
    const keep =
      sms.receipt_status !== null &&
      FINAL.has(sms.receipt_status) &&
      !(FINAL.has(receipt.status) && receipt.at >= (sms.receipt_at ?? 0));
    if (keep) return "kept";
    await setReceipt(trx, receipt.id, receipt.status, receipt.detail ?? null, receipt.at);
    return "recorded";
  });
}
