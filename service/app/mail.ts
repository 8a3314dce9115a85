// Outgoing mail as RFC 5322 text, queued in mail_outbox in the writer's transaction (so a message exists
// exactly when what caused it was committed), delivered later by the outbox worker.

import { randomBytes } from "node:crypto";
import type { Db } from "./subscribers.js";

export interface MailInput {
  readonly accountId: number;
  readonly kind: string;
  readonly from: { readonly name: string; readonly address: string };
  readonly to: { readonly name: string; readonly address: string };
  readonly subject: string;
  readonly text: string;
  readonly headers?: Readonly<Record<string, string>>;
}

/** An RFC 2047 encoded word when the text is not plain ASCII, else the text. */
function headerText(text: string): string {
  const oneLine = text.replace(/[\r\n]+/g, " ");
  return /^[\x20-\x7e]*$/.test(oneLine) ? oneLine : `=?UTF-8?B?${Buffer.from(oneLine, "utf8").toString("base64")}?=`;
}

function mailbox(name: string, address: string): string {
  const safeAddress = address.replace(/[\r\n<>]/g, "");
  if (name === "") return `<${safeAddress}>`;
  const display = headerText(name);
  return `${display.startsWith("=?") ? display : `"${display.replace(/["\\]/g, "\\$&")}"`} <${safeAddress}>`;
}

/** The whole message: headers, a blank line, the body as quoted-printable-free base64 UTF-8 text. */
export function renderMessage(input: MailInput, now: number, domain: string): string {
  const body = Buffer.from(input.text.replace(/\r?\n/g, "\r\n"), "utf8").toString("base64").replace(/.{76}/g, "$&\r\n");
  const headers: [string, string][] = [
    ["From", mailbox(input.from.name, input.from.address)],
    ["To", mailbox(input.to.name, input.to.address)],
    ["Subject", headerText(input.subject)],
    ["Date", new Date(now).toUTCString().replace("GMT", "+0000")],
    ["Message-ID", `<${randomBytes(12).toString("hex")}@${domain}>`],
    ["MIME-Version", "1.0"],
    ["Content-Type", "text/plain; charset=utf-8"],
    ["Content-Transfer-Encoding", "base64"],
  ];
  for (const [name, value] of Object.entries(input.headers ?? {})) headers.push([name, value.replace(/[\r\n]+/g, " ")]);
  return `${headers.map(([n, v]) => `${n}: ${v}`).join("\r\n")}\r\n\r\n${body}\r\n`;
}

export async function queueMail(trx: Db, input: MailInput, now: number, domain: string): Promise<void> {
  await trx
    .insertInto("mail_outbox")
    .values({
      account_id: input.accountId,
      kind: input.kind,
      to_address: input.to.address,
      subject: input.subject,
      message: renderMessage(input, now, domain),
      next_attempt_at: now,
      lease_owner: null,
      lease_until: null,
      last_error: null,
      created_at: now,
      sent_at: null,
    })
    .execute();
}
