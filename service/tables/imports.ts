// The imports table group (imports, import_batches): ImportSubscribers' jobs, each with its file's
// version, counters, first errors and lease, and the rows staged from its file, one import_batches row per
// batch of lines. Every write and read of the two tables is here (test/repo/table-ownership.test.ts); the
// rules they serve are told where they are decided: the queue (operations/subscriber/import-queue.ts), the
// worker's claims, staging and apply (workers/imports.ts).

import { type ExpressionBuilder, type Kysely, type Transaction, sql } from "kysely";
import type { Db } from "../db/database.js";
import type { Engine } from "../db/engine.js";
import type { Database, Import, ImportState } from "../db/schema.js";

/** States of an import that is not over (waiting, or being worked on). */
const ACTIVE_STATES: readonly ImportState[] = ["queued", "fetching", "importing", "applying"];

/** The PostgreSQL advisory lock that makes claims one at a time across instances (per-account rule). */
const CLAIM_LOCK = 0x1d9_0009;

/** Queues an import of the file at `url` into the list; returns its id. */
export async function insertImport(
  db: Db,
  accountId: number,
  listId: number,
  url: string,
  at: number,
): Promise<number> {
  const row = await db
    .insertInto("imports")
    .values({
      account_id: accountId,
      list_id: listId,
      url,
      state: "queued",
      created_at: at,
      updated_at: at,
    })
    .returning("id")
    .executeTakeFirstOrThrow();
  return Number(row.id);
}

/** The import of that id (any account); undefined when there is none. */
export async function importById(db: Db, id: number): Promise<Import | undefined> {
  return db.selectFrom("imports").selectAll().where("id", "=", id).executeTakeFirst();
}

/** The account's import of that id; undefined when the account has none of that id. */
export async function accountImport(db: Db, accountId: number, id: number): Promise<Import | undefined> {
  return db
    .selectFrom("imports")
    .selectAll()
    .where("id", "=", id)
    .where("account_id", "=", accountId)
    .executeTakeFirst();
}

/** The account's `limit` newest imports, newest first. */
export async function recentImports(db: Db, accountId: number, limit: number): Promise<Import[]> {
  return db
    .selectFrom("imports")
    .selectAll()
    .where("account_id", "=", accountId)
    .orderBy("id", "desc")
    .limit(limit)
    .execute();
}

/** An import as the console lists it, with its list's name. */
export type ImportSummary = Pick<
  Import,
  | "id"
  | "state"
  | "lines_done"
  | "rows_imported"
  | "rows_skipped"
  | "rows_bad"
  | "file_length"
  | "created_at"
  | "finished_at"
> & { readonly list: string };

/**
 * The account's imports with their lists' names, newest first: before the id `beforeId` when given, only
 * the active ones when `active`, at most `limit`.
 */
export async function importSummaries(
  db: Db,
  accountId: number,
  options: { readonly beforeId?: number | undefined; readonly active?: boolean; readonly limit: number },
): Promise<ImportSummary[]> {
  return db
    .selectFrom("imports as i")
    .innerJoin("mailing_lists as l", "l.id", "i.list_id")
    .select([
      "i.id",
      "i.state",
      "i.lines_done",
      "i.rows_imported",
      "i.rows_skipped",
      "i.rows_bad",
      "i.file_length",
      "i.created_at",
      "i.finished_at",
      "l.name as list",
    ])
    .where("i.account_id", "=", accountId)
    .$if(options.beforeId !== undefined, (q) => q.where("i.id", "<", options.beforeId!))
    .$if(options.active === true, (q) => q.where("i.state", "in", ACTIVE_STATES))
    .orderBy("i.id", "desc")
    .limit(options.limit)
    .execute();
}

/** Imports not over, by state (states without any absent): the queue depth metric. */
export async function activeImportCounts(db: Db): Promise<{ state: ImportState; n: number }[]> {
  const rows = await db
    .selectFrom("imports")
    .select(["state", (eb) => eb.fn.countAll<number>().as("n")])
    .where("state", "in", ["queued", "fetching", "importing", "applying"])
    .groupBy("state")
    .execute();
  return rows.map((row) => ({ state: row.state, n: Number(row.n) }));
}

