// SQLite's hot path for single inserts (Store.sqlite, upsertOneSqlite) and its group commit: a failing
// write rolled back alone, and with SQLITE_SYNC=FULL no write answered, and no Kysely query run, before
// the log sync of its batch (also when batches pipeline). That each path stores what the general one does:
// subscriber-insert.test.ts.

import fs from "node:fs";
import { afterAll, describe, expect, it, vi } from "vitest";
import { hashPassword } from "../../service/auth/authenticator.js";
import {
  type SubscriberRow,
  type UpsertOptions,
  upsertOneSqlite,
  upsertSubscribers,
} from "../../service/tables/subscriber-insert.js";
import type { Store } from "../../service/db/database.js";
import { describeEngines } from "./support/engines.js";
import { fault, startService, type TestService } from "./support/service.js";
import { dump, freshStore } from "./support/subscriber-steps.js";

/** A Kysely count of the subscribers, started now; `read` turns true when the query has run. */
function countSubscribers(store: Store): { count: Promise<number>; read: boolean } {
  const counting = { count: Promise.resolve(0), read: false };
  counting.count = store.db
    .selectFrom("subscribers")
    .select((eb) => eb.fn.countAll<number>().as("n"))
    .executeTakeFirstOrThrow()
    .then((r) => {
      counting.read = true;
      return Number(r.n);
    });
  return counting;
}

/** Holds every fdatasync until its release is called (in `held`), recording the files synced. */
function holdSyncs(): { held: (() => void)[]; synced: string[] } {
  const held: (() => void)[] = [];
  const synced: string[] = [];
  const real = fs.fdatasync;
  vi.spyOn(fs, "fdatasync").mockImplementation(((
    fd: number,
    callback: (error: NodeJS.ErrnoException | null) => void,
  ) => {
    synced.push(fs.readlinkSync(`/proc/self/fd/${fd}`));
    held.push(() => real(fd, callback));
  }) as typeof fs.fdatasync);
  return { held, synced };
}

describe("SQLite single-insert fast path", () => {
  it("rolls back a failing synchronous write alone and answers the others of its batch", async () => {
    const { store, account, listId } = await freshStore();
    const sqlite = store.sqlite!;
    const row = (email: string): SubscriberRow => ({ email });
    const options: UpsertOptions = { update: true, state: "active", recordOptedOut: true };
    const results = await Promise.allSettled([
      sqlite.writeSync(() =>
        upsertOneSqlite(
          sqlite,
          account,
          String(listId),
          "strMailingListID",
          row("one@example.com"),
          options,
          1,
        ),
      ),
      sqlite.writeSync(() => {
        upsertOneSqlite(
          sqlite,
          account,
          String(listId),
          "strMailingListID",
          row("rolled-back@example.com"),
          options,
          1,
        );
        throw new Error("refused after writing");
      }),
      store.write((trx) =>
        upsertSubscribers(trx, "sqlite", account, listId, [row("kysely@example.com")], options, 1),
      ),
      sqlite.writeSync(() =>
        upsertOneSqlite(
          sqlite,
          account,
          String(listId),
          "strMailingListID",
          row("two@example.com"),
          options,
          1,
        ),
      ),
    ]);
    expect(results.map((r) => r.status)).toEqual(["fulfilled", "rejected", "fulfilled", "fulfilled"]);
    const { subscribers, memberships } = await dump(store);
    expect(subscribers.map((s) => s.email_key)).toEqual([
      "one@example.com",
      "kysely@example.com",
      "two@example.com",
    ]);
    expect(memberships).toHaveLength(3);
  });

  it("with SQLITE_SYNC=FULL answers no write and runs no Kysely query before the log is synced", async () => {
    const { store, account, listId } = await freshStore("FULL");
    const sqlite = store.sqlite!;
    const options: UpsertOptions = { update: true, state: "active", recordOptedOut: true };
    const { held, synced } = holdSyncs();

    let answered = false;
    const write = sqlite
      .writeSync(() =>
        upsertOneSqlite(
          sqlite,
          account,
          String(listId),
          "strMailingListID",
          { email: "durable@example.com" },
          options,
          1,
        ),
      )
      .then((outcome) => {
        answered = true;
        return outcome;
      });
    await vi.waitFor(() => expect(held).toHaveLength(1), { timeout: 5000, interval: 5 });
    expect(synced[0]).toMatch(/s\.db-wal$/);
    // Committed, not yet synced: no answer, and a Kysely read waits for the sync.
    const counting = countSubscribers(store);
    const count = counting.count;
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(answered).toBe(false);
    expect(counting.read).toBe(false);
    held.shift()!();
    expect((await write)?.outcome).toBe("inserted");
    expect(await count).toBe(1);
  });

  it("commits the writes that arrive during a log sync at once, answering each batch after its own sync", async () => {
    const { store, account, listId } = await freshStore("FULL");
    const sqlite = store.sqlite!;
    const options: UpsertOptions = { update: true, state: "active", recordOptedOut: true };
    const { held } = holdSyncs();
    const answered: string[] = [];
    const insert = (email: string) =>
      sqlite
        .writeSync(() =>
          upsertOneSqlite(sqlite, account, String(listId), "strMailingListID", { email }, options, 1),
        )
        .then((outcome) => {
          answered.push(email);
          return outcome;
        });
    const first = insert("first@example.com");
    await vi.waitFor(() => expect(held).toHaveLength(1), { timeout: 5000, interval: 5 });
    // The first batch is committed and syncing: a second write commits without waiting for that sync.
    const second = insert("second@example.com");
    await vi.waitFor(() => expect(held).toHaveLength(2), { timeout: 5000, interval: 5 });
    const counting = countSubscribers(store);
    const count = counting.count;
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(answered).toEqual([]);
    // The second batch's sync ends first: it covers both commits, and only the second is answered by it.
    held[1]!();
    expect((await second)?.outcome).toBe("inserted");
    expect(answered).toEqual(["second@example.com"]);
    await new Promise((resolve) => setTimeout(resolve, 50));
    // The first still waits for its own sync, and Kysely for the whole pipeline.
    expect(answered).toEqual(["second@example.com"]);
    expect(counting.read).toBe(false);
    held[0]!();
    expect((await first)?.outcome).toBe("inserted");
    expect(await count).toBe(2);
  });
});

