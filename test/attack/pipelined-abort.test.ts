// Pipelined requests whose caller disconnects: every handler that started and reads context.signal sees
// it aborted, with two requests per connection and with many, and with more requests than
// maxConcurrentCalls (the default 256), where the ones past it are refused and the connection closes.

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

  for (const [connections, perConnection] of [
    [50, 2],
    [2, 200],
  ] as const) {
    it(`aborts every started handler when ${connections} callers with ${perConnection} pipelined requests each disconnect`, async () => {
      const r = await runPipelinedAbort(server.port, source, connections, perConnection);
      expect(r.started).toBe(r.sent);
      expect(r.aborted).toBe(r.started);
    });
  }
});

describe("context.signal of pipelined requests past maxConcurrentCalls (default 256)", () => {
  const counters: SignalCounters = { started: 0, aborted: 0 };
  const source = { counters: async () => ({ ...counters }) };
  let server: RunningServer;
  beforeAll(async () => {
    server = await startAttackServer({ log: () => {} }, counters);
  });
  afterAll(() => server.close());

  // Found by review: the refusals' answers queued behind the running calls made Node stop reading the
  // connection, so its close went unseen and 3-57 of 256 handlers never saw their signal abort.
  for (const [connections, perConnection] of [
    [4, 100],
    [3, 150],
    [2, 200],
    [6, 80],
    [1, 400],
  ] as const) {
    it(`aborts every started handler when ${connections} callers with ${perConnection} pipelined requests each disconnect`, async () => {
      const r = await runPipelinedAbort(server.port, source, connections, perConnection, 256);
      expect(r.startedAtClose).toBe(256);
      expect(r.aborted).toBe(r.started);
    }, 30_000);
  }
});
