// `subscriber find | show | update | export | erase`: one person's data in an account
// (service/tables/subscriber-data.ts): search by address, everything about one subscriber (memberships,
// opt-out, consents, mail), a change of their fields, the whole of it as one JSON document (a data
// subject's access request), and erasure that keeps the sendings' counts (docs/mail.md "Consent and
// data rights").

import { rm } from "node:fs/promises";
import { join } from "node:path";
import { emailProblem } from "../common/input.js";
import { MAX_COUNTRY_CODE, MAX_FIELD_VALUE, MAX_NAME, MAX_PHONE, longerThan } from "../common/limits.js";
import type { Account, Subscriber } from "../db/schema.js";
import { findSubscriber } from "../tables/subscribers.js";
import {
  MAX_FOUND,
  type SubscriberChanges,
  type SubscriberData,
  eraseSubscriber,
  isErased,
  searchSubscribers,
  subscriberData,
  updateSubscriber,
} from "../tables/subscriber-data.js";
import {
  AdminError,
  type AdminContext,
  type Noun,
  findAccount,
  isUniqueViolation,
  verb,
  wholeNumber,
} from "./context.js";
import { jsonText, record, table, timeJson, timeText } from "./format.js";

const account = { describe: "User name of the account", required: true } as const;
const subscriberOption = {
  describe: "The subscriber: its id, or its e-mail address (any case)",
  required: true,
} as const;

async function subscriberOf(ctx: AdminContext, owner: Account, text: string): Promise<Subscriber> {
  const { db } = await ctx.store();
  const found = await findSubscriber(db, owner.id, text);
  if (found === undefined || isErased(found))
    throw new AdminError(`--subscriber: ${owner.username} has no subscriber "${text.trim()}"`);
  return found;
}

/** The subscriber's fields as shown: `{"3": "SE"}` as DD3=SE. */
function fieldsText(fields: string): string {
  try {
    const parsed = JSON.parse(fields) as Record<string, string>;
    return Object.entries(parsed)
      .map(([n, v]) => `DD${n}=${v}`)
      .join(", ");
  } catch {
    return fields;
  }
}

const find = verb({
  name: "find",
  describe: "Subscribers whose address contains a text (any case), by address",
  options: {
    account,
    email: { describe: "Part of the e-mail address", required: true },
    limit: { describe: `The most shown (1 to ${MAX_FOUND})`, default: "50" },
  },
  async run(ctx, o) {
    const owner = await findAccount(ctx, o.account);
    const limit = wholeNumber(o.limit ?? "50", "--limit", 1, MAX_FOUND);
    if (o.email.trim() === "") throw new AdminError("--email must not be empty");
    const { db } = await ctx.store();
    const found = await searchSubscribers(db, owner.id, o.email.trim(), limit);
    return {
      json: found.map((s) => ({ id: s.id, email: s.email, name: s.name, createdAt: timeJson(s.created_at) })),
      text: table(
        ["id", "email", "name", "since"],
        found.map((s) => [s.id, s.email, s.name, timeText(s.created_at)]),
        `No subscriber of ${owner.username} has "${o.email.trim()}" in the address.`,
      ),
    };
  },
});

/** The data as JSON (times as ISO text). */
function dataJson(data: SubscriberData) {
  const s = data.subscriber;
  return {
    subscriber: {
      id: s.id,
      email: s.email,
      name: s.name,
      format: s.format,
      countryCode: s.country_code,
      phone: s.phone,
      fields: JSON.parse(s.fields) as unknown,
      createdAt: timeJson(s.created_at),
    },
    memberships: data.memberships.map((m) => ({
      ...m,
      joinedAt: timeJson(m.joinedAt),
      changedAt: timeJson(m.changedAt),
    })),
    optedOutAt: timeJson(data.optedOutAt),
    consents: data.consents.map((c) => ({ ...c, at: timeJson(c.at) })),
    confirmations: data.confirmations.map((c) => ({
      ...c,
      expiresAt: timeJson(c.expiresAt),
      usedAt: timeJson(c.usedAt),
    })),
    mails: data.mails.map((m) => ({ ...m, createdAt: timeJson(m.createdAt), sentAt: timeJson(m.sentAt) })),
    mailEvents: data.mailEvents.map((e) => ({ ...e, at: timeJson(e.at) })),
    tracking: data.tracking.map((t) => ({ ...t, at: timeJson(t.at) })),
    transactions: data.transactions.map((t) => ({ ...t, sendAt: timeJson(t.sendAt) })),
    sms: data.sms.map((m) => ({ ...m, createdAt: timeJson(m.createdAt) })),
  };
}

