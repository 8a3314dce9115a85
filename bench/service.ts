// `npm run bench:service [-- --duration 5 --warmup 2 --connections 32 --rounds 3 --tool wrk|autocannon
//                           --only sqlite,sqlite-normal,postgres,sms,transaction,pg-sms,pg-transaction,csv,import,
//                                  sending,pg-sending,smtp-sending,pg-scale --import-rows 1000000
//                           --csv-rows 50000 --csv-calls 3 --import-timeout 900 --sending-recipients 10000
//                           --large-sending-recipients 1000000
//                           --service-node-args="--cpu-prof --cpu-prof-dir=/tmp/prof"]`
// (also the last section of `npm run bench`, id `service` for its --only).
//
// The service itself (issue 9's Performance targets), each part in its own child processes on 127.0.0.1:
//
//  sqlite    InsertSubscriberSid (SOAP 1.1) through the whole service on SQLite with SQLITE_SYNC=FULL (each
//            answer follows a durable commit), a NEW address every call, against the raw node:http floor
//            of bench/servers.ts driven by the same load script in the same run. Target >= 0.3x the floor.
//  sqlite-normal  (only when named in --only) the same with SQLITE_SYNC=NORMAL: no fsync per commit, to
//            tell the commit's disk wait from the rest.
//  postgres  the same on PostgreSQL, when a PostgreSQL install is found: a throwaway cluster
//            (test/service/support/postgres.ts) with PostgreSQL's durable defaults (fsync, full_page_writes,
//            synchronous_commit on: each commit waits for its WAL flush), as SQLite FULL. Reported, no target.
//  sms       SendSmsWithSenderName (SOAP 1.1) through the whole service on SQLite with SQLITE_SYNC=FULL, the
//            account holding credits for every call of the run (SMS_BENCH_CREDITS), so each call is paid at
//            once (credits locked and debited, a ledger row, the SMS queued; the same recipient, a new text
//            each call) and the SMS worker writes it to the SMS folder. Reported against the floor, no target.
//  transaction  InsertTransaction (SOAP 1.1) the same way, into a project the launcher made, with no
//            strIdentifier (so every call queues a mail; the outbox worker writes it as .eml), a new
//            recipient address each call. Reported against the floor, no target.
//  pg-sms, pg-transaction  the same two on PostgreSQL (the durable cluster above).
//  csv       InsertCsvSubscribersWithDemDataUpdateOption with --csv-rows rows (Email,Name,Format,dd1,dd2),
//            one HTTP call each: median wall time of 3 calls, each into a fresh list with new addresses
//            (target <= 1.5 s for 50,000 rows), then 3 calls with strUpdate=true over those addresses with
//            changed values.
//  import    the queued file import of --import-rows generated lines (`email;name;HTML;dd1`) served by a
//            file server child that makes them on the fly; enqueued through
//            InsertCSVSubscribersWithDemDataFromFileToQueue, the imports row polled until done (bounded
//            by --import-timeout s): rows/s and the service process's peak RSS (target < 300 MB).
//  sending   issue 10's sending throughput: a template with two links and a holder, a module in it, a newsletter
//            with tracking `all` and a list of --sending-recipients active subscribers (written in bulk in the
//            store), then one SendNewsletter (SOAP 1.1); the database is polled (bounded, 10 minutes) until
//            every recipient is `sent` and every mail of the sending `sent` (written as .eml to the outbox
//            folder). Messages/s = recipients / (call -> newest .eml's mtime), the service's peak RSS, and
//            checked: .eml files = recipients = distinct addresses, one mail each. Targets (issue 28):
//            >= 5,000 messages/s, peak RSS < 300 MB.
//  pg-sending  the same on PostgreSQL (the durable cluster above). Target >= 3,000 messages/s, < 300 MB.
//  sending-1m  (only when named in --only) the sending row with --large-sending-recipients (default
//            1,000,000) on SQLite to .eml: it must complete with the service's peak RSS < 300 MB (nothing in
//            the workers holds per-recipient state for the whole sending), its rate reported.
//  smtp-sending  the same sending on SQLite delivered through SMTP (SMTP_URL) instead of the folder: pooled
//            connections (SMTP_BENCH_ENV) into an SMTP sink child on 127.0.0.1 that answers 250 to every
//            message and counts them (and their recipients, to find one delivered twice). Messages/s =
//            recipients / (call -> the sink's last 250); checked: the sink got one message per recipient and
//            every mail is `sent`. Target (issue 28): >= 1,000 messages/s.
//  pg-scale  1, 2 and 4 service processes on one PostgreSQL database: inserts and a sending, with where the
//            CPU went and PostgreSQL's commits per WAL sync (bench/scale-out.ts). Reported, no target.
//
// Load rows follow bench/run.ts: one checked request, a warm-up, a fixed duration, --rounds rounds with
// every row in turn (medians shown); wrk when installed (a Lua script makes each body), else autocannon's
// programmatic API in its own process (setupRequest makes each body). Each service run starts a fresh
// database in a temporary directory; peak RSS is VmHWM of the service process. After each service load row
// the database is counted: one subscriber / SMS / transaction for every 2xx answer (at least; a request
// cut off at the end of the run may have been stored without its answer being counted), and no SMS waiting. Every child process is
// killed on exit, on error and on Ctrl-C, the cluster stopped and the temporary directories deleted;
// every wait is bounded.

