// The reference implementation of the generated ExternalAPIService interface: every call authenticates
// first, works inside one transaction scoped to the caller's account, and answers with the generated
// codecs. Every operation of the spec is implemented (none answers NotImplemented).

import { createHash, randomBytes } from "node:crypto";
import type http from "node:http";
import type { CallContext, ExternalAPIService } from "../../generated/server.js";
import type { SubscriberMailingListsRow } from "../../generated/types.js";
import type { SqliteAccess, Store } from "../db/database.js";
import type { Account } from "../db/schema.js";
import type { Authenticator } from "./auth.js";
import { importCsvText } from "./csv-import.js";
import {
  MAX_CHARSET,
  MAX_COUNTRY_CODE,
  MAX_DESCRIPTION,
  MAX_FIELD_VALUE,
  MAX_NAME,
  MAX_PHONE,
  checkFieldValues,
  checkLength,
} from "./limits.js";
import { queueMail } from "./mail.js";
import { getNewsletterFilters, insertActiveTemplateModule, insertTemplateNewsletter } from "./newsletters.js";
import {
  BODY_TOO_LARGE_PAGE,
  METHOD_NOT_ALLOWED_PAGE,
  buttonPage,
  discardBody,
  page,
  sendPage,
} from "./pages.js";
import { reportViews, roiResults } from "./reports.js";
import { sendNewsletter } from "./sendings.js";
import { sendSms } from "./sms.js";
import { insertTransaction } from "./transactions.js";
import { getTriggerClicks, getTriggerIdForAccount, getTriggerViews } from "./triggers.js";
import {
  type SubscriberRow,
  checkActivated,
  checkEmail,
  demographicValues,
  cachedAccountSqlite,
  insertNewPostgres,
  listOf,
  subscriberOf,
  upsertOneSqlite,
  upsertSubscribers,
} from "./subscribers.js";

export interface ServiceConfig {
  /** Absolute base URL of the service as subscribers reach it (confirmation links). */
  readonly publicUrl: string;
  /** Default From address of service mail when the account and list set none. */
  readonly mailFrom: string;
}

export interface ImportQueue {
  /** Checks the URL (scheme, host, addresses) and records a queued import; returns its id. */
  enqueue(account: Account, listId: number, url: string): Promise<number>;
}

export interface ServiceDeps {
  readonly store: Store;
  readonly auth: Authenticator;
  readonly config: ServiceConfig;
  readonly imports: ImportQueue;
  readonly now?: () => number;
  /** Told which account a request authenticated as (request logs). */
  readonly onAccount?: (requestId: string, account: Account) => void;
  /** Told after a transaction that queued mail committed (wakes the outbox worker). */
  readonly onMailQueued?: () => void;
  /** Told after a transaction that paid an SMS committed (wakes the SMS worker). */
  readonly onSmsQueued?: () => void;
  /** Told after SendNewsletter committed a sending (wakes the sending worker). */
  readonly onSendingQueued?: () => void;
}

export const CONFIRM_TTL_MS = 7 * 24 * 60 * 60 * 1000;

export function tokenHash(token: string): string {
  return createHash("sha256").update(token).digest("hex");
}

