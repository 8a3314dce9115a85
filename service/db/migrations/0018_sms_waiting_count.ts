// Migration 0018_sms_waiting_count: accounts.sms_waiting, how many of the account's SMS wait for credits.
// A send pays at once only when none waits, and the account row is what a send locks: with the count in
// that row, PostgreSQL's single-statement send decides on the row it locked (the latest, whatever
// committed while it waited for the lock), never on an older snapshot of sms_messages.
// Shipped: never edit it; add the next migration instead.

import { sql } from "kysely";
import type { AnyDb } from "./tables.js";

export async function up(db: AnyDb): Promise<void> {
  await db.schema
    .alterTable("accounts")
    .addColumn("sms_waiting", "bigint", (c) => c.notNull().defaultTo(0))
    .execute();
  await sql`update accounts set sms_waiting = (select count(*) from sms_messages where sms_messages.account_id = accounts.id and sms_messages.state = 'waiting')`.execute(
    db,
  );
}
