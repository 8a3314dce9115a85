// The file import worker (InsertCSVSubscribersWithDemDataFromFileToQueue; the queue is
// operations/subscriber/import-queue.ts): a worker claims a queued import, downloads the file through the SSRF
// guard, stages its rows and then applies them.
//
// All of one version of the file, or none of it: the rows are first staged (import_batches) in batches, and
// only once the whole file is staged are they applied to the subscribers. A download that fails for good
// (too large, also without a Content-Length; a 4xx; attempts spent) leaves nothing applied. A download
// resumed after a failure, a stop or a crash stages on from the last committed batch only when the server
// answers the same version of the file (the ETag, Last-Modified and Content-Length recorded), else it
// starts again from line 1, so the staged rows never mix versions.
//
// Durability: every batch (staging or applying) is ONE transaction that moves the import's counters with
// its rows. A crash (kill -9) at any point leaves the import at its last committed batch; the next worker
// to claim it (once the lease ran out) goes on from there, so the result is the same as an uninterrupted
// run of that version: no row is lost, none is written twice.
//
// Ownership: a worker owns an import while it holds the lease (`lease_owner`, `lease_until`). It renews
// the lease with every batch and on a heartbeat; each batch's transaction first updates the import row
// `WHERE lease_owner = me`, so a worker that lost its lease (it stalled, another worker took over) writes
// nothing more. On PostgreSQL, claims use `FOR UPDATE SKIP LOCKED` under an advisory lock, so several
// instances share one queue and still run at most one import of an account at a time.
//
// Fairness: a worker runs several imports at once (IMPORT_CONCURRENCY), never two of one account, and
// takes the waiting import of the account whose last claim is oldest; a download that sends nothing for
// IMPORT_STALL_MS is given up (and retried), besides the IMPORT_TIMEOUT_MS limit of a whole download.

import { hostname } from "node:os";
import { randomBytes } from "node:crypto";
import type { Transaction } from "kysely";
import type { Store } from "../db/database.js";
import type { Account, Database } from "../db/schema.js";
import { rowToSubscriber } from "../operations/subscriber/csv-import.js";
import {
  FetchFailedError,
  type FileVersion,
  ImportUrlRefusedError,
  openGuardedStream,
  sameFileVersion,
} from "../common/fetch-guard.js";
import {
  batchApplied,
  claimImport,
  deleteStaged,
  endedImportsWithBatches,
  failImport,
  finishImport,
  firstStagedBatch,
  holdApplying,
  holdStagingBatch,
  importHeldBy,
  markImportStaged,
  releaseImport,
  renewImportLease,
  stageLines,
  startStaging,
} from "../tables/imports.js";
import { listExists } from "../tables/lists.js";
import { accountById } from "../tables/accounts.js";
import { type SubscriberRow, upsertSubscribers } from "../tables/subscriber-insert.js";
import { emailKey } from "../tables/subscribers.js";
import {
  FIRST_ERRORS_KEPT,
  type ImportError,
  type Lookup,
  MAX_ATTEMPTS,
  MAX_LINE_CHARS,
  parseErrors,
} from "../operations/subscriber/import-queue.js";
import { LeaseLostError } from "./lease.js";

/** Options of {@link ImportWorker}. */
export interface ImportWorkerOptions {
  /** `IMPORT_ALLOW_HOSTS`. */
  readonly allowHosts: readonly string[];
  /** Download size limit in bytes (default 256 MiB). */
  readonly maxBytes?: number;
  /** Limit for one whole download in milliseconds (default 30 minutes). */
  readonly timeoutMs?: number;
  /** A download that sends no byte for this long is given up (this attempt; default 60 s). */
  readonly stallMs?: number;
  /** Imports worked on at once by this worker (default 4); one account has at most one of them. */
  readonly concurrency?: number;
  /** How long a claim holds without renewal (default 30 s); renewed by every batch and a heartbeat. */
  readonly leaseMs?: number;
  /** Lines per staging transaction and rows per apply transaction (default 1000). */
  readonly batchRows?: number;
  /** How often an idle worker looks for work (default 1 s); `wake` looks at once. */
  readonly pollMs?: number;
  /** First retry delay after a failed download (default 5 s), doubled per attempt. */
  readonly retryBackoffMs?: number;
  /** Names this worker in `lease_owner` (default host:pid:random); must be unique among live workers. */
  readonly workerId?: string;
  /** Structured log lines (pino's `info`, or a test's collector). */
  readonly log?: (entry: Record<string, unknown>) => void;
  readonly now?: () => number;
  /** Injectable resolver for the download (tests). */
  readonly lookup?: Lookup;
}

