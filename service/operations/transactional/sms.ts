// SendSmsWithSenderName and refills: pricing by segments, and credits that queue instead of refusing.
//
// Pricing. A text made only of the GSM 03.38 default alphabet is GSM-7: one septet a character, two for
// the extension table (form feed ^ { } \ [ ] ~ | €); up to 160 septets is one segment, a longer text is
// sent in parts of 153 septets (the rest carries the concatenation header), and an extension character's
// two septets never straddle two parts. Anything else is UCS-2, counted in UTF-16 code units: up to 70 is
// one segment, else parts of 67, and a surrogate pair (an emoji) never straddles two parts. The cost is
// segments × the account's price per segment, fixed when the call is made. An empty message never gets
// here (the operation's required-parameter rule refuses it); a text longer than MAX_SEGMENTS is refused.
//
// Credits. A send locks the account row (FOR UPDATE on PostgreSQL; SQLite writes are serial), and pays
// at once only when the credits cover the cost AND no older SMS of the account is still waiting, so
// waiting messages go out strictly oldest first. Otherwise the SMS is stored as `waiting`, unpaid: never
// refused. A refill adds the credits and then pays waiting messages oldest first while they fit,
// stopping at the first that does not, in the same transaction. Every change of the balance writes a
// ledger row with the balance after it, so the ledger's amounts sum to the balance; it is never negative.
// An SMS that goes dead in delivery (sms-outbox.ts) gets its cost back (ledger reason "refund"), as does
// one paid before its number sent STOP (sms-events.ts); one sent to a number that had is never charged.

import { clientError, ErrorCodes } from "../../../generated/server.js";
import type { SendSmsWithSenderNameParams, SmsSingleMessageResult } from "../../../generated/types.js";
import type { Store } from "../../db/database.js";
import type { Account, SmsMessage } from "../../db/schema.js";
import { formatDecimal, parseDecimal } from "../../common/decimal.js";
import type { Kysely, Transaction } from "kysely";
import type { Db } from "../../db/database.js";
import type { Database } from "../../db/schema.js";
import type { AccountCheck } from "../../tables/accounts.js";
import {
  STOPPED_ERROR,
  changeCredits,
  countWaiting,
  insertSms,
  insertSmsPostgres,
  isStopped,
  lockedCredits,
  queueWaitingSms,
  waitingSms,
} from "../../tables/sms.js";

/** The most segments one SMS may have (1,530 GSM-7 characters or 670 UCS-2 code units). */
export const MAX_SEGMENTS = 10;
/** The most characters (UTF-16 units) MAX_SEGMENTS can carry in any encoding: 10 GSM-7 parts of 153. */
const MAX_CHARACTERS = MAX_SEGMENTS * 153;

export type SmsEncoding = "GSM-7" | "UCS-2";

export interface SmsPricing {
  readonly encoding: SmsEncoding;
  /** Septets (GSM-7) or UTF-16 code units (UCS-2). */
  readonly units: number;
  readonly segments: number;
}

/** The GSM 03.38 default alphabet (every position but the escape, 0x1B). */
const GSM_BASIC =
  "@£$¥èéùìòÇ\nØø\rÅåΔ_ΦΓΛΩΠΨΣΘΞÆæßÉ !\"#¤%&'()*+,-./0123456789:;<=>?" +
  "¡ABCDEFGHIJKLMNOPQRSTUVWXYZÄÖÑÜ§¿abcdefghijklmnopqrstuvwxyzäöñüà";
/** The extension table: escape + one septet each. */
const GSM_EXTENSION = "\f^{}\\[~]|€";

const SEPTETS = new Map<string, number>([
  ...[...GSM_BASIC].map((c) => [c, 1] as const),
  ...[...GSM_EXTENSION].map((c) => [c, 2] as const),
]);

/** Parts needed for units of the given sizes, packed greedily, none split across two parts. */
function pack(sizes: readonly number[], single: number, part: number): number {
  const total = sizes.reduce((a, b) => a + b, 0);
  if (total <= single) return 1;
  let parts = 1;
  let used = 0;
  for (const size of sizes) {
    if (used + size > part) {
      parts++;
      used = size;
    } else {
      used += size;
    }
  }
  return parts;
}

/** The encoding, length and segments of a text, as described at the top of this file. */
export function priceSms(text: string): SmsPricing {
  const characters = [...text];
  const septets = characters.map((c) => SEPTETS.get(c));
  if (septets.every((s) => s !== undefined)) {
    const sizes = septets as number[];
    return { encoding: "GSM-7", units: sizes.reduce((a, b) => a + b, 0), segments: pack(sizes, 160, 153) };
  }
  const sizes = characters.map((c) => c.length);
  return { encoding: "UCS-2", units: text.length, segments: pack(sizes, 70, 67) };
}

/** A recipient as checked: country calling code and national number, digits only. */
export interface SmsRecipient {
  readonly countryCode: string;
  readonly phoneNumber: string;
}

function invalidFormat(parameter: string, why: string) {
  return clientError(ErrorCodes.InvalidFormat, `${parameter} ${why}.`, { parameter });
}

