// The shadow proxy's report folder, through `easgen shadow` against the legacy stand-in: divergences.jsonl
// holds exactly the planted divergences, redacted; stats.json the counts; report.html the rates and a
// side-by-side diff, rendered in Chromium (its screenshot is docs/images/shadow-report.png: set
// SHADOW_SCREENSHOT=1 to rewrite it).

import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { chromium } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createClient } from "../../generated/client.js";
import { runShadow } from "../../generator/shadow/command.js";
import { loadShadowConfig } from "../../generator/shadow/config.js";
import { createRedactor } from "../../generator/shadow/redact.js";
import type { DivergenceRecord, ReportStats } from "../../generator/shadow/report.js";
import { startFixtureServer, type FixtureServer } from "../fixtures/fixture-server.js";
import { samples } from "../fixtures/samples.js";
import { CHROMIUM, hasChromium } from "../fixtures/system-component.js";
import { BINDINGS, PLANTED, ROOT, SPEC, startLegacyStandIn, type LegacyStandIn } from "./support.js";

const PASSWORD = "pw-Zq81-never-stored";
const PHONE = "+46700000042";

let legacy: LegacyStandIn;
let ours: FixtureServer;
let dir: string;
let records: DivergenceRecord[];
let stats: ReportStats;
let lines: string[];

beforeAll(async () => {
  legacy = await startLegacyStandIn();
  ours = await startFixtureServer();
  dir = mkdtempSync(path.join(tmpdir(), "shadow-report-"));
  const file = path.join(dir, "shadow.yaml");
  writeFileSync(
    file,
    `spec: ${path.join(ROOT, SPEC)}
listen: 127.0.0.1:0
legacy: ${legacy.endpointUrl}
ours: ${ours.endpointUrl}
secrets: [ strPhoneNumber ]
operations:
  GetTriggerIdForAccount: { volatile: [ TriggerResult/Created ] }
  InsertSubscriberSid: { mirror: true }
report: { dir: out, examples: 2 }
`,
  );
  const config = loadShadowConfig(file);
  let stop!: () => void;
  const stopped = new Promise<void>((resolve) => {
    stop = resolve;
  });
  lines = [];
  const running = runShadow(config, { out: (l) => lines.push(l), err: (l) => lines.push(l) }, stopped);
  // The proxy's address is printed first.
  for (let i = 0; i < 500 && lines.length === 0; i++) await new Promise((r) => setTimeout(r, 10));
  const base = /on (http:\/\/[^/]+)/.exec(lines[0]!)![1]!;
  for (const binding of BINDINGS) {
    const client = createClient({ baseUrl: `${base}/legacy`, username: "demo", password: PASSWORD, binding });
    for (let i = 0; i < 3; i++) await client.GetRoiResults(samples.GetRoiResults.params);
    await client.GetNewsletterFilters(samples.GetNewsletterFilters.params).catch(() => undefined);
    await client.GetTriggerIdForAccount({});
    await client.InsertSubscriberSid({ ...samples.InsertSubscriberSid.params, strPhoneNumber: PHONE });
  }
  // Let the copies be compared, then stop: close drains nothing itself, so wait for the counts.
  for (let i = 0; i < 500; i++) {
    await new Promise((r) => setTimeout(r, 10));
    if (readFileSync(path.join(dir, "out", "divergences.jsonl"), "utf8").split("\n").length > 9) break;
  }
  await new Promise((r) => setTimeout(r, 200));
  stop();
  await running;
  records = readFileSync(path.join(dir, "out", "divergences.jsonl"), "utf8")
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l) as DivergenceRecord);
  stats = JSON.parse(readFileSync(path.join(dir, "out", "stats.json"), "utf8")) as ReportStats;
}, 60_000);