/** The account or list of the import no longer exists. */
class GoneError extends Error {}

/** Splits streamed bytes into lines (LF; a CR before it is dropped), decoding UTF-8 as it goes. */
class LineSplitter {
  private readonly decoder = new TextDecoder("utf-8");
  private carry = "";
  /** The current line grew beyond MAX_LINE_CHARS: its text is dropped until the next LF. */
  private overlong = false;

  /** The complete lines in this chunk (`undefined` stands for a line too long to keep). */
  push(chunk: Buffer): (string | undefined)[] {
    return this.split(this.decoder.decode(chunk, { stream: true }), false);
  }

  /** The last line, when the file does not end with a line break. */
  end(): (string | undefined)[] {
    return this.split(this.decoder.decode(), true);
  }

  private split(text: string, last: boolean): (string | undefined)[] {
    const lines: (string | undefined)[] = [];
    let from = 0;
    for (let at = text.indexOf("\n"); at !== -1; at = text.indexOf("\n", from)) {
      lines.push(this.finish(text.slice(from, at)));
      from = at + 1;
    }
    const rest = text.slice(from);
    if (!this.overlong) {
      this.carry += rest;
      if (this.carry.length > MAX_LINE_CHARS) {
        this.overlong = true;
        this.carry = "";
      }
    }
    if (last && (this.carry !== "" || this.overlong)) lines.push(this.finish(""));
    return lines;
  }

  private finish(tail: string): string | undefined {
    let line: string | undefined = this.overlong ? undefined : this.carry + tail;
    this.carry = "";
    this.overlong = false;
    if (line !== undefined && line.length > MAX_LINE_CHARS) line = undefined;
    if (line?.endsWith("\r")) line = line.slice(0, -1);
    return line;
  }
}

/** The in-memory view of the import being worked on; the database holds the committed copy. */
interface Job {
  readonly id: number;
  readonly url: string;
  readonly account: Account;
  readonly listId: number;
  readonly attempts: number;
  /** The whole file is staged (state `applying`): only the apply is left. */
  staged: boolean;
  /** The version of the file the staged lines come from (undefined: none recorded yet). */
  version: FileVersion | undefined;
  linesDone: number;
  rowsImported: number;
  rowsSkipped: number;
  rowsBad: number;
  firstErrors: ImportError[];
  /** lines_done when this attempt began: staging made progress when it got past it. */
  readonly startLines: number;
  /** A batch was applied during this attempt. */
  applied: boolean;
}

/** One batch being collected: the good rows, the bad lines, and the characters of its lines. */
interface Batch {
  lines: number;
  rows: SubscriberRow[];
  bad: ImportError[];
  chars: number;
}

/** A batch is committed at batchRows lines or at this many characters of its lines, whichever comes first. */
export const MAX_BATCH_CHARS = 4 << 20;

