// `npm start` (service/start.mjs) runs the service bundled into plain JavaScript: what it builds and reuses.

import fs from "node:fs";
import { describe, expect, it } from "vitest";
import { bundleEntry } from "../../service/start.mjs";

describe("npm start's bundle of the service", () => {
  it("is one ES module named by its content, reused by the next start, with no kept-name wrappers", async () => {
    const [first, second] = await Promise.all([
      bundleEntry("service/main.ts", "main"),
      bundleEntry("service/main.ts", "main"),
    ]);
    expect(first).toMatch(/dist\/service\/main-[0-9a-f]{16}\.mjs$/);
    expect(second).toBe(first);
    const text = fs.readFileSync(first, "utf8");
    // The service's own modules are inside; packages stay imports from node_modules.
    expect(text).toContain("// service/auth/authenticator.ts");
    expect(text).toMatch(/from "better-sqlite3"/);
    // tsx's keepNames wraps each named function made per call in a defineProperty (~0.4 µs each).
    expect(text).not.toContain("__name(");
    // Two starts at once leave no temporary file behind.
    expect(
      fs.readdirSync(new URL("../../dist/service/", import.meta.url)).filter((f) => f.endsWith(".tmp")),
    ).toEqual([]);
  }, 60_000);
});
