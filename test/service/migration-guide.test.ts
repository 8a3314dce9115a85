// docs/migration.md end to end, on both engines: the reference service as "ours", and a legacy stand-in in
// front of the same service that differs in planted ways (a subscriber's Format in lower case: a
// divergence; its own clock for Subscribed: volatile in the guide's config; another .NET version's DataSet
// schema: not a difference). The guide's config block is the one used. Steps: `easgen shadow` in mirror
// mode (a child process, stopped with SIGINT), its report; `easgen record` and the replay with
// `npm run conformance -- --cases`; cut-over mode.

import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import http from "node:http";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, expect, it } from "vitest";
import { createClient } from "../../generated/client.js";
import type { DivergenceRecord, ReportStats } from "../../generator/shadow/report.js";
import { main as conformance } from "../conformance/cli.js";
import { listenOnLoopback, type Listening } from "../fixtures/raw-http.js";
import { describeEngines } from "./support/engines.js";
import { BINDINGS, startService, type TestService } from "./support/service.js";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const PASSWORD = "guide-pass-9x";
const FORMAT_PATH = "diffgram/NewDataSet/Table/Format";

/** The guide's config block (`<!-- migration: shadow.yaml -->`). */
function guideConfig(): string {
  const page = readFileSync(path.join(ROOT, "docs/migration.md"), "utf8");
  const m = /<!-- migration: shadow\.yaml -->\n```yaml\n([\s\S]*?)\n```/.exec(page);
  if (!m) throw new Error("docs/migration.md has no shadow.yaml block");
  return m[1]!;
}

/** The legacy stand-in: the same service behind a layer that plants the differences. */
function legacyLayer(target: string): Promise<Listening> {
  return listenOnLoopback((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const body = Buffer.concat(chunks);
      const headers: http.OutgoingHttpHeaders = { ...req.headers, "content-length": String(body.length) };
      delete headers["transfer-encoding"];
      const up = http.request(
        `${target}${req.url ?? ""}`,
        { method: req.method, headers, agent: false },
        (answer) => {
          const parts: Buffer[] = [];
          answer.on("data", (c: Buffer) => parts.push(c));
          answer.on("end", () => {
            let text = Buffer.concat(parts).toString("utf8");
            if (text.includes("<diffgr:diffgram")) {
              text = text
                .replace(/<Format>HTML<\/Format>/g, "<Format>html</Format>")
                .replace(
                  /<Subscribed>[^<]*<\/Subscribed>/g,
                  "<Subscribed>2001-02-03T04:05:06+00:00</Subscribed>",
                )
                .replace(' msdata:UseCurrentLocale="true"', "");
            }
            const out = Buffer.from(text, "utf8");
            const type = answer.headers["content-type"];
            res.writeHead(answer.statusCode ?? 500, {
              ...(type ? { "Content-Type": type } : {}),
              "Content-Length": out.length,
              "X-AspNet-Version": "4.0.30319",
            });
            res.end(out);
          });
        },
      );
      up.on("error", () => res.destroy());
      up.end(body);
    });
  });
}

interface Running {
  readonly child: ChildProcess;
  readonly lines: string[];
  readonly url: string;
  readonly metrics: string;
}

/** Starts an easgen command as the guide runs it, until its first lines say where it listens. */
async function easgen(args: string[]): Promise<Running> {
  const child = spawn(process.execPath, ["--import", "tsx", "generator/cli.ts", ...args], {
    cwd: ROOT,
    stdio: ["ignore", "pipe", "pipe"],
  });
  const lines: string[] = [];
  let stderr = "";
  child.stderr!.on("data", (d: Buffer) => (stderr += d.toString()));
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`easgen ${args[0]} did not start: ${stderr}`)), 120_000);
    child.stdout!.on("data", (d: Buffer) => {
      lines.push(...d.toString().split("\n").filter(Boolean));
      if (lines.some((l) => l.includes("metrics:"))) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`easgen ${args[0]} exited ${code}: ${stderr}`));
    });
  });
  const url = /on (http:\/\/[^/]+)/.exec(lines.find((l) => l.includes(" mode on "))!)![1]!;
  const metrics = /metrics: +(\S+)/.exec(lines.find((l) => l.includes("metrics:"))!)![1]!;
  return { child, lines, url, metrics };
}