describe("Kysely commits with SQLITE_SYNC=FULL", () => {
  // A Kysely transaction (Store.write, db.transaction) and a write outside a transaction used to commit with
  // SQLite's own log sync, blocking the event loop for it (2-7 ms a commit on a loaded disk; the outbox's
  // claims and the sending worker's batches are such commits). They now commit as the group commit does.
  const writes: [string, (store: Store) => Promise<unknown>][] = [
    [
      "Store.write",
      (store) =>
        store.write((trx) =>
          trx.insertInto("mailing_lists").values({ account_id: 1, name: "W", created_at: 1 }).execute(),
        ),
    ],
    [
      "db.transaction()",
      (store) =>
        store.db
          .transaction()
          .execute((trx) =>
            trx.insertInto("mailing_lists").values({ account_id: 1, name: "T", created_at: 1 }).execute(),
          ),
    ],
    [
      "a write outside a transaction",
      (store) =>
        store.db
          .insertInto("mailing_lists")
          .values({ account_id: 1, name: "A", created_at: 1 })
          .returning("id")
          .execute(),
    ],
  ];
  for (const [name, write] of writes)
    it(`${name}: syncs the log off the event loop, answered and read only after the sync`, async () => {
      const { store } = await freshStore("FULL");
      const { held, synced } = holdSyncs();
      try {
        let answered = false;
        const writing = write(store).then(() => (answered = true));
        await vi.waitFor(() => expect(held).toHaveLength(1), { timeout: 5000, interval: 5 });
        expect(synced[0]).toMatch(/s\.db-wal$/);
        // Committed, not yet synced: no answer; neither a Kysely read nor a quick read runs meanwhile.
        let read = false;
        const lists = store.db
          .selectFrom("mailing_lists")
          .select("name")
          .execute()
          .then((rows) => {
            read = true;
            return rows.map((r) => r.name);
          });
        expect(store.sqlite!.readNow(() => 1)).toBeUndefined();
        await new Promise((resolve) => setTimeout(resolve, 50));
        expect(answered).toBe(false);
        expect(read).toBe(false);
        held.shift()!();
        await writing;
        expect(await lists).toEqual(["L", name === "Store.write" ? "W" : name.startsWith("db") ? "T" : "A"]);
        expect(store.sqlite!.readNow(() => 1)).toEqual({ value: 1 });
      } finally {
        vi.restoreAllMocks();
      }
    });
});

describeEngines("single inserts with cached credentials", (engine) => {
  let svc: TestService;
  afterAll(async () => svc?.close());

  it("a password changed elsewhere (another instance, the admin CLI) stops the cached pair at once", async () => {
    svc = await startService(engine, "cached-pair", { SQLITE_SYNC: "FULL" });
    const id = await svc.createAccount("carla", "carla-secret-1");
    const list = await svc.createList(id, "News");
    const old = svc.client("carla", "carla-secret-1");
    // The first call verifies with scrypt and caches the pair; the second is a cache hit.
    expect(
      typeof (await old.InsertSubscriberSid({ strEmail: "one@example.com", strMailingListID: String(list) })),
    ).toBe("bigint");
    expect(
      typeof (await old.InsertSubscriberSid({ strEmail: "two@example.com", strMailingListID: String(list) })),
    ).toBe("bigint");
    // Changed in the database only, as another instance or the admin CLI does: the cache must not answer.
    await svc.app.store.db
      .updateTable("accounts")
      .set((eb) => ({
        password_hash: "scrypt$16384$8$1$AAAA$AAAA",
        password_version: eb("password_version", "+", 1),
      }))
      .where("id", "=", id)
      .execute();
    expect(
      (
        await fault(
          old.InsertSubscriberSid({ strEmail: "three@example.com", strMailingListID: String(list) }),
        )
      ).errorCode,
    ).toBe("InvalidCredentials");
    // A cache hit still checks the list, the address and the fields, and writes nothing when refused.
    await svc.app.store.db
      .updateTable("accounts")
      .set({ password_hash: await hashPassword("carla-secret-2") })
      .where("id", "=", id)
      .execute();
    const fresh = svc.client("carla", "carla-secret-2");
    await fresh.InsertSubscriberSid({ strEmail: "four@example.com", strMailingListID: String(list) });
    expect(
      (await fault(fresh.InsertSubscriberSid({ strEmail: "five@example.com", strMailingListID: "999999" })))
        .errorCode,
    ).toBe("NotFound");
    expect(
      (await fault(fresh.InsertSubscriberSid({ strEmail: "not an address", strMailingListID: String(list) })))
        .errorCode,
    ).toBe("InvalidFormat");
    const rows = await svc.app.store.db
      .selectFrom("subscribers")
      .select("email")
      .where("account_id", "=", id)
      .orderBy("id")
      .execute();
    expect(rows.map((r) => r.email)).toEqual(["one@example.com", "two@example.com", "four@example.com"]);
  }, 60_000);
});
