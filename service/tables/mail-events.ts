// The mail_events table: what bounce and complaint reports said about the mail the service sent, one row per
// (message, kind), with the sending and subscriber it went to and the address's opt-out key. Written by
// operations/mailing/bounces.ts (which reads the reports and decides what suppresses an address); read by
// it (a soft bounce's recent count), and erased with a subscriber (subscriber-data.ts).

import type { Insertable } from "kysely";
import type { Db } from "../db/database.js";
import type { MailEventsTable } from "../db/schema.js";

/** Records an event; false when the message already has an event of this kind. */
export async function insertMailEvent(
  trx: Db,
  row: Omit<Insertable<MailEventsTable>, "id">,
): Promise<boolean> {
  const inserted = await trx
    .insertInto("mail_events")
    .values(row)
    .onConflict((oc) => oc.columns(["mail_id", "kind"]).doNothing())
    .returning("id")
    .executeTakeFirst();
  return inserted !== undefined;
}

/** The account's soft bounces of an address (by its opt-out key) since `since`. */
export async function softBounceCount(
  db: Db,
  accountId: number,
  emailKey: string,
  since: number,
): Promise<number> {
  const soft = await db
    .selectFrom("mail_events")
    .select((eb) => eb.fn.countAll<number>().as("n"))
    .where("account_id", "=", accountId)
    .where("email_key", "=", emailKey)
    .where("kind", "=", "soft")
    .where("created_at", ">", since)
    .executeTakeFirstOrThrow();
  return Number(soft.n);
}