afterAll(async () => {
  await legacy?.close();
  await ours?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe("easgen shadow's report", () => {
  it("prints where it listens, what answers and where the report goes", () => {
    expect(lines[0]).toMatch(
      /^shadow: mirror mode on http:\/\/127\.0\.0\.1:\d+\/legacy\/ExternalAPIService\.asmx$/,
    );
    expect(lines).toContainEqual(
      expect.stringMatching(/^ {2}report: {4}\S+out \(divergences\.jsonl, report\.html, stats\.json\)$/),
    );
  });

  it("writes the planted divergences, at most `examples` per operation, binding and path", () => {
    const got = records.map((r) => `${r.operation} ${r.binding} ${r.path}`).sort();
    const roi = BINDINGS.flatMap((b) =>
      Array(2).fill(`${PLANTED.roiValue.operation} ${b} ${PLANTED.roiValue.path}`),
    );
    expect(got).toEqual([`${PLANTED.filtersOnGet.operation} httpGet status`, ...roi].sort());
    expect(records.find((r) => r.operation === "GetRoiResults")).toMatchObject({
      outcome: "diverged",
      what: "the text differs",
      legacyValue: "12.75",
      oursValue: "12.5",
      legacy: { status: 200 },
      ours: { status: 200 },
    });
    expect(stats.records).toMatchObject({ written: 9, notWritten: 4 });
  });

  it("counts every comparison per operation and binding", () => {
    const row = (op: string, binding: string) =>
      stats.operations.find((o) => o.operation === op && o.binding === binding);
    expect(row("GetRoiResults", "soap12")).toMatchObject({
      compared: 3,
      matched: 0,
      diverged: 3,
      paths: [{ path: "RoiResult[1]/Value", count: 3 }],
    });
    expect(row("GetNewsletterFilters", "httpGet")).toMatchObject({ compared: 1, diverged: 1 });
    expect(row("GetNewsletterFilters", "httpPost")).toMatchObject({ compared: 1, matched: 1 });
    expect(row("InsertSubscriberSid", "soap11")).toMatchObject({ compared: 1, matched: 1 });
    expect(stats.operations.reduce((n, o) => n + o.compared, 0)).toBe(24);
  });

  it("stores no credential and no configured secret anywhere", () => {
    for (const name of readdirSync(path.join(dir, "out"))) {
      const text = readFileSync(path.join(dir, "out", name), "utf8");
      expect(text, name).not.toContain(PASSWORD);
      expect(text, name).not.toContain(encodeURIComponent(PASSWORD));
      expect(text, name).not.toContain(PHONE);
    }
    const soap = records.find((r) => r.binding === "soap11")!;
    expect(soap.request.body).toContain("<strPassword>[redacted]</strPassword>");
    expect(soap.request.body).toContain("<strUsername>[redacted]</strUsername>");
    const get = records.find((r) => r.binding === "httpGet")!;
    expect(get.request.url).toContain("strPassword=%5Bredacted%5D");
  });

  it("renders report.html: match rates and a side-by-side diff (Chromium)", async () => {
    const html = readFileSync(path.join(dir, "out", "report.html"), "utf8");
    expect(html).toContain("GetRoiResults");
    expect(html).not.toContain("<script");
    if (!hasChromium()) return;
    const browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ["--headless", "--no-sandbox", "--disable-gpu"],
      timeout: 20_000,
    });
    try {
      const page = await browser.newPage({ viewport: { width: 1100, height: 900 } });
      await page.goto(`file://${path.join(dir, "out", "report.html")}`);
      const rows = await page.locator("tr.bad td:first-child").allTextContents();
      expect(rows.sort()).toEqual(["GetNewsletterFilters", "GetRoiResults"]);
      expect(await page.locator("td.del").first().textContent()).toContain("12.75");
      expect(await page.locator("td.add").first().textContent()).toContain("12.5");
      if (process.env["SHADOW_SCREENSHOT"]) {
        await page.screenshot({ path: path.join(ROOT, "docs/images/shadow-report.png"), fullPage: false });
      }
    } finally {
      await browser.close();
    }
  }, 60_000);
});

describe("redaction", () => {
  it("redacts elements with any prefix, forms ignoring case, and credential headers", () => {
    const r = createRedactor(new Set(["strPassword", "Token"]));
    expect(
      r.xml('<a><p:strPassword xmlns:p="x">s&amp;</p:strPassword><strPassword/><Token a="1">t</Token></a>'),
    ).toBe(
      '<a><p:strPassword xmlns:p="x">[redacted]</p:strPassword><strPassword/><Token a="1">[redacted]</Token></a>',
    );
    expect(r.form("strUsername=u&STRPASSWORD=s%26&x=1")).toBe("strUsername=u&STRPASSWORD=%5Bredacted%5D&x=1");
    expect(r.url("/a/b?strPassword=x")).toBe("/a/b?strPassword=%5Bredacted%5D");
    expect(r.headers({ authorization: "Basic abc", cookie: "s=1", "content-type": "text/xml" })).toEqual({
      authorization: "[redacted]",
      cookie: "[redacted]",
      "content-type": "text/xml",
    });
  });
});
