// Bounces and complaints: what comes back after mail left, and what the service does about it.
//
// - Return path (VERP). With BOUNCE_DOMAIN set, every message is sent with the envelope sender
//   `bounce-<mail id>-<mac>@<BOUNCE_DOMAIN>`, the mac the first 8 bytes (hex) of HMAC-SHA256 with the
//   database's `link_key` over `bounce\0<mail id>`: a bounce names the very message it is about, and an
//   address nobody was sent cannot be made up. Lower-case hex only: mail systems may fold the case of a
//   local part.
// - Reports are parsed by postal-mime (a maintained MIME parser without dependencies): a delivery status notification
//   (RFC 3464, multipart/report; report-type=delivery-status) gives one verdict per recipient block:
//   Action failed with a 5.x.x Status is a hard bounce, failed with 4.x.x or Action delayed a soft one;
//   delivered, relayed and expanded are no bounce. A feedback report (RFC 5965, ARF, report-type=
//   feedback-report) is a complaint unless its Feedback-Type is not-spam. A report names its message by the
//   VERP address it was sent to, else by the Message-ID of the returned message or headers
//   (message/rfc822, text/rfc822-headers, message/rfc822-headers); one that names none of ours is ignored.
// - Recording (one transaction): a mail_events row per (message, kind) (a repeated report changes
//   nothing); a hard bounce or a complaint puts the address on the account's opt-out-all set (as
//   `optout add` does: no list of the account mails it again); soft bounces of the address in the account
//   within 30 days reaching BOUNCE_SOFT_LIMIT do the same. An SMTP 5xx answer at send time (the outbox's
//   PermanentDeliveryError) is recorded as a hard bounce of that message, source `send`.
// - Input is bounded: a report is at most BOUNCE_MAX_BYTES (the receivers refuse more before parsing),
//   every header block read is cut at 64 KiB and 100 recipient blocks, diagnostics are kept to 500
//   characters.

import { createHmac, timingSafeEqual } from "node:crypto";
import PostalMime from "postal-mime";
import type { Db, Store } from "../../db/database.js";
import { insertMailEvent, softBounceCount } from "../../tables/mail-events.js";
import { addOptout, optoutKey } from "../../tables/optouts.js";
import { recipientOfMail } from "../../tables/sendings.js";

export type BounceKind = "hard" | "soft" | "complaint";

/** What a report says about one recipient of one of our messages. */
export interface Verdict {
  readonly kind: BounceKind;
  /** RFC 3463 status (5.1.1) or the ARF Feedback-Type. */
  readonly status: string;
  readonly diagnostic: string;
}

export interface ParsedReport {
  readonly verdicts: readonly Verdict[];
  /** Message-IDs of the returned message or headers (without angle brackets). */
  readonly messageIds: readonly string[];
}

const MAX_BLOCK = 65_536;
const MAX_BLOCKS = 100;
const MAX_DIAGNOSTIC = 500;
const SOFT_WINDOW_MS = 30 * 24 * 3600_000;

function verpMac(key: Buffer, mailId: number): string {
  return createHmac("sha256", key).update(`bounce\0${mailId}`).digest().subarray(0, 8).toString("hex");
}

/** The envelope sender of mail `mailId`: `bounce-<id>-<mac>@<domain>`. */
export function verpAddress(key: Buffer, mailId: number, domain: string): string {
  return `bounce-${mailId}-${verpMac(key, mailId)}@${domain}`;
}

/** The mail id a VERP address names when its mac verifies (any case, any domain); undefined otherwise. */
export function verpMailId(key: Buffer, address: string): number | undefined {
  const m = /^bounce-(\d{1,15})-([0-9a-f]{16})@[^@\s]{1,255}$/i.exec(address.trim());
  if (m === null) return undefined;
  const id = Number(m[1]);
  const given = Buffer.from(m[2]!.toLowerCase(), "hex");
  const expected = Buffer.from(verpMac(key, id), "hex");
  return given.length === expected.length && timingSafeEqual(given, expected) ? id : undefined;
}