const show = verb({
  name: "show",
  describe: "One subscriber: fields, memberships, opt-out, consents and how much mail they got",
  options: { account, subscriber: subscriberOption },
  async run(ctx, o) {
    const owner = await findAccount(ctx, o.account);
    const { db } = await ctx.store();
    const data = await subscriberData(db, await subscriberOf(ctx, owner, o.subscriber));
    const s = data.subscriber;
    const text =
      record([
        ["id", s.id],
        ["email", s.email],
        ["name", s.name],
        ["format", s.format],
        ["country code", s.country_code],
        ["phone", s.phone],
        ["fields", fieldsText(s.fields)],
        ["since", timeText(s.created_at)],
        ["opted out of all", data.optedOutAt === null ? "no" : timeText(data.optedOutAt)],
        ["mails", data.mails.length],
        ["bounces and complaints", data.mailEvents.length],
        ["opens and clicks", data.tracking.length],
      ]) +
      "\nMemberships:\n" +
      table(
        ["list", "name", "state", "joined", "changed"],
        data.memberships.map((m) => [m.listId, m.list, m.state, timeText(m.joinedAt), timeText(m.changedAt)]),
        "none",
      ) +
      "\nConsents:\n" +
      table(
        ["when", "list", "what", "how", "ip", "user agent"],
        data.consents.map((c) => [timeText(c.at), c.listId ?? "all", c.kind, c.source, c.ip, c.userAgent]),
        "none recorded",
      );
    return { json: dataJson(data), text };
  },
});

const exportVerb = verb({
  name: "export",
  describe: "Everything held about one subscriber, as one JSON document (an access request's answer)",
  options: { account, subscriber: subscriberOption },
  epilog:
    "The subscriber's fields, memberships, opt-out, consents (when, how, IP, user agent, text shown), pending\n" +
    "confirmations, every message to the address (with its stored text), bounces and complaints, opens and\n" +
    "clicks, transactional mail and SMS to the phone. Always JSON, --json or not.",
  async run(ctx, o) {
    const owner = await findAccount(ctx, o.account);
    const { db } = await ctx.store();
    const data = dataJson(await subscriberData(db, await subscriberOf(ctx, owner, o.subscriber)));
    const document = { account: owner.username, exportedAt: timeJson(ctx.now()), ...data };
    return { json: document, text: jsonText(document) };
  },
});

