// `npm run fuzz -- --only tracking`: tracking inflation against the real service. One account sends two
// newsletters (one tracked `all`, one `roi`) through the real workers to one recipient, the attacker; the
// tokens come from the delivered .eml in the service's outbox folder, as a recipient has them. Then that
// recipient loads its pixel 20,000 times, follows its link 2,000 times and reports conversions of 10^24 - 1 (the largest numeral the
// decimal parser takes) and
// of the largest value allowed, while a probe measures an honest caller. What each row counts is what the
// account's reports say afterwards (GetReportViewsByDateInterval, GetRoiResults), so the bound is the one a
// customer of the service sees. The preference page's format form (/u/{token}/format, the token from the
// mail's List-Unsubscribe) gets hostile bodies and forged tokens.

import fs from "node:fs";
import http from "node:http";
import path from "node:path";
import { Writable } from "node:stream";
import { simpleParser } from "mailparser";
import { runAdmin } from "../../service/admin/cli.js";
import {
  type RealService,
  callHttpPost,
  describeProbes,
  healthz,
  inParallel,
  probeDuring,
  request,
  startRealService,
} from "./real-service.js";
import type { Row } from "./report.js";

const USER = { strUsername: "shop", strPassword: "shop-password-1" };
/** The service's bounds (service/http/tracking.ts TRACKING_LIMITS) as the docs state them. */
const BOUND = { viewsPerWindow: 1, clicksPerWindow: 1, conversionsPerLink: 10, maxValue: 1_000_000_000 };

/** A GET on a keep-alive connection of `agent`: its status, or the failure. */
function get(
  agent: http.Agent,
  port: number,
  target: string,
): Promise<{ status: number; type: string | undefined; location: string | undefined } | { failed: string }> {
  return new Promise((resolve) => {
    const req = http.get({ host: "127.0.0.1", port, path: target, agent, timeout: 10_000 }, (res) => {
      res.resume();
      res.on("end", () =>
        resolve({
          status: res.statusCode ?? 0,
          type: res.headers["content-type"],
          location: res.headers.location,
        }),
      );
      res.on("error", (error) => resolve({ failed: error.message }));
    });
    req.on("timeout", () => req.destroy(new Error("timeout")));
    req.on("error", (error) => resolve({ failed: error.message }));
  });
}

async function admin(databaseUrl: string, argv: string[]): Promise<string> {
  let out = "";
  let err = "";
  const sink = (write: (t: string) => void) =>
    new Writable({ write: (chunk: Buffer, _e, done) => (write(chunk.toString("utf8")), done()) });
  const code = await runAdmin(argv, {
    stdin: process.stdin,
    stdout: sink((t) => (out += t)),
    stderr: sink((t) => (err += t)),
    env: { DATABASE_URL: databaseUrl },
  });
  if (code !== 0) throw new Error(`admin ${argv.slice(0, 2).join(" ")}: ${err}`);
  return out;
}

async function call(
  service: RealService,
  operation: string,
  params: Record<string, string>,
): Promise<string> {
  const answer = await callHttpPost(
    service.port,
    operation,
    { ...USER, ...params },
    { maxBodyBytes: 64 * 1024 * 1024 },
  );
  if (answer.kind !== "answer" || answer.status !== 200)
    throw new Error(
      `${operation}: ${answer.kind === "answer" ? `${answer.status} ${answer.body.slice(0, 300)}` : answer.detail}`,
    );
  return answer.body;
}

const number = (xml: string) => /<(?:long|int)[^>]*>(\d+)</.exec(xml)?.[1] ?? "";

interface Tokens {
  readonly allSending: string;
  readonly roiSending: string;
  readonly pixel: string;
  readonly click: string;
  readonly roiClick: string;
  /** The token of the mail's List-Unsubscribe link (/u/{token}, the preference page). */
  readonly unsubscribe: string;
}

