// One query layer over both engines: Kysely with its SQLite dialect (better-sqlite3, embedded, the
// default) and its PostgreSQL dialect (pg, for several instances on one database). Queries are built
// with Kysely's builder or its `sql` tag, which always binds values as parameters: no SQL text is ever
// made from request values. On SQLite a few hot paths (a single subscriber insert, the credentials
// check) run constant SQL texts as prepared better-sqlite3 statements instead (Store.sqlite), also with
// bound values only: building and compiling a Kysely query costs more than running it there.

import fs from "node:fs";
import path from "node:path";
import SQLite from "better-sqlite3";
import { Kysely, PostgresDialect, type Transaction } from "kysely";
import pg from "pg";
import { GatedSqliteDialect, WriteGate, longWriter } from "./long-write.js";
import type { Engine } from "./engine.js";
import { migrate } from "./migrations/index.js";
import type { Database } from "./schema.js";

/** The database or a transaction on it: what a query helper takes. */
export type Db = Kysely<Database> | Transaction<Database>;

export interface DatabaseOptions {
  /** SQLite's `synchronous` setting: FULL (default) syncs the log at every commit. */
  readonly sqliteSync?: "FULL" | "NORMAL";
  /** Connections in the PostgreSQL pool (default 10). */
  readonly poolSize?: number;
}

export interface Store {
  readonly db: Kysely<Database>;
  readonly engine: Engine;
  /**
   * Runs `work` in a write transaction and resolves after its commit is durable. On SQLite, writes that arrive
   * together share one transaction and one commit (group commit: one log sync for the batch, each write
   * inside its own savepoint, so one that throws is rolled back alone); on PostgreSQL each write has its
   * own transaction on a pooled connection.
   */
  write<T>(work: (trx: Transaction<Database>) => Promise<T>): Promise<T>;
  /**
   * Runs `work` in one write transaction that takes long (`work` yields between slices): on PostgreSQL as
   * `write`; on SQLite on a second connection to the file, while the store's connection goes on serving
   * reads (of the state before it) and other writes wait for its commit (service/db/long-write.ts). Writes
   * on SQLite must go through Kysely, `write` or `writeSync` (never a raw statement), so they wait for it.
   */
  writeLong<T>(work: (trx: Transaction<Database>) => Promise<T>): Promise<T>;
  /**
   * SQLite only (undefined on PostgreSQL): the connection's prepared statements and synchronous writes in
   * the same group commit, for hot paths where building and compiling queries costs more than running them.
   */
  readonly sqlite: SqliteAccess | undefined;
  /** The URL without its password, for logs and `--help`. */
  readonly displayUrl: string;
  close(): Promise<void>;
}

/**
 * Synchronous access to the SQLite connection behind a Store. Statement texts must be constants: values
 * are always bound as parameters.
 */
export interface SqliteAccess {
  /** The connection's prepared statement for `text` (cached, shared with Kysely's queries). */
  statement(text: string): SQLite.Statement;
  /**
   * Runs `work` in the group commit like Store.write (its own savepoint, one commit for the batch) and
   * resolves after the commit. `work` is synchronous: it runs whole, with no other statement in between.
   */
  writeSync<T>(work: () => T): Promise<T>;
  /**
   * Runs a synchronous read now when no transaction is open on the connection; undefined when one is
   * open (the caller then reads through Kysely, which waits for it). It may see a batch of writeSync
   * work whose log sync is still in flight: read only tables that writeSync work never changes.
   */
  readNow<T>(read: () => T): { value: T } | undefined;
}

const sqliteAccess = new WeakMap<Kysely<Database>, SqliteAccess>();

/** The SqliteAccess of a SQLite store's Kysely instance (undefined for PostgreSQL or a transaction). */
export function sqliteOf(db: Kysely<Database>): SqliteAccess | undefined {
  return sqliteAccess.get(db);
}

// int8 (bigint) columns hold ids, counts and epoch milliseconds, all far below 2^53: read them as numbers.
pg.types.setTypeParser(20, (text) => Number.parseInt(text, 10));

