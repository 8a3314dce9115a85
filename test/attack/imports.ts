// `npm run fuzz -- --only imports`: the CSV bulk insert and the queued file import against the real
// service (its own process, SQLite, the workers running). A 100,000-row InsertCsvSubscribersWithDemDataUpdateOption
// while /healthz and another account's signed-in call are probed (the event loop and the database must
// stay free for others); a 64 MiB CSV (past the 100,000-row limit); and the import worker's fairness: one
// account's file drips a byte a second and another's never answers, while a third account's import must
// complete within a bound. Files are served from 127.0.0.1 by this process.

import http from "node:http";
import type { AddressInfo, Socket } from "node:net";
import path from "node:path";
import { Writable } from "node:stream";
import { runAdmin } from "../../service/admin/cli.js";
import {
  ENDPOINT_PATH,
  type HttpOutcome,
  type RealService,
  callHttpPost,
  describeProbes,
  healthz,
  probeDuring,
  request,
  startRealService,
} from "./real-service.js";
import { mb, ms, type Row } from "./report.js";

const VICTIM = { strUsername: "bulk", strPassword: "bulk-password-1" };
const OTHER = { strUsername: "other", strPassword: "other-password-1" };
const DRIPPER = { strUsername: "dripper", strPassword: "dripper-password-1" };
const SILENT = { strUsername: "silent", strPassword: "silent-password-1" };

/** Rows in the big CSV: the most one call takes. */
const CSV_ROWS = 100_000;
/**
 * The largest event-loop stall a row accepts during the CSV insert: 200 ms, or a tenth of the insert's own
 * time when the machine is so loaded that the insert takes longer than 2 s (this shared machine's timings
 * move 5x with its load). Before the fix the stall was the whole insert (about 90% of its time).
 */
const STALL_BOUND_MS = 200;
const STALL_SHARE = 0.1;
/** Account B's 10,000-row import must be done this soon after it is queued, whatever A and C's files do. */
const FAIR_IMPORT_BOUND_MS = 15_000;

function csvText(rows: number, tag: string): string {
  const lines: string[] = [];
  for (let i = 0; i < rows; i++)
    lines.push(`${tag}${i}@bulk.example.com,Name ${i},${i % 2 ? "Text" : "HTML"},SE,${i % 100}`);
  return `${lines.join("\n")}\n`;
}

const value = (body: string): string =>
  /<int[^>]*>(-?\d+)</.exec(body)?.[1] ??
  /<InsertCsvSubscribersWithDemDataUpdateOptionResult>(-?\d+)</.exec(body)?.[1] ??
  "";

/** The CSV bulk insert over SOAP 1.1, as a .NET client sends it (the form binding's %-decoding is the runtime's own row). */
function insertCsv(service: RealService, list: string, csv: string): Promise<HttpOutcome> {
  const op = "InsertCsvSubscribersWithDemDataUpdateOption";
  const body =
    `<?xml version="1.0" encoding="utf-8"?><soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/"><soap:Body>` +
    `<${op} xmlns="http://tempuri.org/"><strUsername>${VICTIM.strUsername}</strUsername><strPassword>${VICTIM.strPassword}</strPassword>` +
    `<strMailingListId>${list}</strMailingListId><strCsvData>${csv}</strCsvData><strUpdate>false</strUpdate></${op}></soap:Body></soap:Envelope>`;
  return request(service.port, ENDPOINT_PATH, {
    method: "POST",
    headers: { "content-type": "text/xml; charset=utf-8", soapaction: `"http://tempuri.org/${op}"` },
    body,
    timeoutMs: 120_000,
  });
}

/** The slowest of a probe that calls /healthz and then another account's signed-in read. */
function bothProbes(service: RealService, listId: string) {
  return async () => {
    const health = await healthz(service.port, 5_000);
    if (health.kind === "failed" || health.status !== 200) return health;
    const call = await callHttpPost(
      service.port,
      "GetSubscriberMailingLists",
      { ...OTHER, strSubscriberId: "", strEmail: `nobody-${listId}@example.com` },
      { timeoutMs: 5_000 },
    );
    // NotFound is this call's right answer: it signs in, reads and answers.
    if (call.kind === "failed" || call.headers["x-error-code"] !== "NotFound") return call;
    return { ...call, status: 200, ms: health.ms + call.ms };
  };
}

