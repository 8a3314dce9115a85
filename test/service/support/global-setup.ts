/**
 * vitest globalSetup: one throwaway PostgreSQL cluster per test run (see ./postgres.ts), shared by every
 * test file through `inject("pgAdminUrl")`; each suite creates its own database in it (./engines.ts).
 *
 * PostgreSQL missing (or failing to start): with env CI set (non-empty, as in
 * test/fixtures/system-component.ts) the run fails; otherwise the postgres variants are skipped, the reason
 * printed once to stderr here and carried in `inject("pgSkipReason")`.
 *
 * Also provides `testTmpRoot`, a per-run temporary directory (SQLite files and the like) removed on
 * teardown.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TestProject } from "vitest/node";
import { searchPostgresBin, startThrowawayCluster, type ThrowawayCluster } from "./postgres.ts";

declare module "vitest" {
  export interface ProvidedContext {
    /** URL of the run's throwaway cluster's `postgres` database (superuser), or null when unavailable. */
    pgAdminUrl: string | null;
    /** Why the postgres variants are skipped, or null when `pgAdminUrl` is set. */
    pgSkipReason: string | null;
    /** A temporary directory for this run, deleted on teardown. */
    testTmpRoot: string;
  }
}

/** True when env CI asks for a strict run (PostgreSQL required); same test as test/fixtures/system-component.ts. */
export function isCI(): boolean {
  return Boolean(process.env.CI);
}

const HINT = ".ci/run installs Debian's postgresql; set PG_BIN to a directory with initdb and pg_ctl";

/** Starts the cluster (when PostgreSQL is found) and provides its URL; returns the teardown. */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const tmpRoot = mkdtempSync(join(tmpdir(), "svc-test-"));
  project.provide("testTmpRoot", tmpRoot);

  let cluster: ThrowawayCluster | undefined;
  let skipReason: string | undefined;
  const search = searchPostgresBin();
  if (search.bin === undefined) {
    skipReason = search.reason ?? "PostgreSQL not found";
    if (isCI()) {
      rmSync(tmpRoot, { recursive: true, force: true });
      throw new Error(`PostgreSQL not found: ${HINT} (CI is set, so this is a failure; ${skipReason})`);
    }
  } else {
    try {
      cluster = await startThrowawayCluster(search.bin);
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      if (isCI()) {
        rmSync(tmpRoot, { recursive: true, force: true });
        throw new Error(`PostgreSQL (${search.bin}) did not start: ${message}`);
      }
      skipReason = `PostgreSQL (${search.bin}) did not start: ${message}`;
    }
  }

  if (cluster) {
    project.provide("pgAdminUrl", cluster.adminUrl);
    project.provide("pgSkipReason", null);
  } else {
    process.stderr.write(`postgres tests skipped: ${skipReason}\n`);
    project.provide("pgAdminUrl", null);
    project.provide("pgSkipReason", skipReason ?? "PostgreSQL unavailable");
  }

  // Teardown not reached (vitest killed by a signal it turns into exit, a crash): stop the cluster anyway.
  const onExit = (): void => {
    cluster?.stopSync();
    rmSync(tmpRoot, { recursive: true, force: true });
  };
  process.once("exit", onExit);

  return async () => {
    process.off("exit", onExit);
    try {
      await cluster?.stop();
    } finally {
      rmSync(tmpRoot, { recursive: true, force: true });
    }
  };
}
