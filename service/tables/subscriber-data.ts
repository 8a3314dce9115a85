// Everything the service holds about one subscriber, across tables: found and changed by the admin CLI's
// `subscriber` noun (admin/subscriber.ts) and the console's search, exported as one JSON document, and
// erased. Erasure removes the personal data (address, name, phone, fields, memberships, consents,
// confirmations, the opt-out entry, the address and text of every message to them, the address in bounce
// records, SMS to their phone) and keeps what counts: a sending's recipients, sent, delivered, bounce,
// complaint, open, click and unsubscribe numbers stay as they were, their rows naming only a subscriber id
// whose row is emptied (kept for the foreign keys of those rows, its key `erased:<id>`).

import { type RawBuilder, sql } from "kysely";
import type { Db } from "../db/database.js";
import type { Engine } from "../db/engine.js";
import type { MembershipState, Subscriber } from "../db/schema.js";
import { confirmationsOf, deleteConfirmations } from "./confirmations.js";
import { consentsOf, deleteConsents, type Consent } from "./consents.js";
import { emailKey } from "./subscribers.js";

/** The email_key of an erased subscriber's emptied row. */
function erasedKey(id: number): string {
  return `erased:${id}`;
}

/** Whether the row is what erasure left of a subscriber. */
export function isErased(subscriber: Pick<Subscriber, "email">): boolean {
  return subscriber.email === "";
}

/** Subscribers a search returns at most. */
export const MAX_FOUND = 1000;

