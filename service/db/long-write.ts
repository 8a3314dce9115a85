// A long write transaction on SQLite that neither blocks the event loop nor the readers (Store.writeLong).
//
// SQLite has one writer at a time, and the store has one connection: a transaction of 100,000 rows (the
// CSV bulk insert, all or nothing) holds that connection for about a second of statements. Cut into slices
// with yields in between, the event loop is free, but every other query waits for the connection anyway.
// So the long transaction runs on a second connection to the same file, in slices, while the store's
// connection goes on serving reads (WAL: they see the state before the transaction, until its commit).
//
// Writes on the store's connection cannot run meanwhile: SQLite would answer SQLITE_BUSY, and its busy
// handler sleeps on the event loop's thread, so the slices of the long transaction could not go on (a
// deadlock until the busy timeout). The WriteGate keeps them out: while a long write holds the lock, a
// write transaction or a write statement outside a transaction on the store's connection waits for its
// end, having given the connection back (so the reads queued behind it go on); the group commit waits
// before each batch. The long write takes the lock (BEGIN IMMEDIATE on its connection) while it holds the
// store's connection, so no transaction is open there and none begins until it has the lock; the writes
// that waited for one long write queue for the store's connection before the next long write does, so
// neither kind starves the other.

import {
  type CompiledQuery,
  type DatabaseConnection,
  type Driver,
  Kysely,
  type QueryResult,
  SqliteDialect,
  type SqliteDialectConfig,
  type Transaction,
  type TransactionSettings,
  sql,
} from "kysely";
import type { Database } from "./schema.js";

/** Long writes one at a time, and whether one holds SQLite's write lock (writes on the store's connection wait). */
export class WriteGate {
  private turn: Promise<unknown> = Promise.resolve();
  private activeUntil: Promise<void> | undefined;
  private end: (() => void) | undefined;
  /** Long writes begun or waiting for their turn. */
  private pending = 0;

  /** A long write holds the write lock now. */
  get active(): boolean {
    return this.activeUntil !== undefined;
  }

  /** A long write holds the write lock or waits to take it. */
  get wanted(): boolean {
    return this.pending > 0;
  }

  /** Resolves when no long write holds the write lock (at once when none does). */
  async inactive(): Promise<void> {
    while (this.activeUntil !== undefined) await this.activeUntil;
  }

  /** Runs `work` after the long writes before it (one at a time). */
  serial<T>(work: () => Promise<T>): Promise<T> {
    this.pending++;
    const run = this.turn.then(work).finally(() => this.pending--);
    this.turn = run.catch(() => undefined);
    return run;
  }

  /** The write lock is taken (called while holding the store's connection). */
  activate(): void {
    this.activeUntil = new Promise<void>((resolve) => (this.end = resolve));
  }

  /** The write lock is given up: the writes that waited go on. */
  deactivate(): void {
    const end = this.end;
    this.activeUntil = undefined;
    this.end = undefined;
    end?.();
  }
}

/**
 * The store connection's dialect: Kysely's SQLite dialect whose driver makes writes wait at the gate
 * (see the module comment). `isWrite` tells a statement that changes the database (better-sqlite3's
 * `readonly`); `inTransaction` whether the connection has a transaction open (its statements go on: the
 * long write waits for that transaction to end before it begins).
 */
export class GatedSqliteDialect extends SqliteDialect {
  constructor(
    config: SqliteDialectConfig,
    private readonly gate: WriteGate,
    private readonly isWrite: (sql: string) => boolean,
    private readonly inTransaction: () => boolean,
    private readonly log?: DeferredCommits,
  ) {
    super(config);
  }

  override createDriver(): Driver {
    return new GatedDriver(super.createDriver(), this.gate, this.isWrite, this.inTransaction, this.log);
  }
}

/**
 * How the dialect commits when the log is synced off the event loop (database.ts LogSync): `unsynced`
 * before a BEGIN (or a write outside a transaction), `ended` after its COMMIT or ROLLBACK, resolving
 * after a commit once the log is synced.
 */
export interface DeferredCommits {
  unsynced(): void;
  ended(committed: boolean): Promise<void>;
}

class GatedDriver implements Driver {
  constructor(
    private readonly inner: Driver,
    private readonly gate: WriteGate,
    private readonly isWrite: (sql: string) => boolean,
    private readonly inTransaction: () => boolean,
    readonly log: DeferredCommits | undefined,
  ) {}

  init(): Promise<void> {
    return this.inner.init();
  }

  async acquireConnection(): Promise<DatabaseConnection> {
    const connection = await this.inner.acquireConnection();
    return new GatedConnection(connection, this);
  }

  /**
   * Waits while a long write holds the lock, with the connection given back meanwhile (SQLite's one
   * connection: the same one after). Holding the connection with no long write active, the caller may
   * write until it gives the connection back: a long write takes the lock only while it holds it.
   */
  async pass(connection: DatabaseConnection): Promise<void> {
    while (this.gate.active) {
      await this.inner.releaseConnection(connection);
      await this.gate.inactive();
      await this.inner.acquireConnection();
    }
  }

