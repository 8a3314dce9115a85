// Double opt-in: a pending single insert records a confirmation (the hash of a random token, never the
// token) and queues the mail with its link; POST /confirm/{token} (service/http/confirm.ts) makes the
// membership active, once, before the token expires.

import type { Transaction } from "kysely";
import type { Database, MailingList, Account } from "../../db/schema.js";
import { createHash, randomBytes } from "node:crypto";
import type { Store } from "../../db/database.js";
import { confirmMembership } from "../../tables/subscribers.js";
import { recordConsent, type Requester } from "../../tables/consents.js";
import { queueMail } from "../../delivery/mail.js";
import { confirmationUsable, insertConfirmation, useConfirmation } from "../../tables/confirmations.js";

const CONFIRM_TTL_MS = 7 * 24 * 60 * 60 * 1000;

function tokenHash(token: string): string {
  return createHash("sha256").update(token).digest("hex");
}

/**
 * Records a confirmation of the pending membership and queues its mail, in the insert's transaction, and
 * the consent asked for (`requested`: the operation, the caller's address, the mail's text without its link).
 */
export async function queueConfirmation(
  trx: Transaction<Database>,
  pending: { account: Account; list: MailingList; subscriberId: number; email: string; name: string },
  at: number,
  mail: { publicUrl: string; mailFrom: string; domain: string },
  asked: Requester & { readonly source: string },
): Promise<void> {
  const { account: owner, list, email } = pending;
  const token = randomBytes(32).toString("base64url");
  await insertConfirmation(trx, {
    tokenHash: tokenHash(token),
    accountId: owner.id,
    listId: list.id,
    subscriberId: pending.subscriberId,
    expiresAt: at + CONFIRM_TTL_MS,
  });
  const link = `${mail.publicUrl.replace(/\/$/, "")}/confirm/${token}`;
  const subject = `Please confirm your subscription to ${list.name}`;
  const text = (link: string) =>
    `Hello,\n\nplease confirm that you want to receive "${list.name}" at ${email}: open this link and press\n` +
    `the Confirm subscription button on its page:\n\n` +
    `${link}\n\nThe link works once and expires in 7 days. If you did not ask for this, ignore this message.\n`;
  await recordConsent(
    trx,
    {
      accountId: owner.id,
      subscriberId: pending.subscriberId,
      listId: list.id,
      kind: "requested",
      source: asked.source,
      ip: asked.ip,
      userAgent: asked.userAgent,
      text: `${subject}\n\n${text("[confirmation link]")}`,
    },
    at,
  );
  await queueMail(
    trx,
    {
      accountId: owner.id,
      kind: "confirmation",
      from: {
        name: list.from_name || owner.from_name,
        address: list.from_email || owner.from_email || mail.mailFrom,
      },
      to: { name: pending.name, address: email },
      subject,
      text: text(link),
    },
    at,
    mail.domain,
  );
}

const CONFIRM_TOKEN = /^[A-Za-z0-9_-]{43}$/;

/** Whether `token` is a confirmation that is unused and not expired at `at` (reads only). */
export async function confirmationPending(store: Store, token: string, at: number): Promise<boolean> {
  if (!CONFIRM_TOKEN.test(token)) return false;
  return confirmationUsable(store.db, tokenHash(token), at);
}

/**
 * POST /confirm/{token}: a pending membership becomes active, once, and the consent is recorded
 * (`confirmed`: the person's address and browser, the page's text); "expired" and "used" look the same.
 */
export async function confirmSubscription(
  store: Store,
  token: string,
  at: number,
  by: Requester & { readonly shown: string },
): Promise<boolean> {
  if (!CONFIRM_TOKEN.test(token)) return false;
  return store.write(async (trx) => {
    const used = await useConfirmation(trx, tokenHash(token), at);
    if (used === undefined) return false;
    await confirmMembership(trx, used.list_id, used.subscriber_id, at);
    await recordConsent(
      trx,
      {
        accountId: used.account_id,
        subscriberId: used.subscriber_id,
        listId: used.list_id,
        kind: "confirmed",
        source: "confirmation link",
        ip: by.ip,
        userAgent: by.userAgent,
        text: by.shown,
      },
      at,
    );
    return true;
  });
}
