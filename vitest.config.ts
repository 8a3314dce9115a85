// One vitest project per package of the workspace (docs/architecture.md "Packages"), plus the repository-wide checks.
// `npx vitest run` (part of `npm test`) runs them all; `npm test -w easgen` (or `npx vitest run --project
// easgen`) runs one. Only the service's project starts PostgreSQL: its global setup is in that project alone.

import { configDefaults, defineConfig } from "vitest/config";

/** The reference service's tests: the service on both engines, and the attack harness on the real service. */
const SERVICE = ["test/service/**/*.test.ts", "test/attack/real-service.test.ts"];
/** The second example service (examples/book-catalog). */
const EXAMPLE = ["test/examples/**/*.test.ts"];
/** The repository as a whole: workspace layout and dependency lists, files that must not name outside folders. */
const REPO = ["test/repo/**/*.test.ts"];

export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 30_000,
    projects: [
      {
        extends: true,
        test: {
          // The generator and its runtime: everything not claimed by another project below.
          name: "easgen",
          include: ["test/**/*.test.ts"],
          exclude: [...configDefaults.exclude, ...SERVICE, ...EXAMPLE, ...REPO],
        },
      },
      {
        extends: true,
        test: {
          name: "service",
          include: SERVICE,
          // One throwaway PostgreSQL cluster per run for the service tests (skipped, with the reason, when
          // PostgreSQL is missing and CI is unset).
          globalSetup: ["test/service/support/global-setup.ts"],
        },
      },
      { extends: true, test: { name: "example", include: EXAMPLE } },
      { extends: true, test: { name: "repo", include: REPO } },
    ],
  },
});
