// Reads the console's pages share. Every one is scoped by the account; counts are bounded (a page never
// counts a whole big table: past COUNT_CAP it says "more than").

import { sql } from "kysely";
import type { Store } from "../db/database.js";

export type Db = Store["db"];

/** Rows a page's count reads at most; a count that reaches it is shown as "COUNT_CAP+". */
const COUNT_CAP = 100_000;

/** A bounded count: the number, and whether it reached the cap. */
export interface Bounded {
  readonly n: number;
  readonly more: boolean;
}

/** Counts the rows a query selects, reading at most COUNT_CAP + 1 of them. */
export async function boundedCount(
  db: Db,
  // biome-ignore lint/suspicious/noExplicitAny: any select query of the store
  query: { limit(n: number): any },
): Promise<Bounded> {
  const row = await db
    .selectFrom(query.limit(COUNT_CAP + 1).as("t"))
    .select(sql<number>`count(*)`.as("n"))
    .executeTakeFirstOrThrow();
  const n = Number(row.n);
  return n > COUNT_CAP ? { n: COUNT_CAP, more: true } : { n, more: false };
}

/** A whole-number id from a path or query part; undefined for anything else. */
export function idOf(text: string | null | undefined): number | undefined {
  if (text === null || text === undefined || !/^[1-9]\d{0,15}$/.test(text)) return undefined;
  const n = Number(text);
  return Number.isSafeInteger(n) ? n : undefined;
}
