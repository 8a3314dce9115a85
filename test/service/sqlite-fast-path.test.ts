// SQLite's hot path for single inserts (Store.sqlite, upsertOneSqlite) and its group commit: the same
// outcomes and stored rows as the Kysely path (upsertSubscribers), a failing write rolled back alone, and
// with SQLITE_SYNC=FULL no write answered, and no Kysely query run, before the log sync of its batch (also
// when batches pipeline). PostgreSQL's one-statement insert of a new address (insertNewPostgres) likewise.

import fs from "node:fs";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it, vi } from "vitest";
import { hashPassword } from "../../service/auth/authenticator.js";
import {
  type SubscriberRow,
  type UpsertOptions,
  insertNewPostgres,
  upsertOneSqlite,
  upsertSubscribers,
} from "../../service/operations/subscriber/subscribers.js";
import { openStore, type Store } from "../../service/db/database.js";
import type { Account } from "../../service/db/schema.js";
import { describeEngines, engines, freshDatabaseUrl } from "./support/engines.js";
import { fault, startService, type TestService } from "./support/service.js";

const stores: Store[] = [];

afterEach(async () => {
  vi.restoreAllMocks();
  for (const store of stores.splice(0)) await store.close();
});

async function freshStore(
  sync: "FULL" | "NORMAL" | "postgres" = "NORMAL",
): Promise<{ store: Store; account: Account; listId: number }> {
  const store =
    sync === "postgres"
      ? await openStore(await freshDatabaseUrl("postgres", "fast-path"))
      : await openStore(`sqlite:${join(mkdtempSync(join(tmpdir(), "eas-fast-path-")), "s.db")}`, {
          sqliteSync: sync,
        });
  stores.push(store);
  const account = await store.db
    .insertInto("accounts")
    .values({ username: "fast", password_hash: "x", dd_fields: 25, created_at: 1 })
    .returningAll()
    .executeTakeFirstOrThrow();
  const list = await store.db
    .insertInto("mailing_lists")
    .values({ account_id: account.id, name: "L", created_at: 1 })
    .returning("id")
    .executeTakeFirstOrThrow();
  return { store, account, listId: list.id };
}

async function dump(store: Store) {
  const subscribers = await store.db
    .selectFrom("subscribers")
    .select(["id", "email", "email_key", "name", "format", "country_code", "phone", "fields", "created_at"])
    .orderBy("id")
    .execute();
  const memberships = await store.db
    .selectFrom("memberships")
    .select(["list_id", "subscriber_id", "state", "created_at", "changed_at"])
    .orderBy("subscriber_id")
    .execute();
  return { subscribers, memberships };
}

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

const fields = (entries: [number, string][]) => new Map(entries);

/** Single inserts covering each branch: new, changed, unchanged, kept without update, opted out. */
const STEPS: { row: SubscriberRow; options: UpsertOptions; optOut?: string }[] = [
  {
    row: {
      email: "A@Example.com",
      name: "A",
      format: "Text",
      countryCode: "SE",
      phone: "1",
      fields: fields([
        [3, "x"],
        [4, ""],
      ]),
    },
    options: { update: true, state: "active", recordOptedOut: true },
  },
  {
    row: { email: "a@example.com", name: "", fields: fields([[4, "y"]]) },
    options: { update: true, state: "active", recordOptedOut: true },
  },
  { row: { email: "a@example.com" }, options: { update: true, state: "active", recordOptedOut: true } },
  {
    row: { email: "a@example.com", name: "Kept?" },
    options: { update: false, state: "pending", recordOptedOut: true },
  },
  {
    row: { email: "b@example.com", name: "B" },
    options: { update: true, state: "pending", recordOptedOut: true },
  },
  { row: { email: "b@example.com" }, options: { update: true, state: "pending", recordOptedOut: true } },
  { row: { email: "b@example.com" }, options: { update: true, state: "active", recordOptedOut: true } },
  { row: { email: "b@example.com" }, options: { update: true, state: "pending", recordOptedOut: true } },
  {
    row: { email: "out@example.com", name: "Out" },
    options: { update: true, state: "active", recordOptedOut: true },
    optOut: "out@example.com",
  },
  {
    row: { email: "new-out@example.com" },
    options: { update: true, state: "active", recordOptedOut: true },
    optOut: "new-out@example.com",
  },
  {
    row: { email: "skip-out@example.com" },
    options: { update: true, state: "active", recordOptedOut: false },
    optOut: "skip-out@example.com",
  },
  {
    row: { email: "b@example.com", phone: "+46", fields: fields([[25, "z"]]) },
    options: { update: true, state: "active", recordOptedOut: true },
  },
];

/**
 * A step's opt-out, in each store before the step runs; for out@example.com, an existing subscriber who opts
 * out afterwards: inserted first, then opted out.
 */