import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { writeFileSync } from "node:fs";
import { availableParallelism, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import pg from "pg";
import {
  findPostgresBin,
  startThrowawayCluster,
  type ThrowawayCluster,
} from "../test/service/support/postgres.js";
import { LOAD_FLAGS, loadSettings, positive } from "./flags.js";
import {
  cleanup,
  cleanupOnSignals,
  collect,
  cpuSeconds,
  hasWrk,
  luaString,
  onCleanup,
  peakRss,
  removeDir,
  resultsFile,
  runWrk,
  serversCommand,
  stopChild,
  tempDir,
  track,
  withTimeout,
} from "./process.js";
import type {
  AutocannonArgs,
  SendingProgress,
  SendingState,
  ServiceReady,
  ServiceRequest,
  SinkStats,
} from "./service-children.js";
import { median, table, type LoadResult } from "./summary.js";
import { FLOOR_RESPONSE, NS, SOAP11_NS } from "./wire.js";
import { bundleEntry } from "../service/start.mjs";
import { runScaleOut } from "./scale-out.js";

export type Part =
  | "sqlite"
  | "sqlite-normal"
  | "postgres"
  | "sms"
  | "transaction"
  | "pg-sms"
  | "pg-transaction"
  | "csv"
  | "import"
  | "sending"
  | "pg-sending"
  | "smtp-sending"
  | "sending-1m"
  | "pg-scale";
export const PARTS: readonly Part[] = [
  "sqlite",
  "sqlite-normal",
  "postgres",
  "sms",
  "transaction",
  "pg-sms",
  "pg-transaction",
  "csv",
  "import",
  "sending",
  "pg-sending",
  "smtp-sending",
  "sending-1m",
  "pg-scale",
];
/**
 * What runs without --only: sqlite-normal (SQLITE_SYNC=NORMAL, a diagnosis row) and sending-1m (a million
 * recipients, half an hour or more on this machine) only when asked for.
 */
export const DEFAULT_PARTS: readonly Part[] = [
  "sqlite",
  "postgres",
  "sms",
  "transaction",
  "pg-sms",
  "pg-transaction",
  "csv",
  "import",
  "sending",
  "pg-sending",
  "smtp-sending",
  "pg-scale",
];

/** The parts that run on PostgreSQL (skipped, with a note, when no PostgreSQL install is found). */
const POSTGRES_PARTS: readonly Part[] = ["postgres", "pg-sms", "pg-transaction", "pg-sending", "pg-scale"];

export interface ServiceBenchOptions {
  readonly duration: number;
  readonly warmup: number;
  readonly connections: number;
  readonly rounds: number;
  readonly threads: number;
  /** Load tool; default wrk when on the PATH, else autocannon. */
  readonly tool?: "wrk" | "autocannon" | undefined;
  readonly parts: readonly Part[];
  readonly csvRows: number;
  readonly csvCalls: number;
  readonly importRows: number;
  /** Longest wait for the queued import, in seconds. */
  readonly importTimeout: number;
  /** Active subscribers of the sending part's list (default 10,000). */
  readonly sendingRecipients?: number | undefined;
  /** Active subscribers of the sending-1m part's list (default 1,000,000). */
  readonly largeSendingRecipients?: number | undefined;
  /** Extra node flags for the service processes (a profiler). */
  readonly serviceNodeArgs: readonly string[];
  /** Progress lines (stderr by default). */
  readonly progress?: (line: string) => void;
}

export interface ServiceBenchResult {
  /** The table and its notes, as printed. */
  readonly text: string;
  readonly pass: boolean;
  /** Everything measured, for bench/results/service-*.json. */
  readonly json: Record<string, unknown>;
  readonly jsonFile: string;
}

export const SERVICE_TARGETS = {
  floorRatio: 0.3,
  csvSeconds: 1.5,
  importRssBytes: 300e6,
  /** Issue 28: a 10,000-recipient tracked sending to the .eml outbox, messages/s on SQLite / PostgreSQL. */
  sendingRate: 5_000,
  pgSendingRate: 3_000,
  sendingRssBytes: 300e6,
  /** The same sending through SMTP, pooled connections, into a sink on loopback (SQLite). */
  smtpSendingRate: 1_000,
  /** A sending to 1,000,000 recipients completes (to .eml, SQLite) with bounded memory; its rate reported. */
  largeSendingRssBytes: 300e6,
} as const;

/** What a PostgreSQL server says of its durability settings (SHOW), for the bench's note. */
async function clusterSettings(url: string): Promise<{ text: string } & Record<string, string>> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const values: Record<string, string> = {};
    for (const name of [
      "server_version",
      "fsync",
      "synchronous_commit",
      "full_page_writes",
      "wal_sync_method",
    ]) {
      const { rows } = await client.query<Record<string, string>>(`SHOW ${name}`);
      values[name] = String(rows[0]?.[name]);
    }
    const text = Object.entries(values)
      .map(([name, value]) => `${name}=${value}`)
      .join(", ");
    return { ...values, text };
  } finally {
    await client.end();
  }
}

// ---- child processes -------------------------------------------------------------------------------

let cluster: ThrowawayCluster | undefined;

onCleanup(() => {
  if (cluster !== undefined) {
    try {
      cluster.stopSync();
    } catch {
      // best effort on the way out
    }
    cluster = undefined;
  }
});

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

const childrenSource = fileURLToPath(new URL("./service-children.ts", import.meta.url));

/**
 * The service child as `npm start` runs the service: bundled by service/start.mjs's bundleEntry into plain
 * JavaScript (no TypeScript loader in the process). The other children run under tsx.
 */
let serviceChildFile: Promise<string> | undefined;
const serviceChild = (): Promise<string> =>
  (serviceChildFile ??= bundleEntry("bench/service-children.ts", "bench-service-children"));

/** The floor server exactly as bench/run.ts starts it: bench/servers.ts bundled with tsx's esbuild. */
async function floorCommand(): Promise<string[]> {
  return [...(await serversCommand("bench-service")).args, "floor"];
}

/** How long a child asked to exit (IPC disconnect) gets before it is killed. */
const STOP_WAIT_MS = 10_000;

interface Child {
  readonly child: ChildProcess;
  readonly pid: number;
}

/** Starts a child with an IPC channel and waits (bounded) for its first message. */
async function startChild<M>(
  args: readonly string[],
  env: NodeJS.ProcessEnv,
  what: string,
  accept: (m: unknown) => M | undefined,
): Promise<Child & { first: M }> {
  const child = track(
    spawn(process.execPath, [...args], { stdio: ["ignore", "inherit", "inherit", "ipc"], env }),
  );
  const first = await withTimeout(
    new Promise<M>((resolve, reject) => {
      const onMessage = (m: unknown) => {
        const ok = accept(m);
        if (ok === undefined)
          return reject(new Error(`${what}: unexpected first message ${JSON.stringify(m)}`));
        child.off("message", onMessage);
        resolve(ok);
      };
      child.on("message", onMessage);
      child.once("exit", (code, signal) =>
        reject(new Error(`${what} exited with ${code ?? signal} before it was ready`)),
      );
      child.once("error", reject);
    }),
    90_000,
    `starting ${what}`,
  ).catch((error: unknown) => {
    if (child.exitCode === null) child.kill("SIGKILL");
    throw error;
  });
  return { child, pid: child.pid as number, first };
}

export interface ServiceChild extends Child {
  readonly ready: ServiceReady;
  readonly dir: string;
  /** Sends a command and waits for its answer (30 s, or `timeoutMs`). */
  ask<T>(command: ServiceRequest, timeoutMs?: number): Promise<T>;
}

let commandIds = 0;

export async function startService(
  name: string,
  databaseUrl: string | undefined,
  options: ServiceBenchOptions,
  env: Record<string, string> = {},
): Promise<ServiceChild> {
  const dir = tempDir(`eas-bench-${name}-`);
  const started = await startChild<ServiceReady>(
    [...options.serviceNodeArgs, await serviceChild(), "service"],
    {
      ...process.env,
      DATABASE_URL: databaseUrl ?? `sqlite:${join(dir, "service.db")}`,
      SQLITE_SYNC: "FULL",
      LOG_LEVEL: "warn",
      OUTBOX_DIR: join(dir, "outbox"),
      SMS_OUTBOX_DIR: join(dir, "sms"),
      PUBLIC_URL: "http://127.0.0.1:1",
      ...env,
    },
    `the ${name} service`,
    (m) => ((m as ServiceReady).ready === true ? (m as ServiceReady) : undefined),
  );
  const { child } = started;
  return {
    ...started,
    ready: started.first,
    dir,
    ask<T>(command: ServiceRequest, timeoutMs = 30_000): Promise<T> {
      const id = ++commandIds;
      return withTimeout(
        new Promise<T>((resolve, reject) => {
          const onMessage = (m: { id?: number; error?: string }) => {
            if (m.id !== id) return;
            child.off("message", onMessage);
            if (m.error !== undefined) reject(new Error(m.error));
            else resolve(m as T);
          };
          child.on("message", onMessage);
          child.send({ ...command, id });
        }),
        timeoutMs,
        `the service's answer to ${command.cmd}`,
      );
    },
  };
}

export async function stopService(service: ServiceChild): Promise<void> {
  await stopChild(service, STOP_WAIT_MS);
  removeDir(service.dir);
}

// ---- requests ------------------------------------------------------------------------------------------

export const ENDPOINT = "/ExternalAPIService.asmx";

function soap11(inner: string): string {
  return (
    `<?xml version="1.0" encoding="utf-8"?><soap:Envelope xmlns:soap="${SOAP11_NS}" ` +
    `xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns:xsd="http://www.w3.org/2001/XMLSchema"><soap:Body>` +
    `${inner}</soap:Body></soap:Envelope>`
  );
}

function xmlText(text: string): string {
  return text.replaceAll("&", "&amp;").replaceAll("<", "&lt;").replaceAll(">", "&gt;");
}

function soapHeaders(operation: string): Record<string, string> {
  return { "content-type": "text/xml; charset=utf-8", soapaction: `"${NS}${operation}"` };
}

