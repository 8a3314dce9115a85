// Quick subset of the XML attacks of `npm run fuzz`: each attack once against the generated server in its
// own process (a server stuck in a quadratic read cannot stall the test runner, and is replaced). The
// suite's target is 100 ms from the last byte; this bound is 10x that, and the attacks whose cost is their
// volume (60 MB of text, say) are sent at a fraction of their size (`quickScale`) so that an
// honest linear read stays far under it; `npm run fuzz` sends them whole.

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AttackChild } from "./child.js";
import { describeOutcome, runXmlAttack, XML_ATTACKS } from "./xml-attacks.js";

const ANSWER_BOUND_MS = 1000;
const PROBE_BOUND_MS = 10_000;

describe("XML attacks on the server (one of each)", () => {
  let child: AttackChild;
  beforeAll(async () => {
    child = await AttackChild.start({ mode: "service" });
  }, 30_000);
  afterAll(() => child.stop());

  for (const attack of XML_ATTACKS) {
    const scale = attack.quickScale ?? 1;
    const label = scale === 1 ? attack.name : `${attack.name} (at ${scale} of the size)`;
    it(`${label}: refused or read well within time, the probe answered meanwhile`, async () => {
      const measure = await runXmlAttack(child.port, attack, 5000, scale);
      const stuck = measure.attack.kind !== "answer" || !child.alive;
      if (stuck) {
        await child.stop();
        child = await AttackChild.start({ mode: "service" });
      }
      expect(measure.problem, describeOutcome(measure.attack)).toBeUndefined();
      expect(measure.attack.ms, describeOutcome(measure.attack)).toBeLessThan(ANSWER_BOUND_MS);
      expect(measure.probe.kind).toBe("answer");
      expect(measure.probe.ms).toBeLessThan(PROBE_BOUND_MS);
    }, 30_000);
  }
});