  /** Whether this statement must wait: a write outside a transaction while a long write holds the lock. */
  mustWait(sql: string): boolean {
    return this.gate.active && !this.inTransaction() && this.isWrite(sql);
  }

  async beginTransaction(connection: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    const inner = unwrap(connection);
    await this.pass(inner);
    this.log?.unsynced();
    try {
      await this.inner.beginTransaction(inner, settings);
    } catch (error) {
      await this.log?.ended(false);
      throw error;
    }
  }

  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    await this.inner.commitTransaction(unwrap(connection));
    // The connection stays held until the log is synced (Kysely gives it back after this resolves).
    await this.log?.ended(true);
  }

  /** A statement that commits on its own: a write outside a transaction (with `log`, synced off the loop). */
  autocommits(sql: string): boolean {
    return this.log !== undefined && !this.inTransaction() && this.isWrite(sql);
  }

  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    try {
      await this.inner.rollbackTransaction(unwrap(connection));
    } finally {
      await this.log?.ended(false);
    }
  }

  async savepoint(
    connection: DatabaseConnection,
    name: string,
    compile: Parameters<NonNullable<Driver["savepoint"]>>[2],
  ): Promise<void> {
    await this.inner.savepoint?.(unwrap(connection), name, compile);
  }

  async rollbackToSavepoint(
    connection: DatabaseConnection,
    name: string,
    compile: Parameters<NonNullable<Driver["rollbackToSavepoint"]>>[2],
  ): Promise<void> {
    await this.inner.rollbackToSavepoint?.(unwrap(connection), name, compile);
  }

  async releaseSavepoint(
    connection: DatabaseConnection,
    name: string,
    compile: Parameters<NonNullable<Driver["releaseSavepoint"]>>[2],
  ): Promise<void> {
    await this.inner.releaseSavepoint?.(unwrap(connection), name, compile);
  }

  releaseConnection(connection: DatabaseConnection): Promise<void> {
    return this.inner.releaseConnection(unwrap(connection));
  }

  destroy(): Promise<void> {
    return this.inner.destroy();
  }
}

class GatedConnection implements DatabaseConnection {
  constructor(
    readonly inner: DatabaseConnection,
    private readonly driver: GatedDriver,
  ) {}

  executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    if (this.driver.autocommits(query.sql)) return this.autocommit(query);
    if (!this.driver.mustWait(query.sql)) return this.inner.executeQuery(query);
    return this.driver.pass(this.inner).then(() => this.inner.executeQuery<R>(query));
  }

  /** A write outside a transaction: after a long write, committed without the log sync, then synced. */
  private async autocommit<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    if (this.driver.mustWait(query.sql)) await this.driver.pass(this.inner);
    const log = this.driver.log!;
    log.unsynced();
    let result: QueryResult<R>;
    try {
      result = await this.inner.executeQuery<R>(query);
    } catch (error) {
      await log.ended(false);
      throw error;
    }
    await log.ended(true);
    return result;
  }

  streamQuery<R>(query: CompiledQuery, chunkSize?: number): AsyncIterableIterator<QueryResult<R>> {
    return this.inner.streamQuery(query, chunkSize);
  }
}

function unwrap(connection: DatabaseConnection): DatabaseConnection {
  return connection instanceof GatedConnection ? connection.inner : connection;
}

/**
 * Long write transactions on a second connection to the SQLite file (`open` makes it, on first use, with
 * the store's settings), one at a time. `holdStore` runs its callback holding the store's connection (no
 * transaction open there, no group commit batch in progress, nothing else runs on it meanwhile).
 */
export function longWriter(
  open: () => SqliteDialectConfig["database"],
  gate: WriteGate,
  holdStore: (during: () => Promise<void>) => Promise<void>,
): { run<T>(work: (trx: Transaction<Database>) => Promise<T>): Promise<T>; close(): Promise<void> } {
  let db: Kysely<Database> | undefined;
  return {
    run: (work) =>
      gate.serial(async () => {
        const long = (db ??= new Kysely<Database>({ dialect: new SqliteDialect({ database: open() }) }));
        await holdStore(async () => {
          await sql`begin immediate`.execute(long);
          gate.activate();
        });
        try {
          // The connection is this transaction's alone: long writes run one at a time.
          const value = await work(long as unknown as Transaction<Database>);
          await sql`commit`.execute(long);
          return value;
        } catch (error) {
          await sql`rollback`.execute(long).catch(() => undefined);
          throw error;
        } finally {
          gate.deactivate();
        }
      }),
    close: async () => {
      await gate.serial(async () => undefined);
      await db?.destroy();
      db = undefined;
    },
  };
}
