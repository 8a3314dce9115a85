// Host header cases of `npm run fuzz`: the WSDL and help pages never name a host the server was not told
// to trust, and a Host the URL parser refuses still gets a well-formed answer.

import { afterAll, describe, expect, it } from "vitest";
import { HOST_CONFIGS, runHostCases, type HostConfigName } from "./host-header.js";
import { startAttackServer, type RunningServer } from "./service.js";

describe("Host header poisoning", () => {
  const servers: RunningServer[] = [];
  afterAll(() => Promise.all(servers.map((s) => s.close())));

  for (const config of Object.keys(HOST_CONFIGS) as HostConfigName[]) {
    it(`with ${config === "default" ? "no publicUrl or allowedHosts" : config}: no page names a forged host, every Host gets an answer`, async () => {
      const server = await startAttackServer({ ...HOST_CONFIGS[config], log: () => {} });
      servers.push(server);
      const bad = (await runHostCases(server.port, config)).filter((v) => v.problem);
      expect(bad.map((v) => `${v.page} ${v.hostCase}: ${v.problem} (${v.status})`)).toEqual([]);
    });
  }
});
