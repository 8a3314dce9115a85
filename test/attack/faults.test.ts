// The whole handler-fault matrix of `npm run fuzz` (it is cheap): every awkward value a handler can throw
// or reject with, a promise that never settles, a result of the wrong shape, through the node:http
// handler, the fetch adapter and a Connect-style middleware chain, with the default and a throwing logger.

import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { faultListener, FAULT_CASES, runFaultMatrix, type AdapterTrouble } from "./faults.js";

describe("handler faults", () => {
  const trouble: AdapterTrouble = { nextWithError: 0, fetchRejected: 0, bridgeRefused: 0 };
  const logLines: string[] = [];
  let server: http.Server;
  let port: number;
  beforeAll(async () => {
    // The default logger writes to stderr: keep its lines to check them, not to flood the test output.
    vi.spyOn(console, "error").mockImplementation((...args: unknown[]) => {
      logLines.push(args.map(String).join(" "));
    });
    server = http.createServer(faultListener(trouble));
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    vi.restoreAllMocks();
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  it(`answers all ${FAULT_CASES.length} faults on every binding and adapter with a well-formed error, never next(error), never a rejected fetch`, async () => {
    const result = await runFaultMatrix(port);
    expect(result.examples).toEqual([]);
    expect(result.calls).toBe(FAULT_CASES.length * 4 * 3 * 2);
    expect(trouble).toEqual({ nextWithError: 0, fetchRejected: 0, bridgeRefused: 0 });
    expect(server.listening).toBe(true);
  });

  it("has the default logger write one JSON object per line, whatever was thrown", () => {
    expect(logLines.length).toBeGreaterThan(0);
    for (const line of logLines) {
      expect(line).not.toContain("\n");
      expect(() => JSON.parse(line), line.slice(0, 200)).not.toThrow();
    }
  });
});