const update = verb({
  name: "update",
  describe: "Change a subscriber's address, name, format, country code, phone or one field",
  options: {
    account,
    subscriber: subscriberOption,
    email: { describe: "New e-mail address" },
    name: { describe: "New name" },
    format: { describe: "Mail format", choices: ["HTML", "Text"] },
    "country-code": { describe: "New country code" },
    phone: { describe: "New phone number" },
    field: { describe: "One demographic field, as N=VALUE (3=SE); an empty value clears it" },
  },
  async run(ctx, o) {
    const owner = await findAccount(ctx, o.account);
    const subscriber = await subscriberOf(ctx, owner, o.subscriber);
    const changes: { -readonly [K in keyof SubscriberChanges]: SubscriberChanges[K] } = {};
    if (o.email !== undefined) {
      const email = o.email.trim();
      const problem = emailProblem(email);
      if (problem !== undefined) throw new AdminError(`--email ${problem}`);
      changes.email = email;
    }
    for (const [option, value, max] of [
      ["--name", o.name, MAX_NAME],
      ["--country-code", o["country-code"], MAX_COUNTRY_CODE],
      ["--phone", o.phone, MAX_PHONE],
    ] as const)
      if (value !== undefined && longerThan(value, max))
        throw new AdminError(`${option} is longer than ${max} characters`);
    if (o.name !== undefined) changes.name = o.name;
    if (o["country-code"] !== undefined) changes.countryCode = o["country-code"];
    if (o.phone !== undefined) changes.phone = o.phone;
    if (o.format !== undefined) {
      if (o.format !== "HTML" && o.format !== "Text") throw new AdminError("--format must be HTML or Text");
      changes.format = o.format;
    }
    if (o.field !== undefined) {
      const match = /^(\d{1,3})=(.*)$/s.exec(o.field);
      const n = match === null ? 0 : Number(match[1]);
      if (match === null || n < 1 || n > owner.dd_fields)
        throw new AdminError(
          `--field must be N=VALUE with N from 1 to ${owner.dd_fields} (the account's fields)`,
        );
      if (longerThan(match[2]!, MAX_FIELD_VALUE))
        throw new AdminError(`--field's value is longer than ${MAX_FIELD_VALUE} characters`);
      const fields = JSON.parse(subscriber.fields) as Record<string, string>;
      if (match[2] === "") delete fields[String(n)];
      else fields[String(n)] = match[2]!;
      changes.fields = JSON.stringify(fields);
    }
    if (Object.keys(changes).length === 0)
      throw new AdminError(
        "nothing to change: give --email, --name, --format, --country-code, --phone or --field",
      );
    const store = await ctx.store();
    try {
      await store.write((trx) => updateSubscriber(trx, subscriber.id, changes));
    } catch (error) {
      if (isUniqueViolation(error))
        throw new AdminError(`--email: ${owner.username} has another subscriber with ${changes.email}`);
      throw error;
    }
    return {
      json: { id: subscriber.id, changed: Object.keys(changes) },
      text: `Subscriber ${subscriber.id} changed: ${Object.keys(changes).join(", ")}.\n`,
    };
  },
});

const erase = verb({
  name: "erase",
  describe: "Erase a subscriber's personal data everywhere, keeping the sendings' counts",
  options: {
    account,
    subscriber: subscriberOption,
    confirm: { describe: "The subscriber's e-mail address again, to confirm", required: true },
    "outbox-dir": {
      describe: "The outbox folder whose <id>.eml files of the subscriber go too",
      default: "$OUTBOX_DIR or data/outbox",
    },
    "sms-dir": {
      describe: "The SMS folder whose <id>.json files of the subscriber go too",
      default: "$SMS_OUTBOX_DIR or data/sms",
    },
  },
  epilog:
    "Removed: the subscriber's row (address, name, phone, fields), memberships, consents, confirmations, the\n" +
    "opt-out entry, the address, subject and text of every message to them (queued ones are cancelled) and\n" +
    "their .eml files, the address in bounce and complaint records, the address of transactional mail, SMS\n" +
    "to their phone (number, text, .json file; unsent ones dead). Kept: every count (recipients, sent,\n" +
    "delivered, bounces, complaints, opens, clicks, unsubscribes), under a subscriber id that names no one.\n" +
    "A later insert of the address makes a new subscriber, not on the opt-out list.",
  async run(ctx, o) {
    const owner = await findAccount(ctx, o.account);
    const subscriber = await subscriberOf(ctx, owner, o.subscriber);
    if (o.confirm.trim().toLowerCase() !== subscriber.email_key)
      throw new AdminError("--confirm must repeat the subscriber's e-mail address");
    const store = await ctx.store();
    const erased = await store.write((trx) => eraseSubscriber(trx, subscriber));
    const env = ctx.io.env;
    const outboxDir = o["outbox-dir"] ?? (env.OUTBOX_DIR || "data/outbox");
    const smsDir = o["sms-dir"] ?? (env.SMS_OUTBOX_DIR || "data/sms");
    for (const id of erased.mailIds) await rm(join(outboxDir, `${id}.eml`), { force: true });
    for (const id of erased.smsIds) await rm(join(smsDir, `${id}.json`), { force: true });
    return {
      json: erased,
      text:
        `Subscriber ${erased.subscriberId} erased: ${erased.memberships} memberships, ${erased.consents} consents, ` +
        `${erased.mailIds.length} messages and ${erased.smsIds.length} SMS emptied; counts kept.\n`,
    };
  },
});

export const subscriberNoun: Noun = {
  name: "subscriber",
  describe: "One person's data in an account: find, show, update, export, erase",
  verbs: [find, show, update, exportVerb, erase],
};