/** A request body split around its unique part: prefix + unique + suffix. */
export interface InsertTemplate {
  readonly prefix: string;
  readonly suffix: string;
}

/** A SendSmsWithSenderName body, the unique part in the (one-segment GSM-7) text; the same recipient each call. */
function smsTemplate(username: string, password: string): InsertTemplate {
  const [prefix, suffix] = soap11(
    `<SendSmsWithSenderName xmlns="${NS}"><strUsername>${xmlText(username)}</strUsername><strPassword>${xmlText(password)}</strPassword>` +
      `<senderName>Bench</senderName><strCountryCode>46</strCountryCode><strPhoneNumber>701234567</strPhoneNumber>` +
      `<strMessage>Your bench code is \u0000. Thank you!</strMessage></SendSmsWithSenderName>`,
  ).split("\u0000");
  return { prefix: prefix!, suffix: suffix! };
}

/** An InsertTransaction body without strIdentifier (every call queues a mail), the unique part in the address. */
function transactionTemplate(username: string, password: string, projectId: number): InsertTemplate {
  const [prefix, suffix] = soap11(
    `<InsertTransaction xmlns="${NS}"><strUsername>${xmlText(username)}</strUsername><strPassword>${xmlText(password)}</strPassword>` +
      `<strId>${projectId}</strId><strEmail>t\u0000@bench.example.com</strEmail><strName>Bench Name</strName><strFormat>HTML</strFormat>` +
      `<strDataFields>DD1</strDataFields><strDataValues>A-1234</strDataValues></InsertTransaction>`,
  ).split("\u0000");
  return { prefix: prefix!, suffix: suffix! };
}

export function insertTemplate(username: string, password: string, listId: number): InsertTemplate {
  const [prefix, suffix] = soap11(
    `<InsertSubscriberSid xmlns="${NS}"><strUsername>${xmlText(username)}</strUsername><strPassword>${xmlText(password)}</strPassword>` +
      `<strEmail>b\u0000@bench.example.com</strEmail><strName>N</strName><strFormat>HTML</strFormat><strCountryCode>46</strCountryCode>` +
      `<strPhoneNumber>123</strPhoneNumber><strMailingListID>${listId}</strMailingListID></InsertSubscriberSid>`,
  ).split("\u0000");
  return { prefix: prefix!, suffix: suffix! };
}

export async function post(
  url: string,
  operation: string,
  body: string,
  timeoutMs: number,
): Promise<{ status: number; text: string; ms: number }> {
  const started = performance.now();
  const response = await fetch(url, {
    method: "POST",
    headers: soapHeaders(operation),
    body,
    signal: AbortSignal.timeout(timeoutMs),
  });
  const text = await response.text();
  return { status: response.status, text, ms: performance.now() - started };
}

/** The integer result of a SOAP answer, or a thrown error with the answer's start. */
export function intResult(answer: { status: number; text: string }, operation: string): number {
  const m = new RegExp(`<${operation}Result>(-?\\d+)</${operation}Result>`).exec(answer.text);
  if (answer.status !== 200 || m === null)
    throw new Error(
      `${operation}: expected 200 with a result, got ${answer.status}:\n${answer.text.slice(0, 600)}`,
    );
  return Number(m[1]);
}

// ---- load ------------------------------------------------------------------------------------------------

export interface LoadSpec {
  readonly url: string;
  /** The SOAP operation (its SOAPAction header). */
  readonly operation: string;
  readonly template: InsertTemplate;
  /** Makes this run's addresses differ from every other run's on the same database. */
  readonly tag: string;
  readonly seconds: number;
}

/** wrk with a script that makes every body: prefix + tag + "t" + thread + "n" + counter + suffix. */
function runWrkSpec(spec: LoadSpec, options: ServiceBenchOptions, dir: string): Promise<LoadResult> {
  const lines = ['wrk.method = "POST"'];
  for (const [name, value] of Object.entries(soapHeaders(spec.operation)))
    lines.push(`wrk.headers[${luaString(name)}] = ${luaString(value)}`);
  lines.push(
    `local prefix = ${luaString(`${spec.template.prefix + spec.tag}t`)}`,
    `local suffix = ${luaString(spec.template.suffix)}`,
    "local n = 0",
    "local threads = 0",
    "function setup(thread)",
    '  thread:set("tid", threads)',
    "  threads = threads + 1",
    "end",
    "function request()",
    "  n = n + 1",
    '  return wrk.format(nil, nil, nil, prefix .. (tid or 0) .. "n" .. n .. suffix)',
    "end",
  );
  return runWrk(join(dir, `load-${spec.tag}.lua`), lines, {
    url: spec.url,
    seconds: spec.seconds,
    threads: options.threads,
    connections: options.connections,
  });
}

async function runAutocannon(spec: LoadSpec, options: ServiceBenchOptions): Promise<LoadResult> {
  const args: AutocannonArgs = {
    url: spec.url,
    connections: options.connections,
    seconds: spec.seconds,
    headers: soapHeaders(spec.operation),
    prefix: spec.template.prefix,
    tag: spec.tag,
    suffix: spec.template.suffix,
  };
  const out = await collect(
    track(
      spawn(process.execPath, ["--import", "tsx", childrenSource, "autocannon", JSON.stringify(args)], {
        stdio: ["ignore", "pipe", "pipe"],
      }),
    ),
    "autocannon",
    (spec.seconds + 60) * 1000,
  );
  const line = out.split("\n").find((l) => l.startsWith("ACJSON "));
  if (!line) throw new Error(`autocannon printed no summary:\n${out}`);
  return JSON.parse(line.slice(7)) as LoadResult;
}

function toolOf(options: ServiceBenchOptions): "wrk" | "autocannon" {
  return options.tool ?? (hasWrk() ? "wrk" : "autocannon");
}

export function load(spec: LoadSpec, options: ServiceBenchOptions, dir: string): Promise<LoadResult> {
  return toolOf(options) === "wrk" ? runWrkSpec(spec, options, dir) : runAutocannon(spec, options);
}

// ---- load rows -------------------------------------------------------------------------------------------

type ServiceRowId =
  | "sqlite"
  | "sqlite-normal"
  | "postgres"
  | "sms"
  | "transaction"
  | "pg-sms"
  | "pg-transaction";
type LoadRowId = "floor" | ServiceRowId;

/** What a load row's calls write, counted in the database after the run. */
interface Written {
  /** Rows in the database after the run (subscribers, SMS or transactions). */
  readonly stored: number;
  /** 2xx answers (the checked call, the warm-up and the measured phase). */
  readonly answered: number;
  readonly noun: "subscribers" | "SMS" | "transactions";
  /** SMS left waiting for credits (should be none: the account holds enough for the run). */
  readonly waiting?: number;
}

interface Measured {
  readonly result: LoadResult;
  readonly rssBytes: number;
  readonly cpuUs: number;
  readonly written?: Written;
}

interface Counts {
  subscribers: number;
  sms: number;
  smsWaiting: number;
  transactions: number;
}

/** A service row's operation, body and how its checked first call is judged. */
interface RowRequest {
  readonly operation: string;
  readonly template: InsertTemplate;
  /** Throws unless the answer is the operation's success. */
  check(answer: { status: number; text: string }): void;
  written(counts: Counts, answered: number): Written;
}

