// Every case's profile is right against a real ASMX host: ExternalAPIService's 20 operations as an .asmx
// with stub bodies (test/asmx-host/external-api.ts, generated from the spec) on Mono's ASP.NET, checked
// by the live-endpoint mode. `--profile protocol` (every case, writes included) must pass there without a
// failure; `--profile service` is what our validation adds, which the host does not do.

import { rmSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { prepareExternalApi } from "../asmx-host/external-api.js";
import { startAsmxHost, type AsmxHost } from "../asmx-host/host.js";
import { hasMono } from "../fixtures/system-component.js";
import { loadReferenceService } from "./reference/spec.js";
import { runRemote } from "./remote/run.js";
import { casesOf, loadCases } from "./suite/cases.js";
import { SPEC_OPERATIONS } from "../fixtures/spec-facts.js";

const monoInstalled = hasMono();
let host: AsmxHost | undefined;
let folder: string | undefined;

beforeAll(async () => {
  if (!monoInstalled) return;
  folder = prepareExternalApi();
  host = await startAsmxHost({ services: folder });
}, 180_000);
afterAll(async () => {
  await host?.stop();
  if (folder) rmSync(folder, { recursive: true, force: true });
}, 30_000);

async function remote(profile: "protocol" | "service"): Promise<{ code: number; lines: string[] }> {
  const lines: string[] = [];
  const code = await runRemote(
    { url: `${host!.url}ExternalAPIService.asmx`, username: "u", password: "p", allowWrites: true, profile },
    (line) => lines.push(line),
  );
  return { code, lines };
}

const outcomeOf = (line: string) => line.split(" | ")[1]?.trim();

describe.runIf(monoInstalled)(
  "the conformance profiles against ExternalAPIService on an ASMX host (Mono)",
  () => {
    it("--profile protocol: every row passes, the WSDL and every operation × binding shape among them", async () => {
      const { code, lines } = await remote("protocol");
      expect(lines.filter((l) => outcomeOf(l) === "failed")).toEqual([]);
      expect(code).toBe(0);
      const passed = lines.filter((l) => outcomeOf(l) === "passed").map((l) => l.split(" | ")[0]!.trim());
      expect(passed.filter((name) => name.endsWith("/shape"))).toHaveLength(SPEC_OPERATIONS.length * 4);
      expect(passed).toEqual(
        expect.arrayContaining([
          "wsdl/served",
          "wsdl/soap11",
          "wsdl/soap12",
          "wsdl/httpGet",
          "wsdl/httpPost",
        ]),
      );
      // Rows skipped remotely are only the cases a live endpoint is never held to (limits of its own).
      expect(
        lines.filter((l) => outcomeOf(l) === "skipped").every((l) => l.includes("not for live endpoints")),
      ).toBe(true);
    }, 300_000);

    it("--profile service: the host does none of our validation, so most rows fail there", async () => {
      const { code, lines } = await remote("service");
      const failed = lines.filter((l) => outcomeOf(l) === "failed").length;
      const serviceRefusals = casesOf(loadCases(loadReferenceService()), "service").filter(
        (c) => c.error,
      ).length;
      expect(code).toBe(1);
      expect(failed).toBeGreaterThan(serviceRefusals);
    }, 300_000);
  },
);
