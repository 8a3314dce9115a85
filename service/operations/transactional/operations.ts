// The transactional operations (spec group `transactional`): InsertTransaction, InsertTransactionWithSplit
// and SendSmsWithSenderName.

import type { CallContext, ExternalAPIService } from "../../../generated/server.js";

import type { OperationScope } from "../scope.js";
import { insertTransaction } from "./transactions.js";
import { sendSms } from "./sms.js";

type TransactionalOperations = Pick<
  ExternalAPIService,
  "InsertTransaction" | "InsertTransactionWithSplit" | "SendSmsWithSenderName"
>;

export function transactionalOperations(scope: OperationScope): TransactionalOperations {
  const { store, now, deps, domain } = scope;
  const { config } = deps;
  const account = (context: CallContext) => scope.account(context);
  return {
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
