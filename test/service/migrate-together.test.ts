// docs/scale-out.md's "migrations run once": several instances starting together on one new PostgreSQL
// database (each runs the migrations when it opens the store, under Kysely's migration lock, a PostgreSQL
// advisory lock) all start, and each migration is applied once. PostgreSQL only: SQLite serves one process.

import { sql } from "kysely";
import { expect, it } from "vitest";
import { type Store, openStore } from "../../service/db/database.js";
import { engines, freshDatabaseUrl } from "./support/engines.js";

const postgres = engines().find((engine) => engine.name === "postgres")!;

it.skipIf(postgres.skip !== undefined)(
  `four instances opening one new PostgreSQL database at once migrate it once${postgres.skip ? ` (skipped: ${postgres.skip})` : ""}`,
  async () => {
    const url = await freshDatabaseUrl("postgres", "migrate-together");
    const stores: Store[] = [];
    try {
      const opened = await Promise.allSettled(
        Array.from({ length: 4 }, () => openStore(url, { poolSize: 2 })),
      );
      for (const result of opened) if (result.status === "fulfilled") stores.push(result.value);
      expect(opened.map((result) => result.status)).toEqual(Array(4).fill("fulfilled"));
      const { rows } = await sql<{ name: string; n: string }>`
        select name, count(*) as n from kysely_migration group by name`.execute(stores[0]!.db);
      expect(rows.length).toBeGreaterThan(10);
      expect(rows.filter((row) => Number(row.n) !== 1)).toEqual([]);
      // Every instance reads the same, fully migrated schema.
      for (const store of stores)
        expect(
          Number(
            (
              await store.db
                .selectFrom("accounts")
                .select(sql<number>`count(*)`.as("n"))
                .executeTakeFirstOrThrow()
            ).n,
          ),
        ).toBe(0);
    } finally {
      await Promise.all(stores.map((store) => store.close()));
    }
  },
  60_000,
);