/** Sends the two newsletters and reads the recipient's tokens from the delivered mail. */
async function setUp(service: RealService): Promise<Tokens> {
  const dataDir = service.info.dataDir;
  const databaseUrl = `sqlite:${path.join(dataDir, "service.db")}`;
  const list = String(service.info.accounts[0]!.lists[0]!);
  await call(service, "InsertSubscriberSid", {
    strEmail: "attacker@example.com",
    strName: "A",
    strFormat: "HTML",
    strCountryCode: "",
    strPhoneNumber: "",
    strMailingListID: list,
  });
  const html = path.join(dataDir, "t.html");
  fs.writeFileSync(html, '<p><a href="https://shop.example/">Shop</a></p>');
  await admin(databaseUrl, [
    "template",
    "create",
    "--account",
    "shop",
    "--name",
    "T",
    "--html-file",
    html,
    "--subject",
    "Hi",
  ]);
  const sendings: string[] = [];
  for (const tracking of ["all", "roi"]) {
    const newsletter = number(
      await call(service, "InsertTemplateNewsletter", {
        strTemplateName: "T",
        strNewsletterName: tracking,
        strSubject: "",
        strTracking: tracking,
      }),
    );
    sendings.push(
      number(
        await call(service, "SendNewsletter", {
          strFromEmail: "news@example.com",
          strFromName: "Shop",
          strNewsletterId: newsletter,
          strMailingListId: list,
          strSendDate: "",
          strSendTime: "",
          strFilterId: "",
        }),
      ),
    );
  }
  const outbox = path.join(dataDir, "outbox");
  const htmls: string[] = [];
  let unsubscribe: string | undefined;
  for (let waited = 0; waited < 30_000; waited += 100) {
    const files = fs.existsSync(outbox) ? fs.readdirSync(outbox).filter((f) => f.endsWith(".eml")) : [];
    if (files.length >= 2) {
      for (const file of files.sort()) {
        const raw = fs.readFileSync(path.join(outbox, file));
        htmls.push(String((await simpleParser(raw)).html));
        unsubscribe ??= /^List-Unsubscribe: <[^>]*\/u\/([A-Za-z0-9_.-]+)>/im.exec(
          raw.toString("latin1"),
        )?.[1];
      }
      break;
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const pixels = htmls.map((h) => /\/t\/o\/([A-Za-z0-9_.-]+)/.exec(h)?.[1]);
  const clicks = htmls.map((h) => /\/t\/c\/([A-Za-z0-9_.-]+)/.exec(h)?.[1]);
  const all = pixels.findIndex((p) => p !== undefined);
  const roi = 1 - all;
  if (all < 0 || clicks[all] === undefined || clicks[roi] === undefined || unsubscribe === undefined)
    throw new Error(`no tracked mail with its unsubscribe link in ${outbox} after 30 s`);
  return {
    allSending: sendings[0]!,
    roiSending: sendings[1]!,
    pixel: pixels[all]!,
    click: clicks[all]!,
    roiClick: clicks[roi]!,
    unsubscribe,
  };
}

/** Views recorded for the sending (GetReportViewsByDateInterval over a wide interval): its rows. */
async function viewsRecorded(service: RealService, sending: string): Promise<number> {
  const stamp = (ms: number) => new Date(ms).toISOString().slice(0, 19);
  const now = Date.now();
  const xml = await call(service, "GetReportViewsByDateInterval", {
    strSendQueueId: sending,
    datIntervalFrom: stamp(now - 86_400_000),
    datIntervalTo: stamp(now + 86_400_000),
    ddField: "DD1",
  });
  return (xml.match(/<Table /g) ?? []).length;
}

/** GetRoiResults of the sending's one link: clicks, closures, value. */
async function roiRecorded(
  service: RealService,
  sending: string,
): Promise<{ clicks: number; closures: number; value: number }> {
  const xml = await call(service, "GetRoiResults", { strSendQueueId: sending });
  const field = (name: string) =>
    Number(new RegExp(`<${name}>([^<]*)</${name}>`).exec(xml)?.[1] ?? Number.NaN);
  return { clicks: field("Clicks"), closures: field("Closures"), value: field("Value") };
}

/** Loads `target` `count` times, 16 at a time, with a probe running; the statuses seen and the probes. */
async function hammer(
  service: RealService,
  target: string,
  count: number,
  good: (r: { status: number; type: string | undefined; location: string | undefined }) => boolean,
) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 16 });
  let ok = 0;
  const other: string[] = [];
  const started = performance.now();
  const attack = inParallel(count, 16, async () => {
    const r = await get(agent, service.port, target);
    if ("failed" in r) other.push(r.failed);
    else if (good(r)) ok++;
    else other.push(`${r.status} ${r.type ?? ""}`);
  });
  const { probes } = await probeDuring(attack, () => healthz(service.port, 5_000));
  const seconds = (performance.now() - started) / 1000;
  agent.destroy();
  return { ok, other, probes, seconds };
}

