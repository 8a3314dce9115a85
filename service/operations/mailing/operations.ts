// The mailing operations (spec group `mailing`): UpdateMailingList, the template newsletters and
// SendNewsletter.

import type { CallContext, ExternalAPIService } from "../../../generated/server.js";
import { MAX_CHARSET, MAX_DESCRIPTION, MAX_NAME, checkLength } from "../../common/limits.js";
import { insertActiveTemplateModule, insertTemplateNewsletter } from "./newsletters.js";
import { sendNewsletter } from "./sendings.js";

import { listOf, updateList } from "../../tables/lists.js";
import type { OperationScope } from "../scope.js";
import { checkEmail } from "../../common/input.js";

type MailingOperations = Pick<
  ExternalAPIService,
  "UpdateMailingList" | "InsertTemplateNewsletter" | "InsertActiveTemplateModule" | "SendNewsletter"
>;

export function mailingOperations(scope: OperationScope): MailingOperations {
  const { store, now, deps } = scope;
  const account = (context: CallContext) => scope.account(context);
  return {
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
        await updateList(trx, list.id, {
          name: keep(params.strListName, list.name),
          from_name: keep(params.strFromName, list.from_name),
          from_email: keep(params.strFromEmail?.trim(), list.from_email),
          description: keep(params.strDescription, list.description),
          charset: keep(params.strCharacterset, list.charset),
        });
        return 1;
      });
    },
    InsertTemplateNewsletter: async (params, context) =>
      insertTemplateNewsletter(store, await account(context), params, now()),
    InsertActiveTemplateModule: async (params, context) =>
      insertActiveTemplateModule(store, await account(context), params, now()),
    SendNewsletter: async (params, context) => {
      const id = await sendNewsletter(store, await account(context), params, now());
      deps.onSendingQueued?.();
      return id;
    },
  };
}