/** Header-like blocks (`Name: value` lines, folded lines joined), separated by blank lines; bounded. */
function fieldBlocks(text: string): Map<string, string>[] {
  const blocks: Map<string, string>[] = [];
  for (const chunk of text.slice(0, MAX_BLOCK).split(/\r?\n[ \t]*\r?\n/)) {
    if (blocks.length >= MAX_BLOCKS) break;
    const fields = new Map<string, string>();
    for (const line of chunk.replace(/\r?\n[ \t]+/g, " ").split(/\r?\n/)) {
      const colon = line.indexOf(":");
      if (colon <= 0) continue;
      const name = line.slice(0, colon).trim().toLowerCase();
      if (!fields.has(name)) fields.set(name, line.slice(colon + 1).trim());
    }
    if (fields.size > 0) blocks.push(fields);
  }
  return blocks;
}

/** The verdicts of an RFC 3464 message/delivery-status body (its per-recipient blocks). */
function deliveryStatusVerdicts(text: string): Verdict[] {
  const verdicts: Verdict[] = [];
  for (const block of fieldBlocks(text)) {
    const action = block.get("action")?.toLowerCase();
    if (action === undefined) continue; // the per-message block
    const status = /\d\.\d{1,3}\.\d{1,3}/.exec(block.get("status") ?? "")?.[0] ?? "";
    const diagnostic = (block.get("diagnostic-code") ?? "").slice(0, MAX_DIAGNOSTIC);
    if (action === "failed")
      verdicts.push({ kind: status.startsWith("4") ? "soft" : "hard", status, diagnostic });
    else if (action === "delayed") verdicts.push({ kind: "soft", status, diagnostic });
  }
  return verdicts;
}

/** The verdict of an RFC 5965 message/feedback-report body; none for not-spam. */
function feedbackVerdicts(text: string): Verdict[] {
  const fields = fieldBlocks(text)[0];
  const type = (fields?.get("feedback-type") ?? "").toLowerCase().slice(0, 50);
  if (type === "" || type === "not-spam") return [];
  return [{ kind: "complaint", status: type, diagnostic: "" }];
}

function messageIdsOf(headersText: string): string[] {
  const id = fieldBlocks(headersText)[0]?.get("message-id");
  const m = id === undefined ? null : /<?([^<>\s]{1,250})>?/.exec(id);
  return m === null ? [] : [m[1]!];
}

/** Reports parsed at once in this process; more wait in turn (at most MAX_WAITING). */
let parsing: Promise<unknown> = Promise.resolve();
let waiting = 0;
const MAX_WAITING = 16;

/** Too many reports wait to be parsed: the receiver answers 451 / 503 and the sender tries later. */
export class ReportsBusyError extends Error {}

/**
 * A report (DSN or ARF) read by postal-mime; undefined when it is neither (or MIME it will not read: more
 * than 20 levels of nesting, more than 32 KiB of headers in all). One parse at a time per process, so
 * hostile reports sent at once cannot stack on the event loop; ReportsBusyError past MAX_WAITING.
 */
async function parseReport(raw: Buffer): Promise<ParsedReport | undefined> {
  if (waiting >= MAX_WAITING) throw new ReportsBusyError("too many reports are being read");
  waiting++;
  const turn = parsing.then(() => parseOne(raw));
  parsing = turn.catch(() => undefined);
  try {
    return await turn;
  } finally {
    waiting--;
  }
}

async function parseOne(raw: Buffer): Promise<ParsedReport | undefined> {
  let mail: Awaited<ReturnType<typeof PostalMime.parse>>;
  try {
    mail = await PostalMime.parse(raw, {
      attachmentEncoding: "utf8",
      forceRfc822Attachments: true,
      maxNestingDepth: 20,
      maxHeadersSize: 32_768,
    });
  } catch {
    return undefined; // not MIME it will read: no report
  }
  const verdicts: Verdict[] = [];
  const messageIds: string[] = [];
  let report = false;
  for (const part of mail.attachments) {
    const type = part.mimeType.toLowerCase();
    const text = (typeof part.content === "string" ? part.content : "").slice(0, MAX_BLOCK);
    if (type === "message/delivery-status" || type === "message/global-delivery-status") {
      report = true;
      verdicts.push(...deliveryStatusVerdicts(text));
    } else if (type === "message/feedback-report") {
      report = true;
      verdicts.push(...feedbackVerdicts(text));
    } else if (
      type === "message/rfc822" ||
      type === "text/rfc822-headers" ||
      type === "message/rfc822-headers" ||
      type === "message/global"
    ) {
      messageIds.push(...messageIdsOf(text));
    }
  }
  return report ? { verdicts, messageIds } : undefined;
}

