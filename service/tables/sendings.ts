// The sendings table group (sendings, sending_recipients): a newsletter sending and the subscribers it
// goes to, one row each with its state (queued, sent, skipped, cancelled).

import type { Db } from "../db/database.js";
import type { Subscriber } from "../db/schema.js";

/** A queued recipient as the sending worker mails it: the subscriber's merge data, re-checked. */
export type QueuedRecipient = Pick<
  Subscriber,
  "id" | "email" | "name" | "format" | "country_code" | "phone" | "fields"
> & {
  /** Still an active member of the sending's list and not on the account's opt-out-all set. */
  readonly mailable: boolean;
};

/**
 * Up to `limit` of the sending's queued recipients, by subscriber id, each re-checked at this moment: a
 * member who left the list (or never was on it) or an address opted out since the expansion is not
 * mailable, and is to be marked skipped.
 */
export async function queuedRecipients(
  db: Db,
  sending: { readonly id: number; readonly list_id: number },
  limit: number,
): Promise<QueuedRecipient[]> {
  const rows = await db
    .selectFrom("sending_recipients as r")
    .innerJoin("subscribers as s", "s.id", "r.subscriber_id")
    .leftJoin("memberships as m", (j) =>
      j.onRef("m.subscriber_id", "=", "r.subscriber_id").on("m.list_id", "=", sending.list_id),
    )
    .leftJoin("optouts as o", (j) =>
      j.onRef("o.account_id", "=", "s.account_id").onRef("o.email_key", "=", "s.email_key"),
    )
    .select([
      "s.id",
      "s.email",
      "s.name",
      "s.format",
      "s.country_code",
      "s.phone",
      "s.fields",
      "m.state as membership",
      "o.email_key as optedOut",
    ])
    .where("r.sending_id", "=", sending.id)
    .where("r.state", "=", "queued")
    .orderBy("r.subscriber_id")
    .limit(limit)
    .execute();
  return rows.map(({ membership, optedOut, ...subscriber }) => ({
    ...subscriber,
    mailable: membership === "active" && optedOut === null,
  }));
}
