// Pipelined requests whose caller disconnects: every handler that started and reads context.signal sees
// it aborted, with two requests per connection and with many.

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runPipelinedAbort } from "./pipelined-abort.js";
import { startAttackServer, type RunningServer, type SignalCounters } from "./service.js";

describe("context.signal of pipelined requests", () => {
  const counters: SignalCounters = { started: 0, aborted: 0 };
  const source = { counters: async () => ({ ...counters }) };
  let server: RunningServer;
  beforeAll(async () => {
    server = await startAttackServer({ maxConcurrentCalls: 10_000, log: () => {} }, counters);
  });
  afterAll(() => server.close());

  for (const [connections, perConnection] of [[50, 2], [2, 200]] as const) {
    it(`aborts every started handler when ${connections} callers with ${perConnection} pipelined requests each disconnect`, async () => {
      const r = await runPipelinedAbort(server.port, source, connections, perConnection);
      expect(r.started).toBe(r.sent);
      expect(r.aborted).toBe(r.started);
    });
  }
});