export function createService(deps: ServiceDeps): ExternalAPIService {
  const { store, config } = deps;
  const { db, engine } = store;
  const now = deps.now ?? Date.now;
  const domain = new URL(config.publicUrl).hostname || "localhost";

  async function account(context: CallContext): Promise<Account> {
    const found = await deps.auth.verify(
      context.credentials.username,
      context.credentials.password,
      context.remoteAddress,
    );
    deps.onAccount?.(context.requestId, found);
    return found;
  }

  interface InsertParams {
    strMailingListID: string;
    strEmail: string;
    strName?: string;
    strFormat?: string;
    strCountryCode?: string;
    strPhoneNumber?: string;
    strDatafields?: string;
    strDatavalues?: string;
  }

  /**
   * The row a single insert asks for (after the credentials): InvalidFormat for the address, TooLong for a
   * value over its limit (limits.ts), FieldNotActivated, all before anything is written.
   */
  function singleRow(owner: Account, params: InsertParams): SubscriberRow {
    const email = checkEmail(params.strEmail, "strEmail");
    checkLength(params.strName, MAX_NAME, "strName");
    checkLength(params.strCountryCode, MAX_COUNTRY_CODE, "strCountryCode");
    checkLength(params.strPhoneNumber, MAX_PHONE, "strPhoneNumber");
    const fields = demographicValues(params.strDatafields, params.strDatavalues);
    checkFieldValues(fields, "strDatavalues");
    checkActivated(owner, fields.keys(), "strDatafields");
    return {
      email,
      name: params.strName,
      format: params.strFormat,
      countryCode: params.strCountryCode,
      phone: params.strPhoneNumber,
      fields,
    };
  }

  /** An active single insert on SQLite's prepared statements, inside SqliteAccess.writeSync work. */
  function insertActiveSqlite(sqlite: SqliteAccess, owner: Account, params: InsertParams): bigint {
    const row = singleRow(owner, params);
    const options = { update: true, state: "active", recordOptedOut: true } as const;
    const outcome = upsertOneSqlite(
      sqlite,
      owner,
      params.strMailingListID,
      "strMailingListID",
      row,
      options,
      now(),
    );
    if (outcome === undefined) throw new Error("upsert returned no row for a single insert");
    return BigInt(outcome.id);
  }

  /**
   * SQLite's hot path for an active single insert: the same checks, reads and writes on prepared
   * statements in the group commit. With credentials verified less than the cache TTL ago, the account
   * row is read and checked inside the same work (no read of its own); a stale pair writes nothing and
   * goes through verify like every other call.
   */
  async function insertOneSqlite(
    sqlite: SqliteAccess,
    context: CallContext,
    params: InsertParams,
  ): Promise<bigint> {
    const { username, password } = context.credentials;
    const check = deps.auth.cached(username, password, context.remoteAddress);
    if (check !== undefined) {
      const id = await sqlite.writeSync(() => {
        const owner = cachedAccountSqlite(sqlite, check);
        if (owner === undefined) return undefined;
        deps.onAccount?.(context.requestId, owner);
        return insertActiveSqlite(sqlite, owner, params);
      });
      if (id !== undefined) return id;
      deps.auth.drop(check);
    }
    const owner = await account(context);
    return sqlite.writeSync(() => insertActiveSqlite(sqlite, owner, params));
  }

  async function insertOne(context: CallContext, params: InsertParams, pending: boolean): Promise<bigint> {
    const { sqlite } = store;
    if (sqlite !== undefined && !pending) return insertOneSqlite(sqlite, context, params);
    const owner = await account(context);
    const row = singleRow(owner, params);
    if (engine === "postgres" && !pending) {
      // The usual case, a new address on the account's list, in one statement; anything else below.
      const id = await insertNewPostgres(db, owner, params.strMailingListID, row, now());
      if (id !== undefined) return BigInt(id);
    }
    const email = row.email;
    let queued = false;
    const id = await store.write(async (trx) => {
      const list = await listOf(trx, owner, params.strMailingListID, "strMailingListID");
      const at = now();
      const [outcome] = await upsertSubscribers(
        trx,
        engine,
        owner,
        list.id,
        [row],
        { update: true, state: pending ? "pending" : "active", recordOptedOut: true },
        at,
      );
      if (outcome === undefined) throw new Error("upsert returned no row for a single insert");
      if (pending && outcome.state === "pending") {
        const token = randomBytes(32).toString("base64url");
        await trx
          .insertInto("confirmations")
          .values({
            token_hash: tokenHash(token),
            account_id: owner.id,
            list_id: list.id,
            subscriber_id: outcome.id,
            expires_at: at + CONFIRM_TTL_MS,
            used_at: null,
          })
          .execute();
        const link = `${config.publicUrl.replace(/\/$/, "")}/confirm/${token}`;
        await queueMail(
          trx,
          {
            accountId: owner.id,
            kind: "confirmation",
            from: {
              name: list.from_name || owner.from_name,
              address: list.from_email || owner.from_email || config.mailFrom,
            },
            to: { name: params.strName ?? "", address: email },
            subject: `Please confirm your subscription to ${list.name}`,
            text:
              `Hello,\n\nplease confirm that you want to receive "${list.name}" at ${email}: open this link and press\n` +
              `the Confirm subscription button on its page:\n\n` +
              `${link}\n\nThe link works once and expires in 7 days. If you did not ask for this, ignore this message.\n`,
          },
          at,
          domain,
        );
        queued = true;
      }
      return BigInt(outcome.id);
    });
    if (queued) deps.onMailQueued?.();
    return id;
  }

  return {
    InsertSubscriberSid: (params, context) => insertOne(context, params, false),
    InsertSubscriberWithDemData: (params, context) => insertOne(context, params, false),
    InsertSubscriberWithDemDataPendingOption: (params, context) =>
      insertOne(context, params, params.strPending === "true"),

    async InsertCsvSubscribersWithDemDataUpdateOption(params, context) {
      const owner = await account(context);
      return importCsvText(
        store,
        owner,
        params.strMailingListId,
        params.strCsvData,
        params.strUpdate === "true",
        now(),
        context.signal,
      );
    },

    async InsertCSVSubscribersWithDemDataFromFileToQueue(params, context) {
      const owner = await account(context);
      const list = await listOf(db, owner, params.strMailingListID, "strMailingListID");
      return deps.imports.enqueue(owner, list.id, params.strCSVUrl);
    },

    async UpdateSubscriberData(params, context) {
      const owner = await account(context);
      const field = Number(params.strDataField);
      checkActivated(owner, [field], "strDataField");
      checkLength(params.strDataValue, MAX_FIELD_VALUE, "strDataValue");
      return store.write(async (trx) => {
        const subscriber = await subscriberOf(trx, owner, params.strSubscriberId, params.strEmail);
        const fields = JSON.parse(subscriber.fields) as Record<string, string>;
        const value = params.strDataValue ?? "";
        if (value === "") delete fields[String(field)];
        else fields[String(field)] = value;
        await trx
          .updateTable("subscribers")
          .set({ fields: JSON.stringify(fields) })
          .where("id", "=", subscriber.id)
          .execute();
        return 1;
      });
    },

    async UpdateMailingList(params, context) {
      const owner = await account(context);
      if (params.strFromEmail !== undefined && params.strFromEmail !== "")
        checkEmail(params.strFromEmail, "strFromEmail");
      checkLength(params.strListName, MAX_NAME, "strListName");
      checkLength(params.strFromName, MAX_NAME, "strFromName");
      checkLength(params.strDescription, MAX_DESCRIPTION, "strDescription");
      checkLength(params.strCharacterset, MAX_CHARSET, "strCharacterset");
      return store.write(async (trx) => {
        const list = await listOf(trx, owner, params.strMailingListID, "strMailingListID");
        const keep = (given: string | undefined, current: string) =>
          given === undefined || given === "" ? current : given;
        await trx
          .updateTable("mailing_lists")
          .set({
            name: keep(params.strListName, list.name),
            from_name: keep(params.strFromName, list.from_name),
            from_email: keep(params.strFromEmail?.trim(), list.from_email),
            description: keep(params.strDescription, list.description),
            charset: keep(params.strCharacterset, list.charset),
          })
          .where("id", "=", list.id)
          .execute();
        return 1;
      });
    },

    async GetSubscriberMailingLists(params, context) {
      const owner = await account(context);
      const subscriber = await subscriberOf(db, owner, params.strSubscriberId, params.strEmail);
      const lists = await db
        .selectFrom("memberships")
        .innerJoin("mailing_lists", "mailing_lists.id", "memberships.list_id")
        .select(["mailing_lists.id", "mailing_lists.name", "memberships.changed_at"])
        .where("memberships.subscriber_id", "=", subscriber.id)
        .where("memberships.account_id", "=", owner.id)
        .where("memberships.state", "=", "active")
        .orderBy("mailing_lists.id")
        .execute();
      return lists.map(
        (l): SubscriberMailingListsRow => ({
          MailingListId: l.id,
          MailingListName: l.name,
          SubscriberId: BigInt(subscriber.id),
          Email: subscriber.email,
          Format: subscriber.format,
          Subscribed: new Date(l.changed_at).toISOString(),
        }),
      );
    },

    GetTriggerClicks: async (params, context) => getTriggerClicks(db, await account(context), params),
    GetTriggerViews: async (params, context) => getTriggerViews(db, await account(context), params),
    GetTriggerIdForAccount: async (_params, context) => getTriggerIdForAccount(db, await account(context)),
    GetRoiResults: async (params, context) => roiResults(db, await account(context), params),
    GetNewsletterFilters: async (params, context) =>
      getNewsletterFilters(db, await account(context), params.intNewsletterId),
    GetReportViewsByDateInterval: async (params, context) => reportViews(db, await account(context), params),
    InsertTemplateNewsletter: async (params, context) =>
      insertTemplateNewsletter(store, await account(context), params, now()),
    InsertActiveTemplateModule: async (params, context) =>
      insertActiveTemplateModule(store, await account(context), params, now()),
    SendNewsletter: async (params, context) => {
      const id = await sendNewsletter(store, await account(context), params, now());
      deps.onSendingQueued?.();
      return id;
    },
    InsertTransaction: async (params, context) =>
      insertTransaction(store, await account(context), params, {
        split: false,
        now: now(),
        domain,
        mailFrom: config.mailFrom,
        onQueued: deps.onMailQueued,
      }),
    InsertTransactionWithSplit: async (params, context) =>
      insertTransaction(store, await account(context), params, {
        split: true,
        now: now(),
        domain,
        mailFrom: config.mailFrom,
        onQueued: deps.onMailQueued,
      }),
    SendSmsWithSenderName: async (params, context) =>
      sendSms(store, await account(context), params, now(), deps.onSmsQueued),
  };
}