function newBatch(): Batch {
  return { lines: 0, rows: [], bad: [], chars: 0 };
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** A download failure that a retry cannot fix: too large, too many redirects, a 4xx status but 408/429. */
function isPermanent(error: FetchFailedError): boolean {
  if (error.kind === "too-large" || error.kind === "redirects") return true;
  const status = error.status;
  return (
    error.kind === "status" &&
    status !== undefined &&
    status >= 400 &&
    status < 500 &&
    status !== 408 &&
    status !== 429
  );
}

/** A transaction conflict worth retrying in place (PostgreSQL deadlock or serialization failure, SQLite busy). */
function isConflict(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === "40P01" || code === "40001" || code === "SQLITE_BUSY";
}

/** Claims of one import after which it fails whatever its progress (a file that changes at every attempt). */
const MAX_CLAIMS = 10;

/** Staged batches deleted per transaction when a failed or restarted import's staging is cleared. */
const PURGE_BATCHES = 20;

/**
 * The import worker: works on up to `concurrency` imports at once, at most one per account, taking the
 * waiting import of the account whose last claim is oldest (queued, or abandoned by a worker whose lease
 * ran out). An import is worked on in two phases:
 *
 * 1. Staging: the file is streamed and its good rows are written to `import_batches`, a batch of lines per
 *    row and per transaction (moving `lines_done`, the bad-row count and the first errors with it). Nothing
 *    reaches the subscribers yet. A later attempt (after a failure, a stop or a crash) downloads the file
 *    again; when the response is the same version (ETag, Last-Modified and Content-Length as recorded,
 *    see sameFileVersion) it skips the lines staged, else it starts over from line 1, so the staged rows
 *    are always one version's. A download that fails for good (too large, 4xx, attempts spent) fails the
 *    import with its staged rows deleted: nothing of it was applied.
 * 2. Applying (state `applying`, once the whole file is staged): the staged rows go to the subscribers in
 *    file order, batch by batch; each batch's transaction writes its subscribers, deletes its staged rows
 *    and counts them (imported, skipped), so a crash resumes the apply where it stopped and the import
 *    ends with all of one version of the file.
 *
 * `start` begins polling, `wake` looks for work at once, `stop` stops claiming, cancels the downloads in
 * progress (a batch being committed finishes; the rest is left for the next claim) and resolves when idle.
 */
export class ImportWorker {
  readonly workerId: string;
  private readonly allowHosts: readonly string[];
  private readonly maxBytes: number;
  private readonly timeoutMs: number;
  private readonly stallMs: number;
  private readonly concurrency: number;
  private readonly leaseMs: number;
  private readonly batchRows: number;
  private readonly pollMs: number;
  private readonly retryBackoffMs: number;
  private readonly log: (entry: Record<string, unknown>) => void;
  private readonly now: () => number;
  private readonly lookup: Lookup | undefined;

  private loop: Promise<void> | undefined;
  private stopping = false;
  private wakeSleeper: (() => void) | undefined;
  private woken = false;
  /** The imports being worked on: their cancellation and their end. */
  private readonly running = new Map<number, { controller: AbortController; done: Promise<void> }>();

  constructor(
    private readonly store: Store,
    options: ImportWorkerOptions,
  ) {
    this.allowHosts = options.allowHosts;
    this.maxBytes = options.maxBytes ?? 256 * 1024 * 1024;
    this.timeoutMs = options.timeoutMs ?? 30 * 60 * 1000;
    this.stallMs = options.stallMs ?? 60_000;
    this.concurrency = Math.max(1, options.concurrency ?? 4);
    this.leaseMs = options.leaseMs ?? 30_000;
    this.batchRows = Math.max(1, options.batchRows ?? 1000);
    this.pollMs = options.pollMs ?? 1000;
    this.retryBackoffMs = options.retryBackoffMs ?? 5000;
    this.workerId = options.workerId ?? `${hostname()}:${process.pid}:${randomBytes(6).toString("hex")}`;
    this.log = options.log ?? (() => {});
    this.now = options.now ?? Date.now;
    this.lookup = options.lookup;
  }

  /** Starts the polling loop (once). */
  start(): void {
    if (this.loop !== undefined) return;
    this.stopping = false;
    this.loop = this.run();
  }

  /** Looks for work now instead of at the next poll. */
  wake(): void {
    this.woken = true;
    this.wakeSleeper?.();
  }

  /** Stops claiming, cancels the downloads after their batch in flight, and resolves when idle. */
  async stop(): Promise<void> {
    this.stopping = true;
    for (const { controller } of this.running.values()) controller.abort(new Error("the worker is stopping"));
    this.wakeSleeper?.();
    const loop = this.loop;
    this.loop = undefined;
    await loop;
    await Promise.all([...this.running.values()].map((r) => r.done));
  }

  /** Claims and works one import, if one is waiting; true when one was worked on (for tests and drains). */
  async runOnce(): Promise<boolean> {
    const job = await this.claim();
    if (job === undefined) return false;
    if (job !== "gone") await this.launch(job);
    return true;
  }

  private async run(): Promise<void> {
    await this.sweep();
    while (!this.stopping) {
      let claimed = false;
      if (this.running.size < this.concurrency) {
        try {
          const job = await this.claim();
          claimed = job !== undefined;
          if (job !== undefined && job !== "gone") {
            // stop() may have come while the claim was under way: give it back untouched.
            if (this.stopping) await this.release(job.id, null, null, true);
            else void this.launch(job);
          }
        } catch (error) {
          this.log({ event: "import.worker_error", worker: this.workerId, error: errorText(error) });
        }
      }
      // Claim the next one at once while slots are free; else wait for a wake, a finished import or the poll.
      if (!(claimed && this.running.size < this.concurrency) && !this.stopping) await this.sleep(this.pollMs);
    }
  }

  /** Works on the job, tracked in `running` until it ends (never rejects). */
  private launch(job: Job): Promise<void> {
    const controller = new AbortController();
    if (this.stopping) controller.abort(new Error("the worker is stopping"));
    const done = this.work(job, controller)
      .catch((error: unknown) =>
        this.log({
          event: "import.worker_error",
          import: job.id,
          worker: this.workerId,
          error: errorText(error),
        }),
      )
      .finally(() => {
        this.running.delete(job.id);
        this.wake();
      });
    this.running.set(job.id, { controller, done });
    return done;
  }

  /** Waits `ms`, or less when woken (a wake while busy makes the next sleep return at once). */
  private sleep(ms: number): Promise<void> {
    if (this.woken) {
      this.woken = false;
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      const finish = (): void => {
        clearTimeout(timer);
        this.wakeSleeper = undefined;
        this.woken = false;
        resolve();
      };
      const timer = setTimeout(finish, ms);
      this.wakeSleeper = finish;
    });
  }

  /**
   * Deletes the staged rows a crash left behind for imports that ended (the delete after a failure is
   * chunked: a crash can stop it half way).
   */
  private async sweep(): Promise<void> {
    try {
      const ended = await endedImportsWithBatches(this.store.db, 100);
      for (const id of ended) await this.purgeStaged(id, 0, null);
    } catch (error) {
      this.log({ event: "import.worker_error", worker: this.workerId, error: errorText(error) });
    }
  }

  /**
   * Takes one import whose lease is free or ran out (attempts + 1) and whose account has no other import
   * being worked on (by any worker), the account whose last claim is oldest first: its job, "gone" when its
   * account or list no longer exists (then marked failed), or undefined when none is waiting.
   */
  private async claim(): Promise<Job | "gone" | undefined> {
    const { db, engine } = this.store;
    const at = this.now();
    const row = await claimImport(db, engine, this.workerId, at, at + this.leaseMs);
    if (row === undefined) return undefined;
    this.log({
      event: "import.claimed",
      import: row.id,
      worker: this.workerId,
      account: row.account_id,
      attempts: row.attempts,
      linesDone: row.lines_done,
      state: row.state,
    });
    const account = await accountById(db, row.account_id);
    const list = await listExists(db, row.list_id, row.account_id);
    if (account === undefined || !list) {
      await this.fail(
        row.id,
        account === undefined ? "the account no longer exists" : "the mailing list no longer exists",
      );
      return "gone";
    }
    const recorded = row.file_etag !== null || row.file_last_modified !== null || row.file_length !== null;
    return {
      id: row.id,
      url: row.url,
      account,
      listId: row.list_id,
      attempts: row.attempts,
      staged: row.state === "applying",
      version: recorded
        ? {
            etag: row.file_etag ?? undefined,
            lastModified: row.file_last_modified ?? undefined,
            length: row.file_length ?? undefined,
          }
        : undefined,
      linesDone: row.lines_done,
      rowsImported: row.rows_imported,
      rowsSkipped: row.rows_skipped,
      rowsBad: row.rows_bad,
      firstErrors: parseErrors(row.first_errors),
      startLines: row.lines_done,
      applied: false,
    };
  }

  /** Stages (downloads) and applies one claimed import; every outcome is written to its row (or the lease was lost). */
  private async work(job: Job, controller: AbortController): Promise<void> {
    let leaseLost = false;
    let beat: Promise<void> = Promise.resolve();
    // The heartbeat keeps the lease while the download is slow or the first lines are being skipped.
    const heartbeat = setInterval(
      () => {
        beat = this.renewLease(job.id).then(
          (held) => {
            if (!held && !leaseLost) {
              leaseLost = true;
              controller.abort(new LeaseLostError(`import ${job.id}`));
            }
          },
          (error: unknown) =>
            this.log({ event: "import.heartbeat_error", import: job.id, error: errorText(error) }),
        );
      },
      Math.max(10, Math.floor(this.leaseMs / 3)),
    );
    const signal = controller.signal;
    try {
      if (!job.staged) {
        await this.download(job, signal);
        await this.markStaged(job);
      }
      await this.apply(job, signal);
      await this.finish(job.id);
      this.log({
        event: "import.done",
        import: job.id,
        worker: this.workerId,
        lines: job.linesDone,
        imported: job.rowsImported,
        skipped: job.rowsSkipped,
        bad: job.rowsBad,
      });
    } catch (error) {
      if (error instanceof LeaseLostError || leaseLost) {
        this.log({ event: "import.lease_lost", import: job.id, worker: this.workerId });
      } else if (this.stopping && signal.aborted) {
        await this.release(job.id, null, null, true);
        this.log({
          event: "import.released",
          import: job.id,
          worker: this.workerId,
          linesDone: job.linesDone,
          staged: job.staged,
        });
      } else if (error instanceof ImportUrlRefusedError) {
        // The detail stays in the import row, which only the operator sees (admin CLI), and the log.
        await this.fail(job.id, `the URL is refused: ${error.message}`);
        this.log({ event: "import.failed", import: job.id, error: error.message });
      } else if (error instanceof GoneError) {
        await this.fail(job.id, error.message);
        this.log({ event: "import.failed", import: job.id, error: error.message });
      } else {
        const permanent = error instanceof FetchFailedError && isPermanent(error);
        const text =
          error instanceof FetchFailedError
            ? `the download failed: ${error.message}`
            : `the import failed: ${errorText(error)}`;
        // Progress: lines staged past where the attempt began (a restart from line 1 must get further than
        // the version before it), or rows applied.
        const progressed = job.applied || job.linesDone > job.startLines;
        if (permanent || job.attempts >= MAX_CLAIMS || (!progressed && job.attempts >= MAX_ATTEMPTS)) {
          await this.fail(job.id, text);
          this.log({
            event: "import.failed",
            import: job.id,
            attempts: job.attempts,
            staged: job.staged,
            error: text,
          });
        } else {
          const delay = this.retryBackoffMs * 2 ** Math.min(Math.max(job.attempts - 1, 0), 6);
          await this.release(job.id, text, this.now() + delay);
          this.log({
            event: "import.retry",
            import: job.id,
            attempts: job.attempts,
            inMs: delay,
            error: text,
          });
        }
      }
    } finally {
      clearInterval(heartbeat);
      await beat;
    }
  }

  /** Phase 1: streams the file into import_batches (see the class comment). */
  private async download(job: Job, signal: AbortSignal): Promise<void> {
    const { body, version } = await openGuardedStream(job.url, {
      allowHosts: this.allowHosts,
      maxBytes: this.maxBytes,
      timeoutMs: this.timeoutMs,
      stallMs: this.stallMs,
      signal,
      ...(this.lookup ? { lookup: this.lookup } : {}),
    });
    if (job.linesDone > 0 && (job.version === undefined || !sameFileVersion(job.version, version))) {
      // Lines of another version (or of one nothing tells apart) are staged: start over. Their rows are
      // replaced line by line as the new version is staged, and the lines past its end are deleted
      // before the apply (markStaged).
      this.log({
        event: "import.restarted",
        import: job.id,
        worker: this.workerId,
        linesDone: job.linesDone,
        was: job.version,
        now: version,
      });
      job.linesDone = 0;
      job.rowsBad = 0;
      job.firstErrors = [];
    }
    await this.startStaging(job, version);
    const splitter = new LineSplitter();
    let line = 0;
    let batch = newBatch();
    const take = async (lines: (string | undefined)[]): Promise<void> => {
      for (const text of lines) {
        line += 1;
        if (line <= job.linesDone) continue; // staged by an earlier attempt, from this same version
        batch.lines += 1;
        batch.chars += text?.length ?? 0;
        if (job.linesDone === 0 && batch.rows.length === 0 && batch.bad.length === 0 && line <= 1000)
          refuseCommaFile(text, line);
        parseLine(text, line, batch, job.account.dd_fields);
        if (batch.lines >= this.batchRows || batch.chars >= MAX_BATCH_CHARS) {
          await this.commit(job, batch);
          batch = newBatch();
          if (signal.aborted) throw signal.reason; // stopping, or the lease was lost: not one batch more
        }
      }
    };
    for await (const chunk of body) {
      if (signal.aborted) throw signal.reason;
      await take(splitter.push(chunk));
    }
    await take(splitter.end());
    if (batch.lines > 0) await this.commit(job, batch);
  }

  /** State `importing` with the version being staged (and counters reset when it starts over). */
  private async startStaging(job: Job, version: FileVersion): Promise<void> {
    const at = this.now();
    const staging = {
      etag: version.etag ?? null,
      lastModified: version.lastModified ?? null,
      length: version.length ?? null,
      linesDone: job.linesDone,
      rowsBad: job.rowsBad,
      firstErrors: JSON.stringify(job.firstErrors),
    };
    if (!(await startStaging(this.store.db, job.id, this.workerId, staging, at, at + this.leaseMs)))
      throw new LeaseLostError(`import ${job.id}`);
    job.version = version;
  }

  /**
   * One staging batch, one transaction: the import row first (counters, lines_done, lease; only while this
   * worker holds the lease and nobody moved lines_done), then the batch's good rows as one row of
   * import_batches (batches an earlier version staged on these lines go). Conflicts are retried in place.
   */
  private async commit(job: Job, batch: Batch): Promise<void> {
    await retryConflicts(() => this.commitOnce(job, batch));
  }

  private async commitOnce(job: Job, batch: Batch): Promise<void> {
    const at = this.now();
    const from = job.linesDone;
    const to = job.linesDone + batch.lines;
    // store.write: one transaction (on SQLite possibly shared with other writes of the same moment, in
    // its own savepoint, so a throw here rolls back this batch alone).
    const next = await this.store.write(async (trx: Transaction<Database>) => {
      const firstErrors =
        job.firstErrors.length < FIRST_ERRORS_KEPT
          ? [...job.firstErrors, ...batch.bad].slice(0, FIRST_ERRORS_KEPT)
          : job.firstErrors;
      const counts = { lines_done: to, rows_bad: job.rowsBad + batch.bad.length, first_errors: firstErrors };
      // Lock the import row before anything else: a claim by another worker waits for (PostgreSQL) or
      // follows (SQLite) this transaction, and this worker writes nothing once its lease is gone.
      const stored = {
        linesDone: counts.lines_done,
        rowsBad: counts.rows_bad,
        firstErrors: JSON.stringify(firstErrors),
      };
      if (!(await holdStagingBatch(trx, job.id, this.workerId, from, stored, at, at + this.leaseMs)))
        throw new LeaseLostError(`import ${job.id}`);
      await stageLines(trx, job.id, from, to, batch.rows.length > 0 ? encodeRows(batch.rows) : undefined);
      return counts;
    });
    job.linesDone = next.lines_done;
    job.rowsBad = next.rows_bad;
    job.firstErrors = next.first_errors;
  }

  /** The whole file is staged: lines a longer earlier version left past its end go, then state `applying`. */
  private async markStaged(job: Job): Promise<void> {
    await this.purgeStaged(job.id, job.linesDone, this.workerId);
    const at = this.now();
    if (!(await markImportStaged(this.store.db, job.id, this.workerId, job.linesDone, at, at + this.leaseMs)))
      throw new LeaseLostError(`import ${job.id}`);
    job.staged = true;
  }

  /** Phase 2: the staged batches to the subscribers, in file order, one transaction per batch. */
  private async apply(job: Job, signal: AbortSignal): Promise<void> {
    for (;;) {
      if (signal.aborted) throw signal.reason;
      const more = await retryConflicts(() => this.applyOnce(job));
      if (!more) return;
    }
  }

  /** Applies the next batch of staged rows; false when none was left. */
  private async applyOnce(job: Job): Promise<boolean> {
    const { engine } = this.store;
    const at = this.now();
    const next = await this.store.write(async (trx: Transaction<Database>) => {
      if (!(await holdApplying(trx, job.id, this.workerId, at, at + this.leaseMs)))
        throw new LeaseLostError(`import ${job.id}`);
      const staged = await firstStagedBatch(trx, job.id);
      if (staged === undefined) return undefined;
      if (!(await listExists(trx, job.listId))) throw new GoneError("the mailing list no longer exists");
      const rows = decodeRows(staged.rows);
      const outcomes = await upsertSubscribers(
        trx,
        engine,
        job.account,
        job.listId,
        mergeSameAddress(rows),
        { update: true, state: "active", recordOptedOut: false },
        at,
      );
      const joined = new Set(outcomes.filter((o) => o.outcome !== "optedOut").map((o) => o.emailKey));
      // Counted per row (not per distinct address), so the counts do not depend on where batches end.
      let imported = 0;
      for (const row of rows) if (joined.has(emailKey(row.email))) imported += 1;
      const counts = {
        rows_imported: job.rowsImported + imported,
        rows_skipped: job.rowsSkipped + rows.length - imported,
      };
      await batchApplied(trx, job.id, staged.first_line, counts);
      return counts;
    });
    if (next === undefined) return false;
    job.rowsImported = next.rows_imported;
    job.rowsSkipped = next.rows_skipped;
    job.applied = true;
    return true;
  }

  /**
   * Deletes an import's staged batches that begin past `afterLine`, PURGE_BATCHES per transaction (while
   * `owner` holds the lease, when one is given).
   */
  private async purgeStaged(id: number, afterLine: number, owner: string | null): Promise<void> {
    for (;;) {
      const deleted = await this.store.write(async (trx) => {
        if (owner !== null && !(await importHeldBy(trx, id, owner))) throw new LeaseLostError(`import ${id}`);
        return deleteStaged(trx, id, afterLine, PURGE_BATCHES);
      });
      if (deleted < PURGE_BATCHES) return;
    }
  }

  private async renewLease(id: number): Promise<boolean> {
    const at = this.now();
    return renewImportLease(this.store.db, id, this.workerId, at + this.leaseMs);
  }

  /**
   * Gives the import back: claimable again at `until` (a retry's backoff) or at once; `returnClaim` (a
   * stopping worker) does not count this claim as an attempt, and the state says how far it got (queued
   * when nothing is staged).
   */
  private async release(
    id: number,
    error: string | null,
    until: number | null = null,
    returnClaim = false,
  ): Promise<void> {
    await releaseImport(this.store.db, id, this.workerId, { error, until, returnClaim }, this.now());
  }

  /** Ends the import as done (only while it is still active and owned by this worker). */
  private async finish(id: number): Promise<void> {
    const at = this.now();
    if (!(await finishImport(this.store.db, id, this.workerId, at))) throw new LeaseLostError(`import ${id}`);
  }

  /**
   * Ends the import as failed (only while it is still active and owned by this worker), then deletes its
   * staged rows: none of them was applied unless the apply had begun (state `applying`: only a vanished
   * list or a database that keeps refusing the same batch fails it there).
   */
  private async fail(id: number, error: string): Promise<void> {
    const at = this.now();
    if (!(await failImport(this.store.db, id, this.workerId, error, at)))
      throw new LeaseLostError(`import ${id}`);
    await this.purgeStaged(id, 0, null);
  }
}

