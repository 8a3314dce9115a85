// Outgoing mail as RFC 5322 text, queued in mail_outbox in the writer's transaction (so a message exists
// exactly when what caused it was committed), delivered later by the outbox worker.

import { randomBytes } from "node:crypto";
import { mailboxField, plainField, unstructuredField } from "./mail-headers.js";
import type { Db } from "../db/database.js";

/** Kinds of mail someone is waiting for: claimed before any bulk mail. */
const PRIORITY_KINDS: readonly string[] = ["confirmation", "transactional"];

/** mail_outbox.priority of a kind: 0 for PRIORITY_KINDS, 1 (bulk) for the rest. */
export function outboxPriority(kind: string): number {
  return PRIORITY_KINDS.includes(kind) ? 0 : 1;
}

export interface MailInput {
  readonly accountId: number;
  readonly kind: string;
  readonly from: { readonly name: string; readonly address: string };
  readonly to: { readonly name: string; readonly address: string };
  readonly subject: string;
  readonly text: string;
  /** An HTML alternative of `text`: the message becomes multipart/alternative (text first, then HTML). */
  readonly html?: string | undefined;
  readonly headers?: Readonly<Record<string, string>>;
}

/** Random bytes taken from for Message-IDs and boundaries: one system call per 4 KiB, not per message. */
const RANDOM_POOL = 4096;
let randomPool = Buffer.alloc(0);
let randomAt = RANDOM_POOL;

/** `n` random bytes (n <= RANDOM_POOL) as hex, from the pool (refilled from randomBytes when used up). */
function randomHex(n: number): string {
  if (randomAt + n > randomPool.length) {
    randomPool = randomBytes(RANDOM_POOL);
    randomAt = 0;
  }
  randomAt += n;
  return randomPool.toString("hex", randomAt - n, randomAt);
}

/** UTF-8 text as base64 in lines of 76 characters, line ends made CRLF first. */
function base64Body(text: string): string {
  return Buffer.from(text.replace(/\r?\n/g, "\r\n"), "utf8").toString("base64").replace(/.{76}/g, "$&\r\n");
}

/**
 * The whole message: headers, a blank line, then the body as base64 UTF-8 text/plain, or, when `html` is
 * given, a multipart/alternative of the text part and the HTML part (each base64 UTF-8).
 */
export function renderMessage(input: MailInput, now: number, domain: string): string {
  const fields: string[] = [
    mailboxField("From", input.from.name, input.from.address),
    mailboxField("To", input.to.name, input.to.address),
    unstructuredField("Subject", input.subject),
  ];
  const headers: [string, string][] = [
    ["Date", new Date(now).toUTCString().replace("GMT", "+0000")],
    ["Message-ID", `<${randomHex(12)}@${domain}>`],
    ["MIME-Version", "1.0"],
  ];
  let body: string;
  if (input.html === undefined) {
    headers.push(["Content-Type", "text/plain; charset=utf-8"], ["Content-Transfer-Encoding", "base64"]);
    body = base64Body(input.text);
  } else {
    // Base64 lines never contain "=_", so the boundary cannot occur inside a part.
    const boundary = `=_alt_${randomHex(12)}`;
    headers.push(["Content-Type", `multipart/alternative; boundary="${boundary}"`]);
    const part = (type: string, text: string) =>
      `--${boundary}\r\nContent-Type: ${type}; charset=utf-8\r\nContent-Transfer-Encoding: base64\r\n\r\n${base64Body(text)}\r\n`;
    body = `${part("text/plain", input.text)}${part("text/html", input.html)}--${boundary}--`;
  }
  fields.push(...headers.map(([n, v]) => `${n}: ${v}`));
  for (const [name, value] of Object.entries(input.headers ?? {})) fields.push(plainField(name, value));
  return `${fields.join("\r\n")}\r\n\r\n${body}\r\n`;
}

/**
 * Queues the message in the caller's transaction and returns its mail_outbox id. `sendAt` (epoch ms,
 * default `now`) is when the outbox worker may deliver it first, and the message's Date.
 */
export async function queueMail(
  trx: Db,
  input: MailInput,
  now: number,
  domain: string,
  sendAt: number = now,
): Promise<number> {
  const [id] = await queueMails(trx, [input], now, domain, sendAt);
  return id!;
}

/** The mail_outbox row queueMail writes for a message: rendered, due at `sendAt`. */
export function outboxRow(input: MailInput, now: number, domain: string, sendAt: number) {
  const message = renderMessage(input, sendAt, domain);
  return {
    account_id: input.accountId,
    kind: input.kind,
    priority: outboxPriority(input.kind),
    to_address: input.to.address,
    subject: input.subject,
    message,
    message_id: /^Message-ID: <([^>]*)>/m.exec(message)![1]!,
    next_attempt_at: sendAt,
    lease_owner: null,
    lease_until: null,
    last_error: null,
    created_at: now,
    sent_at: null,
  };
}

/** Rows of one multi-row insert into mail_outbox (13 values each: well within both engines' limits). */
const INSERT_CHUNK = 500;

/**
 * queueMail for many messages: one multi-row insert per INSERT_CHUNK messages; returns their ids in the
 * order given. (Each message's Message-ID is random and unique: the returned rows are matched by it, not
 * by their order, which neither engine promises for RETURNING.)
 */
export async function queueMails(
  trx: Db,
  inputs: readonly MailInput[],
  now: number,
  domain: string,
  sendAt: number = now,
): Promise<number[]> {
  const ids: number[] = [];
  for (let k = 0; k < inputs.length; k += INSERT_CHUNK) {
    const values = inputs.slice(k, k + INSERT_CHUNK).map((input) => outboxRow(input, now, domain, sendAt));
    const rows = await trx.insertInto("mail_outbox").values(values).returning(["id", "message_id"]).execute();
    const byMessageId = new Map(rows.map((row) => [row.message_id, row.id]));
    for (const value of values) {
      const id = byMessageId.get(value.message_id);
      if (id === undefined) throw new Error(`mail_outbox: no id returned for message ${value.message_id}`);
      ids.push(id);
    }
  }
  return ids;
}
