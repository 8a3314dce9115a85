// Quick subset of `npm run fuzz -- --only protocol`: each protocol class (protocol.ts) on every SOAP request
// through the node:http handler, the fetch adapter and the middleware chain, answered exactly as expected.

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { listenOnLoopback, type Listening } from "../fixtures/raw-http.js";
import { faultListener, type AdapterTrouble } from "./faults.js";
import { PROTOCOL_CLASSES, runProtocolClass } from "./protocol.js";

describe("protocol edges through the three adapters", () => {
  const trouble: AdapterTrouble = { nextWithError: 0, fetchRejected: 0, bridgeRefused: 0 };
  let listening: Listening;
  beforeAll(async () => {
    listening = await listenOnLoopback(faultListener(trouble));
  });
  afterAll(() => listening.close());

  for (const c of PROTOCOL_CLASSES) {
    it(`${c.name}: ${c.expected}`, async () => {
      const r = await runProtocolClass(listening.port, c);
      expect(r.problems).toEqual([]);
      expect(r.expected).toBe(r.sent);
      expect(r.sent).toBeGreaterThanOrEqual(120);
      expect(trouble).toMatchObject({ nextWithError: 0, fetchRejected: 0 });
    });
  }
});
