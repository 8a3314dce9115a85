// Migrations, one per file: the files are the migrations the runner applies, under the names databases
// have recorded since they shipped (a database migrated before the split sees no new migration), and a
// second start applies nothing.

import { readdirSync } from "node:fs";
import { fileURLToPath } from "node:url";
import type { Kysely } from "kysely";
import { expect, it } from "vitest";
import { openStore } from "../../service/db/database.js";
import { codeMigrations, migrate } from "../../service/db/migrations/index.js";
import { describeEngines, freshDatabaseUrl } from "./support/engines.js";

/** The names every database holding the service's tables has in kysely_migration (never renamed). */
const SHIPPED = [
  "0001_accounts_subscribers_lists",
  "0002_sms",
  "0003_transactional",
  "0004_newsletters",
  "0005_sendings_tracking",
  "0006_triggers",
  "0007_auth_throttle",
  "0008_outbox_security",
  "0009_import_security",
  "0010_tracking_security",
  "0011_bounces",
  "0012_console",
  "0013_console_events",
];

const FOLDER = fileURLToPath(new URL("../../service/db/migrations/", import.meta.url));

it("has one file per migration, named as the migration, and the runner lists each of them", () => {
  const files = readdirSync(FOLDER)
    .filter((name) => /^\d{4}_/.test(name))
    .map((name) => name.replace(/\.ts$/, ""))
    .sort();
  expect(Object.keys(codeMigrations("sqlite"))).toEqual(files);
  expect(Object.keys(codeMigrations("postgres"))).toEqual(files);
});

it("keeps the shipped names, in order (only new names may follow)", () => {
  expect(Object.keys(codeMigrations("sqlite")).slice(0, SHIPPED.length)).toEqual(SHIPPED);
});

describeEngines("migrations", (engine) => {
  it("records every migration once and applies nothing on a second start", async () => {
    const store = await openStore(await freshDatabaseUrl(engine, "migrations"));
    try {
      const db = store.db as unknown as Kysely<{ kysely_migration: { name: string } }>;
      const recorded = await db.selectFrom("kysely_migration").select("name").orderBy("name").execute();
      expect(recorded.map((row) => row.name)).toEqual(Object.keys(codeMigrations(engine)));
      expect(await migrate(store.db, engine)).toEqual([]);
    } finally {
      await store.close();
    }
  });
});
