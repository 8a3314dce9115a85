// Quick subset of `npm run fuzz` (test/attack/run.ts): a few thousand mutated requests with the suite's
// seed against the generated server on 127.0.0.1, over keep-alive connections.

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_SEED, runFuzz } from "./fuzz.js";
import { startAttackServer, type RunningServer } from "./service.js";

describe("mutation fuzzing (quick subset, fixed seed)", () => {
  let server: RunningServer;
  beforeAll(async () => {
    server = await startAttackServer({ log: () => {} });
  });
  afterAll(() => server.close());

  it("answers every one of 2,000 mutated requests over the four bindings with a well-formed answer", async () => {
    const result = await runFuzz({ port: server.port, requests: 2000, connections: 6, seed: DEFAULT_SEED });
    const report = [...result.problems.entries()].map(([k, v]) => `${k}: ${v}`).concat(result.examples).join("\n");
    expect(result.sent, report).toBe(2000);
    expect(result.closedWithoutAnswer, report).toBe(0);
    expect(result.timedOut, report).toBe(0);
    expect(result.notWellFormed, report).toBe(0);
    expect(server.server.listening).toBe(true);
    // The mix reaches the service, not only the refusals: some calls succeed and some are faults.
    expect(result.statuses.get("200") ?? 0).toBeGreaterThan(200);
    expect(result.statuses.get("500") ?? 0).toBeGreaterThan(60);
  });
});
