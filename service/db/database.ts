// One query layer over both engines: Kysely with its SQLite dialect (better-sqlite3, embedded, the
// default) and its PostgreSQL dialect (pg, for several instances on one database). Queries are built
// with Kysely's builder or its `sql` tag, which always binds values as parameters: no SQL text is ever
// made from request values.

import fs from "node:fs";
import path from "node:path";
import SQLite from "better-sqlite3";
import { Kysely, PostgresDialect, SqliteDialect, type Transaction, sql } from "kysely";
import pg from "pg";
import { migrate } from "./migrations.js";
import type { Database } from "./schema.js";

export type Engine = "sqlite" | "postgres";

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
   * Runs `work` in a write transaction and resolves after its commit. On SQLite, writes that arrive
   * together share one transaction and one commit (group commit: one log sync for the batch, each write
   * inside its own savepoint, so one that throws is rolled back alone); on PostgreSQL each write has its
   * own transaction on a pooled connection.
   */
  write<T>(work: (trx: Transaction<Database>) => Promise<T>): Promise<T>;
  /** The URL without its password, for logs and `--help`. */
  readonly displayUrl: string;
  close(): Promise<void>;
}

// int8 (bigint) columns hold ids, counts and epoch milliseconds, all far below 2^53: read them as numbers.
pg.types.setTypeParser(20, (text) => Number.parseInt(text, 10));

/** What DATABASE_URL names: `sqlite:path/to/file.db`, `sqlite::memory:`, or `postgres://…`. */
export function parseDatabaseUrl(url: string): { engine: Engine; target: string } {
  if (url.startsWith("sqlite:")) {
    const target = url.slice("sqlite:".length).replace(/^\/\/(?=\/)/, "");
    if (target === "") throw new Error("DATABASE_URL sqlite: needs a file path, as in sqlite:data/service.db");
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

/** Opens the database named by the URL, creating the SQLite file and folder when missing, and migrates. */
export async function openStore(url: string, options: DatabaseOptions = {}): Promise<Store> {
  const { engine, target } = parseDatabaseUrl(url);
  let db: Kysely<Database>;
  if (engine === "sqlite") {
    if (target !== ":memory:") fs.mkdirSync(path.dirname(path.resolve(target)), { recursive: true });
    const sqlite = new SQLite(target);
    sqlite.pragma("journal_mode = WAL");
    sqlite.pragma(`synchronous = ${options.sqliteSync === "NORMAL" ? "NORMAL" : "FULL"}`);
    sqlite.pragma("busy_timeout = 10000");
    sqlite.pragma("foreign_keys = ON");
    db = new Kysely<Database>({ dialect: new SqliteDialect({ database: cachedStatements(sqlite) }) });
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
  const write = engine === "sqlite" ? groupCommit(db) : <T>(work: (trx: Transaction<Database>) => Promise<T>) => db.transaction().execute(work);
  return {
    db,
    engine,
    write,
    displayUrl: engine === "sqlite" ? `sqlite:${target}` : displayDatabaseUrl(target),
    close: () => db.destroy(),
  };
}

interface PendingWrite {
  readonly work: (trx: Transaction<Database>) => Promise<unknown>;
  readonly resolve: (value: unknown) => void;
  readonly reject: (error: unknown) => void;
}

/** Writes taken into one SQLite transaction at most. */
const GROUP_LIMIT = 256;

/**
 * SQLite group commit. Writes queue up; one flush at a time takes up to GROUP_LIMIT of them into one
 * transaction, each in a savepoint, and commits once; every write's promise settles after that commit
 * (or with the commit's error). A write's own error rolls back its savepoint only.
 */
function groupCommit(db: Kysely<Database>) {
  const queue: PendingWrite[] = [];
  let flushing = false;

  async function flush(): Promise<void> {
    flushing = true;
    try {
      while (queue.length > 0) {
        const batch = queue.splice(0, GROUP_LIMIT);
        const settled: (() => void)[] = [];
        try {
          await db.transaction().execute(async (trx) => {
            for (const pending of batch) {
              await sql`savepoint w`.execute(trx);
              try {
                const value = await pending.work(trx);
                await sql`release w`.execute(trx);
                settled.push(() => pending.resolve(value));
              } catch (error) {
                await sql`rollback to w`.execute(trx);
                await sql`release w`.execute(trx);
                settled.push(() => pending.reject(error));
              }
            }
          });
          for (const settle of settled) settle();
        } catch (error) {
          for (const pending of batch) pending.reject(error);
        }
      }
    } finally {
      flushing = false;
    }
  }

  return <T>(work: (trx: Transaction<Database>) => Promise<T>): Promise<T> =>
    new Promise<T>((resolve, reject) => {
      queue.push({ work, resolve: resolve as (value: unknown) => void, reject });
      // Writes arriving in the same turn of the event loop join this flush.
      if (!flushing) {
        flushing = true;
        setImmediate(() => void flush());
      }
    });
}