async function csvRows(rows: Row[]): Promise<void> {
  const service = await startRealService({
    accounts: [
      { ...username(VICTIM), lists: ["Bulk 1", "Bulk 2"] },
      { ...username(OTHER), lists: ["Other"] },
    ],
  });
  try {
    const [first, second] = service.info.accounts[0]!.lists.map(String);
    const otherList = String(service.info.accounts[1]!.lists[0]);
    for (const [tag, list, probe, what] of [
      ["a", first!, () => healthz(service.port, 5_000), "/healthz"],
      [
        "b",
        second!,
        bothProbes(service, otherList),
        "/healthz + another account's GetSubscriberMailingLists",
      ],
    ] as const) {
      const body = csvText(CSV_ROWS, tag);
      await service.child.stats(true);
      const started = performance.now();
      const insert = insertCsv(service, list, body);
      const { result, probes } = await probeDuring(insert, probe, { everyMs: 20 });
      const took = performance.now() - started;
      const stall = (await service.child.stats())?.maxStallMs ?? Number.POSITIVE_INFINITY;
      const stallBound = Math.max(STALL_BOUND_MS, STALL_SHARE * took);
      const answered =
        result.kind === "answer"
          ? `${result.status} ${value(result.body) || result.body.slice(0, 80)}`
          : result.detail;
      rows.push({
        attack: `CSV: ${CSV_ROWS.toLocaleString("en")}-row InsertCsvSubscribersWithDemDataUpdateOption (${mb(body.length / 1048576)}), probing ${what}`,
        requests: `1 + ${probes.count} probes`,
        outcome: `answered ${answered} in ${ms(took)}`,
        measured: `loop stall ${ms(stall)} (${Math.round((100 * stall) / took)}% of the insert); ${describeProbes(probes)}`,
        target: `${CSV_ROWS} inserted; probe <= 1 s; stall <= ${STALL_BOUND_MS} ms or ${STALL_SHARE * 100}% of the insert (${ms(stallBound)})`,
        pass:
          result.kind === "answer" &&
          value(result.body) === String(CSV_ROWS) &&
          probes.maxMs <= 1000 &&
          probes.failed === 0 &&
          stall <= stallBound,
        details: probes.examples,
      });
    }

    // Just under 64 MiB of short rows: refused at row 100,001 without reading the rest of the rows. The
    // body's own read (the runtime's XML reader) is measured first with a CSV of the same size that is
    // refused at its first line, so the row judges what the CSV rule adds to it.
    const line = "x@bulk.example.com,N,HTML\n";
    const rowsBody = line.repeat(Math.floor((64 * 1048576 - 4096) / line.length));
    const refuse = async (csv: string) => {
      await service.child.stats(true);
      const started = performance.now();
      const { result, probes } = await probeDuring(
        insertCsv(service, first!, csv),
        () => healthz(service.port, 5_000),
        { everyMs: 20 },
      );
      const stall = (await service.child.stats())?.maxStallMs ?? Number.POSITIVE_INFINITY;
      const code =
        result.kind === "answer"
          ? (result.headers["x-error-code"] ??
            /<Code>([^<]*)</.exec(result.body)?.[1] ??
            String(result.status))
          : result.detail;
      const reason = result.kind === "answer" ? (/<faultstring>([^<]*)</.exec(result.body)?.[1] ?? "") : "";
      return { code, reason, stall, probes, took: performance.now() - started };
    };
    const baseline = await refuse("x".repeat(rowsBody.length));
    const many = await refuse(rowsBody);
    const bound = baseline.stall + Math.max(STALL_BOUND_MS, baseline.stall / 2);
    rows.push({
      attack: `CSV: ${(rowsBody.length / line.length / 1e6).toFixed(1)} M rows in one call (${mb(rowsBody.length / 1048576)})`,
      requests: `2 + ${baseline.probes.count + many.probes.count} probes`,
      outcome: `${many.code} in ${ms(many.took)}: ${many.reason.slice(0, 90)}`,
      measured: `loop stall ${ms(many.stall)} (a CSV of the same size refused at line 1: ${ms(baseline.stall)}, the body's read); ${describeProbes(many.probes)}`,
      target: `InvalidCsv at line 100001; stall <= the body's read + max(${STALL_BOUND_MS} ms, half of it) (${ms(bound)})`,
      pass: many.code === "InvalidCsv" && many.reason.includes("line 100001") && many.stall <= bound,
      details: many.probes.examples,
    });
  } finally {
    await service.child.stop();
  }
}

function username(user: { strUsername: string; strPassword: string }) {
  return { username: user.strUsername, password: user.strPassword };
}

