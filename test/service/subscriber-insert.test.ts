// The single insert's paths (service/tables/subscriber-insert.ts insertSubscriber) store the same rows:
// the same inserts go through each path the engine has (SQLite: its prepared statements; PostgreSQL: its
// one statement for a new address) and through the general path (upsertSubscribers), each into a store of
// its own, and after every step the outcomes and the stored subscribers and memberships are equal.

import { expect, it, vi } from "vitest";
import { type InsertPath, insertSubscriber } from "../../service/tables/subscriber-insert.js";
import { describeEngines } from "./support/engines.js";
import { STEPS, dump, freshStore, optOutFirst } from "./support/subscriber-steps.js";

describeEngines("the single insert's paths", (engine) => {
  const fast: InsertPath = engine === "sqlite" ? "sqlite" : "postgres";
  const sync = engine === "sqlite" ? "NORMAL" : "postgres";

  it(`${fast} and general store the same rows for every branch`, async () => {
    const general = await freshStore(sync);
    const other = await freshStore(sync);
    const writes = vi.spyOn(other.store, "write");
    let now = 1000;
    for (const step of STEPS) {
      now += 1000;
      await optOutFirst(step, engine, [general, other], now);
      writes.mockClear();
      const insert = (target: typeof general, path: InsertPath) =>
        insertSubscriber(
          target.store,
          target.account,
          String(target.listId),
          "strMailingListID",
          step.row,
          { ...step.options, path },
          now,
        );
      const expected = await insert(general, "general");
      const got = await insert(other, fast);
      const label = `${fast}: ${JSON.stringify(step.row)} ${JSON.stringify(step.options)}`;
      expect(got, label).toEqual(expected);
      expect(await dump(other.store), label).toEqual(await dump(general.store));
      // The fast path is taken, not the general one under its name: SQLite writes without Store.write,
      // PostgreSQL's one statement writes a new active address without it.
      const isNew = expected?.outcome === "inserted" && step.options.state === "active";
      const viaGeneral = engine === "sqlite" ? 0 : isNew ? 0 : 1;
      expect(writes, label).toHaveBeenCalledTimes(viaGeneral);
    }
    const rows = await dump(general.store);
    expect(rows.subscribers.map((s) => s.email_key)).toEqual([
      "a@example.com",
      "b@example.com",
      "out@example.com",
      "new-out@example.com",
    ]);
    expect(rows.subscribers[1]).toMatchObject({ phone: "+46", fields: JSON.stringify({ "25": "z" }) });
  }, 60_000);

  it("every path refuses a list that is not the account's, naming the parameter, and writes nothing", async () => {
    const target = await freshStore(sync);
    const stranger = await target.store.db
      .insertInto("accounts")
      .values({ username: "other", password_hash: "x", dd_fields: 25, created_at: 1 })
      .returningAll()
      .executeTakeFirstOrThrow();
    const theirs = await target.store.db
      .insertInto("mailing_lists")
      .values({ account_id: stranger.id, name: "O", created_at: 1 })
      .returning("id")
      .executeTakeFirstOrThrow();
    const options = { update: true, state: "active", recordOptedOut: true } as const;
    for (const path of ["general", fast] as const)
      for (const listId of [String(theirs.id), "999999", "x", undefined]) {
        const insert = insertSubscriber(
          target.store,
          target.account,
          listId,
          "strMailingListID",
          { email: "nowhere@example.com" },
          { ...options, path },
          1,
        );
        await expect(insert, `${path} ${listId}`).rejects.toMatchObject({ parameter: "strMailingListID" });
      }
    expect(await dump(target.store)).toEqual({ subscribers: [], memberships: [] });
  });
});