// ---- The worker: claims and leases ------------------------------------------------------------------

/** Up to `limit` ended imports (done or failed) that still have staged batches (a crash left them). */
export async function endedImportsWithBatches(db: Db, limit: number): Promise<number[]> {
  const ended = await db
    .selectFrom("import_batches")
    .innerJoin("imports", "imports.id", "import_batches.import_id")
    .select("import_batches.import_id")
    .where("imports.state", "in", ["done", "failed"])
    .groupBy("import_batches.import_id")
    .limit(limit)
    .execute();
  return ended.map((row) => row.import_id);
}

/**
 * Leases to `workerId` until `leaseUntil` one import whose lease is free or ran out (attempts + 1) and
 * whose account has no other import being worked on (by any worker), the account whose last claim is
 * oldest first; the claimed row, or undefined when none is waiting.
 */
export async function claimImport(
  db: Kysely<Database>,
  engine: Engine,
  workerId: string,
  at: number,
  leaseUntil: number,
): Promise<Import | undefined> {
  const claimIn = async (q: Kysely<Database> | Transaction<Database>) => {
    const free = (eb: ExpressionBuilder<Database, "imports">) =>
      eb.or([eb("imports.lease_until", "is", null), eb("imports.lease_until", "<", at)]);
    const next = q
      .selectFrom("imports")
      .select("imports.id")
      .where("imports.state", "in", ACTIVE_STATES)
      .where(free)
      // No other import of the account has an owner. An owner is cleared when its worker gives the
      // import back, finishes or fails it; a crashed worker's import keeps it until it is claimed again
      // itself (its lease ran out), so at most one import of an account has an owner at any time, also
      // when a slow worker's lease ran out while it still works.
      .where(({ not, exists, selectFrom }) =>
        not(
          exists(
            selectFrom("imports as other")
              .select("other.id")
              .whereRef("other.account_id", "=", "imports.account_id")
              .whereRef("other.id", "<>", "imports.id")
              .where("other.state", "in", ACTIVE_STATES)
              .where("other.lease_owner", "is not", null),
          ),
        ),
      )
      .orderBy((eb) =>
        eb.fn.coalesce(
          eb
            .selectFrom("imports as turn")
            .select((t) => t.fn.max("turn.claimed_at").as("last"))
            .whereRef("turn.account_id", "=", "imports.account_id"),
          eb.lit(0),
        ),
      )
      .orderBy("imports.id")
      .limit(1)
      .$if(engine === "postgres", (s) => s.forUpdate().skipLocked());
    // One statement; the outer conditions repeat the inner ones, so the row is only taken when it is
    // still free at the moment of the write (SQLite: one writer at a time; PostgreSQL: re-checked on the
    // locked row, and claims are one at a time under CLAIM_LOCK, so two instances never both take an
    // import of one account).
    return q
      .updateTable("imports")
      .set((eb) => ({
        lease_owner: workerId,
        lease_until: leaseUntil,
        // An import whose whole file is staged goes on applying; any other is downloaded (again).
        state: sql<ImportState>`case when ${eb.ref("state")} = 'applying' then 'applying' else 'fetching' end`,
        attempts: eb("attempts", "+", 1),
        claimed_at: at,
        updated_at: at,
      }))
      .where("id", "=", next)
      .where("state", "in", ACTIVE_STATES)
      .where((eb) => eb.or([eb("lease_until", "is", null), eb("lease_until", "<", at)]))
      .returningAll()
      .executeTakeFirst();
  };
  return engine === "postgres"
    ? db.transaction().execute(async (trx) => {
        await sql`select pg_advisory_xact_lock(${CLAIM_LOCK})`.execute(trx);
        return claimIn(trx);
      })
    : claimIn(db);
}

