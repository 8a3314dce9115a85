// The sending counters (service/tables/sending-counters.ts) against a recount of the raw rows: every
// sending's counters, its links' click counts and its open/click buckets of both widths.

import { expect } from "vitest";
import type { Db } from "../../../service/db/database.js";
import {
  BUCKET_WIDTHS,
  eventBuckets,
  linkCounts,
  readSendingCounters,
  recountSendingCounters,
} from "../../../service/tables/sending-counters.js";

/** Expects every sending's counters to equal the recount; returns the counters (by sending id). */
export async function expectCountersMatchRecount(db: Db) {
  const ids = (await db.selectFrom("sendings").select("id").orderBy("id").execute()).map((r) => r.id);
  const counted = await readSendingCounters(db, ids);
  expect(counted).toEqual(await recountSendingCounters(db, ids));
  for (const id of ids) {
    expect(await linkCounts(db, id)).toEqual(await linkCounts(db, id, true));
    for (const width of BUCKET_WIDTHS)
      expect(await eventBuckets(db, id, width, 0, Number.MAX_SAFE_INTEGER)).toEqual(
        await eventBuckets(db, id, width, 0, Number.MAX_SAFE_INTEGER, true),
      );
  }
  return counted;
}
