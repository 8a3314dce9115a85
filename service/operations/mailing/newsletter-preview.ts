// Preview and test send of a newsletter (admin CLI `newsletter preview|test-send`, the console).
//
// - previewNewsletter renders a newsletter for one subscriber of the account exactly as a sending would
//   (merge tags, modules in their holders with their filters, the text part derived from the HTML when the
//   template has none, no HTML part for a subscriber whose format is Text), without tracking, and with
//   unsubscribe links that lead nowhere (`{base}/u/preview`: no token, so they act for nobody). Nothing is
//   written.
// - sendTestNewsletter queues that rendering, subject prefixed "[Test] ", to at most MAX_TEST_RECIPIENTS
//   given addresses (outbox kind `test`): no sending, no recipient rows, no tracked links, so no sending's
//   statistics change.

import type { Kysely, Transaction } from "kysely";
import type { Database } from "../../db/schema.js";
import { queueMail } from "../../delivery/mail.js";
import {
  type NewsletterContent,
  type Recipient,
  loadNewsletterContent,
  renderNewsletter,
} from "./newsletters.js";

type Db = Kysely<Database> | Transaction<Database>;

/** Addresses one test send goes to at most. */
export const MAX_TEST_RECIPIENTS = 10;

export interface NewsletterPreview {
  readonly subject: string;
  readonly text: string;
  /** Undefined when the subscriber reads Text or the template has no HTML. */
  readonly html: string | undefined;
}

/** The rendering of loaded newsletter content for one subscriber (see the top of this file). */
function renderPreview(
  content: NewsletterContent,
  subscriber: Recipient,
  baseUrl: string,
): NewsletterPreview {
  const link = `${baseUrl.replace(/\/$/, "")}/u/preview`;
  const rendered = renderNewsletter(
    content.template,
    content.newsletter,
    content.modules,
    subscriber,
    new Map([
      ["unsubscribe", link],
      ["unsubscribe_all", `${link}/all`],
    ]),
  );
  const html =
    subscriber.format.trim().toLowerCase() === "text" || content.template.html.trim() === ""
      ? undefined
      : rendered.html;
  return { subject: rendered.subject, text: rendered.text, html };
}

/** The account's newsletter rendered for the subscriber; undefined when the account has no such newsletter. */
export async function previewNewsletter(
  db: Db,
  accountId: number,
  newsletterId: number,
  subscriber: Recipient,
  baseUrl: string,
): Promise<NewsletterPreview | undefined> {
  const content = await loadNewsletterContent(db, accountId, newsletterId);
  return content === undefined ? undefined : renderPreview(content, subscriber, baseUrl);
}

/**
 * Queues the preview (subject "[Test] …") to each address in `trx`; returns the outbox ids. The caller
 * checked the addresses (at most MAX_TEST_RECIPIENTS).
 */
export async function sendTestNewsletter(
  trx: Db,
  accountId: number,
  preview: NewsletterPreview,
  from: { readonly name: string; readonly address: string },
  to: readonly string[],
  now: number,
): Promise<number[]> {
  const domain = from.address.slice(from.address.lastIndexOf("@") + 1);
  const ids: number[] = [];
  for (const address of to.slice(0, MAX_TEST_RECIPIENTS))
    ids.push(
      await queueMail(
        trx,
        {
          accountId,
          kind: "test",
          from,
          to: { name: "", address },
          subject: `[Test] ${preview.subject}`,
          text: preview.text,
          html: preview.html,
        },
        now,
        domain,
      ),
    );
  return ids;
}