/** A file server on 127.0.0.1: /drip sends a byte a second, /silent never answers, /rows?n= serves n rows at once. */
async function fileServer(): Promise<{ base: string; hits: Map<string, number>; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  const timers = new Set<NodeJS.Timeout>();
  const hits = new Map<string, number>();
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://files");
    hits.set(url.pathname, (hits.get(url.pathname) ?? 0) + 1);
    if (url.pathname === "/silent") return; // accepts, never answers
    if (url.pathname.startsWith("/drip")) {
      res.writeHead(200, { "content-type": "text/plain" });
      const text = csvText(100, "drip").replaceAll(",", ";");
      let at = 0;
      const timer = setInterval(() => {
        if (res.destroyed || at >= text.length) {
          clearInterval(timer);
          timers.delete(timer);
          res.end();
          return;
        }
        res.write(text[at++]!);
      }, 1000);
      timers.add(timer);
      return;
    }
    const n = Number(url.searchParams.get("n") ?? "0");
    res.writeHead(200, { "content-type": "text/plain", etag: `"rows-${n}"` });
    res.end(csvText(n, "fair").replaceAll(",", ";"));
  });
  server.on("connection", (socket: Socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    hits,
    async close() {
      for (const timer of timers) clearInterval(timer);
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** The import's state as the operator sees it (`import show --json`; no operation reads an import). */
async function importState(service: RealService, account: string, id: string): Promise<string> {
  let out = "";
  let err = "";
  const sink = (write: (t: string) => void) =>
    new Writable({ write: (chunk: Buffer, _e, done) => (write(chunk.toString("utf8")), done()) });
  const databaseUrl = `sqlite:${path.join(service.info.dataDir, "service.db")}`;
  const code = await runAdmin(["import", "show", "--account", account, "--id", id, "--json"], {
    stdin: process.stdin,
    stdout: sink((t) => (out += t)),
    stderr: sink((t) => (err += t)),
    env: { DATABASE_URL: databaseUrl },
  });
  if (code !== 0) throw new Error(`import show: ${err}`);
  return (JSON.parse(out) as { state: string }).state;
}

async function fairnessRow(rows: Row[]): Promise<void> {
  const files = await fileServer();
  const service = await startRealService({
    env: { IMPORT_ALLOW_HOSTS: "127.0.0.1" },
    accounts: [
      { ...username(DRIPPER), lists: ["Drip"] },
      { ...username(SILENT), lists: ["Silent"] },
      { ...username(OTHER), lists: ["Fair"] },
    ],
  });
  try {
    const queue = async (user: typeof OTHER, account: number, path: string): Promise<string> => {
      const answer = await callHttpPost(service.port, "InsertCSVSubscribersWithDemDataFromFileToQueue", {
        ...user,
        strMailingListID: String(service.info.accounts[account]!.lists[0]),
        strCSVUrl: `${files.base}${path}`,
      });
      if (answer.kind !== "answer" || answer.status !== 200)
        throw new Error(
          `queueing ${path}: ${answer.kind === "answer" ? answer.body.slice(0, 200) : answer.detail}`,
        );
      return value(answer.body);
    };
    // The dripping and silent files first (and a second dripping file of the same account), then the fair one.
    await queue(DRIPPER, 0, "/drip1");
    await queue(DRIPPER, 0, "/drip2");
    await queue(SILENT, 1, "/silent");
    const n = 10_000;
    const started = performance.now();
    const id = await queue(OTHER, 2, `/rows?n=${n}`);
    const done = (async () => {
      for (;;) {
        const state = await importState(service, OTHER.strUsername, id);
        if (state === "done" || state === "failed") return state;
        if (performance.now() - started > FAIR_IMPORT_BOUND_MS * 4) return `still ${state}`;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    })();
    const { result, probes } = await probeDuring(done, () => healthz(service.port, 5_000));
    const took = performance.now() - started;
    rows.push({
      attack:
        "imports: one account's file drips a byte a second (2 queued), another's never answers; a third account queues 10,000 rows",
      requests: `4 imports + ${probes.count} probes`,
      outcome: `the third account's import ${result} in ${ms(took)}; the dripping account's files fetched: first ${files.hits.get("/drip1") ?? 0}x, second ${files.hits.get("/drip2") ?? 0}x`,
      measured: describeProbes(probes),
      target: `done within ${FAIR_IMPORT_BOUND_MS / 1000} s; the dripping account's second file not started; probe <= 1 s`,
      pass:
        result === "done" &&
        took <= FAIR_IMPORT_BOUND_MS &&
        files.hits.get("/drip2") === undefined &&
        probes.maxMs <= 1000 &&
        probes.failed === 0,
      details: probes.examples,
    });
  } finally {
    await service.child.stop();
    await files.close();
  }
}

export async function importsSection(rows: Row[]): Promise<void> {
  await csvRows(rows);
  await fairnessRow(rows);
}