const CONFIRM_TOKEN = /^[A-Za-z0-9_-]{43}$/;

/** Whether `token` is a confirmation that is unused and not expired at `at` (reads only). */
export async function confirmationPending(store: Store, token: string, at: number): Promise<boolean> {
  if (!CONFIRM_TOKEN.test(token)) return false;
  const row = await store.db
    .selectFrom("confirmations")
    .select("subscriber_id")
    .where("token_hash", "=", tokenHash(token))
    .where("used_at", "is", null)
    .where("expires_at", ">", at)
    .executeTakeFirst();
  return row !== undefined;
}

/** POST /confirm/{token}: a pending membership becomes active, once; "expired" and "used" look the same. */
export async function confirmSubscription(store: Store, token: string, at: number): Promise<boolean> {
  if (!CONFIRM_TOKEN.test(token)) return false;
  return store.write(async (trx) => {
    const used = await trx
      .updateTable("confirmations")
      .set({ used_at: at })
      .where("token_hash", "=", tokenHash(token))
      .where("used_at", "is", null)
      .where("expires_at", ">", at)
      .returning(["list_id", "subscriber_id"])
      .executeTakeFirst();
    if (used === undefined) return false;
    await trx
      .updateTable("memberships")
      .set({ state: "active", changed_at: at })
      .where("list_id", "=", used.list_id)
      .where("subscriber_id", "=", used.subscriber_id)
      .where("state", "=", "pending")
      .execute();
    return true;
  });
}