/** Runs `once`, again (at most twice more) when it fails with a transaction conflict. */
async function retryConflicts<T>(once: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await once();
    } catch (error) {
      if (attempt >= 3 || !isConflict(error)) throw error;
    }
  }
}

/** A staged batch's rows as stored: `[[email, name, format, {"1":"SE"}], ...]`. */
function encodeRows(rows: readonly SubscriberRow[]): string {
  return JSON.stringify(
    rows.map((row) => [row.email, row.name ?? "", row.format ?? "", Object.fromEntries(row.fields ?? [])]),
  );
}

function decodeRows(text: string): SubscriberRow[] {
  return (JSON.parse(text) as [string, string, string, Record<string, string>][]).map(
    ([email, name, format, fields]) => ({
      email,
      name,
      format,
      fields: new Map(Object.entries(fields).map(([n, value]) => [Number(n), value])),
    }),
  );
}

/**
 * The batch's rows with one row per address (case-insensitive), in first-seen order: the first row's
 * e-mail as written, and each value the last non-empty one given. Writing that is what writing the rows
 * one after the other does (an insert, then updates of the non-empty values), so where a batch ends never
 * changes the result; upsertSubscribers itself keeps only the last row of an address.
 */
function mergeSameAddress(rows: readonly SubscriberRow[]): SubscriberRow[] {
  const byKey = new Map<string, SubscriberRow>();
  let duplicates = false;
  for (const row of rows) {
    const key = emailKey(row.email);
    const seen = byKey.get(key);
    if (seen === undefined) {
      byKey.set(key, row);
      continue;
    }
    duplicates = true;
    const fields = new Map(seen.fields ?? []);
    for (const [n, value] of row.fields ?? []) if (value !== "") fields.set(n, value);
    const pick = (later: string | undefined, earlier: string | undefined): string | undefined =>
      later !== undefined && later !== "" ? later : earlier;
    byKey.set(key, {
      email: seen.email,
      name: pick(row.name, seen.name),
      format: pick(row.format, seen.format),
      countryCode: pick(row.countryCode, seen.countryCode),
      phone: pick(row.phone, seen.phone),
      fields,
    });
  }
  return duplicates ? [...byKey.values()] : [...rows];
}

