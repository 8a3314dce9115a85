/**
 * The CSV bulk insert shares the event loop and the database (service/operations/subscriber/csv-import.ts, Store.writeLong),
 * on both engines: during a 100,000-row insert the event loop keeps turning and other callers' reads are
 * answered, seeing the list before the insert or after it, never half of it; on SQLite, writes issued
 * meanwhile (group commit, the single-insert fast path, plain Kysely writes and transactions) wait for its
 * commit and then succeed. No wall-clock bound: the counts are of turns and answers.
 */
import { setImmediate as nextTurn } from "node:timers/promises";
import SQLite from "better-sqlite3";
import { afterEach, expect, it } from "vitest";
import { importCsvText } from "../../service/operations/subscriber/csv-import.js";
import { upsertOneSqlite } from "../../service/tables/subscriber-insert.js";
import { type Store, openStore } from "../../service/db/database.js";
import type { Account } from "../../service/db/schema.js";
import { describeEngines, freshDatabaseUrl } from "./support/engines.ts";

const ROWS = 100_000;

function csv(n: number, tag: string): string {
  let text = "";
  for (let i = 0; i < n; i++)
    text += `${tag}${i}@bulk.example.com,Name ${i},${i % 2 ? "Text" : "HTML"},SE,${i % 100}\n`;
  return text;
}

