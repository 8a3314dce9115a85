// The subscriber operations (spec group `subscriber`): the single inserts (active, or pending with a
// confirmation mail), the CSV bulk insert, the queued file import and UpdateSubscriberData.

import type { CallContext, ExternalAPIService } from "../../../generated/server.js";
import type { SqliteAccess } from "../../db/database.js";
import type { Account } from "../../db/schema.js";
import { importCsvText } from "./csv-import.js";
import {
  MAX_COUNTRY_CODE,
  MAX_FIELD_VALUE,
  MAX_NAME,
  MAX_PHONE,
  checkFieldValues,
  checkLength,
} from "../../common/limits.js";

import { noteAccount, type OperationScope } from "../scope.js";
import type { CachedCheck } from "../../auth/authenticator.js";
import {
  type InsertPath,
  type SingleInsertOptions,
  type SubscriberRow,
  cachedAccountSqlite,
  insertNewPostgres,
  insertSubscriber,
  upsertOneSqlite,
} from "../../tables/subscriber-insert.js";
import { checkActivated, demographicValues } from "./input.js";
import { checkEmail } from "../../common/input.js";
import { listOf } from "../../tables/lists.js";
import { setSubscriberFields, subscriberOf } from "../../tables/subscribers.js";
import { queueConfirmation } from "./confirmations.js";

type SubscriberOperations = Pick<
  ExternalAPIService,
  | "InsertSubscriberSid"
  | "InsertSubscriberWithDemData"
  | "InsertSubscriberWithDemDataPendingOption"
  | "InsertCsvSubscribersWithDemDataUpdateOption"
  | "InsertCSVSubscribersWithDemDataFromFileToQueue"
  | "UpdateSubscriberData"
>;

export function subscriberOperations(scope: OperationScope): SubscriberOperations {
  const { store, now, domain } = scope;
  const { db } = store;
  const { config } = scope.deps;
  const deps = scope.deps;
  const account = (context: CallContext) => scope.account(context);

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
   * The row a single insert asks for, as far as the account plays no part: InvalidFormat for the address,
   * TooLong for a value over its limit (limits.ts), in that order, before anything is written.
   */
  function rowOf(params: InsertParams): SubscriberRow {
    const email = checkEmail(params.strEmail, "strEmail");
    checkLength(params.strName, MAX_NAME, "strName");
    checkLength(params.strCountryCode, MAX_COUNTRY_CODE, "strCountryCode");
    checkLength(params.strPhoneNumber, MAX_PHONE, "strPhoneNumber");
    const fields = demographicValues(params.strDatafields, params.strDatavalues);
    checkFieldValues(fields, "strDatavalues");
    return {
      email,
      name: params.strName,
      format: params.strFormat,
      countryCode: params.strCountryCode,
      phone: params.strPhoneNumber,
      fields,
    };
  }

  /** rowOf, then FieldNotActivated for a field beyond the account's: all before anything is written. */
  function singleRow(owner: Account, params: InsertParams): SubscriberRow {
    const row = rowOf(params);
    checkActivated(owner, row.fields!.keys(), "strDatafields");
    return row;
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
        noteAccount(context, owner);
        return insertActiveSqlite(sqlite, owner, params);
      });
      if (id !== undefined) return id;
      deps.auth.drop(check);
    }
    const owner = await account(context);
    return sqlite.writeSync(() => insertActiveSqlite(sqlite, owner, params));
  }

  /**
   * PostgreSQL's hot path for an active single insert with credentials verified less than the cache TTL
   * ago: one statement checks the account and inserts a new address (insertNewPostgres). The row's own
   * checks run first, but a refused row is answered only after the credentials are verified, as on the
   * general path; when the statement wrote nothing, the general path runs with the account it read (or,
   * when the pair no longer matched, after verify), and gives the answer.
   */
  async function insertOnePostgres(check: CachedCheck, context: CallContext, params: InsertParams) {
    const row = await scope.afterCredentials(context, () => rowOf(params));
    const done = await insertNewPostgres(db, check, params.strMailingListID, row, now());
    if (done.account === undefined) {
      scope.stale(check);
      return insertGeneral(await account(context), params, false);
    }
    scope.signedIn(context, done.account);
    if (done.id !== undefined) return BigInt(done.id);
    return insertGeneral(done.account, params, false, "general");
  }

  async function insertOne(context: CallContext, params: InsertParams, pending: boolean): Promise<bigint> {
    const { sqlite } = store;
    if (sqlite !== undefined && !pending) return insertOneSqlite(sqlite, context, params);
    const check = pending ? undefined : scope.cachedCheck(context);
    if (check !== undefined) return insertOnePostgres(check, context, params);
    return insertGeneral(await account(context), params, pending, undefined, context);
  }

  /** A single insert for a signed-in account on the path insertSubscriber picks (or `path`). */
  async function insertGeneral(
    owner: Account,
    params: InsertParams,
    pending: boolean,
    path?: InsertPath,
    context?: CallContext,
  ): Promise<bigint> {
    const row = singleRow(owner, params);
    let queued = false;
    const at = now();
    const options: SingleInsertOptions = {
      update: true,
      state: pending ? "pending" : "active",
      recordOptedOut: true,
    };
    const confirm: SingleInsertOptions["afterWrite"] = async (trx, list, written) => {
      if (written.state !== "pending") return;
      await queueConfirmation(
        trx,
        { account: owner, list, subscriberId: written.id, email: row.email, name: params.strName ?? "" },
        at,
        { publicUrl: config.publicUrl, mailFrom: config.mailFrom, domain },
        {
          source: context?.operation ?? "InsertSubscriberWithDemDataPendingOption",
          ip: context?.remoteAddress,
        },
      );
      queued = true;
    };
    const outcome = await insertSubscriber(
      store,
      owner,
      params.strMailingListID,
      "strMailingListID",
      row,
      pending ? { ...options, afterWrite: confirm } : { ...options, path },
      at,
    );
    if (outcome === undefined) throw new Error("upsert returned no row for a single insert");
    if (queued) deps.onMailQueued?.();
    return BigInt(outcome.id);
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
        await setSubscriberFields(trx, subscriber.id, JSON.stringify(fields));
        return 1;
      });
    },
  };
}