function rowRequest(row: ServiceRowId, ready: ServiceReady): RowRequest {
  const { username, password } = ready;
  if (row === "sms" || row === "pg-sms") {
    return {
      operation: "SendSmsWithSenderName",
      template: smsTemplate(username, password),
      check(answer) {
        // Paid at once: a one-segment text costs the default price, 1.
        if (
          answer.status !== 200 ||
          !/<SendSmsWithSenderNameResult><Id>\d+<\/Id><CreditCost>1<\/CreditCost><TotalCredits>\d+<\/TotalCredits>/.test(
            answer.text,
          )
        ) {
          throw new Error(
            `SendSmsWithSenderName: expected 200 with a paid result, got ${answer.status}:\n${answer.text.slice(0, 600)}`,
          );
        }
      },
      written: (counts, answered) => ({
        stored: counts.sms,
        answered,
        noun: "SMS",
        waiting: counts.smsWaiting,
      }),
    };
  }
  if (row === "transaction" || row === "pg-transaction") {
    return {
      operation: "InsertTransaction",
      template: transactionTemplate(username, password, ready.projectId),
      check: (answer) => void intResult(answer, "InsertTransaction"),
      written: (counts, answered) => ({ stored: counts.transactions, answered, noun: "transactions" }),
    };
  }
  return {
    operation: "InsertSubscriberSid",
    template: insertTemplate(username, password, ready.listId),
    check: (answer) => void intResult(answer, "InsertSubscriberSid"),
    written: (counts, answered) => ({ stored: counts.subscribers, answered, noun: "subscribers" }),
  };
}

async function measureFloor(
  options: ServiceBenchOptions,
  command: string[],
  round: number,
  dir: string,
): Promise<Measured> {
  const floor = await startChild<number>(
    command,
    process.env,
    "the floor server",
    (m) => (m as { port?: number }).port,
  );
  try {
    const url = `http://127.0.0.1:${floor.first}${ENDPOINT}`;
    const template = insertTemplate("bench", "x".repeat(16), 1);
    const operation = "InsertSubscriberSid";
    const answer = await post(url, operation, `${template.prefix}preflight${template.suffix}`, 10_000);
    if (answer.status !== 200 || answer.text !== FLOOR_RESPONSE)
      throw new Error(`floor: unexpected answer ${answer.status}`);
    if (options.warmup > 0)
      await load({ url, operation, template, tag: `w${round}`, seconds: options.warmup }, options, dir);
    const cpuBefore = cpuSeconds(floor.pid);
    const result = await load(
      { url, operation, template, tag: `m${round}`, seconds: options.duration },
      options,
      dir,
    );
    const cpuUs = ((cpuSeconds(floor.pid) - cpuBefore) * 1e6) / Math.max(1, result.requests);
    return { result, rssBytes: peakRss(floor.pid), cpuUs };
  } finally {
    await stopChild(floor, STOP_WAIT_MS);
  }
}

async function measureService(
  options: ServiceBenchOptions,
  row: ServiceRowId,
  round: number,
  dir: string,
): Promise<Measured> {
  const databaseUrl = POSTGRES_PARTS.includes(row)
    ? await cluster!.createDatabase(`bench_${row.replace("-", "_")}_r${round}_${process.pid}`)
    : undefined;
  const service = await startService(
    row,
    databaseUrl,
    options,
    row === "sqlite-normal" ? { SQLITE_SYNC: "NORMAL" } : {},
  );
  try {
    const url = `http://127.0.0.1:${service.ready.port}${ENDPOINT}`;
    const request = rowRequest(row, service.ready);
    const { operation, template } = request;
    // One checked call first (it also puts the credentials in the service's verified-credentials cache).
    request.check(await post(url, operation, `${template.prefix}preflight${template.suffix}`, 30_000));
    let answered = 1;
    if (options.warmup > 0) {
      const warm = await load(
        { url, operation, template, tag: `w${round}`, seconds: options.warmup },
        options,
        dir,
      );
      answered += warm.requests - warm.failures;
    }
    const cpuBefore = cpuSeconds(service.pid);
    const result = await load(
      { url, operation, template, tag: `m${round}`, seconds: options.duration },
      options,
      dir,
    );
    const cpuUs = ((cpuSeconds(service.pid) - cpuBefore) * 1e6) / Math.max(1, result.requests);
    const rssBytes = peakRss(service.pid);
    answered += result.requests - result.failures;
    const counts = await service.ask<Counts>({ cmd: "count" });
    return { result, rssBytes, cpuUs, written: request.written(counts, answered) };
  } finally {
    await stopService(service);
  }
}

interface LoadSummary {
  readonly id: LoadRowId;
  readonly rps: number;
  readonly minRps: number;
  readonly maxRps: number;
  readonly p50ms: number;
  readonly p99ms: number;
  readonly rssBytes: number;
  readonly cpuUs: number;
  readonly failures: number;
  readonly requests: number;
  readonly written?: Written | undefined;
}

function summarize(id: LoadRowId, runs: readonly Measured[]): LoadSummary {
  const rps = runs.map((r) => r.result.rps);
  const written: Written | undefined = runs.every((r) => r.written !== undefined)
    ? {
        stored: runs.reduce((n, r) => n + r.written!.stored, 0),
        answered: runs.reduce((n, r) => n + r.written!.answered, 0),
        noun: runs[0]!.written!.noun,
        ...(runs[0]!.written!.waiting === undefined
          ? {}
          : { waiting: runs.reduce((n, r) => n + (r.written!.waiting ?? 0), 0) }),
      }
    : undefined;
  return {
    id,
    rps: median(rps),
    minRps: Math.min(...rps),
    maxRps: Math.max(...rps),
    p50ms: median(runs.map((r) => r.result.p50ms)),
    p99ms: median(runs.map((r) => r.result.p99ms)),
    rssBytes: Math.max(...runs.map((r) => r.rssBytes)),
    cpuUs: median(runs.map((r) => r.cpuUs)),
    failures: runs.reduce((n, r) => n + r.result.failures, 0),
    requests: runs.reduce((n, r) => n + r.result.requests, 0),
    written,
  };
}

// ---- CSV and import --------------------------------------------------------------------------------------

interface CsvSummary {
  readonly rows: number;
  readonly insertMs: number[];
  readonly updateMs: number[];
  readonly rssBytes: number;
}

/** `c<tag>n<i>@bench.example.com,Name <i>,HTML,<dd1>,<dd2>`; the update pass changes name, format and both fields. */
function csvText(rows: number, tag: string, update: boolean): string {
  let text = "";
  for (let i = 1; i <= rows; i++) {
    text += update
      ? `c${tag}n${i}@bench.example.com,Name ${i} v2,Text,NO,${(i + 1) % 100}\n`
      : `c${tag}n${i}@bench.example.com,Name ${i},HTML,SE,${i % 100}\n`;
  }
  return text;
}

function csvBody(username: string, password: string, listId: number, csv: string, update: boolean): string {
  return soap11(
    `<InsertCsvSubscribersWithDemDataUpdateOption xmlns="${NS}"><strUsername>${xmlText(username)}</strUsername>` +
      `<strPassword>${xmlText(password)}</strPassword><strMailingListId>${listId}</strMailingListId>` +
      `<strCsvData>${xmlText(csv)}</strCsvData><strUpdate>${update}</strUpdate></InsertCsvSubscribersWithDemDataUpdateOption>`,
  );
}

