// Single inserts for comparing the write paths of a subscriber (service/tables/subscriber-insert.ts): fresh
// stores with one account and list, the stored rows, and steps covering each branch of an insert.

import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, vi } from "vitest";
import { openStore, type Store } from "../../../service/db/database.js";
import type { Account } from "../../../service/db/schema.js";
import {
  type SubscriberRow,
  type UpsertOptions,
  upsertSubscribers,
} from "../../../service/tables/subscriber-insert.js";
import { freshDatabaseUrl } from "./engines.js";

/** The stores freshStore opened, closed after each test of the file that imports this module. */
const stores: Store[] = [];

afterEach(async () => {
  vi.restoreAllMocks();
  for (const store of stores.splice(0)) await store.close();
});

export async function freshStore(
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

export async function dump(store: Store) {
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

const fields = (entries: [number, string][]) => new Map(entries);

/** Single inserts covering each branch: new, changed, unchanged, kept without update, opted out. */
export const STEPS: { row: SubscriberRow; options: UpsertOptions; optOut?: string }[] = [
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
export async function optOutFirst(
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