/** What DATABASE_URL names: `sqlite:path/to/file.db`, `sqlite::memory:`, or `postgres://…`. */
export function parseDatabaseUrl(url: string): { engine: Engine; target: string } {
  if (url.startsWith("sqlite:")) {
    const target = url.slice("sqlite:".length).replace(/^\/\/(?=\/)/, "");
    if (target === "")
      throw new Error("DATABASE_URL sqlite: needs a file path, as in sqlite:data/service.db");
    return { engine: "sqlite", target };
  }
  if (/^postgres(ql)?:\/\//.test(url)) return { engine: "postgres", target: url };
  throw new Error("DATABASE_URL must start with sqlite: or postgres:// (as in sqlite:data/service.db)");
}

/** A database URL safe to print: a PostgreSQL password replaced by ***. */
export function displayDatabaseUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password !== "") parsed.password = "***";
    return parsed.toString();
  } catch {
    return url.replace(/\/\/([^:/@]*):[^@/]*@/, "//$1:***@");
  }
}

/** Prepared statements kept per connection (least recently used dropped first). */
const STATEMENT_CACHE = 256;

/**
 * better-sqlite3 behind Kysely with prepared statements reused: Kysely's SQLite driver prepares every
 * query it runs, and preparing costs more than running a small statement. The one connection is used
 * by one query at a time (Kysely's driver holds a mutex), so a cached statement is never in use twice.
 */
function cachedStatements(sqlite: SQLite.Database) {
  const cache = new Map<string, SQLite.Statement>();
  return {
    database: sqlite,
    close: () => sqlite.close(),
    prepare(text: string): SQLite.Statement {
      let statement = cache.get(text);
      if (statement !== undefined) {
        cache.delete(text);
      } else {
        statement = sqlite.prepare(text);
        if (cache.size >= STATEMENT_CACHE) cache.delete(cache.keys().next().value as string);
      }
      cache.set(text, statement);
      return statement;
    },
  };
}

/**
 * Makes the SQLite file's folder (0700 when made here; its parent must exist) and the file itself 0600 before SQLite opens it:
 * it holds password hashes and the link key. SQLite creates its -wal and -shm files with the database
 * file's mode, so they are 0600 too, whatever the umask. An existing file (and its -wal, -shm) readable by
 * group or others is narrowed to its owner.
 */