async function optOutFirst(
  step: (typeof STEPS)[number],
  engine: "sqlite" | "postgres",
  stores: { store: Store; account: Account; listId: number }[],
  now: number,
) {
  if (step.optOut === undefined) return;
  for (const { store, account, listId } of stores) {
    if (step.optOut === "out@example.com") {
      await store.write((trx) =>
        upsertSubscribers(trx, engine, account, listId, [step.row], step.options, now - 500),
      );
    }
    await store.db
      .insertInto("optouts")
      .values({ account_id: account.id, email_key: step.optOut, created_at: now })
      .execute();
  }
}

describe("SQLite single-insert fast path", () => {
  it("gives the outcomes and stored rows of upsertSubscribers for every branch", async () => {
    const kysely = await freshStore();
    const fast = await freshStore();
    let now = 1000;
    for (const step of STEPS) {
      now += 1000;
      await optOutFirst(step, "sqlite", [kysely, fast], now);
      const expected = await kysely.store.write((trx) =>
        upsertSubscribers(trx, "sqlite", kysely.account, kysely.listId, [step.row], step.options, now),
      );
      const sqlite = fast.store.sqlite!;
      const got = await sqlite.writeSync(() =>
        upsertOneSqlite(
          sqlite,
          fast.account,
          String(fast.listId),
          "strMailingListID",
          step.row,
          step.options,
          now,
        ),
      );
      expect(got === undefined ? [] : [got], JSON.stringify(step.row)).toEqual(expected);
      expect(await dump(fast.store), JSON.stringify(step.row)).toEqual(await dump(kysely.store));
    }
    const [a, b] = [await dump(kysely.store), await dump(fast.store)];
    expect(b).toEqual(a);
    expect(a.subscribers.map((s) => s.email_key)).toEqual([
      "a@example.com",
      "b@example.com",
      "out@example.com",
      "new-out@example.com",
    ]);
    expect(a.subscribers[1]).toMatchObject({ phone: "+46", fields: JSON.stringify({ "25": "z" }) });
  });

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
    // Hold every fdatasync until released, and record the files synced.
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
    const held: (() => void)[] = [];
    const real = fs.fdatasync;
    vi.spyOn(fs, "fdatasync").mockImplementation(((
      fd: number,
      callback: (error: NodeJS.ErrnoException | null) => void,
    ) => {
      held.push(() => real(fd, callback));
    }) as typeof fs.fdatasync);
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

const postgres = engines().find((e) => e.name === "postgres")!;

describe.skipIf(postgres.skip !== undefined)(
  `PostgreSQL single-statement insert of a new address${postgres.skip ? ` (skipped: ${postgres.skip})` : ""}`,
  () => {
    it("writes a new address with its active membership and nothing otherwise; with the general path after it, the rows of upsertSubscribers", async () => {
      const kysely = await freshStore("postgres");
      const fast = await freshStore("postgres");
      const other = await fast.store.db
        .insertInto("accounts")
        .values({ username: "other", password_hash: "x", dd_fields: 25, created_at: 1 })
        .returningAll()
        .executeTakeFirstOrThrow();
      const otherList = await fast.store.db
        .insertInto("mailing_lists")
        .values({ account_id: other.id, name: "O", created_at: 1 })
        .returning("id")
        .executeTakeFirstOrThrow();
      // Another account's list, a list that does not exist, no list id: nothing is written.
      for (const listId of [String(otherList.id), "999999", undefined]) {
        expect(
          await insertNewPostgres(fast.store.db, fast.account, listId, { email: "nowhere@example.com" }, 1),
        ).toBeUndefined();
      }
      expect((await dump(fast.store)).subscribers).toEqual([]);
      let now = 1000;
      let written = 0;
      for (const step of STEPS.filter((s) => s.options.state === "active" && s.options.update)) {
        now += 1000;
        await optOutFirst(step, "postgres", [kysely, fast], now);
        const expected = await kysely.store.write((trx) =>
          upsertSubscribers(trx, "postgres", kysely.account, kysely.listId, [step.row], step.options, now),
        );
        const before = await dump(fast.store);
        const id = await insertNewPostgres(fast.store.db, fast.account, String(fast.listId), step.row, now);
        if (id === undefined) {
          // Not a new address on the list (or opted out): nothing written, the general path answers.
          expect(await dump(fast.store), JSON.stringify(step.row)).toEqual(before);
          await fast.store.write((trx) =>
            upsertSubscribers(trx, "postgres", fast.account, fast.listId, [step.row], step.options, now),
          );
        } else {
          written++;
          expect(expected, JSON.stringify(step.row)).toEqual([
            {
              id: expect.any(Number),
              emailKey: step.row.email.toLowerCase(),
              outcome: "inserted",
              state: "active",
            },
          ]);
        }
        expect(await dump(fast.store), JSON.stringify(step.row)).toEqual(await dump(kysely.store));
      }
      // A@Example.com and b@example.com were new; the others existed or opted out.
      expect(written).toBe(2);
    }, 60_000);
  },
);

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
