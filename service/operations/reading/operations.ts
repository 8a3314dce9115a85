// The reading operations (spec group `reading`): trigger clicks, views and ids, ROI results, a
// newsletter's filters, the views report and a subscriber's lists.

import type { CallContext, ExternalAPIService } from "../../../generated/server.js";
import type { SubscriberMailingListsRow } from "../../../generated/types.js";
import { getNewsletterFilters } from "../mailing/newsletters.js";
import { reportViews, roiResults } from "./reports.js";

import { activeListsOf, subscriberOf } from "../../tables/subscribers.js";
import type { OperationScope } from "../scope.js";
import { getTriggerClicks, getTriggerIdForAccount, getTriggerViews } from "./triggers.js";

type ReadingOperations = Pick<
  ExternalAPIService,
  | "GetTriggerClicks"
  | "GetTriggerViews"
  | "GetTriggerIdForAccount"
  | "GetRoiResults"
  | "GetNewsletterFilters"
  | "GetReportViewsByDateInterval"
  | "GetSubscriberMailingLists"
>;

export function readingOperations(scope: OperationScope): ReadingOperations {
  const { db } = scope.store;
  const account = (context: CallContext) => scope.account(context);
  return {
    async GetSubscriberMailingLists(params, context) {
      const owner = await account(context);
      const subscriber = await subscriberOf(db, owner, params.strSubscriberId, params.strEmail);
      const lists = await activeListsOf(db, owner.id, subscriber.id);
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
  };
}
