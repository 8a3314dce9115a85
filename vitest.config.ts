import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // One throwaway PostgreSQL cluster per run for the service tests (skipped, with the reason, when
    // PostgreSQL is missing and CI is unset).
    globalSetup: ["test/service/support/global-setup.ts"],
    testTimeout: 30_000,
    hookTimeout: 30_000,
  },
});
