// Malicious servers for the generated client (a few cases of `npm run fuzz`). The client runs in its own
// process, so a read that never ends cannot stall the test runner.

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AttackChild } from "./child.js";
import {
  CLIENT_BOUNDS,
  MALICIOUS_CASES,
  startMaliciousServers,
  type ClientCaseResult,
  type MaliciousServers,
} from "./malicious.js";

/** 10x the configured time limit: the call must settle by then. */
const SETTLE_BOUND_MS = CLIENT_BOUNDS.timeoutMs * 10;
const QUICK = new Set([
  "endless body",
  "gzip bomb (300 KB -> 300 MB)",
  "307 to another origin",
  "100,000 attributes in the answer",
  "invalid UTF-8 in the answer",
]);

describe("the generated client against a malicious server", () => {
  let servers: MaliciousServers;
  let child: AttackChild;
  beforeAll(async () => {
    [servers, child] = await Promise.all([startMaliciousServers(), AttackChild.start({ mode: "client" })]);
  }, 30_000);
  afterAll(async () => {
    await child.stop();
    await servers.close();
  });

  for (const c of MALICIOUS_CASES.filter((m) => QUICK.has(m.name))) {
    it(
      `${c.name}: the call rejects with ${c.expected}`,
      async () => {
        const result = await child.ask<ClientCaseResult>(
          { type: "client-case", origin: servers.origin, name: c.name },
          SETTLE_BOUND_MS,
        );
        if (result === undefined) {
          // Stuck: replace the client process for the next case.
          await child.stop();
          child = await AttackChild.start({ mode: "client" });
        }
        expect(result?.got, `no answer from the client in ${SETTLE_BOUND_MS} ms`).toBe(c.expected);
        expect(result?.ms).toBeLessThan(SETTLE_BOUND_MS);
      },
      SETTLE_BOUND_MS + 15_000,
    );
  }

  it("never sends a request to the origin a 307 points at", () => {
    expect(servers.otherOriginRequests()).toBe(0);
  });
});