async function measureCsv(
  options: ServiceBenchOptions,
  progress: (line: string) => void,
): Promise<CsvSummary> {
  const service = await startService("csv", undefined, options);
  try {
    const { port, username, password } = service.ready;
    const url = `http://127.0.0.1:${port}${ENDPOINT}`;
    const op = "InsertCsvSubscribersWithDemDataUpdateOption";
    const lists: number[] = [];
    const insertMs: number[] = [];
    for (let call = 1; call <= options.csvCalls; call++) {
      const { listId } = await service.ask<{ listId: number }>({ cmd: "list" });
      lists.push(listId);
      const body = csvBody(username, password, listId, csvText(options.csvRows, String(call), false), false);
      const answer = await post(url, op, body, 120_000);
      const count = intResult(answer, op);
      if (count !== options.csvRows)
        throw new Error(`${op} answered ${count} for ${options.csvRows} new rows`);
      insertMs.push(answer.ms);
      progress(
        `    insert ${call}/${options.csvCalls}: ${answer.ms.toFixed(0)} ms (${(Buffer.byteLength(body) / 1048576).toFixed(1)} MiB body)`,
      );
    }
    const updateMs: number[] = [];
    for (let call = 1; call <= options.csvCalls; call++) {
      const body = csvBody(
        username,
        password,
        lists[call - 1]!,
        csvText(options.csvRows, String(call), true),
        true,
      );
      const answer = await post(url, op, body, 120_000);
      const count = intResult(answer, op);
      if (count !== options.csvRows)
        throw new Error(`${op} with strUpdate=true answered ${count} for ${options.csvRows} changed rows`);
      updateMs.push(answer.ms);
      progress(`    update ${call}/${options.csvCalls}: ${answer.ms.toFixed(0)} ms`);
    }
    return { rows: options.csvRows, insertMs, updateMs, rssBytes: peakRss(service.pid) };
  } finally {
    await stopService(service);
  }
}

interface ImportRow {
  state: string;
  rows_imported: number;
  rows_bad: number;
  rows_skipped: number;
  lines_done: number;
  error: string | null;
  created_at: number;
  finished_at: number | null;
}

interface ImportSummary {
  readonly rows: number;
  readonly state: string;
  readonly rowsImported: number;
  readonly rowsBad: number;
  /** From the enqueue call's start to the poll that saw the import finished. */
  readonly wallMs: number;
  /** created_at to finished_at of the imports row. */
  readonly importMs: number | undefined;
  readonly rssBytes: number;
  readonly cpuSeconds: number;
  readonly error?: string | null;
}

async function measureImport(
  options: ServiceBenchOptions,
  progress: (line: string) => void,
): Promise<ImportSummary> {
  const files = await startChild<number>(
    ["--import", "tsx", childrenSource, "files"],
    process.env,
    "the file server",
    (m) => (m as { port?: number }).port,
  );
  try {
    const service = await startService("import", undefined, options, { IMPORT_ALLOW_HOSTS: "127.0.0.1" });
    try {
      const { port, username, password, listId } = service.ready;
      const url = `http://127.0.0.1:${port}${ENDPOINT}`;
      const fileUrl = `http://127.0.0.1:${files.first}/rows?n=${options.importRows}&tag=i`;
      const op = "InsertCSVSubscribersWithDemDataFromFileToQueue";
      const cpuBefore = cpuSeconds(service.pid);
      const started = performance.now();
      const body = soap11(
        `<${op} xmlns="${NS}"><strUsername>${xmlText(username)}</strUsername><strPassword>${xmlText(password)}</strPassword>` +
          `<strCSVUrl>${xmlText(fileUrl)}</strCSVUrl><strMailingListID>${listId}</strMailingListID></${op}>`,
      );
      const importId = intResult(await post(url, op, body, 30_000), op);
      const deadline = started + options.importTimeout * 1000;
      let row: ImportRow | null = null;
      let lastReport = started;
      for (;;) {
        row = (await service.ask<{ row: ImportRow | null }>({ cmd: "import", importId })).row;
        if (row !== null && (row.state === "done" || row.state === "failed")) break;
        const now = performance.now();
        if (now > deadline) break;
        if (now - lastReport >= 10_000) {
          lastReport = now;
          progress(
            `    import ${row?.state ?? "?"}: ${row?.rows_imported ?? 0} rows after ${((now - started) / 1000).toFixed(0)} s, RSS peak ${(peakRss(service.pid) / 1048576).toFixed(0)} MiB`,
          );
        }
        await sleep(250);
      }
      const wallMs = performance.now() - started;
      return {
        rows: options.importRows,
        state:
          row === null
            ? "missing"
            : row.state === "done" || row.state === "failed"
              ? row.state
              : `${row.state} (timed out after ${options.importTimeout} s)`,
        rowsImported: row?.rows_imported ?? 0,
        rowsBad: row?.rows_bad ?? 0,
        wallMs,
        importMs: row?.finished_at != null ? row.finished_at - row.created_at : undefined,
        rssBytes: peakRss(service.pid),
        cpuSeconds: cpuSeconds(service.pid) - cpuBefore,
        error: row?.error ?? null,
      };
    } finally {
      await stopService(service);
    }
  } finally {
    await stopChild(files, STOP_WAIT_MS);
  }
}

// ---- sending ---------------------------------------------------------------------------------------------

/** The longest wait for a sending to be delivered: 10 minutes, or 10 ms a recipient for a larger one. */
const sendingTimeoutMs = (recipients: number) => Math.max(600_000, recipients * 10);

/**
 * The smtp-sending part's delivery settings. Every recipient of the bench is at one domain, so the
 * per-domain limits are the bench's choice for a sink it owns: all the pool's connections may carry that
 * domain at once, and no rate (a real receiver gets MAIL_DOMAIN_CONCURRENCY and MAIL_DOMAIN_RATE of its own:
 * docs/mail.md).
 */
export const SMTP_BENCH_ENV = {
  SMTP_POOL_SIZE: "8",
  MAIL_DOMAIN_CONCURRENCY: "8",
  MAIL_DOMAIN_RATE: "0",
} as const;

/** Where a measured sending goes: the .eml outbox folder, or SMTP into the sink child. */
type SendingVia = "eml" | "smtp";

export interface SendingSummary {
  readonly recipients: number;
  readonly via: SendingVia;
  /** From the SendNewsletter call's start to the newest .eml file's mtime (SMTP: the sink's last 250). */
  readonly ms: number;
  /** From the call's start to the poll that saw everything sent. */
  readonly wallMs: number;
  readonly setupMs: number;
  readonly rssBytes: number;
  readonly cpuSeconds: number;
  /** SMTP: what the sink received, and the CPU it used meanwhile. */
  readonly sink?: SinkStats & { readonly cpuSeconds: number };
  readonly complete: boolean;
  readonly final: SendingState;
  /** What went wrong with the check, empty when every recipient has exactly one .eml (one SMTP message). */
  readonly problems: string[];
}

/** The SMTP sink child (bench/service-children.ts smtp): its port, and its counts on demand. */
type Sink = Child & { port: number; stats(): Promise<SinkStats> };

async function startSink(): Promise<Sink> {
  const sink = await startChild<{ port: number }>(
    [await serviceChild(), "smtp"],
    process.env,
    "the SMTP sink",
    (m) => (typeof (m as { port?: unknown }).port === "number" ? (m as { port: number }) : undefined),
  );
  return {
    ...sink,
    port: sink.first.port,
    stats: () => {
      const id = ++commandIds;
      return withTimeout(
        new Promise<SinkStats>((resolve) => {
          const onMessage = (m: SinkStats & { id?: number }) => {
            if (m.id !== id) return;
            sink.child.off("message", onMessage);
            resolve(m);
          };
          sink.child.on("message", onMessage);
          sink.child.send({ id, cmd: "stats" });
        }),
        30_000,
        "the SMTP sink's counts",
      );
    },
  };
}

async function measureSending(
  options: ServiceBenchOptions,
  progress: (line: string) => void,
  postgres: boolean,
  via: SendingVia = "eml",
  recipients = options.sendingRecipients ?? 10_000,
): Promise<SendingSummary> {
  const databaseUrl = postgres ? await cluster!.createDatabase(`bench_sending_${process.pid}`) : undefined;
  const sink = via === "smtp" ? await startSink() : undefined;
  const service = await startService(
    `${postgres ? "pg-" : ""}${via === "smtp" ? "smtp-" : ""}sending`,
    databaseUrl,
    options,
    sink === undefined ? {} : { SMTP_URL: `smtp://127.0.0.1:${sink.port}`, ...SMTP_BENCH_ENV },
  );
  try {
    return await sendNewsletter(service, [service.pid], recipients, progress, via, sink);
  } finally {
    await stopService(service);
    if (sink !== undefined) await stopChild(sink, STOP_WAIT_MS);
  }
}

