// The real-service attack harness itself: the service starts in its own process with the accounts asked
// for, answers a right and a wrong pair as the service does, and probeDuring measures while an attack runs.

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  callHttpPost,
  healthz,
  inParallel,
  probeDuring,
  startRealService,
  type RealService,
} from "./real-service.js";

describe("real-service attack harness", () => {
  let service: RealService;
  beforeAll(async () => {
    service = await startRealService({
      accounts: [{ username: "probe", password: "probe-password-1", lists: ["L1", "L2"] }],
    });
  }, 60_000);
  afterAll(() => service?.child.stop());

  it("starts the service with the accounts and lists asked for", () => {
    expect(service.info.accounts).toEqual([{ username: "probe", id: 1, lists: [1, 2] }]);
  });

  it("answers a right pair 200 and a wrong one the InvalidCredentials text", async () => {
    const right = await callHttpPost(service.port, "GetTriggerIdForAccount", {
      strUsername: "probe",
      strPassword: "probe-password-1",
    });
    expect(right.kind === "answer" && right.status).toBe(200);
    const wrong = await callHttpPost(service.port, "GetTriggerIdForAccount", {
      strUsername: "probe",
      strPassword: "nope",
    });
    expect(wrong.kind === "answer" && wrong.status).toBe(500);
    expect(wrong.kind === "answer" && wrong.body).toContain("user name or password is wrong");
  });

  it("probes while an attack runs and counts the probes", async () => {
    const attack = inParallel(20, 4, async () => {
      await healthz(service.port);
    });
    const { probes } = await probeDuring(attack, () => healthz(service.port), { everyMs: 5 });
    expect(probes.count).toBeGreaterThanOrEqual(1);
    expect(probes.failed).toBe(0);
    const stats = await service.child.stats();
    expect(stats?.logLines).toBeGreaterThan(0);
  });
});