/** Extends the lease while `workerId` holds it and the import is active; false when it does not. */
export async function renewImportLease(
  db: Db,
  id: number,
  workerId: string,
  leaseUntil: number,
): Promise<boolean> {
  const result = await db
    .updateTable("imports")
    .set({ lease_until: leaseUntil })
    .where("id", "=", id)
    .where("lease_owner", "=", workerId)
    .where("state", "in", ACTIVE_STATES)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** Whether `owner` holds the import's lease. */
export async function importHeldBy(db: Db, id: number, owner: string): Promise<boolean> {
  const held = await db
    .selectFrom("imports")
    .select("id")
    .where("id", "=", id)
    .where("lease_owner", "=", owner)
    .executeTakeFirst();
  return held !== undefined;
}

/**
 * Gives the import back (while `workerId` holds it and it is active): claimable again at `until` (a
 * retry's backoff) or at once (null); `returnClaim` (a stopping worker) does not count this claim as an
 * attempt, and the state says how far it got (queued when nothing is staged).
 */
export async function releaseImport(
  db: Db,
  id: number,
  workerId: string,
  release: { readonly error: string | null; readonly until: number | null; readonly returnClaim: boolean },
  at: number,
): Promise<void> {
  await db
    .updateTable("imports")
    .set((eb) => ({
      lease_owner: null,
      lease_until: release.until,
      error: release.error,
      updated_at: at,
      ...(release.returnClaim
        ? {
            attempts: eb("attempts", "-", 1),
            state: sql<ImportState>`case when ${eb.ref("state")} = 'applying' then 'applying' when ${eb.ref("lines_done")} > 0 then 'importing' else 'queued' end`,
          }
        : {}),
    }))
    .where("id", "=", id)
    .where("lease_owner", "=", workerId)
    .where("state", "in", ACTIVE_STATES)
    .execute();
}

/** Ends the applying import as done (while `workerId` holds it); false when it does not. */
export async function finishImport(db: Db, id: number, workerId: string, at: number): Promise<boolean> {
  const result = await db
    .updateTable("imports")
    .set({
      state: "done",
      error: null,
      lease_owner: null,
      lease_until: null,
      finished_at: at,
      updated_at: at,
    })
    .where("id", "=", id)
    .where("lease_owner", "=", workerId)
    .where("state", "=", "applying")
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** Ends the active import as failed (while `workerId` holds it); false when it does not. */
export async function failImport(
  db: Db,
  id: number,
  workerId: string,
  error: string,
  at: number,
): Promise<boolean> {
  const result = await db
    .updateTable("imports")
    .set({ state: "failed", error, lease_owner: null, lease_until: null, finished_at: at, updated_at: at })
    .where("id", "=", id)
    .where("lease_owner", "=", workerId)
    .where("state", "in", ACTIVE_STATES)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

// ---- The worker: staging and apply ------------------------------------------------------------------

/** The version of the file being staged, and the counters it starts from. */
export interface Staging {
  readonly etag: string | null;
  readonly lastModified: string | null;
  readonly length: number | null;
  readonly linesDone: number;
  readonly rowsBad: number;
  /** The first errors, as stored (JSON). */
  readonly firstErrors: string;
}

/** State `importing` with the version being staged (while `workerId` holds it); false when it does not. */
export async function startStaging(
  db: Db,
  id: number,
  workerId: string,
  staging: Staging,
  at: number,
  leaseUntil: number,
): Promise<boolean> {
  const result = await db
    .updateTable("imports")
    .set({
      state: "importing",
      lease_until: leaseUntil,
      updated_at: at,
      file_etag: staging.etag,
      file_last_modified: staging.lastModified,
      file_length: staging.length,
      lines_done: staging.linesDone,
      rows_bad: staging.rowsBad,
      first_errors: staging.firstErrors,
    })
    .where("id", "=", id)
    .where("lease_owner", "=", workerId)
    .where("state", "in", ACTIVE_STATES)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** An import's counters after a staging batch. */
export interface StagedCounts {
  readonly linesDone: number;
  readonly rowsBad: number;
  /** As stored (JSON). */
  readonly firstErrors: string;
}

/**
 * The import row of a staging batch, locked first: its counters and lease, only while `workerId` holds
 * the lease, the import is importing and nobody moved lines_done from `from`; false when not so.
 */
export async function holdStagingBatch(
  trx: Db,
  id: number,
  workerId: string,
  from: number,
  counts: StagedCounts,
  at: number,
  leaseUntil: number,
): Promise<boolean> {
  const held = await trx
    .updateTable("imports")
    .set({
      lines_done: counts.linesDone,
      rows_bad: counts.rowsBad,
      first_errors: counts.firstErrors,
      lease_until: leaseUntil,
      updated_at: at,
    })
    .where("id", "=", id)
    .where("lease_owner", "=", workerId)
    .where("lines_done", "=", from)
    .where("state", "=", "importing")
    .executeTakeFirst();
  return Number(held.numUpdatedRows) === 1;
}

/**
 * Stages lines (from, to] of the file: batches of another version on these lines go (only after a restart;
 * they may end elsewhere), then the batch's good rows (encoded) as one row, when it has any.
 */
export async function stageLines(
  trx: Db,
  id: number,
  from: number,
  to: number,
  rows: string | undefined,
): Promise<void> {
  await trx
    .deleteFrom("import_batches")
    .where("import_id", "=", id)
    .where("first_line", "<=", to)
    .where("last_line", ">", from)
    .execute();
  if (rows !== undefined) {
    await trx
      .insertInto("import_batches")
      .values({ import_id: id, first_line: from + 1, last_line: to, rows })
      .execute();
  }
}

/** State `applying` once `linesDone` lines are staged (while `workerId` holds it); false when not so. */
export async function markImportStaged(
  db: Db,
  id: number,
  workerId: string,
  linesDone: number,
  at: number,
  leaseUntil: number,
): Promise<boolean> {
  const result = await db
    .updateTable("imports")
    .set({ state: "applying", lease_until: leaseUntil, updated_at: at })
    .where("id", "=", id)
    .where("lease_owner", "=", workerId)
    .where("lines_done", "=", linesDone)
    .where("state", "=", "importing")
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** Renews the lease of an applying import, its row locked first (while `workerId` holds it); false when not. */
export async function holdApplying(
  trx: Db,
  id: number,
  workerId: string,
  at: number,
  leaseUntil: number,
): Promise<boolean> {
  const held = await trx
    .updateTable("imports")
    .set({ lease_until: leaseUntil, updated_at: at })
    .where("id", "=", id)
    .where("lease_owner", "=", workerId)
    .where("state", "=", "applying")
    .executeTakeFirst();
  return Number(held.numUpdatedRows) === 1;
}

/** The import's first staged batch (encoded rows), in file order; undefined when none is left. */
export async function firstStagedBatch(
  trx: Db,
  id: number,
): Promise<{ first_line: number; rows: string } | undefined> {
  return trx
    .selectFrom("import_batches")
    .select(["first_line", "rows"])
    .where("import_id", "=", id)
    .orderBy("first_line")
    .limit(1)
    .executeTakeFirst();
}

/** An applied batch goes, and the import's counts become `counts`. */
export async function batchApplied(
  trx: Db,
  id: number,
  firstLine: number,
  counts: { readonly rows_imported: number; readonly rows_skipped: number },
): Promise<void> {
  await trx
    .deleteFrom("import_batches")
    .where("import_id", "=", id)
    .where("first_line", "=", firstLine)
    .execute();
  await trx.updateTable("imports").set(counts).where("id", "=", id).execute();
}

/** Deletes up to `limit` of the import's staged batches that begin past `afterLine`; returns how many. */
export async function deleteStaged(trx: Db, id: number, afterLine: number, limit: number): Promise<number> {
  const batches = trx
    .selectFrom("import_batches")
    .select("first_line")
    .where("import_id", "=", id)
    .where("first_line", ">", afterLine)
    .orderBy("first_line")
    .limit(limit);
  const result = await trx
    .deleteFrom("import_batches")
    .where("import_id", "=", id)
    .where("first_line", "in", batches)
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}