async function stop(running: Running): Promise<number | null> {
  const exited = new Promise<number | null>((resolve) => running.child.once("exit", (code) => resolve(code)));
  running.child.kill("SIGINT");
  return exited;
}

function counter(text: string, name: string): number {
  return text
    .split("\n")
    .filter((l) => l.startsWith(`${name}{`))
    .reduce((sum, l) => sum + Number(l.slice(l.lastIndexOf(" ") + 1)), 0);
}

/** Waits until the proxy has compared `n` copies (metrics), bounded. */
async function compared(metricsUrl: string, n: number): Promise<void> {
  for (let i = 0; i < 600; i++) {
    const text = await (await fetch(metricsUrl)).text();
    if (
      counter(text, "shadow_matched_total") +
        counter(text, "shadow_diverged_total") +
        counter(text, "shadow_explained_total") >=
      n
    )
      return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`the proxy did not compare ${n} copies`);
}

describeEngines("the migration guide (docs/migration.md)", (engine) => {
  let svc: TestService;
  let legacy: Listening;
  let dir: string;
  let listId: number;

  const writeConfig = (name: string, extra: (text: string) => string = (t) => t): string => {
    const text = extra(guideConfig())
      .replace(
        "spec: spec/ExternalAPIService.yaml",
        `spec: ${path.join(ROOT, "spec/ExternalAPIService.yaml")}`,
      )
      .replace("listen: 127.0.0.1:8090", "listen: 127.0.0.1:0")
      .replace("metrics: 127.0.0.1:9464", "metrics: 127.0.0.1:0")
      .replace("http://legacy.internal/ExternalAPIService.asmx", `${legacy.origin}/ExternalAPIService.asmx`)
      .replace("http://127.0.0.1:8080/ExternalAPIService.asmx", `${svc.url}/ExternalAPIService.asmx`);
    const file = path.join(dir, name);
    writeFileSync(file, text);
    return file;
  };

  /** The calls of a day: a write (not mirrored), then each binding reads the lists twice. */
  const traffic = async (base: string) => {
    for (const binding of BINDINGS) {
      const client = createClient({ baseUrl: base, username: "demo", password: PASSWORD, binding });
      if (binding === "soap11") {
        await client.InsertSubscriberSid({
          strEmail: "guide@example.com",
          strName: "Guide",
          strFormat: "HTML",
          strCountryCode: "",
          strPhoneNumber: "",
          strMailingListID: String(listId),
        });
      }
      for (let i = 0; i < 2; i++)
        await client.GetSubscriberMailingLists({ strSubscriberId: "", strEmail: "guide@example.com" });
    }
  };

  beforeAll(async () => {
    svc = await startService(engine, "migration");
    const account = await svc.createAccount("demo", PASSWORD);
    listId = await svc.createList(account, "Newsletter");
    legacy = await legacyLayer(svc.url);
    dir = mkdtempSync(path.join(tmpdir(), "migration-guide-"));
  }, 60_000);
  afterAll(async () => {
    await legacy?.close();
    await svc?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it("mirror mode: the callers get the legacy answers, the report holds exactly the planted divergence", {
    timeout: 300_000,
  }, async () => {
    const running = await easgen(["shadow", "--config", writeConfig("shadow.yaml")]);
    expect(running.lines[0]).toMatch(
      /^shadow: mirror mode on http:\/\/127\.0\.0\.1:\d+\/ExternalAPIService\.asmx$/,
    );
    await traffic(running.url);
    // The caller got the legacy host's answer.
    const client = createClient({
      baseUrl: running.url,
      username: "demo",
      password: PASSWORD,
      binding: "httpGet",
    });
    const lists = await client.GetSubscriberMailingLists({
      strSubscriberId: "",
      strEmail: "guide@example.com",
    });
    expect(JSON.stringify(lists, (_k, v: unknown) => (typeof v === "bigint" ? String(v) : v))).toContain(
      '"html"',
    );
    await compared(running.metrics, 9);
    expect(await stop(running)).toBe(0);

    const reportDir = path.join(dir, "shadow-report");
    const records = readFileSync(path.join(reportDir, "divergences.jsonl"), "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as DivergenceRecord);
    expect(records.map((r) => `${r.operation} ${r.path} ${r.legacyValue} ${r.oursValue}`)).toEqual(
      Array(9).fill(`GetSubscriberMailingLists ${FORMAT_PATH} html HTML`),
    );
    const stats = JSON.parse(readFileSync(path.join(reportDir, "stats.json"), "utf8")) as ReportStats;
    expect(stats.operations.map((o) => o.operation)).toEqual(Array(4).fill("GetSubscriberMailingLists"));
    expect(stats.operations.reduce((n, o) => n + o.compared, 0)).toBe(9);
    for (const file of readdirSync(reportDir))
      expect(readFileSync(path.join(reportDir, file), "utf8")).not.toContain(PASSWORD);
    expect(readFileSync(path.join(reportDir, "report.html"), "utf8")).toContain(FORMAT_PATH);
  });

  it("record and replay: the recorded cases pass against the legacy host and fail on Format against ours", {
    timeout: 300_000,
  }, async () => {
    const cases = path.join(dir, "cases");
    const running = await easgen(["record", "--config", writeConfig("record.yaml"), "--out", cases]);
    await traffic(running.url);
    await compared(running.metrics, 8);
    expect(await stop(running)).toBe(0);
    expect(running.lines.at(-1)).toMatch(/^record: \d+ cases in /);
    const files = readdirSync(cases);
    expect(files.filter((f) => f.startsWith("GetSubscriberMailingLists."))).toHaveLength(8);
    expect(files.filter((f) => f.startsWith("InsertSubscriberSid."))).toHaveLength(1);
    for (const file of files) expect(readFileSync(path.join(cases, file), "utf8")).not.toContain(PASSWORD);

    const replay = async (url: string) => {
      const lines: string[] = [];
      const code = await conformance(
        ["--cases", cases, "--url", url, "--username", "demo", "--password", PASSWORD],
        { print: (l) => lines.push(l) },
      );
      return { code, lines, failed: lines.filter((l) => l.includes(" | failed | ")) };
    };
    // The replay inserts again: InsertSubscriberSid answers the existing subscriber's id on both.
    const onLegacy = await replay(`${legacy.origin}/ExternalAPIService.asmx`);
    expect(onLegacy.failed).toEqual([]);
    expect(onLegacy.code).toBe(0);
    const onOurs = await replay(`${svc.url}/ExternalAPIService.asmx`);
    expect(onOurs.failed.map((l) => l.split(" | ")[2]!.split(":")[0])).toEqual(Array(8).fill(FORMAT_PATH));
    expect(onOurs.code).toBe(1);
  });

  it("cut-over mode: ours answers, the legacy host is compared", { timeout: 300_000 }, async () => {
    rmSync(path.join(dir, "shadow-report"), { recursive: true, force: true });
    const running = await easgen([
      "shadow",
      "--config",
      writeConfig("cutover.yaml", (t) => t.replace("mode: mirror", "mode: cutover")),
    ]);
    expect(running.lines[0]).toMatch(/^shadow: cutover mode on /);
    const client = createClient({
      baseUrl: running.url,
      username: "demo",
      password: PASSWORD,
      binding: "soap12",
    });
    const lists = await client.GetSubscriberMailingLists({
      strSubscriberId: "",
      strEmail: "guide@example.com",
    });
    expect(JSON.stringify(lists, (_k, v: unknown) => (typeof v === "bigint" ? String(v) : v))).toContain(
      '"HTML"',
    );
    await compared(running.metrics, 1);
    expect(await stop(running)).toBe(0);
    const records = readFileSync(path.join(dir, "shadow-report", "divergences.jsonl"), "utf8")
      .trim()
      .split("\n");
    expect(
      records
        .map((l) => JSON.parse(l) as DivergenceRecord)
        .map((r) => `${r.binding} ${r.path} ${r.legacyValue} ${r.oursValue}`),
    ).toEqual([`soap12 ${FORMAT_PATH} html HTML`]);
  });
});
