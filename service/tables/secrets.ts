// The secrets table: keys the migrations make once per database (auth_key, which keys the sign-in throttle's
// hashes; link_key, which signs tracking and unsubscribe links), shared by every process on the database.
// Read by auth/throttle.ts, operations/mailing/tracking.ts and unsubscribe.ts; nothing writes them after
// the migration.

import type { Db } from "../db/database.js";

/** The secret's stored value (base64url); throws when the database was not migrated. */
export async function secretValue(db: Db, name: "auth_key" | "link_key"): Promise<string> {
  const row = await db
    .selectFrom("secrets")
    .select("value")
    .where("name", "=", name)
    .executeTakeFirstOrThrow(() => new Error(`secrets.${name} is missing: the database was not migrated`));
  return row.value;
}