/**
 * One SendNewsletter of `recipients` new subscribers through `service`, polled until every mail is delivered
 * (to that service's OUTBOX_DIR, or through SMTP to `sink`); other instances on the same database, `pids`
 * with it, may share the work (writing to the same folder). Peak RSS the largest of `pids`, CPU their sum.
 */
export async function sendNewsletter(
  service: ServiceChild,
  pids: readonly number[],
  recipients: number,
  progress: (line: string) => void,
  via: SendingVia = "eml",
  sink?: Sink,
): Promise<SendingSummary> {
  const cpuOf = () => pids.reduce((sum, pid) => sum + cpuSeconds(pid), 0);
  const rssOf = () => Math.max(...pids.map((pid) => peakRss(pid)));
  const { port, username, password } = service.ready;
  const url = `http://127.0.0.1:${port}${ENDPOINT}`;
  const setupStarted = performance.now();
  // (a minute per 100,000 subscribers at most: a million took 19-22 s under load 20)
  const { newsletterId, listId } = await service.ask<{ newsletterId: number; listId: number }>(
    { cmd: "sending-setup", recipients },
    Math.max(30_000, recipients * 0.6),
  );
  const setupMs = performance.now() - setupStarted;
  progress(
    `    ${int(recipients)} subscribers written in ${(setupMs / 1000).toFixed(1)} s; SendNewsletter ...`,
  );
  const op = "SendNewsletter";
  const body = soap11(
    `<${op} xmlns="${NS}"><strUsername>${xmlText(username)}</strUsername><strPassword>${xmlText(password)}</strPassword>` +
      `<strFromEmail>news@bench.example.com</strFromEmail><strFromName>Bench News</strFromName>` +
      `<strNewsletterId>${newsletterId}</strNewsletterId><strMailingListId>${listId}</strMailingListId></${op}>`,
  );
  const cpuBefore = cpuOf();
  const sinkCpuBefore = sink === undefined ? 0 : cpuSeconds(sink.pid);
  const startedEpoch = Date.now();
  const started = performance.now();
  const sendingId = intResult(await post(url, op, body, 30_000), op);
  const timeoutMs = sendingTimeoutMs(recipients);
  const deadline = started + timeoutMs;
  let lastReport = started;
  // Polled cheaply (sending-progress); the whole count, the files included, once at the end.
  for (;;) {
    const state = await service.ask<SendingProgress>({ cmd: "sending-progress", sendingId });
    const done =
      state.state === "done" && state.sent + state.mailsDead >= recipients && state.mailsQueued === 0;
    const now = performance.now();
    if (done || state.mailsDead > 0 || now > deadline) break;
    if (now - lastReport >= 10_000) {
      lastReport = now;
      progress(
        `    sending ${state.state}: ${int(state.sent)} rendered, ${int(state.sent - state.mailsQueued)} delivered (at least) after ${((now - started) / 1000).toFixed(0)} s, RSS peak ${mib(rssOf())} MiB`,
      );
    }
    await sleep(recipients > 100_000 ? 1000 : 100);
  }
  const wallMs = performance.now() - started;
  const rssBytes = rssOf();
  const cpu = cpuOf() - cpuBefore;
  const sinkStats =
    sink === undefined
      ? undefined
      : { ...(await sink.stats()), cpuSeconds: cpuSeconds(sink.pid) - sinkCpuBefore };
  const final = await service.ask<SendingState>(
    { cmd: "sending-state", sendingId, files: via === "eml" },
    Math.max(30_000, recipients * 0.6),
  );
  const complete =
    final.state === "done" &&
    final.sent === recipients &&
    final.queued === 0 &&
    final.mailsSent === final.mails &&
    final.mails === recipients;
  const problems: string[] = [];
  if (!complete)
    problems.push(
      `not complete (${final.state}, ${final.sent} sent, ${final.queued} queued, ${final.mailsSent}/${final.mails} mails delivered, ${final.mailsDead} dead${wallMs > timeoutMs ? ", timed out" : ""})`,
    );
  if (via === "eml" && final.emlFiles !== recipients)
    problems.push(`${final.emlFiles} .eml files for ${recipients} recipients`);
  if (
    sinkStats !== undefined &&
    (sinkStats.messages !== recipients || sinkStats.recipients !== recipients || sinkStats.duplicates > 0)
  )
    problems.push(
      `the SMTP sink got ${sinkStats.messages} messages for ${sinkStats.recipients} recipients (${sinkStats.duplicates} twice) of ${recipients}`,
    );
  if (final.addresses !== final.mails || final.newsletterMails !== final.mails)
    problems.push(
      `${final.newsletterMails} newsletter mails, ${final.mails} of the sending, to ${final.addresses} addresses`,
    );
  if (final.recipients !== recipients || final.skipped > 0)
    problems.push(`${final.recipients} recipients expanded, ${final.skipped} skipped, of ${recipients}`);
  const last = sinkStats?.lastMessageMs ?? final.lastEmlMs ?? 0;
  return {
    recipients,
    via,
    ms: last > startedEpoch ? last - startedEpoch : wallMs,
    wallMs,
    setupMs,
    rssBytes,
    cpuSeconds: cpu,
    ...(sinkStats === undefined ? {} : { sink: sinkStats }),
    complete,
    final,
    problems,
  };
}

// ---- table -----------------------------------------------------------------------------------------------

const mib = (bytes: number) => (bytes / 1048576).toFixed(1);
const int = (n: number) => Math.round(n).toLocaleString("en-US");

function filesystemOf(dir: string): string {
  const r = spawnSync("stat", ["-f", "-c", "%T", dir], { encoding: "utf8" });
  return r.status === 0 ? r.stdout.trim() : "unknown";
}

// ---- the whole section -----------------------------------------------------------------------------------

