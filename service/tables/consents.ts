// The consents table: each consent given or withdrawn, with when, how (the source), from where (IP
// address, user agent) and the text shown. Written in the transaction of what it records (the pending
// insert that queues the confirmation mail, the confirmation, an unsubscribe); read by `subscriber show`,
// `subscriber export` and the console's subscriber page; deleted with the person by `subscriber erase`
// (subscriber-data.ts).

import type { Db } from "../db/database.js";
import type { Selectable } from "kysely";
import type { ConsentKind, ConsentsTable } from "../db/schema.js";

/** The longest user agent kept (longer ones are cut). */
const MAX_USER_AGENT = 500;
/** The longest text kept. */
const MAX_TEXT = 4000;

export interface ConsentRecord {
  readonly accountId: number;
  readonly subscriberId: number;
  readonly listId: number | null;
  readonly kind: ConsentKind;
  readonly source: string;
  readonly ip?: string | undefined;
  readonly userAgent?: string | undefined;
  readonly text: string;
}

/** Who made a request, as far as the service can tell. */
export interface Requester {
  readonly ip?: string | undefined;
  readonly userAgent?: string | undefined;
}

export async function recordConsent(db: Db, record: ConsentRecord, at: number): Promise<void> {
  await db
    .insertInto("consents")
    .values({
      account_id: record.accountId,
      subscriber_id: record.subscriberId,
      list_id: record.listId,
      kind: record.kind,
      source: record.source,
      ip: record.ip || null,
      user_agent: record.userAgent ? record.userAgent.slice(0, MAX_USER_AGENT) : null,
      text: record.text.slice(0, MAX_TEXT),
      created_at: at,
    })
    .execute();
}

export interface Consent {
  readonly listId: number | null;
  readonly kind: ConsentKind;
  readonly source: string;
  readonly ip: string | null;
  readonly userAgent: string | null;
  readonly text: string;
  readonly at: number;
}

/** A subscriber's consents, oldest first. */
export async function consentsOf(db: Db, subscriberId: number): Promise<Consent[]> {
  const rows = await db
    .selectFrom("consents")
    .selectAll()
    .where("subscriber_id", "=", subscriberId)
    .orderBy("id")
    .execute();
  return rows.map(consent);
}

/** A subscriber's `limit` most recent consents, newest first (the console's subscriber page). */
export async function recentConsents(db: Db, subscriberId: number, limit: number): Promise<Consent[]> {
  const rows = await db
    .selectFrom("consents")
    .selectAll()
    .where("subscriber_id", "=", subscriberId)
    .orderBy("id", "desc")
    .limit(limit)
    .execute();
  return rows.map(consent);
}

function consent(r: Selectable<ConsentsTable>): Consent {
  return {
    listId: r.list_id === null ? null : Number(r.list_id),
    kind: r.kind,
    source: r.source,
    ip: r.ip,
    userAgent: r.user_agent,
    text: r.text,
    at: Number(r.created_at),
  };
}

/** Deletes a subscriber's consents (erasure); returns how many. */
export async function deleteConsents(db: Db, subscriberId: number): Promise<number> {
  const result = await db.deleteFrom("consents").where("subscriber_id", "=", subscriberId).executeTakeFirst();
  return Number(result.numDeletedRows);
}