describeEngines("CSV bulk insert beside other callers", (engine) => {
  const cleanups: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  async function fresh(
    label: string,
  ): Promise<{ url: string; store: Store; account: Account; listId: number }> {
    const url = await freshDatabaseUrl(engine, `csv_${label}`);
    const store = await openStore(url);
    cleanups.push(() => store.close());
    const now = Date.now();
    const { id } = await store.db
      .insertInto("accounts")
      .values({ username: `csv-${label}`, password_hash: "x", created_at: now })
      .returning("id")
      .executeTakeFirstOrThrow();
    const account = await store.db
      .selectFrom("accounts")
      .selectAll()
      .where("id", "=", id)
      .executeTakeFirstOrThrow();
    const list = await store.db
      .insertInto("mailing_lists")
      .values({ account_id: id, name: "Bulk", created_at: now })
      .returning("id")
      .executeTakeFirstOrThrow();
    return { url, store, account, listId: list.id };
  }

  const members = async (store: Store, listId: number): Promise<number> =>
    Number(
      (
        await store.db
          .selectFrom("memberships")
          .select((eb) => eb.fn.countAll<number>().as("n"))
          .where("list_id", "=", listId)
          .executeTakeFirstOrThrow()
      ).n,
    );

  it(`keeps the event loop turning and answers reads during a ${ROWS.toLocaleString("en")}-row insert, which they see whole or not at all`, async () => {
    const { store, account, listId } = await fresh("loop");
    const text = csv(ROWS, "a");
    let finished = false;
    const insert = importCsvText(store, account, String(listId), text, false, Date.now()).finally(
      () => (finished = true),
    );
    // Turns of the event loop, and reads answered, while the insert is not finished.
    let turns = 0;
    const seen: number[] = [];
    const turning = (async () => {
      while (!finished) {
        await nextTurn();
        turns++;
      }
    })();
    const reading = (async () => {
      while (!finished) {
        const n = await members(store, listId);
        if (!finished) seen.push(n);
        await nextTurn();
      }
    })();
    expect(await insert).toBe(ROWS);
    await Promise.all([turning, reading]);
    // Before: the insert held the event loop from its first row to its commit (a few turns at most).
    expect(turns).toBeGreaterThanOrEqual(10);
    expect(seen.length).toBeGreaterThanOrEqual(5);
    // All or nothing for the readers too: the rows appear at the commit, all at once.
    expect(seen.filter((n) => n !== 0 && n !== ROWS)).toEqual([]);
    expect(await members(store, listId)).toBe(ROWS);
  }, 120_000);

  if (engine === "sqlite") {
    it("writes that waited for a long write go before the next long write: neither kind starves", async () => {
      const { store, account } = await fresh("turns");
      const sqlite = store.sqlite!;
      const order: string[] = [];
      let releaseFirst!: () => void;
      const firstHeld = new Promise<void>((resolve) => (releaseFirst = resolve));
      let firstBegan!: () => void;
      const began = new Promise<void>((resolve) => (firstBegan = resolve));
      const first = store.writeLong(async (trx) => {
        await trx
          .insertInto("optouts")
          .values({ account_id: account.id, email_key: "long1@example.com", created_at: 1 })
          .execute();
        firstBegan();
        await firstHeld;
        order.push("long 1");
      });
      await began;
      // The second long write is queued behind the first; then writes of every kind arrive.
      const second = store.writeLong(async (trx) => {
        order.push("long 2 began");
        await trx
          .insertInto("optouts")
          .values({ account_id: account.id, email_key: "long2@example.com", created_at: 1 })
          .execute();
      });
      const writes = [
        store
          .write((trx) =>
            trx
              .insertInto("optouts")
              .values({ account_id: account.id, email_key: "w@example.com", created_at: 1 })
              .execute(),
          )
          .then(() => order.push("write")),
        sqlite
          .writeSync(() =>
            sqlite
              .statement("insert into optouts (account_id, email_key, created_at) values (?, ?, 1)")
              .run(account.id, "sync@example.com"),
          )
          .then(() => order.push("writeSync")),
        store.db
          .insertInto("optouts")
          .values({ account_id: account.id, email_key: "k@example.com", created_at: 1 })
          .execute()
          .then(() => order.push("kysely")),
      ];
      for (let i = 0; i < 20; i++) await nextTurn();
      // Nothing got past the first long write, and reads go on.
      expect(order).toEqual([]);
      expect(
        (
          await store.db
            .selectFrom("optouts")
            .select("email_key")
            .where("account_id", "=", account.id)
            .execute()
        ).length,
      ).toBe(0);
      releaseFirst();
      await Promise.all([first, second, ...writes]);
      expect(order[0]).toBe("long 1");
      expect(order.slice(1, 4).sort()).toEqual(["kysely", "write", "writeSync"]);
      expect(order[4]).toBe("long 2 began");
      expect(
        (
          await store.db
            .selectFrom("optouts")
            .select("email_key")
            .where("account_id", "=", account.id)
            .execute()
        ).length,
      ).toBe(5);
    });

    it("writes issued during a long write wait for its commit, then succeed (group commit, fast path, Kysely, transactions)", async () => {
      const { url, store, account, listId } = await fresh("gate");
      const sqlite = store.sqlite!;
      // A third connection that never waits: its BEGIN IMMEDIATE is refused while another holds the write lock.
      const watcher = new SQLite(url.slice("sqlite:".length));
      watcher.pragma("busy_timeout = 0");
      cleanups.push(async () => {
        watcher.close();
      });
      const locked = (): boolean => {
        try {
          watcher.prepare("begin immediate").run();
          watcher.prepare("rollback").run();
          return false;
        } catch (error) {
          if ((error as { code?: string }).code !== "SQLITE_BUSY") throw error;
          return true;
        }
      };
      const insert = importCsvText(store, account, String(listId), csv(30_000, "g"), false, Date.now());
      // The long write has begun when the file's write lock is held (nothing else writes here).
      for (let turn = 0; !locked(); turn++) {
        if (turn > 1_000_000) throw new Error("the long write never began");
        await nextTurn();
      }
      const order: string[] = [];
      const now = Date.now();
      const writes = [
        store
          .write((trx) =>
            trx
              .insertInto("optouts")
              .values({ account_id: account.id, email_key: "w1@example.com", created_at: now })
              .execute(),
          )
          .then(() => order.push("write")),
        sqlite
          .writeSync(() =>
            upsertOneSqlite(
              sqlite,
              account,
              String(listId),
              "strMailingListID",
              { email: "fast@example.com", name: "Fast" },
              { update: false, state: "active", recordOptedOut: true },
              now,
            ),
          )
          .then(() => order.push("writeSync")),
        store.db
          .updateTable("accounts")
          .set({ from_name: "during" })
          .where("id", "=", account.id)
          .execute()
          .then(() => order.push("kysely")),
        store.db
          .transaction()
          .execute((trx) =>
            trx
              .insertInto("optouts")
              .values({ account_id: account.id, email_key: "w2@example.com", created_at: now })
              .execute(),
          )
          .then(() => order.push("transaction")),
        insert.then(() => order.push("csv")),
      ];
      // Reads go on meanwhile, seeing the list before the insert.
      expect(await members(store, listId)).toBe(0);
      await Promise.all(writes);
      expect(await insert).toBe(30_000);
      // Every write waited for the long one's commit.
      expect(order[0]).toBe("csv");
      expect(order.slice(1).sort()).toEqual(["kysely", "transaction", "write", "writeSync"]);
      expect(await members(store, listId)).toBe(30_001);
      expect(
        (
          await store.db
            .selectFrom("accounts")
            .select("from_name")
            .where("id", "=", account.id)
            .executeTakeFirstOrThrow()
        ).from_name,
      ).toBe("during");
      expect(
        (
          await store.db
            .selectFrom("optouts")
            .select("email_key")
            .where("account_id", "=", account.id)
            .orderBy("email_key")
            .execute()
        ).map((r) => r.email_key),
      ).toEqual(["w1@example.com", "w2@example.com"]);
    }, 120_000);
  }
});