/** `like` pattern text with its wildcards escaped (escape character `\`). */
function likeText(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`);
}

/** A text expression compared in byte order on both engines (the console's search indexes are built so). */
function binary(engine: Engine, expression: RawBuilder<unknown>): RawBuilder<string> {
  return engine === "postgres" ? sql<string>`${expression} collate "C"` : sql<string>`${expression}`;
}

/** A page of the console's subscriber search: by address key or lower-cased name, after a row's key. */
export interface SubscriberSearch {
  /** The lower-cased prefix the key starts with ("" for all). */
  readonly prefix: string;
  readonly by: "email" | "name";
  /** The key and id of the previous page's last row (both, or neither). */
  readonly after?: { readonly key: string; readonly id: number } | undefined;
  readonly limit: number;
}

/**
 * The account's subscribers whose address key or lower-cased name starts with the prefix, ordered by
 * that key and id (byte order), after the given row, at most `limit`: one range of the console's indexes.
 */
export async function subscriberSearchPage(
  db: Db,
  engine: Engine,
  accountId: number,
  search: SubscriberSearch,
): Promise<Pick<Subscriber, "id" | "email" | "name" | "created_at" | "email_key">[]> {
  // The end of the prefix's range: every text that starts with the prefix sorts below prefix + U+10FFFF.
  const end = `${search.prefix}\u{10FFFF}`;
  let query = db
    .selectFrom("subscribers")
    .select(["id", "email", "name", "created_at", "email_key"])
    .where("account_id", "=", accountId);
  const key = search.by === "email" ? binary(engine, sql`email_key`) : binary(engine, sql`(lower(name))`);
  if (search.prefix !== "") query = query.where(key, ">=", search.prefix).where(key, "<", end);
  if (search.after !== undefined)
    // A row-value comparison: one range of the index (an OR of the two cases would scan from its start).
    query = query.where(sql<boolean>`(${key}, id) > (${search.after.key}, ${search.after.id})`);
  return query.orderBy(key).orderBy("id").limit(search.limit).execute();
}

/** The account's subscribers whose address contains `text` (any case), by address, at most `limit`. */
export async function searchSubscribers(
  db: Db,
  accountId: number,
  text: string,
  limit: number,
): Promise<Subscriber[]> {
  return db
    .selectFrom("subscribers")
    .selectAll()
    .where("account_id", "=", accountId)
    .where("email", "<>", "")
    .where(sql<boolean>`email_key like ${`%${likeText(emailKey(text))}%`} escape '\\'`)
    .orderBy("email_key")
    .limit(Math.min(limit, MAX_FOUND))
    .execute();
}

export interface SubscriberChanges {
  readonly email?: string;
  readonly name?: string;
  readonly format?: string;
  readonly countryCode?: string;
  readonly phone?: string;
  /** The whole fields JSON after the change. */
  readonly fields?: string;
}

/** Applies the changes to the subscriber's row (the caller has checked them). */
export async function updateSubscriber(
  db: Db,
  subscriberId: number,
  changes: SubscriberChanges,
): Promise<void> {
  const set: Record<string, string> = {};
  if (changes.email !== undefined) {
    set.email = changes.email;
    set.email_key = emailKey(changes.email);
  }
  if (changes.name !== undefined) set.name = changes.name;
  if (changes.format !== undefined) set.format = changes.format;
  if (changes.countryCode !== undefined) set.country_code = changes.countryCode;
  if (changes.phone !== undefined) set.phone = changes.phone;
  if (changes.fields !== undefined) set.fields = changes.fields;
  if (Object.keys(set).length === 0) return;
  await db.updateTable("subscribers").set(set).where("id", "=", subscriberId).execute();
}

export interface SubscriberData {
  readonly subscriber: Subscriber;
  readonly memberships: {
    listId: number;
    list: string;
    state: MembershipState;
    joinedAt: number;
    changedAt: number;
  }[];
  readonly optedOutAt: number | null;
  readonly consents: Consent[];
  readonly confirmations: { listId: number; expiresAt: number; usedAt: number | null }[];
  readonly mails: {
    id: number;
    kind: string;
    subject: string;
    state: string;
    createdAt: number;
    sentAt: number | null;
    message: string;
  }[];
  readonly mailEvents: {
    mailId: number;
    kind: string;
    source: string;
    status: string;
    detail: string;
    at: number;
  }[];
  readonly tracking: { sendingId: number; kind: string; linkId: number; at: number }[];
  readonly transactions: { id: number; projectId: number; identifier: string | null; sendAt: number }[];
  readonly sms: { id: number; state: string; message: string; createdAt: number }[];
}

/** The addresses a message to the subscriber may carry: as stored, and lower-cased. */
function addresses(subscriber: Subscriber): string[] {
  return [...new Set([subscriber.email, subscriber.email_key])];
}

/** Everything held about one subscriber of the account (see the top of this file). */
export async function subscriberData(db: Db, subscriber: Subscriber): Promise<SubscriberData> {
  const account = subscriber.account_id;
  const memberships = await db
    .selectFrom("memberships")
    .innerJoin("mailing_lists", "mailing_lists.id", "memberships.list_id")
    .select([
      "memberships.list_id",
      "mailing_lists.name",
      "memberships.state",
      "memberships.created_at",
      "memberships.changed_at",
    ])
    .where("memberships.subscriber_id", "=", subscriber.id)
    .orderBy("memberships.list_id")
    .execute();
  const optout = await db
    .selectFrom("optouts")
    .select("created_at")
    .where("account_id", "=", account)
    .where("email_key", "=", subscriber.email_key)
    .executeTakeFirst();
  const confirmations = await confirmationsOf(db, subscriber.id);
  const mails = await db
    .selectFrom("mail_outbox")
    .select(["id", "kind", "subject", "state", "created_at", "sent_at", "message"])
    .where("account_id", "=", account)
    .where("to_address", "in", addresses(subscriber))
    .orderBy("id")
    .execute();
  const events = await db
    .selectFrom("mail_events")
    .select(["mail_id", "kind", "source", "status", "detail", "created_at"])
    .where("account_id", "=", account)
    .where("email_key", "=", subscriber.email_key)
    .orderBy("id")
    .execute();
  const tracking = await db
    .selectFrom("tracking_events")
    .select(["sending_id", "kind", "link_id", "created_at"])
    .where("subscriber_id", "=", subscriber.id)
    .orderBy("id")
    .execute();
  const transactions = await db
    .selectFrom("transactions")
    .select(["id", "project_id", "identifier", "send_at"])
    .where("account_id", "=", account)
    .where("email", "in", addresses(subscriber))
    .orderBy("id")
    .execute();
  const sms =
    subscriber.phone === ""
      ? []
      : await db
          .selectFrom("sms_messages")
          .select(["id", "state", "message", "created_at"])
          .where("account_id", "=", account)
          .where("phone_number", "=", subscriber.phone)
          .orderBy("id")
          .execute();
  return {
    subscriber,
    memberships: memberships.map((m) => ({
      listId: Number(m.list_id),
      list: m.name,
      state: m.state,
      joinedAt: Number(m.created_at),
      changedAt: Number(m.changed_at),
    })),
    optedOutAt: optout === undefined ? null : Number(optout.created_at),
    consents: await consentsOf(db, subscriber.id),
    confirmations: confirmations.map((c) => ({
      listId: Number(c.list_id),
      expiresAt: Number(c.expires_at),
      usedAt: c.used_at === null ? null : Number(c.used_at),
    })),
    mails: mails.map((m) => ({
      id: Number(m.id),
      kind: m.kind,
      subject: m.subject,
      state: m.state,
      createdAt: Number(m.created_at),
      sentAt: m.sent_at === null ? null : Number(m.sent_at),
      message: m.message,
    })),
    mailEvents: events.map((e) => ({
      mailId: Number(e.mail_id),
      kind: e.kind,
      source: e.source,
      status: e.status,
      detail: e.detail,
      at: Number(e.created_at),
    })),
    tracking: tracking.map((t) => ({
      sendingId: Number(t.sending_id),
      kind: t.kind,
      linkId: Number(t.link_id),
      at: Number(t.created_at),
    })),
    transactions: transactions.map((t) => ({
      id: Number(t.id),
      projectId: Number(t.project_id),
      identifier: t.identifier,
      sendAt: Number(t.send_at),
    })),
    sms: sms.map((m) => ({
      id: Number(m.id),
      state: m.state,
      message: m.message,
      createdAt: Number(m.created_at),
    })),
  };
}

export interface Erasure {
  readonly subscriberId: number;
  /** Ids of the messages to the subscriber whose address and text were removed (their `.eml` files too). */
  readonly mailIds: number[];
  /** Ids of the SMS to the subscriber's phone whose number and text were removed (their `.json` files too). */
  readonly smsIds: number[];
  readonly memberships: number;
  readonly consents: number;
}

/**
 * Erases the subscriber in the caller's transaction (see the top of this file). Messages still queued or
 * held are cancelled (never sent after the erasure); SMS not yet sent are dead.
 */
export async function eraseSubscriber(db: Db, subscriber: Subscriber): Promise<Erasure> {
  const account = subscriber.account_id;
  const mails = await db
    .selectFrom("mail_outbox")
    .select("id")
    .where("account_id", "=", account)
    .where("to_address", "in", addresses(subscriber))
    .execute();
  const mailIds = mails.map((m) => Number(m.id));
  if (mailIds.length > 0) {
    await db
      .updateTable("mail_outbox")
      .set({ state: "cancelled", lease_owner: null, lease_until: null })
      .where("id", "in", mailIds)
      .where("state", "in", ["queued", "held"])
      .execute();
    await db
      .updateTable("mail_outbox")
      .set({ to_address: "", subject: "", message: "", last_error: null, retained_since: null })
      .where("id", "in", mailIds)
      .execute();
  }
  await db
    .updateTable("mail_events")
    .set({ email_key: "", detail: "" })
    .where("account_id", "=", account)
    .where("email_key", "=", subscriber.email_key)
    .execute();
  await db
    .updateTable("transactions")
    .set({ email: "" })
    .where("account_id", "=", account)
    .where("email", "in", addresses(subscriber))
    .execute();
  let smsIds: number[] = [];
  if (subscriber.phone !== "") {
    const sms = await db
      .selectFrom("sms_messages")
      .select("id")
      .where("account_id", "=", account)
      .where("phone_number", "=", subscriber.phone)
      .execute();
    smsIds = sms.map((m) => Number(m.id));
    if (smsIds.length > 0) {
      await db
        .updateTable("sms_messages")
        .set({ state: "dead", lease_owner: null, lease_until: null })
        .where("id", "in", smsIds)
        .where("state", "in", ["waiting", "queued"])
        .execute();
      await db
        .updateTable("sms_messages")
        .set({ phone_number: "", message: "" })
        .where("id", "in", smsIds)
        .execute();
    }
  }
  await deleteConfirmations(db, subscriber.id);
  await db
    .deleteFrom("optouts")
    .where("account_id", "=", account)
    .where("email_key", "=", subscriber.email_key)
    .execute();
  const consents = await deleteConsents(db, subscriber.id);
  const memberships = await db
    .deleteFrom("memberships")
    .where("subscriber_id", "=", subscriber.id)
    .executeTakeFirst();
  // The row stays, emptied, for the sendings' and triggers' rows that name its id (foreign keys): its key
  // `erased:<id>` holds no @, so no address ever matches it again.
  await db
    .updateTable("subscribers")
    .set({
      email: "",
      email_key: erasedKey(subscriber.id),
      name: "",
      country_code: "",
      phone: "",
      fields: "{}",
    })
    .where("id", "=", subscriber.id)
    .execute();
  return {
    subscriberId: subscriber.id,
    mailIds,
    smsIds,
    memberships: Number(memberships.numDeletedRows),
    consents,
  };
}