const CONFIRM_FORM = buttonPage(
  "Confirm your subscription",
  "Press the button to confirm that you want to receive this mailing list.",
  "Confirm subscription",
);
const CONFIRMED_PAGE = page("Subscription confirmed", "<p>Thank you: your subscription is confirmed.</p>");
const INVALID_LINK_PAGE = page(
  "Link not valid",
  "<p>This confirmation link is not valid: it was used already, has expired, or is not complete.</p>",
);

/**
 * `GET|HEAD|POST /confirm/{token}`. GET and HEAD change nothing (mail scanners and link previews follow
 * links): a pending confirmation gets a page whose button POSTs to the same URL, anything else 404. POST
 * confirms (confirmSubscription) and answers the confirmed page, or 404 for a used, expired or unknown
 * token alike; `onConfirmed` runs after the commit. Another method is 405.
 */
export async function confirmRoute(
  store: Store,
  req: http.IncomingMessage,
  res: http.ServerResponse,
  token: string,
  now: number,
  onConfirmed: () => void,
): Promise<void> {
  const method = req.method ?? "GET";
  if (method !== "GET" && method !== "HEAD" && method !== "POST")
    return sendPage(req, res, 405, METHOD_NOT_ALLOWED_PAGE, { allow: "GET, HEAD, POST" });
  if (method !== "POST") {
    const pending = await confirmationPending(store, token, now);
    return sendPage(req, res, pending ? 200 : 404, pending ? CONFIRM_FORM : INVALID_LINK_PAGE);
  }
  if (!(await discardBody(req))) return sendPage(req, res, 413, BODY_TOO_LARGE_PAGE, { connection: "close" });
  const confirmed = await confirmSubscription(store, token, now);
  if (confirmed) onConfirmed();
  return sendPage(req, res, confirmed ? 200 : 404, confirmed ? CONFIRMED_PAGE : INVALID_LINK_PAGE);
}
