/**
 * The database engines the service test suite runs against, and a fresh empty database per suite.
 *
 * Needs ./global-setup.ts as a vitest globalSetup (it provides the cluster URL); without it the
 * postgres variant is skipped with that reason.
 *
 * ```ts
 * describe.each(engines())("subscribers on $name", ({ name, skip }) => {
 *   let url: string;
 *   beforeAll(async () => { if (!skip) url = await freshDatabaseUrl(name, "subscribers"); });
 *   it.skipIf(skip)("...", async () => { ... });
 * });
 * // or, with the skip reason in the suite's title:
 * describeEngines("subscribers", (engine) => { ... });
 * ```
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, inject } from "vitest";
import { createDatabase } from "./postgres.ts";

/** A database engine the service supports. */
export type EngineName = "sqlite" | "postgres";

/** One engine row: `skip` is the reason the engine's tests are skipped, when they are. */
export interface Engine {
  name: EngineName;
  skip?: string;
}

const NOT_WIRED = "test/service/support/global-setup.ts is not in vitest's globalSetup";

function pgAdminUrl(): { url: string } | { reason: string } {
  const url = inject("pgAdminUrl");
  if (typeof url === "string") return { url };
  if (url === null) return { reason: inject("pgSkipReason") ?? "PostgreSQL unavailable" };
  return { reason: NOT_WIRED };
}

/** Both engines; postgres carries `skip` (the reason) when the run has no cluster. */
export function engines(): Engine[] {
  const pg = pgAdminUrl();
  return [{ name: "sqlite" }, "url" in pg ? { name: "postgres" } : { name: "postgres", skip: pg.reason }];
}

/**
 * `describe` once per engine, titled `<title> on <engine>` (plus `(skipped: <reason>)` when skipped),
 * skipping the engines that are unavailable.
 */
export function describeEngines(title: string, body: (engine: EngineName) => void): void {
  for (const engine of engines()) {
    const suffix = engine.skip ? ` (skipped: ${engine.skip})` : "";
    describe.skipIf(engine.skip !== undefined)(`${title} on ${engine.name}${suffix}`, () =>
      body(engine.name),
    );
  }
}

let counter = 0;

function sanitize(label: string): string {
  const clean = label
    .toLowerCase()
    .replace(/[^a-z0-9_]+/g, "_")
    .replace(/^_+|_+$/g, "");
  return (clean === "" ? "db" : clean).slice(0, 30);
}

/**
 * A URL to a new, empty database for `engine`: SQLite, `sqlite:<dir>/<label>.db` in a fresh temporary
 * directory (under the run's directory, removed on teardown); PostgreSQL, a new database in the run's
 * cluster named `t_<label>_<pid>_<counter>_<random>`.
 */
export async function freshDatabaseUrl(engine: EngineName, label: string): Promise<string> {
  const safe = sanitize(label);
  if (engine === "sqlite") {
    const root = inject("testTmpRoot") ?? tmpdir();
    const dir = mkdtempSync(join(root, `sqlite-${safe}-`));
    return `sqlite:${join(dir, `${safe}.db`)}`;
  }
  const pg = pgAdminUrl();
  if (!("url" in pg)) throw new Error(`no PostgreSQL for this run: ${pg.reason}`);
  counter += 1;
  const random = Math.floor(Math.random() * 0x1000000)
    .toString(16)
    .padStart(6, "0");
  return createDatabase(pg.url, `t_${safe}_${process.pid}_${counter}_${random}`);
}