/**
 * strCountryCode: 1 to 3 digits, optionally written `+46` or `0046`. strPhoneNumber: digits, spaces and
 * dashes allowed and removed, at least 4 digits, and at most 15 digits with the country code (E.164).
 */
export function checkRecipient(countryCode: string, phoneNumber: string): SmsRecipient {
  const cc = countryCode.trim().replace(/^(\+|00)/, "");
  if (!/^[1-9]\d{0,2}$/.test(cc))
    throw invalidFormat("strCountryCode", "must be a country calling code of 1 to 3 digits (as 46 or +46)");
  const number = phoneNumber.trim().replace(/[\s-]+/g, "");
  if (!/^\d+$/.test(number)) {
    throw invalidFormat(
      "strPhoneNumber",
      "must be the national number in digits (spaces and dashes allowed), without the country code",
    );
  }
  if (number.length < 4 || cc.length + number.length > 15) {
    throw invalidFormat("strPhoneNumber", "must have at least 4 digits and at most 15 with the country code");
  }
  return { countryCode: cc, phoneNumber: number };
}

/** The sender name: not blank, no control characters (its length is the generated rule's). */
function checkSender(name: string): string {
  const trimmed = name.trim();
  if (trimmed === "" || /[\u0000-\u001f\u007f-\u009f]/.test(trimmed)) {
    throw clientError(
      ErrorCodes.InvalidValue,
      "senderName must be a visible name of at most 16 characters.",
      { parameter: "senderName" },
    );
  }
  return trimmed;
}

/** Pays one SMS: new balance on the account, a ledger row (the message is queued by the caller). */
async function pay(trx: Db, accountId: number, smsId: number, cost: bigint, balance: bigint, now: number) {
  await changeCredits(trx, accountId, -cost, balance, "sms", smsId, now);
}

/** A send as checked and priced: what its write needs. */
export interface SmsRequest {
  readonly sender: string;
  readonly recipient: SmsRecipient;
  readonly message: string;
  readonly pricing: SmsPricing;
}

/**
 * SendSmsWithSenderName's parameters checked (sender, recipient, length) and the text priced, before
 * anything is read or written: InvalidValue, InvalidFormat or TooLong naming the parameter.
 */
export function smsRequest(params: SendSmsWithSenderNameParams): SmsRequest {
  const sender = checkSender(params.senderName);
  const recipient = checkRecipient(params.strCountryCode, params.strPhoneNumber);
  if (params.strMessage.length > MAX_CHARACTERS) {
    // Every character is at least one septet or one UTF-16 unit: more than MAX_SEGMENTS for sure, so
    // refused before pricing spreads the text into an array of its characters.
    throw clientError(
      ErrorCodes.TooLong,
      `strMessage is longer than ${MAX_SEGMENTS} segments can carry (${MAX_CHARACTERS} GSM-7 characters or 670 UCS-2 units); at most ${MAX_SEGMENTS} are sent as one SMS.`,
      { parameter: "strMessage" },
    );
  }
  const pricing = priceSms(params.strMessage);
  if (pricing.segments > MAX_SEGMENTS) {
    throw clientError(
      ErrorCodes.TooLong,
      `strMessage needs ${pricing.segments} segments (${pricing.encoding}); at most ${MAX_SEGMENTS} are sent as one SMS.`,
      { parameter: "strMessage" },
    );
  }
  return { sender, recipient, message: params.strMessage, pricing };
}

/**
 * SendSmsWithSenderName for an authenticated account: checks the parameters, prices the text and, in one
 * write transaction, pays and queues it (enough credits, nothing older waiting) or stores it waiting.
 * Returns the message id, its cost and the credits left after this call; `onQueued` is told after the
 * commit when the message was paid (wakes the delivery worker).
 */
export async function sendSms(
  store: Store,
  account: Pick<Account, "id">,
  params: SendSmsWithSenderNameParams,
  now: number,
  onQueued?: () => void,
): Promise<SmsSingleMessageResult> {
  const request = smsRequest(params);
  const { pricing } = request;
  const outcome = await store.write(async (trx) => {
    const { credits, price, waiting } = await lockedCredits(trx, store.engine, account.id);
    // A number that sent STOP (sms-events.ts): kept as `stopped`, never sent, nothing charged.
    const stopped = await isStopped(trx, request.recipient.countryCode, request.recipient.phoneNumber);
    const cost = stopped ? 0n : price * BigInt(pricing.segments);
    const paid = !stopped && waiting === 0 && credits >= cost;
    const inserted = await insertSms(trx, {
      account_id: account.id,
      sender_name: request.sender,
      country_code: request.recipient.countryCode,
      phone_number: request.recipient.phoneNumber,
      message: request.message,
      encoding: pricing.encoding,
      segments: pricing.segments,
      cost: formatDecimal(cost),
      state: stopped ? "stopped" : paid ? "queued" : "waiting",
      next_attempt_at: now,
      lease_owner: null,
      lease_until: null,
      last_error: stopped ? STOPPED_ERROR : null,
      created_at: now,
      paid_at: paid ? now : null,
      sent_at: null,
    });
    const left = paid ? credits - cost : credits;
    if (paid) await pay(trx, account.id, inserted, cost, left, now);
    else if (!stopped) await countWaiting(trx, account.id, 1);
    return {
      paid,
      result: { Id: BigInt(inserted), CreditCost: formatDecimal(cost), TotalCredits: formatDecimal(left) },
    };
  });
  if (outcome.paid) onQueued?.();
  return outcome.result;
}