export async function runServiceBench(options: ServiceBenchOptions): Promise<ServiceBenchResult> {
  const progress = options.progress ?? ((line: string) => process.stderr.write(`${line}\n`));
  const tool = toolOf(options);
  const dir = tempDir("eas-bench-service-");
  const notes: string[] = [];
  const json: Record<string, unknown> = {
    when: new Date().toISOString(),
    node: process.version,
    cpus: availableParallelism(),
    tool,
    options: { ...options, progress: undefined },
  };
  let pass = true;
  const rows: string[][] = [];

  // PostgreSQL: one throwaway cluster with the durable defaults for every PostgreSQL part, when installed.
  let parts = options.parts;
  if (parts.some((part) => POSTGRES_PARTS.includes(part))) {
    const bin = findPostgresBin();
    if (bin === undefined) {
      notes.push("PostgreSQL: no install found (initdb/pg_ctl), its rows skipped.");
      parts = parts.filter((part) => !POSTGRES_PARTS.includes(part));
    } else {
      progress("  starting a throwaway PostgreSQL cluster (durable: fsync, synchronous_commit on) ...");
      cluster = await startThrowawayCluster(bin, { durable: true });
      const settings = await clusterSettings(cluster.url);
      json.postgres = settings;
      notes.push(
        `PostgreSQL: a throwaway cluster from ${bin} (started in ${cluster.startupMs} ms; the data directory in ${tmpdir()}) ` +
          `with the durable defaults, as the server reports them: ${settings.text}. Every commit waits for its WAL flush, as SQLite FULL waits for its log sync.`,
      );
    }
  }
  // Load rows: the floor, then SQLite and PostgreSQL, then SMS and transactions on each, in every round.
  const serviceRows: readonly ServiceRowId[] = [
    "sqlite",
    "sqlite-normal",
    "postgres",
    "sms",
    "transaction",
    "pg-sms",
    "pg-transaction",
  ];
  const loadRows: LoadRowId[] = [];
  if (serviceRows.some((id) => parts.includes(id))) {
    loadRows.push("floor", ...serviceRows.filter((id) => parts.includes(id)));
    if (["sms", "transaction", "pg-sms", "pg-transaction"].some((id) => parts.includes(id as Part))) {
      notes.push(
        "SMS and transaction rows: the service process also runs its delivery workers, so their CPU µs/req include writing each paid SMS " +
          "(SMS folder, one .json each) and each queued mail (outbox folder, one .eml each) when the worker gets to it during the run; " +
          "their x floor compares with the floor row of the same run, which is sent InsertSubscriberSid bodies of about the same size.",
      );
    }
  }
  const summaries = new Map<LoadRowId, LoadSummary>();
  if (loadRows.length > 0) {
    const floorCmd = await floorCommand();
    const runs = new Map<LoadRowId, Measured[]>(loadRows.map((id) => [id, []]));
    for (let round = 1; round <= options.rounds; round++) {
      for (const id of loadRows) {
        progress(`  service bench round ${round}/${options.rounds}: ${id} ...`);
        const measured =
          id === "floor"
            ? await measureFloor(options, floorCmd, round, dir)
            : await measureService(options, id, round, dir);
        runs.get(id)!.push(measured);
      }
    }
    for (const id of loadRows) summaries.set(id, summarize(id, runs.get(id)!));
  }
  const floor = summaries.get("floor");
  const labels: Record<LoadRowId, string> = {
    floor: "floor: raw node:http, fixed 400 B (same requests)",
    sqlite: "service SQLite (SYNC=FULL) InsertSubscriberSid, new address each",
    "sqlite-normal": "service SQLite (SYNC=NORMAL: no fsync per commit), same",
    postgres: "service PostgreSQL (durable) InsertSubscriberSid, new address each",
    sms: "service SQLite (SYNC=FULL) SendSmsWithSenderName, paid at once",
    transaction: "service SQLite (SYNC=FULL) InsertTransaction, no identifier (a mail each)",
    "pg-sms": "service PostgreSQL (durable) SendSmsWithSenderName, paid at once",
    "pg-transaction": "service PostgreSQL (durable) InsertTransaction, no identifier",
  };
  for (const [id, s] of summaries) {
    const ratio = floor === undefined ? undefined : s.rps / floor.rps;
    let target = "";
    if (id === "sqlite" && ratio !== undefined) {
      const ok = ratio >= SERVICE_TARGETS.floorRatio;
      pass &&= ok;
      target = `>=${SERVICE_TARGETS.floorRatio}x floor ${ok ? "PASS" : "MISS"}`;
    }
    if (s.failures > 0) pass = false;
    if (s.written !== undefined && s.written.stored < s.written.answered) {
      pass = false;
      target += ` (only ${s.written.stored} ${s.written.noun} for ${s.written.answered} answers)`;
    }
    if (s.written?.waiting !== undefined && s.written.waiting > 0) {
      pass = false;
      target += ` (${s.written.waiting} SMS waiting for credits)`;
    }
    rows.push([
      labels[id],
      int(s.rps),
      options.rounds > 1 ? `${int(s.minRps)}-${int(s.maxRps)}` : "",
      s.p50ms.toFixed(2),
      s.p99ms.toFixed(2),
      "",
      mib(s.rssBytes),
      s.cpuUs.toFixed(0),
      ratio === undefined ? "" : ratio.toFixed(2),
      floor === undefined ? "" : (floor.cpuUs / s.cpuUs).toFixed(2),
      String(s.failures),
      target,
    ]);
  }
  json.load = Object.fromEntries(summaries);

  if (options.parts.includes("csv")) {
    progress(
      `  service bench: CSV ${int(options.csvRows)} rows x ${options.csvCalls} calls, then strUpdate=true ...`,
    );
    const csv = await measureCsv(options, progress);
    json.csv = csv;
    const insert = median(csv.insertMs) / 1000;
    const update = median(csv.updateMs) / 1000;
    const range = (ms: number[]) =>
      `${(Math.min(...ms) / 1000).toFixed(2)}-${(Math.max(...ms) / 1000).toFixed(2)} s`;
    let target = "";
    if (options.csvRows === 50_000) {
      const ok = insert <= SERVICE_TARGETS.csvSeconds;
      pass &&= ok;
      target = `<=${SERVICE_TARGETS.csvSeconds} s ${ok ? "PASS" : "MISS"}`;
    } else target = `(target is for 50,000 rows)`;
    const cells = (label: string, s: number, ms: number[], t: string) => [
      label,
      `${int(csv.rows / s)} rows/s`,
      range(ms),
      "",
      "",
      s.toFixed(2),
      mib(csv.rssBytes),
      "",
      "",
      "",
      "0",
      t,
    ];
    rows.push(
      cells(
        `CSV ${int(csv.rows)} new rows, one call (median of ${csv.insertMs.length})`,
        insert,
        csv.insertMs,
        target,
      ),
    );
    rows.push(
      cells(
        `CSV ${int(csv.rows)} rows strUpdate=true, existing (median of ${csv.updateMs.length})`,
        update,
        csv.updateMs,
        "",
      ),
    );
  }

  if (options.parts.includes("import")) {
    progress(`  service bench: queued import of ${int(options.importRows)} rows ...`);
    const imp = await measureImport(options, progress);
    json.import = imp;
    const seconds = (imp.importMs ?? imp.wallMs) / 1000;
    const complete = imp.state === "done" && imp.rowsImported === imp.rows;
    const rssOk = imp.rssBytes < SERVICE_TARGETS.importRssBytes;
    pass &&= complete && rssOk;
    rows.push([
      `queued import, ${int(imp.rows)} rows from a file URL (${imp.state}${complete ? "" : `, ${int(imp.rowsImported)} imported, ${imp.rowsBad} bad`})`,
      `${int(imp.rowsImported / seconds)} rows/s`,
      "",
      "",
      "",
      seconds.toFixed(1),
      mib(imp.rssBytes),
      "",
      "",
      "",
      complete ? "0" : "1",
      `RSS <300 MB ${rssOk ? "PASS" : "MISS"}${complete ? "" : "; import not complete: MISS"}`,
    ]);
    notes.push(
      `Import: ${int(imp.rowsImported)} rows in ${seconds.toFixed(1)} s (queued -> done by the imports row; ${(imp.wallMs / 1000).toFixed(1)} s from the enqueue call ` +
        `to the poll that saw it), the service process used ${imp.cpuSeconds.toFixed(1)} s CPU meanwhile.` +
        (imp.error ? ` Error: ${imp.error}` : ""),
    );
  }

  for (const part of ["sending", "pg-sending", "smtp-sending", "sending-1m"] as const) {
    if (!parts.includes(part)) continue;
    const postgres = part === "pg-sending";
    const large = part === "sending-1m";
    const via: SendingVia = part === "smtp-sending" ? "smtp" : "eml";
    const engine = postgres ? "PostgreSQL" : "SQLite";
    const to = via === "smtp" ? `SMTP (pool ${SMTP_BENCH_ENV.SMTP_POOL_SIZE}) to a sink` : ".eml";
    const count = large
      ? (options.largeSendingRecipients ?? 1_000_000)
      : (options.sendingRecipients ?? 10_000);
    progress(`  service bench: newsletter sending to ${int(count)} recipients on ${engine} to ${to} ...`);
    const sending = await measureSending(options, progress, postgres, via, count);
    json[
      {
        sending: "sending",
        "pg-sending": "pgSending",
        "smtp-sending": "smtpSending",
        "sending-1m": "largeSending",
      }[part]
    ] = sending;
    const ok = sending.problems.length === 0;
    const seconds = sending.ms / 1000;
    const rate = sending.final.mailsSent / seconds;
    const target = large
      ? 0
      : via === "smtp"
        ? SERVICE_TARGETS.smtpSendingRate
        : postgres
          ? SERVICE_TARGETS.pgSendingRate
          : SERVICE_TARGETS.sendingRate;
    const rateOk = rate >= target;
    const rssOk = sending.rssBytes < SERVICE_TARGETS.sendingRssBytes;
    pass &&= ok && rateOk && rssOk;
    const cpuUs = (sending.cpuSeconds * 1e6) / Math.max(1, sending.final.mailsSent);
    rows.push([
      `SendNewsletter on ${engine}, ${int(sending.recipients)} recipients, tracking all, to ${to}`,
      `${int(rate)} msg/s`,
      "",
      "",
      "",
      seconds.toFixed(1),
      mib(sending.rssBytes),
      `${int(cpuUs)}/msg`,
      "",
      "",
      ok ? "0" : "1",
      `${large ? "complete, rate reported" : `>=${int(target)} msg/s ${rateOk ? "PASS" : "MISS"}`}, RSS <300 MB ${rssOk ? "PASS" : "MISS"}` +
        (ok ? "" : `; MISS: ${sending.problems.join("; ")}`),
    ]);
    const sink = sending.sink;
    notes.push(
      `Sending on ${engine} to ${to}: ${int(sending.final.mailsSent)} messages rendered (2 tracked links + a module's link, open pixel, List-Unsubscribe) and ` +
        (sink === undefined
          ? `written as .eml in ${seconds.toFixed(1)} s from the SendNewsletter call to the newest .eml; ${int(sending.final.emlFiles ?? 0)} .eml files, one per recipient`
          : `delivered in ${seconds.toFixed(1)} s from the SendNewsletter call to the sink's last 250; the sink got ${int(sink.messages)} messages ` +
            `(${mib(sink.bytes)} MiB) for ${int(sink.recipients)} recipients, ${sink.duplicates} twice, over ${sink.connections} connections ` +
            `(${sink.peakConnections} at once), and used ${sink.cpuSeconds.toFixed(1)} s CPU; ` +
            Object.entries(SMTP_BENCH_ENV)
              .map(([name, value]) => `${name}=${value}`)
              .join(", ")) +
        `${ok ? "" : " (NOT: see the row)"}; the service process used ${sending.cpuSeconds.toFixed(1)} s CPU meanwhile ` +
        `(${int(cpuUs)} µs a message; the ${int(sending.recipients)} subscribers were written beforehand in ${(sending.setupMs / 1000).toFixed(1)} s).`,
    );
  }
  if (parts.includes("pg-scale")) {
    const scale = await runScaleOut(cluster!, {
      ...options,
      sendingRecipients: options.sendingRecipients ?? 10_000,
      progress,
    });
    json.scaleOut = scale.json;
    pass &&= scale.ok;
    rows.push(...scale.rows);
    notes.push(...scale.notes);
  }
  if (cluster !== undefined) {
    await cluster.stop();
    cluster = undefined;
  }

  const header = [
    "service / measurement",
    options.rounds > 1 ? `req/s (median of ${options.rounds})` : "req/s",
    "range",
    "p50 ms",
    "p99 ms",
    "time s",
    "peak RSS MiB",
    "CPU µs/req",
    "x floor",
    "CPU x floor",
    "errors",
    "target",
  ];
  const right = header.map((_, i) => i > 0 && i < header.length - 1);
  const fs = filesystemOf(tmpdir());
  const written = [...summaries.values()].filter((s) => s.written !== undefined);
  const head =
    `Service (issue 9). Load tool: ${tool === "wrk" ? `wrk -t${options.threads}, a Lua script making each body` : "autocannon (programmatic, setupRequest making each body)"}; ` +
    `${options.connections} connections; ${options.warmup} s warm-up + ${options.duration} s per load row` +
    `${options.rounds > 1 ? `, ${options.rounds} rounds (medians)` : ""}; 127.0.0.1; node ${process.version}; ${availableParallelism()} CPUs. ` +
    `The service runs as npm start runs it (bundled by service/start.mjs, plain JavaScript), LOG_LEVEL=warn (no request log lines), a fresh database per run; ` +
    `SQLite files in ${tmpdir()} (${fs}), SQLITE_SYNC=FULL.`;
  const text = [
    head,
    "",
    table(header, rows, right),
    "",
    ...(written.length > 0
      ? [
          `Writes checked: ${written
            .map(
              (s) =>
                `${s.id} ${int(s.written!.stored)} ${s.written!.noun} in the databases for ${int(s.written!.answered)} 2xx answers` +
                (s.written!.waiting === undefined ? "" : ` (${int(s.written!.waiting)} waiting for credits)`),
            )
            .join("; ")}.`,
        ]
      : []),
    ...notes,
  ].join("\n");
  const jsonFile = resultsFile("service", "json");
  json.pass = pass;
  json.text = text;
  writeFileSync(jsonFile, `${JSON.stringify(json, null, 2)}\n`);
  removeDir(dir);
  return { text, pass, json, jsonFile };
}

