// `newsletter preview --account U --id N --subscriber S`: the newsletter rendered for one subscriber
// (subject, text part, HTML part) without sending anything. `newsletter test-send --account U --id N --to
// a@x,b@y [--subscriber S] [--from-email E]`: that rendering, subject "[Test] …", queued to the given
// addresses only; no sending's statistics change (service/operations/mailing/newsletter-preview.ts).

import type { Recipient } from "../operations/mailing/newsletters.js";
import {
  MAX_TEST_RECIPIENTS,
  type NewsletterPreview,
  previewNewsletter,
  sendTestNewsletter,
} from "../operations/mailing/newsletter-preview.js";
import { emailProblem } from "../common/input.js";
import { findSubscriber } from "../tables/subscribers.js";
import { AdminError, type AdminContext, type Noun, findAccount, idOption, verb } from "./context.js";
import { printable } from "./format.js";

/** Links of a preview lead to PUBLIC_URL (as the service's own would), else this. */
const DEFAULT_BASE = "http://127.0.0.1:8080";

async function render(
  ctx: AdminContext,
  accountName: string,
  idText: string,
  subscriberText: string | undefined,
  standIn: string | undefined,
) {
  const account = await findAccount(ctx, accountName);
  const id = idOption(idText);
  const { db } = await ctx.store();
  let subscriber: (Recipient & { id: number }) | undefined;
  if (subscriberText !== undefined) {
    subscriber = await findSubscriber(db, account.id, subscriberText);
    if (subscriber === undefined)
      throw new AdminError(
        `--subscriber: ${account.username} has no subscriber "${printable(subscriberText)}"`,
      );
  } else {
    // A test send without --subscriber: the merge tags of a subscriber with only the first address.
    subscriber = {
      id: 0,
      email: standIn ?? "",
      name: "",
      format: "HTML",
      country_code: "",
      phone: "",
      fields: "{}",
    };
  }
  const preview = await previewNewsletter(
    db,
    account.id,
    id,
    subscriber,
    ctx.io.env.PUBLIC_URL ?? DEFAULT_BASE,
  );
  if (preview === undefined) throw new AdminError(`--id: ${account.username} has no newsletter ${id}`);
  return { account, id, subscriber, preview };
}

function previewText(p: NewsletterPreview): string {
  return `Subject: ${printable(p.subject)}\n\n--- text ---\n${p.text}\n--- html ---\n${p.html ?? "(none: the subscriber reads Text, or the template has no HTML)"}\n`;
}

const preview = verb({
  name: "preview",
  describe: "Show a newsletter rendered for one subscriber (subject, text, HTML) without sending it",
  options: {
    account: { describe: "The account's user name", required: true },
    id: { describe: "The newsletter's id", required: true },
    subscriber: { describe: "The subscriber: an id or an e-mail address", required: true },
  },
  async run(ctx, o) {
    const { subscriber, preview: p } = await render(ctx, o.account, o.id, o.subscriber, undefined);
    return {
      json: { subscriber: subscriber.id, email: subscriber.email, ...p, html: p.html ?? null },
      text: previewText(p),
    };
  },
});

const testSend = verb({
  name: "test-send",
  describe: "Send a newsletter as a test to given addresses (subject [Test] …), touching no statistics",
  options: {
    account: { describe: "The account's user name", required: true },
    id: { describe: "The newsletter's id", required: true },
    to: { describe: `Addresses, comma-separated (at most ${MAX_TEST_RECIPIENTS})`, required: true },
    subscriber: { describe: "Render for this subscriber (id or address); default: the first address only" },
    "from-email": { describe: "Sender address (default: the account's from address)" },
    "from-name": { describe: "Sender name (default: the account's from name)" },
  },
  async run(ctx, o) {
    const to = o.to
      .split(",")
      .map((a) => a.trim())
      .filter((a) => a !== "");
    if (to.length === 0 || to.length > MAX_TEST_RECIPIENTS)
      throw new AdminError(`--to must name 1 to ${MAX_TEST_RECIPIENTS} addresses, comma-separated`);
    for (const address of to) {
      const problem = emailProblem(address);
      if (problem !== undefined) throw new AdminError(`--to: "${printable(address)}" ${problem}`);
    }
    const { account, id, preview: p } = await render(ctx, o.account, o.id, o.subscriber, to[0]);
    const fromEmail = (o["from-email"] ?? account.from_email).trim();
    if (fromEmail === "")
      throw new AdminError("--from-email: the account has no from address; give --from-email");
    const problem = emailProblem(fromEmail);
    if (problem !== undefined) throw new AdminError(`--from-email ${problem}`);
    const from = {
      name: (o["from-name"] ?? account.from_name).replace(/[\r\n]+/g, " ").trim(),
      address: fromEmail,
    };
    const store = await ctx.store();
    const ids = await store.write((trx) => sendTestNewsletter(trx, account.id, p, from, to, ctx.now()));
    return {
      json: { newsletter: id, to, mail: ids },
      text: `newsletter ${id}: test queued to ${to.join(", ")} (outbox ${ids.join(", ")})\n`,
    };
  },
});

export const newsletterNoun: Noun = {
  name: "newsletter",
  describe: "Newsletters: preview, test-send",
  verbs: [preview, testSend],
};