export async function trackingSection(rows: Row[]): Promise<void> {
  const service = await startRealService({
    accounts: [{ username: USER.strUsername, password: USER.strPassword, lists: ["News"] }],
  });
  try {
    const tokens = await setUp(service);

    const pixels = 20_000;
    const views = await hammer(
      service,
      `/t/o/${tokens.pixel}`,
      pixels,
      (r) => r.status === 200 && r.type === "image/gif",
    );
    const viewRows = await viewsRecorded(service, tokens.allSending);
    rows.push({
      attack: "tracking: one recipient's pixel loaded 20,000 times (16 at a time)",
      requests: pixels,
      outcome: `${views.ok} answered the GIF in ${views.seconds.toFixed(1)} s`,
      measured: `${viewRows} views recorded; ${describeProbes(views.probes)}`,
      target: `every load gets the GIF; <= ${BOUND.viewsPerWindow} view per window; probe <= 1 s`,
      pass:
        views.ok === pixels &&
        viewRows <= BOUND.viewsPerWindow &&
        viewRows >= 1 &&
        views.probes.maxMs <= 1000 &&
        views.probes.failed === 0,
      details: [...views.other.slice(0, 5), ...views.probes.examples],
    });

    const follows = 2_000;
    const clicks = await hammer(
      service,
      `/t/c/${tokens.click}`,
      follows,
      (r) => r.status === 302 && r.location === "https://shop.example/",
    );
    const clickRoi = await roiRecorded(service, tokens.allSending);
    rows.push({
      attack: "tracking: one recipient's link followed 2,000 times (16 at a time)",
      requests: follows,
      outcome: `${clicks.ok} redirected to the link in ${clicks.seconds.toFixed(1)} s`,
      measured: `${clickRoi.clicks} clicks recorded; ${describeProbes(clicks.probes)}`,
      target: `every follow redirected; <= ${BOUND.clicksPerWindow} click per link per window; probe <= 1 s`,
      pass:
        clicks.ok === follows &&
        clickRoi.clicks <= BOUND.clicksPerWindow &&
        clickRoi.clicks >= 1 &&
        clicks.probes.maxMs <= 1000 &&
        clicks.probes.failed === 0,
      details: [...clicks.other.slice(0, 5), ...clicks.probes.examples],
    });

    const huge = 5;
    const hugeRun = await hammer(
      service,
      `/t/v/${tokens.roiClick}?value=${"9".repeat(24)}`,
      huge,
      (r) => r.status === 400,
    );
    const afterHuge = await roiRecorded(service, tokens.roiSending);
    const maxed = 1_000;
    const maxRun = await hammer(
      service,
      `/t/v/${tokens.roiClick}?value=${BOUND.maxValue}`,
      maxed,
      (r) => r.status === 204,
    );
    const conversions = await roiRecorded(service, tokens.roiSending);
    const ceiling = BOUND.conversionsPerLink * BOUND.maxValue;
    rows.push({
      attack: "tracking: conversions of 10^24 - 1 (5), then 1,000 of the largest value on one click token",
      requests: huge + maxed,
      outcome: `10^24 - 1: ${hugeRun.ok} of ${huge} refused 400 (${afterHuge.closures} recorded); largest: ${maxRun.ok} answered 204`,
      measured: `${conversions.closures} closures, value ${conversions.value.toExponential(2)}; ${describeProbes(maxRun.probes)}`,
      target: `10^24 - 1 refused; <= ${BOUND.conversionsPerLink} closures, value <= ${ceiling.toExponential(0)}; probe <= 1 s`,
      pass:
        hugeRun.ok === huge &&
        afterHuge.closures === 0 &&
        maxRun.ok === maxed &&
        conversions.closures <= BOUND.conversionsPerLink &&
        conversions.value <= ceiling &&
        maxRun.probes.maxMs <= 1000 &&
        maxRun.probes.failed === 0,
      details: [...hugeRun.other.slice(0, 5), ...maxRun.other.slice(0, 5), ...maxRun.probes.examples],
    });

    // The preference page's format form (/u/{token}/format) with hostile bodies and forged tokens.
    const forms: { path: string; body: Buffer; ok: readonly number[] }[] = [
      { path: tokens.unsubscribe, body: Buffer.from("format=Text"), ok: [200] },
      { path: tokens.unsubscribe, body: Buffer.from("format=HTML"), ok: [200] },
      { path: tokens.unsubscribe, body: Buffer.from("format=%ZZ%"), ok: [400] },
      { path: tokens.unsubscribe, body: Buffer.from("format=T%00ext"), ok: [400] },
      { path: tokens.unsubscribe, body: Buffer.from("&".repeat(1024)), ok: [400] },
      { path: tokens.unsubscribe, body: Buffer.from("format=HTML&".repeat(85)), ok: [400] },
      { path: tokens.unsubscribe, body: Buffer.from("f".repeat(1025)), ok: [413] },
      // Answered 413 and closed unread: the rest of the body may meet a closed connection (-1).
      { path: tokens.unsubscribe, body: Buffer.alloc(4 * 1024 * 1024, 0x61), ok: [413, -1] },
      { path: tokens.unsubscribe, body: Buffer.from([0xff, 0xfe, 0x3d, 0xc0, 0x80]), ok: [400] },
      { path: `${tokens.unsubscribe.slice(0, -2)}AA`, body: Buffer.from("format=Text"), ok: [404] },
      { path: `9${tokens.unsubscribe}`, body: Buffer.from("format=Text"), ok: [404] },
      { path: "x".repeat(4000), body: Buffer.from("format=Text"), ok: [404] },
    ];
    const formOutcomes: string[] = [];
    const { probes: formProbes } = await probeDuring(
      inParallel(forms.length * 25, 8, async (i) => {
        const form = forms[i % forms.length]!;
        const r = await request(service.port, `/u/${form.path}/format`, {
          method: "POST",
          headers: { "content-type": "application/x-www-form-urlencoded" },
          body: form.body,
          timeoutMs: 30_000,
        });
        const got = r.kind === "answer" ? r.status : -1;
        if (!form.ok.includes(got))
          formOutcomes.push(`#${i % forms.length}: ${r.kind === "answer" ? got : r.detail}`);
      }),
      () => healthz(service.port, 5_000),
    );
    rows.push({
      attack: "preference page: hostile format forms (sizes, encodings, repeats) and forged tokens",
      requests: forms.length * 25,
      outcome: `${forms.length * 25 - formOutcomes.length} answered as documented (200, 400, 404, 413)`,
      measured: describeProbes(formProbes),
      target: "each the documented status (413 or closed past 1 KiB); every healthz answered",
      pass: formOutcomes.length === 0 && formProbes.failed === 0,
      details: [...new Set(formOutcomes)].slice(0, 10),
    });

    // The rest of the public port's own routes: metrics are not on it (no METRICS_TOKEN here), and
    // /healthz says up or down only.
    const metrics = await request(service.port, "/metrics");
    const health = await healthz(service.port);
    const healthBody = health.kind === "answer" ? health.body : health.detail;
    rows.push({
      attack: "public port: GET /metrics and /healthz without credentials",
      requests: 2,
      outcome: `/metrics ${metrics.kind === "answer" ? metrics.status : metrics.detail}, /healthz ${health.kind === "answer" ? health.status : ""} ${healthBody.trim()}`,
      measured:
        metrics.kind === "answer" && metrics.body.includes("eas_")
          ? "metrics text served"
          : "no metrics text",
      target: '/metrics 404 (METRICS_TOKEN unset), /healthz {"status":"ok"} only',
      pass:
        metrics.kind === "answer" &&
        metrics.status === 404 &&
        !metrics.body.includes("eas_") &&
        healthBody === '{"status":"ok"}\n',
    });
  } finally {
    await service.child.stop();
  }
}