// ---- alone: npm run bench:service ------------------------------------------------------------------------

async function main(): Promise<void> {
  const { values: flags } = parseArgs({
    options: {
      ...LOAD_FLAGS,
      "csv-rows": { type: "string", default: "50000" },
      "csv-calls": { type: "string", default: "3" },
      "import-rows": { type: "string", default: "1000000" },
      "import-timeout": { type: "string", default: "900" },
      "sending-recipients": { type: "string", default: "10000" },
      "large-sending-recipients": { type: "string", default: "1000000" },
      "service-node-args": { type: "string", default: "" },
    },
    allowPositionals: false,
  });
  cleanupOnSignals();
  const settings = loadSettings(flags);
  const parts =
    flags.only === undefined ? DEFAULT_PARTS : (flags.only.split(",").map((s) => s.trim()) as Part[]);
  for (const part of parts)
    if (!PARTS.includes(part))
      throw new Error(`--only: unknown part ${part}; the parts are ${PARTS.join(", ")}`);
  const result = await runServiceBench({
    ...settings,
    parts,
    csvRows: Math.round(positive("csv-rows", flags["csv-rows"])),
    csvCalls: Math.round(positive("csv-calls", flags["csv-calls"])),
    importRows: Math.round(positive("import-rows", flags["import-rows"])),
    importTimeout: positive("import-timeout", flags["import-timeout"]),
    sendingRecipients: Math.round(positive("sending-recipients", flags["sending-recipients"])),
    largeSendingRecipients: Math.round(
      positive("large-sending-recipients", flags["large-sending-recipients"]),
    ),
    serviceNodeArgs: flags["service-node-args"].split(" ").filter(Boolean),
  });
  console.log(result.text);
  console.log();
  console.log(result.pass ? "All service targets PASS." : "Some service targets MISS (see above).");
  const txt = result.jsonFile.replace(/\.json$/, ".txt");
  writeFileSync(
    txt,
    `${result.text}\n\n${result.pass ? "All service targets PASS." : "Some service targets MISS (see above)."}\n`,
  );
  console.error(`(saved to ${txt} and ${result.jsonFile})`);
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main()
    .catch((error: unknown) => {
      console.error(error instanceof Error ? (error.stack ?? error.message) : error);
      process.exitCode = 1;
    })
    .finally(cleanup);
}
