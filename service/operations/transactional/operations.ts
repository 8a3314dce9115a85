// The transactional operations (spec group `transactional`): InsertTransaction, InsertTransactionWithSplit
// and SendSmsWithSenderName.

import type { CallContext, ExternalAPIService } from "../../../generated/server.js";

import type { OperationScope } from "../scope.js";
import type { InsertTransactionParams } from "../../../generated/types.js";
import type { Account } from "../../db/schema.js";
import { ProjectCache, insertTransaction, insertTransactionPostgres } from "./transactions.js";
import { sendSms, sendSmsPostgres, smsRequest } from "./sms.js";

type TransactionalOperations = Pick<
  ExternalAPIService,
  "InsertTransaction" | "InsertTransactionWithSplit" | "SendSmsWithSenderName"
>;

export function transactionalOperations(scope: OperationScope): TransactionalOperations {
  const { store, now, deps, domain } = scope;
  const { config } = deps;
  const account = (context: CallContext) => scope.account(context);
  const projects = new ProjectCache();

  /**
   * InsertTransaction(WithSplit): on PostgreSQL with a cached pair and the project cached, one statement
   * (insertTransactionPostgres); else, or when it wrote nothing, the general path, which fills the cache.
   */
  async function transaction(
    params: InsertTransactionParams,
    context: CallContext,
    split: boolean,
  ): Promise<number> {
    const options = { split, now: now(), domain, mailFrom: config.mailFrom, onQueued: deps.onMailQueued };
    const check = scope.cachedCheck(context);
    let owner: Account | undefined;
    const cached = check === undefined ? undefined : projects.get(check.accountId, params.strId);
    if (check !== undefined && cached !== undefined) {
      const done = await insertTransactionPostgres(store.db, check, cached, params, options);
      if (done?.account === undefined && done !== undefined) scope.stale(check);
      if (done?.account !== undefined) {
        scope.signedIn(context, done.account);
        if (done.id !== undefined) return done.id;
        projects.drop(check.accountId, params.strId);
        owner = done.account;
      }
    }
    owner ??= await account(context);
    const outcome = await insertTransaction(store, owner, params, options);
    if (store.engine === "postgres") projects.set(owner, outcome.project);
    return outcome.id;
  }

  return {
    InsertTransaction: (params, context) => transaction(params, context, false),
    InsertTransactionWithSplit: (params, context) => transaction(params, context, true),
    async SendSmsWithSenderName(params, context) {
      // PostgreSQL with a cached pair: one statement checks the account and sends (sendSmsPostgres).
      const check = scope.cachedCheck(context);
      if (check !== undefined) {
        const request = await scope.afterCredentials(context, () => smsRequest(params));
        const done = await sendSmsPostgres(store.db, check, request, now());
        if (done.account !== undefined) {
          scope.signedIn(context, done.account);
          if (done.paid) deps.onSmsQueued?.();
          return done.result;
        }
        scope.stale(check);
      }
      return sendSms(store, await account(context), params, now(), deps.onSmsQueued);
    },
  };
}