function privateSqliteFile(target: string): void {
  // Only the file's own folder is made (data/ of sqlite:data/service.db): a path whose parent folder is
  // missing is a typo far more often than a wish, and is refused.
  const folder = path.dirname(path.resolve(target));
  if (!fs.existsSync(path.dirname(folder)))
    throw new Error(
      `DATABASE_URL: the folder ${path.dirname(folder)} does not exist (the service makes at most the database file's own folder)`,
    );
  try {
    fs.mkdirSync(folder, { mode: 0o700 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
  }
  fs.closeSync(fs.openSync(target, fs.constants.O_RDWR | fs.constants.O_CREAT, 0o600));
  for (const file of [target, `${target}-wal`, `${target}-shm`]) {
    let mode: number;
    try {
      mode = fs.statSync(file).mode;
    } catch {
      continue;
    }
    if ((mode & 0o077) !== 0) fs.chmodSync(file, mode & 0o700);
  }
}

/** Opens the database named by the URL, creating the SQLite file (0600) and folder when missing, and migrates. */
export async function openStore(url: string, options: DatabaseOptions = {}): Promise<Store> {
  const { engine, target } = parseDatabaseUrl(url);
  let db: Kysely<Database>;
  let connection: ReturnType<typeof cachedStatements> | undefined;
  let walPath: string | undefined;
  let log: LogSync | undefined;
  const gate = new WriteGate();
  const pragmas = [
    `synchronous = ${options.sqliteSync === "NORMAL" ? "NORMAL" : "FULL"}`,
    "busy_timeout = 10000",
    "foreign_keys = ON",
  ];
  if (engine === "sqlite") {
    if (target !== ":memory:") privateSqliteFile(target);
    const sqlite = new SQLite(target);
    const journal = sqlite.pragma("journal_mode = WAL", { simple: true });
    for (const pragma of pragmas) sqlite.pragma(pragma);
    // With FULL, the group commit's synchronous batches sync the log themselves, off the event loop.
    if (journal === "wal" && options.sqliteSync !== "NORMAL") walPath = `${target}-wal`;
    const cached = cachedStatements(sqlite);
    connection = cached;
    if (walPath !== undefined) log = new LogSync(cached, walPath);
    // Writes wait while a long write runs on the second connection (writeLong); with FULL, Kysely's commits
    // sync the log off the event loop (LogSync).
    const dialect = new GatedSqliteDialect(
      { database: cached },
      gate,
      (text) => !cached.prepare(text).readonly,
      () => sqlite.inTransaction,
      log,
    );
    db = new Kysely<Database>({ dialect });
  } else {
    const pool = new pg.Pool({ connectionString: target, max: options.poolSize ?? 10 });
    // An idle client's error (the server restarted) must not take the process down; the next query fails.
    pool.on("error", () => {});
    db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  }
  try {
    await migrate(db, engine);
  } catch (error) {
    await db.destroy();
    throw error;
  }
  let write: Store["write"];
  let writeLong: Store["writeLong"];
  let access: SqliteAccess | undefined;
  let closeLog: (() => Promise<void>) | undefined;
  if (connection !== undefined) {
    const group = groupCommit(db, connection, log, gate);
    write = group.write;
    writeLong = write;
    closeLog = group.close;
    if (target !== ":memory:") {
      // Holding the store's connection through Kysely: no transaction, no group commit batch meanwhile.
      const long = longWriter(
        () => {
          const second = new SQLite(target);
          for (const pragma of pragmas) second.pragma(pragma);
          return cachedStatements(second);
        },
        gate,
        (during) => db.connection().execute(during),
      );
      writeLong = long.run;
      closeLog = async () => {
        await long.close();
        await group.close();
      };
    }
    access = {
      statement: connection.prepare,
      writeSync: group.writeSync,
      readNow: (read) =>
        connection.database.inTransaction || log?.holding === true ? undefined : { value: read() },
    };
    sqliteAccess.set(db, access);
  } else {
    write = <T>(work: (trx: Transaction<Database>) => Promise<T>) => db.transaction().execute(work);
    writeLong = write;
  }
  return {
    db,
    engine,
    write,
    writeLong,
    sqlite: access,
    displayUrl: engine === "sqlite" ? `sqlite:${target}` : displayDatabaseUrl(target),
    close: async () => {
      await closeLog?.();
      await db.destroy();
      log?.close();
    },
  };
}

/**
 * With SQLITE_SYNC=FULL on a file, how the store's connection makes a commit durable without blocking the
 * event loop: the commit runs with synchronous=NORMAL (its WAL frames written, not synced) and the log file
 * is then fdatasync'ed on libuv's thread pool; whoever committed is answered only after that sync, which
 * covers every earlier frame of the log too. The group commit's batches (writeSync) and Kysely's commits
 * (a transaction's COMMIT, a write statement outside a transaction: GatedSqliteDialect) both commit so
 * (the setting can change only outside a transaction: set before BEGIN, back after COMMIT or ROLLBACK).
 * A Kysely commit holds the connection until its sync has ended (no Kysely query reads what is not yet
 * durable), and `holding` is true meanwhile, so SqliteAccess.readNow does not read either.
 */
class LogSync {
  private fd: number | undefined;
  private readonly normal: SQLite.Statement;
  private readonly full: SQLite.Statement;
  /** Kysely commits between their COMMIT and the end of their sync. */
  private kyselySyncs = 0;

  private readonly inTransaction: () => boolean;

  constructor(
    connection: ReturnType<typeof cachedStatements>,
    private readonly walPath: string,
  ) {
    this.normal = connection.database.prepare("pragma synchronous = NORMAL");
    this.full = connection.database.prepare("pragma synchronous = FULL");
    this.inTransaction = () => connection.database.inTransaction;
  }

  /** A Kysely commit's sync is in flight (the connection is held for it). */
  get holding(): boolean {
    return this.kyselySyncs > 0;
  }

  /** Runs `commit` (statements ending in a COMMIT, or one autocommitted write) without SQLite's log sync. */
  withoutSync<T>(commit: () => T): T {
    this.normal.run();
    try {
      return commit();
    } finally {
      this.full.run();
    }
  }

  /** Syncs the log on the thread pool: resolves when every frame written so far is on disk. */
  sync(): Promise<void> {
    // The WAL file exists from the first commit on and stays while this connection is open.
    this.fd ??= fs.openSync(this.walPath, "r");
    const fd = this.fd;
    return new Promise((resolve, reject) =>
      fs.fdatasync(fd, (error) => (error === null ? resolve() : reject(error))),
    );
  }

  /** Before a Kysely BEGIN or a write outside a transaction: it is to commit without SQLite's log sync. */
  unsynced(): void {
    this.normal.run();
  }

  /**
   * After that transaction or write has ended (SQLite's setting back to FULL); after a commit, resolves once
   * the log is synced, the connection still held by the caller.
   */
  async ended(committed: boolean): Promise<void> {
    // (A failed COMMIT leaves the transaction open until its ROLLBACK, which ends it here again.)
    if (this.inTransaction()) return;
    this.full.run();
    if (!committed) return;
    this.kyselySyncs++;
    try {
      await this.sync();
    } finally {
      this.kyselySyncs--;
    }
  }

  close(): void {
    if (this.fd !== undefined) fs.closeSync(this.fd);
    this.fd = undefined;
  }
}

type PendingWrite =
  | {
      readonly sync: false;
      readonly work: (trx: Transaction<Database>) => Promise<unknown>;
      readonly resolve: (value: unknown) => void;
      readonly reject: (error: unknown) => void;
    }
  | {
      readonly sync: true;
      readonly work: () => unknown;
      readonly resolve: (value: unknown) => void;
      readonly reject: (error: unknown) => void;
    };

/** Writes taken into one SQLite transaction at most. */
const GROUP_LIMIT = 256;

/**
 * Batches of synchronous writes committed one after another while earlier ones are still syncing their
 * log, before the connection is handed back to Kysely (so its queries wait a bounded time).
 */
const PIPELINE_GROUPS = 16;

/**
 * SQLite group commit. Writes queue up; one flush at a time takes up to GROUP_LIMIT of them into one
 * transaction, each in a savepoint, and commits once; every write's promise settles after that commit
 * is durable (or with the commit's error). A write's own error rolls back its savepoint only.
 *
 * A batch with any Kysely write runs in a Kysely transaction (which holds the connection against other
 * queries; its synchronous writes run there in turn) and commits as Kysely commits. A batch of synchronous writes alone (SqliteAccess.writeSync) holds the connection through
 * Kysely too, then runs from BEGIN to COMMIT in one turn of the event loop on prepared statements. With
 * SQLITE_SYNC=FULL neither commit blocks the event loop for the log sync (LogSync: committed with
 * synchronous=NORMAL, then the log fdatasync'ed on libuv's thread pool). No write of a batch is answered
 * before its own sync, started after its commit, has finished: that sync covers every earlier frame of
 * the log too.
 *
 * While a batch's sync is in flight, the synchronous writes that arrive meanwhile are the next batch:
 * it runs and commits at once and starts its own sync (a pipeline; the earlier batch is answered when
 * its sync ends, the later one when its own does). A later batch may read what an earlier one wrote
 * before that is durable; it is answered only after its own sync, which covers the earlier batch's
 * frames too, so no caller ever sees an answer that a crash could take back. The connection stays held
 * from the first batch until every sync of the pipeline has finished, so no Kysely query reads a write
 * that is not durable; after PIPELINE_GROUPS batches, or when no write arrives before the syncs end, it
 * is handed back. Only SqliteAccess.readNow can read meanwhile, and it reads no table a synchronous
 * write changes.
 */
function groupCommit(
  db: Kysely<Database>,
  connection: ReturnType<typeof cachedStatements>,
  log: LogSync | undefined,
  gate: WriteGate,
) {
  const queue: PendingWrite[] = [];
  let flushing = false;
  /** Settles when the flush under way (if any) has settled every write it took. */
  let drained: Promise<void> = Promise.resolve();
  const statement = (text: string) => {
    let prepared: SQLite.Statement | undefined;
    return () => (prepared ??= connection.prepare(text)).run();
  };
  const savepoint = statement("savepoint w");
  const release = statement("release w");
  const rollbackTo = statement("rollback to w");
  const begin = statement("begin immediate");
  const commit = statement("commit");
  const rollback = statement("rollback");

  /** One write inside its savepoint; returns how to settle its promise after the commit. */
  function runSync(pending: PendingWrite & { sync: true }): () => void {
    savepoint();
    try {
      const value = pending.work();
      release();
      return () => pending.resolve(value);
    } catch (error) {
      rollbackTo();
      release();
      return () => pending.reject(error);
    }
  }

  /** Runs one batch of synchronous writes from BEGIN to COMMIT; throws the commit's error. */
  function commitSync(batch: readonly (PendingWrite & { sync: true })[]): (() => void)[] {
    const settled: (() => void)[] = [];
    const run = () => {
      begin();
      try {
        for (const pending of batch) settled.push(runSync(pending));
        commit();
      } catch (error) {
        if (connection.database.inTransaction) rollback();
        throw error;
      }
    };
    if (log === undefined) run();
    else log.withoutSync(run);
    return settled;
  }

  /** The synchronous writes at the head of the queue (up to GROUP_LIMIT), taken off it. */
  function takeSyncHead(): (PendingWrite & { sync: true })[] {
    let n = 0;
    while (n < queue.length && n < GROUP_LIMIT && queue[n]!.sync) n++;
    return queue.splice(0, n) as (PendingWrite & { sync: true })[];
  }

  /** Resolves when enqueue adds a write (set while a pipeline waits for one). */
  let onArrival: (() => void) | undefined;

  /**
   * The synchronous writes at the head of the queue, batch after batch while earlier syncs are in flight
   * (see groupCommit); each write settles after its batch's commit is durable.
   */
  async function flushSync(): Promise<void> {
    let started = false;
    try {
      await flushPipeline(() => (started = true));
    } catch (error) {
      // The connection could not be had (the store is closing): the writes waiting get its error.
      if (!started) for (const pending of takeSyncHead()) pending.reject(error);
      else throw error;
    }
  }

  async function flushPipeline(onStart: () => void): Promise<void> {
    await db.connection().execute(async () => {
      onStart();
      // Kysely's connection is ours: no transaction of its own is open, no query of its runs.
      const inFlight: Promise<void>[] = [];
      let syncing = 0;
      let syncEnded: (() => void) | undefined;
      for (let group = 0; group < PIPELINE_GROUPS; group++) {
        // Holding the connection with no long write active, a batch may write (a long write takes the lock
        // only while it holds the connection); after the first batch, one waiting gets the connection back.
        if (gate.active || (group > 0 && gate.wanted)) break;
        const batch = takeSyncHead();
        if (batch.length === 0) break;
        let settled: (() => void)[];
        try {
          settled = commitSync(batch);
        } catch (error) {
          for (const pending of batch) pending.reject(error);
          break;
        }
        if (log === undefined) {
          for (const settle of settled) settle();
          break;
        }
        syncing++;
        inFlight.push(
          log
            .sync()
            .then(
              () => {
                for (const settle of settled) settle();
              },
              (error: unknown) => {
                for (const pending of batch) pending.reject(error);
              },
            )
            .finally(() => {
              syncing--;
              syncEnded?.();
            }),
        );
        // Wait for the next writes while a sync is in flight; stop when every sync has ended first.
        const next = queue.length > 0 && queue[0]!.sync;
        if (!next) {
          await new Promise<void>((resolve) => {
            onArrival = resolve;
            syncEnded = () => {
              if (syncing === 0) resolve();
            };
          });
          onArrival = undefined;
          syncEnded = undefined;
          if (!(queue.length > 0 && queue[0]!.sync)) break;
        }
        // Writes arriving in the same turn of the event loop join this batch.
        await new Promise<void>((resolve) => setImmediate(resolve));
      }
      await Promise.all(inFlight);
    });
  }

  async function flushAsync(batch: readonly PendingWrite[]): Promise<void> {
    const settled: (() => void)[] = [];
    try {
      await db.transaction().execute(async (trx) => {
        for (const pending of batch) {
          if (pending.sync) {
            settled.push(runSync(pending));
            continue;
          }
          savepoint();
          try {
            const value = await pending.work(trx);
            release();
            settled.push(() => pending.resolve(value));
          } catch (error) {
            rollbackTo();
            release();
            settled.push(() => pending.reject(error));
          }
        }
      });
      for (const settle of settled) settle();
    } catch (error) {
      for (const pending of batch) pending.reject(error);
    }
  }

  async function flush(): Promise<void> {
    flushing = true;
    try {
      while (queue.length > 0) {
        // No batch begins while a long write holds the lock (writeLong): it would meet SQLITE_BUSY.
        await gate.inactive();
        if (queue.slice(0, GROUP_LIMIT).every((pending) => pending.sync)) {
          await flushSync();
        } else {
          await flushAsync(queue.splice(0, GROUP_LIMIT));
        }
      }
    } finally {
      flushing = false;
    }
  }

  function enqueue(pending: PendingWrite): void {
    queue.push(pending);
    onArrival?.();
    // Writes arriving in the same turn of the event loop join this flush.
    if (!flushing) {
      flushing = true;
      drained = new Promise((resolve) => setImmediate(() => void flush().finally(resolve)));
    }
  }

  return {
    write: <T>(work: (trx: Transaction<Database>) => Promise<T>): Promise<T> =>
      new Promise<T>((resolve, reject) =>
        enqueue({ sync: false, work, resolve: resolve as (value: unknown) => void, reject }),
      ),
    writeSync: <T>(work: () => T): Promise<T> =>
      new Promise<T>((resolve, reject) =>
        enqueue({ sync: true, work, resolve: resolve as (value: unknown) => void, reject }),
      ),
    /** After the writes queued so far have settled (no log sync is left in flight on the file). */
    close: async () => {
      await drained;
    },
  };
}
