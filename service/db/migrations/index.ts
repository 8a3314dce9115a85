// Versioned migrations, in code, one per file named as the migration, applied on start (Kysely's Migrator
// keeps the applied names in kysely_migration and takes a lock, so two instances starting at once apply
// each migration once). Never edit a migration that has shipped: add the next file and list it below.

import { type Migration, type MigrationProvider, Migrator } from "kysely";
import type { Engine } from "../engine.js";
import * as m0001 from "./0001_accounts_subscribers_lists.js";
import * as m0002 from "./0002_sms.js";
import * as m0003 from "./0003_transactional.js";
import * as m0004 from "./0004_newsletters.js";
import * as m0005 from "./0005_sendings_tracking.js";
import * as m0006 from "./0006_triggers.js";
import * as m0007 from "./0007_auth_throttle.js";
import * as m0008 from "./0008_outbox_security.js";
import * as m0009 from "./0009_import_security.js";
import * as m0010 from "./0010_tracking_security.js";
import * as m0011 from "./0011_bounces.js";
import * as m0012 from "./0012_console.js";
import * as m0013 from "./0013_console_events.js";
import * as m0014 from "./0014_console_unique_counts.js";
import * as m0015 from "./0015_sms_stop_receipts.js";
import * as m0016 from "./0016_sending_counters.js";
import * as m0017 from "./0017_consents.js";
import * as m0018 from "./0018_sms_waiting_count.js";
import type { AnyDb } from "./tables.js";

/** A migration file: `up` makes its change (on the engine it is given). */
interface MigrationFile {
  up(db: AnyDb, engine: Engine): Promise<void>;
}

/** Every migration, by the name the database records (its file's name), in the order they apply. */
const MIGRATIONS: ReadonlyArray<readonly [name: string, file: MigrationFile]> = [
  ["0001_accounts_subscribers_lists", m0001],
  ["0002_sms", m0002],
  ["0003_transactional", m0003],
  ["0004_newsletters", m0004],
  ["0005_sendings_tracking", m0005],
  ["0006_triggers", m0006],
  ["0007_auth_throttle", m0007],
  ["0008_outbox_security", m0008],
  ["0009_import_security", m0009],
  ["0010_tracking_security", m0010],
  ["0011_bounces", m0011],
  ["0012_console", m0012],
  ["0013_console_events", m0013],
  ["0014_console_unique_counts", m0014],
  ["0015_sms_stop_receipts", m0015],
  ["0016_sending_counters", m0016],
  ["0017_consents", m0017],
  ["0018_sms_waiting_count", m0018],
];

/** Every migration by name (applied in name order). */
export function codeMigrations(engine: Engine): Record<string, Migration> {
  return Object.fromEntries(
    MIGRATIONS.map(([name, file]): [string, Migration] => [name, { up: (db: AnyDb) => file.up(db, engine) }]),
  );
}

class CodeMigrations implements MigrationProvider {
  constructor(private readonly engine: Engine) {}
  async getMigrations(): Promise<Record<string, Migration>> {
    return codeMigrations(this.engine);
  }
}

/** Applies every migration not applied yet; throws with the failing migration's name. */
export async function migrate(db: AnyDb, engine: Engine): Promise<string[]> {
  // Unordered: the security round's migrations (0007 to 0011) land in any order, so a database may have
  // a later one applied before an earlier one arrives; none depends on another.
  const migrator = new Migrator({ db, provider: new CodeMigrations(engine), allowUnorderedMigrations: true });
  const { error, results } = await migrator.migrateToLatest();
  const failed = results?.find((r) => r.status === "Error");
  if (error !== undefined) {
    const what = failed ? `migration ${failed.migrationName} failed` : "migrations failed";
    throw new Error(`${what}: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  }
  return (results ?? []).filter((r) => r.status === "Success").map((r) => r.migrationName);
}