/**
 * One line of a semicolon file into the batch. Decision: semicolon files have no quoting (the seed
 * describes plain `Email;Name;Format;dd1;…` rows, and a `;` cannot occur in an e-mail address), so a line
 * is split at every `;`; a quote is an ordinary character. A blank line counts as a line, not as a row.
 */
function parseLine(text: string | undefined, line: number, batch: Batch, activated: number): void {
  if (text === undefined) {
    batch.bad.push({ line, error: `the line is longer than ${MAX_LINE_CHARS} characters` });
    return;
  }
  const clean = line === 1 && text.startsWith("\uFEFF") ? text.slice(1) : text;
  if (clean.trim() === "") return;
  const row = rowToSubscriber(clean.split(";"), ";", activated);
  if ("problem" in row) batch.bad.push({ line, error: row.problem });
  else batch.rows.push(row);
}

/**
 * The first row of the file decides: a line with a comma and no semicolon means a comma-separated file,
 * refused at once (GoneError: failed, nothing applied) instead of counting every row bad.
 */
function refuseCommaFile(text: string | undefined, line: number): void {
  if (text === undefined || text.trim() === "" || text.includes(";") || !text.includes(",")) return;
  throw new GoneError(
    `the file is comma-separated (line ${line} has commas and no semicolon); queued imports take semicolon-delimited rows: Email;Name;Format;dd1;...`,
  );
}
