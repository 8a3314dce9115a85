// Record and replay: the proxy writes the answering host's exchanges as conformance cases, redacted, and
// `npm run conformance -- --cases <folder> --url …` replays them against any endpoint with the same
// comparison and volatile paths: against the host they were recorded from every case passes; against our
// server exactly the planted differences fail.

import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createClient } from "../../generated/client.js";
import { createRecorder, readRecordedCases } from "../../generator/shadow/record.js";
import { fillCredentials } from "../../generator/shadow/replay.js";
import { main as conformance } from "../conformance/cli.js";
import { startFixtureServer, type FixtureServer } from "../fixtures/fixture-server.js";
import { samples } from "../fixtures/samples.js";
import {
  BINDINGS,
  callReads,
  runProxy,
  shadowConfig,
  startLegacyStandIn,
  type LegacyStandIn,
} from "./support.js";

const PASSWORD = "rec&<pw> 42";
const READS = [
  "GetRoiResults",
  "GetNewsletterFilters",
  "GetTriggerIdForAccount",
  "GetSubscriberMailingLists",
];

let legacy: LegacyStandIn;
let ours: FixtureServer;
let dir: string;

async function replay(url: string, password = PASSWORD): Promise<{ code: number; lines: string[] }> {
  const lines: string[] = [];
  const code = await conformance(
    ["--cases", dir, "--url", url, "--username", "demo", "--password", password],
    {
      print: (l) => lines.push(l),
    },
  );
  return { code, lines };
}

beforeAll(async () => {
  legacy = await startLegacyStandIn();
  ours = await startFixtureServer();
  dir = mkdtempSync(path.join(tmpdir(), "shadow-cases-"));
  const config = shadowConfig(
    `legacy: ${legacy.endpointUrl}\nours: ${ours.endpointUrl}\noperations:\n  GetTriggerIdForAccount: { volatile: [ TriggerResult/Created ] }\n`,
  );
  const recorder = createRecorder(config, dir, { maxCases: 100, perOperation: 2 });
  const r = await runProxy(config, { collectAll: true });
  // The recorder takes the exchanges the proxy hands its observer.
  for (const binding of BINDINGS) {
    const client = createClient({
      baseUrl: r.baseUrl("/legacy"),
      username: "demo",
      password: PASSWORD,
      binding,
    }) as unknown as Record<string, (p: unknown) => Promise<unknown>>;
    for (const op of READS)
      await client[op]!(samples[op as keyof typeof samples].params).catch(() => undefined);
    await client["InsertSubscriberSid"]!(samples.InsertSubscriberSid.params);
  }
  // A second and a third GetRoiResults on every binding: the third is past perOperation, not written.
  await callReads(r.baseUrl("/legacy"), ["GetRoiResults"]);
  await callReads(r.baseUrl("/legacy"), ["GetRoiResults"]);
  await r.proxy.drain();
  for (const e of r.exchanges) recorder.add(e);
  await r.proxy.close();
}, 60_000);

afterAll(async () => {
  await legacy?.close();
  await ours?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe("easgen record's cases", () => {
  it("writes one case per exchange, writes included, at most perOperation per operation and binding", () => {
    const files = readdirSync(dir).sort();
    expect(files).toHaveLength(5 * 4 + 4);
    expect(files).toContain("InsertSubscriberSid.soap12.001.yaml");
    expect(files.filter((f) => f.startsWith("GetRoiResults.soap11."))).toEqual([
      "GetRoiResults.soap11.001.yaml",
      "GetRoiResults.soap11.002.yaml",
    ]);
    const [first] = readRecordedCases(dir).filter((c) => c.file === "GetRoiResults.httpGet.001.yaml");
    expect(first!.recorded).toMatchObject({
      operation: "GetRoiResults",
      binding: "httpGet",
      request: {
        method: "GET",
        target: "/GetRoiResults?strUsername=%5Bredacted%5D&strPassword=%5Bredacted%5D&strSendQueueId=17",
      },
      answer: { status: 200, contentType: "text/xml; charset=utf-8" },
    });
    expect(
      readRecordedCases(dir).find((c) => c.recorded.operation === "GetTriggerIdForAccount")!.recorded
        .volatile,
    ).toEqual(["TriggerResult/Created"]);
  });

  it("stores no credential", () => {
    for (const file of readdirSync(dir)) {
      const text = readFileSync(path.join(dir, file), "utf8");
      expect(text, file).not.toContain("rec&");
      expect(text, file).not.toContain("rec%26");
      expect(text, file).not.toContain("demo");
    }
  });

  it("fills the credentials back in, escaped for XML and for forms", () => {
    const soap = fillCredentials(
      {
        method: "POST",
        target: "",
        headers: {},
        body: "<x><strPassword>[redacted]</strPassword><strUsername>[redacted]</strUsername></x>",
      },
      { strPassword: "a&<b>", strUsername: "u" },
    );
    expect(soap.body).toBe("<x><strPassword>a&amp;&lt;b&gt;</strPassword><strUsername>u</strUsername></x>");
    const get = fillCredentials(
      {
        method: "GET",
        target: "/Op?strUsername=%5Bredacted%5D&strPassword=%5Bredacted%5D&x=1",
        headers: {},
        body: "",
      },
      { strPassword: "a&b c", strUsername: "u" },
    );
    expect(get.target).toBe("/Op?strUsername=u&strPassword=a%26b%20c&x=1");
  });
});

describe("npm run conformance -- --cases", () => {
  it("passes every case against the host they were recorded from, credentials filled in", async () => {
    const before = legacy.inner.calls.length;
    const { code, lines } = await replay(legacy.endpointUrl);
    expect(lines.filter((l) => l.includes("| failed |"))).toEqual([]);
    expect(lines.at(-1)).toBe("24 passed, 0 failed");
    expect(code).toBe(0);
    const replayed = legacy.inner.calls.slice(before);
    expect(replayed.length).toBeGreaterThan(0);
    expect(
      replayed.every(
        (c) => c.context.credentials["password"] === PASSWORD && c.context.credentials["username"] === "demo",
      ),
    ).toBe(true);
  });

  it("fails exactly the planted differences against our server", async () => {
    const { code, lines } = await replay(ours.endpointUrl);
    const failed = lines
      .filter((l) => l.includes("| failed |"))
      .map((l) => `${l.split(" | ")[0]!.trim()} ${l.split(" | ")[2]!.split(":")[0]}`);
    expect(failed.sort()).toEqual(
      [
        "GetNewsletterFilters.httpGet.001.yaml status",
        ...BINDINGS.flatMap((b) => [1, 2].map((n) => `GetRoiResults.${b}.00${n}.yaml RoiResult[1]/Value`)),
      ].sort(),
    );
    expect(lines.at(-1)).toBe("15 passed, 9 failed");
    expect(code).toBe(1);
  });

  it("refuses a folder without cases and names a malformed case", async () => {
    const empty = mkdtempSync(path.join(tmpdir(), "shadow-empty-"));
    try {
      await expect(
        conformance(["--cases", empty, "--url", ours.endpointUrl], { print: () => undefined }),
      ).rejects.toThrow(/no recorded cases/);
    } finally {
      rmSync(empty, { recursive: true, force: true });
    }
  });
});