/** What sendSmsPostgres did: nothing when the account no longer matched the check. */
export type PostgresSmsOutcome =
  | { readonly account: undefined }
  | { readonly account: Account; readonly paid: boolean; readonly result: SmsSingleMessageResult };

/**
 * sendSms on PostgreSQL as one statement (one round trip, atomic on its own), the credentials check
 * included: the account row is locked (FOR UPDATE) only when it still matches `check`, and the decision
 * (stopped when the number sent STOP; else pay at once when no SMS of the account waits and the credits
 * cover the cost, else store it waiting)
 * is taken on that locked row, the latest version whatever committed while the statement waited for the
 * lock; the SMS, the new balance or waiting count, and the ledger row are written as sendSms writes
 * them. The decimals are PostgreSQL numerics printed by trim_scale (PostgreSQL 13 and later), the same
 * text as formatDecimal's. When the account no longer matches, nothing is written.
 */
export async function sendSmsPostgres(
  db: Kysely<Database>,
  check: AccountCheck,
  request: SmsRequest,
  now: number,
): Promise<PostgresSmsOutcome> {
  const { pricing } = request;
  const row = await insertSmsPostgres(
    db,
    check,
    {
      sender: request.sender,
      countryCode: request.recipient.countryCode,
      phoneNumber: request.recipient.phoneNumber,
      message: request.message,
      encoding: pricing.encoding,
      segments: pricing.segments,
    },
    now,
  );
  if (row?.account === null || row?.account === undefined) return { account: undefined };
  return {
    account: row.account,
    paid: row.paid === true,
    result: { Id: BigInt(row.sms_id!), CreditCost: row.cost!, TotalCredits: row.credits_left! },
  };
}

export interface RefillResult {
  /** Credits after the refill and the payments it made. */
  readonly balance: string;
  /** Waiting SMS paid and queued by this refill, oldest first. */
  readonly paid: readonly number[];
  /** SMS of the account still waiting for credits. */
  readonly stillWaiting: number;
}

/** Refused refill amount: not a positive decimal with at most six places. */
export class RefillError extends Error {}

/**
 * Adds `amount` (a positive exact decimal) to the account's credits with a ledger row, then pays its
 * waiting SMS oldest first while they fit, stopping at the first that does not: one transaction.
 */
export async function refill(
  store: Store,
  accountId: number,
  amount: string,
  now: number,
  reason = "refill",
): Promise<RefillResult> {
  let value: bigint;
  try {
    value = parseDecimal(amount.trim(), "the amount");
  } catch (error) {
    throw new RefillError(error instanceof Error ? error.message : String(error));
  }
  if (value <= 0n) throw new RefillError(`the amount must be more than 0, not "${amount}"`);
  return store.write(async (trx) => {
    const { credits } = await lockedCredits(trx, store.engine, accountId);
    const balance = credits + value;
    await changeCredits(trx, accountId, value, balance, reason, null, now);
    return payWaiting(trx, accountId, balance, now);
  });
}

/** Pays the account's waiting SMS oldest first while they fit in `balance` (the account row is locked). */
async function payWaiting(
  trx: Transaction<Database>,
  accountId: number,
  balance: bigint,
  now: number,
): Promise<RefillResult> {
  const waiting = await waitingSms(trx, accountId);
  const paid: number[] = [];
  for (const sms of waiting) {
    const cost = parseDecimal(sms.cost, "sms_messages.cost");
    if (cost > balance) break;
    balance -= cost;
    await queueWaitingSms(trx, sms.id, now);
    await pay(trx, accountId, sms.id, cost, balance, now);
    paid.push(sms.id);
  }
  if (paid.length > 0) await countWaiting(trx, accountId, -paid.length);
  return { balance: formatDecimal(balance), paid, stillWaiting: waiting.length - paid.length };
}

/**
 * Gives a dead SMS's cost back to its account with a ledger row, then pays waiting SMS it now covers (as a
 * refill does), inside the transaction that made it dead.
 */
export async function refundSms(
  trx: Transaction<Database>,
  engine: Store["engine"],
  sms: Pick<SmsMessage, "id" | "account_id" | "cost">,
  now: number,
): Promise<void> {
  const cost = parseDecimal(sms.cost, "sms_messages.cost");
  if (cost === 0n) return;
  const { credits } = await lockedCredits(trx, engine, sms.account_id);
  const balance = credits + cost;
  await changeCredits(trx, sms.account_id, cost, balance, "refund", sms.id, now);
  await payWaiting(trx, sms.account_id, balance, now);
}

/** An SMS's recipient in international form: `+` country code national number. */
export function smsAddress(sms: Pick<SmsMessage, "country_code" | "phone_number">): string {
  return `+${sms.country_code}${sms.phone_number}`;
}