export interface RecordedEvent {
  readonly mailId: number;
  readonly kind: BounceKind;
  /** The address went on the opt-out-all set now. */
  readonly suppressed: boolean;
}

export interface BounceOptions {
  /** Soft bounces of one address (30 days) that suppress it (BOUNCE_SOFT_LIMIT). */
  readonly softLimit: number;
}

/**
 * Records one verdict about mail `mailId` in `trx` (see the top of this file); undefined when there is no
 * such mail or this message already has an event of this kind.
 */
export async function recordVerdict(
  trx: Db,
  mailId: number,
  verdict: Verdict,
  source: string,
  now: number,
  options: BounceOptions,
): Promise<RecordedEvent | undefined> {
  const mail = await trx
    .selectFrom("mail_outbox")
    .select(["id", "account_id", "to_address"])
    .where("id", "=", mailId)
    .executeTakeFirst();
  if (mail === undefined) return undefined;
  const recipient = await recipientOfMail(trx, mail.id);
  const emailKey = optoutKey(mail.to_address);
  const inserted = await insertMailEvent(trx, {
    account_id: mail.account_id,
    mail_id: mail.id,
    sending_id: recipient?.sending_id ?? null,
    subscriber_id: recipient?.subscriber_id ?? null,
    email_key: emailKey,
    kind: verdict.kind,
    source,
    status: verdict.status.slice(0, 50),
    detail: verdict.diagnostic.slice(0, MAX_DIAGNOSTIC),
    created_at: now,
  });
  if (!inserted) return undefined;
  let suppress = verdict.kind !== "soft";
  if (!suppress) {
    const soft = await softBounceCount(trx, mail.account_id, emailKey, now - SOFT_WINDOW_MS);
    suppress = soft >= options.softLimit;
  }
  const added = suppress ? (await addOptout(trx, mail.account_id, mail.to_address, now)).added : false;
  return { mailId: mail.id, kind: verdict.kind, suppressed: added };
}

/** The ids of our messages with these Message-IDs. */
async function mailsByMessageId(db: Db, messageIds: readonly string[]): Promise<number[]> {
  if (messageIds.length === 0) return [];
  const rows = await db
    .selectFrom("mail_outbox")
    .select("id")
    .where("message_id", "in", messageIds.slice(0, 10))
    .execute();
  return rows.map((r) => r.id);
}

export interface HandledReport {
  /** The report could be read as a DSN or ARF report. */
  readonly report: boolean;
  readonly events: readonly RecordedEvent[];
}

/**
 * Reads a raw report and records its verdicts about the message it names: `verpIds` (the mail ids of
 * the VERP addresses it was sent to) first, else the Message-IDs it returns.
 */
export async function handleReport(
  store: Store,
  raw: Buffer,
  verpIds: readonly number[],
  source: string,
  now: number,
  options: BounceOptions,
): Promise<HandledReport> {
  const parsed = await parseReport(raw);
  if (parsed === undefined) return { report: false, events: [] };
  const ids =
    verpIds.length > 0 ? [...new Set(verpIds)] : await mailsByMessageId(store.db, parsed.messageIds);
  if (ids.length === 0 || parsed.verdicts.length === 0) return { report: true, events: [] };
  // One message per report: the first (worst) verdict of each kind counts once.
  const kinds = new Map<BounceKind, Verdict>();
  for (const v of parsed.verdicts) if (!kinds.has(v.kind)) kinds.set(v.kind, v);
  const events = await store.write(async (trx) => {
    const out: RecordedEvent[] = [];
    for (const id of ids.slice(0, 10))
      for (const verdict of kinds.values()) {
        const event = await recordVerdict(trx, id, verdict, source, now, options);
        if (event !== undefined) out.push(event);
      }
    return out;
  });
  return { report: true, events };
}
