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
// deadlock until the busy timeout). The WriteGate keeps them out: while it is closed, a write transaction
// or a write statement outside a transaction on the store's connection waits for it to open, having given
// the connection back (so the reads queued behind it go on); the group commit waits before each batch.
// The long transaction begins once the store's connection is idle (no transaction open), so nothing it
// could conflict with is in progress.

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
} from "kysely";
import type { Database } from "./schema.js";

/** Closed while a long write runs; writes on the store's connection wait for it to open. */
export class WriteGate {
  private closedUntil: Promise<void> | undefined;

  get closed(): boolean {
    return this.closedUntil !== undefined;
  }

  /** Resolves when the gate is open (at once when it is). */
  async opened(): Promise<void> {
    while (this.closedUntil !== undefined) await this.closedUntil;
  }

  /** Runs `work` with the gate closed, one holder at a time (others wait their turn). */
  async hold<T>(work: () => Promise<T>): Promise<T> {
    await this.opened();
    let open!: () => void;
    this.closedUntil = new Promise<void>((resolve) => (open = resolve));
    try {
      return await work();
    } finally {
      this.closedUntil = undefined;
      open();
    }
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
  ) {
    super(config);
  }

  override createDriver(): Driver {
    return new GatedDriver(super.createDriver(), this.gate, this.isWrite, this.inTransaction);
  }
}

class GatedDriver implements Driver {
  constructor(
    private readonly inner: Driver,
    private readonly gate: WriteGate,
    private readonly isWrite: (sql: string) => boolean,
    private readonly inTransaction: () => boolean,
  ) {}

  init(): Promise<void> {
    return this.inner.init();
  }

  async acquireConnection(): Promise<DatabaseConnection> {
    const connection = await this.inner.acquireConnection();
    return new GatedConnection(connection, this);
  }

  /** Waits for the gate with the connection given back meanwhile (SQLite's one connection: the same one after). */
  async pass(connection: DatabaseConnection): Promise<void> {
    while (this.gate.closed) {
      await this.inner.releaseConnection(connection);
      await this.gate.opened();
      await this.inner.acquireConnection();
    }
  }

  /** Whether this statement must wait for the gate: a write outside a transaction while it is closed. */
  mustWait(sql: string): boolean {
    return this.gate.closed && !this.inTransaction() && this.isWrite(sql);
  }

  async beginTransaction(connection: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    const inner = unwrap(connection);
    await this.pass(inner);
    await this.inner.beginTransaction(inner, settings);
  }

  commitTransaction(connection: DatabaseConnection): Promise<void> {
    return this.inner.commitTransaction(unwrap(connection));
  }

  rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    return this.inner.rollbackTransaction(unwrap(connection));
  }

  async savepoint(connection: DatabaseConnection, name: string, compile: Parameters<NonNullable<Driver["savepoint"]>>[2]): Promise<void> {
    await this.inner.savepoint?.(unwrap(connection), name, compile);
  }

  async rollbackToSavepoint(connection: DatabaseConnection, name: string, compile: Parameters<NonNullable<Driver["rollbackToSavepoint"]>>[2]): Promise<void> {
    await this.inner.rollbackToSavepoint?.(unwrap(connection), name, compile);
  }

  async releaseSavepoint(connection: DatabaseConnection, name: string, compile: Parameters<NonNullable<Driver["releaseSavepoint"]>>[2]): Promise<void> {
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
    if (!this.driver.mustWait(query.sql)) return this.inner.executeQuery(query);
    return this.driver.pass(this.inner).then(() => this.inner.executeQuery<R>(query));
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
 * the store's settings), one at a time with the gate closed. `idle` resolves when the store's connection
 * has no transaction open and no batch of the group commit in progress; new ones wait at the closed gate.
 */
export function longWriter(
  open: () => SqliteDialectConfig["database"],
  gate: WriteGate,
  idle: () => Promise<void>,
): { run<T>(work: (trx: Transaction<Database>) => Promise<T>): Promise<T>; close(): Promise<void> } {
  let db: Kysely<Database> | undefined;
  return {
    run: (work) =>
      gate.hold(async () => {
        await idle();
        db ??= new Kysely<Database>({ dialect: new SqliteDialect({ database: open() }) });
        return db.transaction().execute(work);
      }),
    close: async () => {
      await gate.opened();
      await db?.destroy();
      db = undefined;
    },
  };
}
