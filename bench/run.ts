// `npm run bench [-- --duration 5 --warmup 2 --connections 32 --rounds 3 --tool wrk|autocannon
//                   --only floor,soap11,...,service --no-client --client-only --no-service --import-rows N
//                   --server-node-args="--cpu-prof"]`
//
// Server throughput: each server runs in its own process on 127.0.0.1 and is driven from another
// process (wrk when installed, otherwise autocannon), one row at a time, warm-up first, then a fixed
// duration. Peak RSS is the server process's VmHWM (/proc/<pid>/status) read at the end of its row.
// Rounds repeat every row in turn and the table shows medians: on a shared machine one row alone
// can land in a slow spell. All ratios come from this one run. Then the client micro-benchmark
// (bench/client.ts), then the service itself (bench/service.ts: InsertSubscriberSid on SQLite and
// PostgreSQL against its own floor, the 50,000-row CSV, the queued 1,000,000-row import; `npm run
// bench:service` runs it alone). Every child process is killed on exit, on error and on Ctrl-C; every wait
// is bounded.
//
// Rows (ids for --only): floor, soap11, soap12, get, post, floor-list, list-build, list, node-soap,
// service (the whole service section) and shadow (the shadow proxy's section, bench/shadow.ts).

import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { availableParallelism } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { clientTable, runClientBench } from "./client.js";
import { LOAD_FLAGS, loadSettings, positive } from "./flags.js";
import {
  cleanup,
  cleanupOnSignals,
  collect,
  cpuSeconds,
  hasWrk,
  luaString,
  peakRss,
  resultsFile,
  runWrk,
  serversCommand,
  stopChild,
  tempDir,
  track,
  withTimeout,
} from "./process.js";
import { fromAutocannon, median, table, type AutocannonResult, type LoadResult } from "./summary.js";
// The server's model: the codecs here write and read both sides.
import { serverModel as service, serverOperations as operations } from "../generated/server-model.js";
import { bindingFactories } from "../test/fixtures/bindings.js";
import { readXml } from "../generated/runtime/xml/scan.js";
import { requests, triggerRecords, type BenchRequest } from "./wire.js";

const { values: flags } = parseArgs({
  options: {
    ...LOAD_FLAGS,
    "no-client": { type: "boolean", default: false },
    "client-only": { type: "boolean", default: false },
    "no-service": { type: "boolean", default: false },
    "import-rows": { type: "string", default: "1000000" },
    "server-node-args": { type: "string", default: "" },
    "shadow-rate": { type: "string", default: "1000" },
  },
  allowPositionals: false,
});

const {
  duration: DURATION,
  warmup: WARMUP,
  connections: CONNECTIONS,
  threads: THREADS,
  rounds: ROUNDS,
  tool: TOOL_FLAG,
} = loadSettings(flags);
const SERVER_NODE_ARGS = flags["server-node-args"].split(" ").filter(Boolean);

// ---- child processes -------------------------------------------------------------------------------

cleanupOnSignals();

/** This run's scratch directory (wrk script, request body, the list answer), made when first needed. */
let tmp: string | undefined;
const scratch = (): string => (tmp ??= tempDir("eas-bench-"));

type ServerKind = "floor" | "floor-list" | "list-build" | "ours" | "node-soap";

interface RunningServer {
  readonly child: ChildProcess;
  readonly port: number;
}

let serverArgs: string[] = [];

/** The exact SOAP 1.1 GetTriggerIdForAccount answer (LIST_SIZE records) our server sends. */
const LIST_ANSWER = bindingFactories
  .soap11(service, { readXml })
  .encodeResponse(operations.GetTriggerIdForAccount, triggerRecords(), {
    strUsername: "u",
    strPassword: "p",
  }).body;

/** A file holding LIST_ANSWER, for the floor-list server to answer with. */
function listAnswerFile(): string {
  const file = join(scratch(), "list-answer.xml");
  writeFileSync(file, LIST_ANSWER);
  return file;
}

async function startServer(kind: ServerKind): Promise<RunningServer> {
  const child = track(
    spawn(process.execPath, [...SERVER_NODE_ARGS, ...serverArgs, kind], {
      stdio: ["ignore", "inherit", "inherit", "ipc"],
      env: {
        ...process.env,
        EAS_BENCH_WSDL: fileURLToPath(new URL("../generated/ExternalAPIService.wsdl", import.meta.url)),
        EAS_BENCH_BODY: listAnswerFile(),
      },
    }),
  );
  const port = await withTimeout(
    new Promise<number>((resolve, reject) => {
      child.once("message", (m: { port?: number }) =>
        m.port ? resolve(m.port) : reject(new Error(`bad message ${JSON.stringify(m)}`)),
      );
      child.once("exit", (code) =>
        reject(new Error(`the ${kind} server exited with ${code} before listening`)),
      );
      child.once("error", reject);
    }),
    30_000,
    `starting the ${kind} server`,
  );
  return { child, port };
}

// ---- load tools --------------------------------------------------------------------------------------

type LoadTool = "wrk" | "autocannon";

function wrkVersion(): string {
  const r = spawnSync("wrk", ["--version"], { encoding: "utf8" });
  return /^wrk (\S+)/m.exec(`${r.stdout}${r.stderr}`)?.[1] ?? "version unknown";
}

function autocannonVersion(): string {
  const require = createRequire(import.meta.url);
  return (require("autocannon/package.json") as { version: string }).version;
}

const TOOL: LoadTool = TOOL_FLAG ?? (hasWrk() ? "wrk" : "autocannon");

function runWrkRequest(url: string, request: BenchRequest, seconds: number): Promise<LoadResult> {
  const lines = [`wrk.method = ${luaString(request.method)}`];
  if (request.body !== "") lines.push(`wrk.body = ${luaString(request.body)}`);
  for (const [name, value] of Object.entries(request.headers))
    lines.push(`wrk.headers[${luaString(name)}] = ${luaString(value)}`);
  return runWrk(join(scratch(), "request.lua"), lines, {
    url,
    seconds,
    threads: THREADS,
    connections: CONNECTIONS,
  });
}

async function runAutocannon(url: string, request: BenchRequest, seconds: number): Promise<LoadResult> {
  const bin = createRequire(import.meta.url).resolve("autocannon/autocannon.js");
  const args = [bin, "-c", String(CONNECTIONS), "-d", String(seconds), "-m", request.method, "-j", "-n"];
  for (const [name, value] of Object.entries(request.headers)) args.push("-H", `${name}=${value}`);
  if (request.body !== "") {
    const bodyFile = join(scratch(), "body");
    writeFileSync(bodyFile, request.body);
    args.push("-i", bodyFile);
  }
  args.push(url);
  const out = await collect(
    track(spawn(process.execPath, args, { stdio: ["ignore", "pipe", "pipe"] })),
    "autocannon",
    (seconds + 30) * 1000,
  );
  return fromAutocannon(JSON.parse(out.slice(out.indexOf("{"))) as AutocannonResult);
}

function load(url: string, request: BenchRequest, seconds: number): Promise<LoadResult> {
  return TOOL === "wrk" ? runWrkRequest(url, request, seconds) : runAutocannon(url, request, seconds);
}

/** One request before the load: the server must answer 200 with the expected content. */
async function preflight(base: string, request: BenchRequest, what: string): Promise<void> {
  const response = await fetch(base + request.path, {
    method: request.method,
    headers: request.headers,
    body: request.method === "POST" ? request.body : undefined,
    signal: AbortSignal.timeout(10_000),
  });
  const body = await response.text();
  if (response.status !== 200 || !body.includes(request.expect)) {
    throw new Error(
      `${what}: expected 200 containing ${request.expect}, got ${response.status}:\n${body.slice(0, 600)}`,
    );
  }
}

// ---- rows ---------------------------------------------------------------------------------------------

interface Row {
  readonly id: string;
  readonly label: string;
  readonly server: ServerKind;
  readonly request: BenchRequest;
  /** Required fraction of the floor's req/s. */
  readonly floorTarget?: number;
  /** Largest allowed CPU added over the floor, as a fraction of what node-soap adds. */
  readonly addedTarget?: number;
  /** Required multiple of node-soap's req/s. */
  readonly nodeSoapTarget?: number;
}

const rows: Row[] = [
  {
    id: "floor",
    label: "floor: raw node:http, fixed 400 B",
    server: "floor",
    request: { ...requests.soap11Insert, expect: "<InsertSubscriberSidResult>123456789012<" },
  },
  {
    id: "soap11",
    label: "ours SOAP 1.1 InsertSubscriberSid",
    server: "ours",
    request: requests.soap11Insert,
    floorTarget: 0.7,
    nodeSoapTarget: 4,
    addedTarget: 0.2,
  },
  {
    id: "soap12",
    label: "ours SOAP 1.2 InsertSubscriberSid",
    server: "ours",
    request: requests.soap12Insert,
    floorTarget: 0.5,
    addedTarget: 0.2,
  },
  {
    id: "get",
    label: "ours HTTP GET InsertSubscriberSid",
    server: "ours",
    request: requests.httpGetInsert,
    floorTarget: 0.5,
    addedTarget: 0.2,
  },
  {
    id: "post",
    label: "ours HTTP POST InsertSubscriberSid",
    server: "ours",
    request: requests.httpPostInsert,
    floorTarget: 0.5,
    addedTarget: 0.2,
  },
  {
    id: "floor-list",
    label: `reference: raw node:http, fixed ${Buffer.byteLength(LIST_ANSWER)} B (the x100 answer)`,
    server: "floor-list",
    request: { ...requests.soap11Triggers, expect: LIST_ANSWER },
  },
  {
    id: "list-build",
    label: "reference: raw node:http, the x100 answer built by bare concatenation",
    server: "list-build",
    request: { ...requests.soap11Triggers, expect: LIST_ANSWER },
  },
  {
    id: "list",
    label: "ours SOAP 1.1 GetTriggerIdForAccount x100",
    server: "ours",
    request: { ...requests.soap11Triggers, expect: LIST_ANSWER },
    floorTarget: 0.5,
  },
  {
    id: "node-soap",
    label: "node-soap SOAP 1.1 InsertSubscriberSid",
    server: "node-soap",
    request: { ...requests.soap11Insert, expect: "1234567890123</" },
  },
];

interface Measured {
  readonly row: Row;
  readonly result: LoadResult;
  readonly rssBytes: number;
  /** Server CPU time (user + system) per answered request, in µs: little moved by other load on the machine. */
  readonly cpuUs: number;
}

/** One row over several rounds: median req/s and latencies, highest peak RSS, all failures. */
interface Summary {
  readonly row: Row;
  readonly result: LoadResult;
  readonly rssBytes: number;
  readonly cpuUs: number;
  readonly minRps: number;
  readonly maxRps: number;
}

function summarize(row: Row, runs: readonly Measured[]): Summary {
  const results = runs.map((r) => r.result);
  return {
    row,
    result: {
      requests: results.reduce((n, r) => n + r.requests, 0),
      seconds: results.reduce((n, r) => n + r.seconds, 0),
      rps: median(results.map((r) => r.rps)),
      p50ms: median(results.map((r) => r.p50ms)),
      p99ms: median(results.map((r) => r.p99ms)),
      failures: results.reduce((n, r) => n + r.failures, 0),
    },
    rssBytes: Math.max(...runs.map((r) => r.rssBytes)),
    cpuUs: median(runs.map((r) => r.cpuUs)),
    minRps: Math.min(...results.map((r) => r.rps)),
    maxRps: Math.max(...results.map((r) => r.rps)),
  };
}

async function measure(row: Row): Promise<Measured> {
  const server = await startServer(row.server);
  try {
    const base = `http://127.0.0.1:${server.port}`;
    const url = base + row.request.path;
    await preflight(base, row.request, row.label);
    if (WARMUP > 0) await load(url, row.request, WARMUP);
    const pid = server.child.pid as number;
    const cpuBefore = cpuSeconds(pid);
    const result = await load(url, row.request, DURATION);
    const cpuUs = ((cpuSeconds(pid) - cpuBefore) * 1e6) / Math.max(1, result.requests);
    const rssBytes = peakRss(pid);
    return { row, result, rssBytes, cpuUs };
  } finally {
    // IPC disconnect first, so a --cpu-prof profile gets written; killed after 5 s.
    await stopChild(server, 5_000);
  }
}

// ---- output ---------------------------------------------------------------------------------------------

function verdict(ratio: number | undefined, target: number | undefined, unit: string): string {
  if (target === undefined) return "";
  if (ratio === undefined) return `>=${target}${unit} n/a`;
  return `>=${target}${unit} ${ratio >= target ? "PASS" : "MISS"}`;
}

function serverTable(measured: readonly Summary[]): { text: string; pass: boolean } {
  const floor = measured.find((m) => m.row.id === "floor");
  const nodeSoap = measured.find((m) => m.row.id === "node-soap");
  const ratio = (a: number | undefined, b: number | undefined) =>
    a !== undefined && b !== undefined && b > 0 ? a / b : undefined;
  const fixed = (n: number | undefined) => (n === undefined ? "" : n.toFixed(2));
  let allPass = true;
  const header = ["server / request", ROUNDS > 1 ? `req/s (median of ${ROUNDS})` : "req/s"];
  if (ROUNDS > 1) header.push("req/s range");
  header.push(
    "p50 ms",
    "p99 ms",
    "peak RSS MiB",
    "CPU µs/req",
    "CPU added µs",
    "x floor",
    "x node-soap",
    "CPU x floor",
    "CPU x node-soap",
    "errors",
    "floor target",
    "node-soap target",
    "CPU added target",
  );
  // CPU the server spends per request beyond what the raw floor spends: our own work, apart from the
  // host's networking, which every row pays alike.
  const added = (cpuUs: number) => (floor === undefined ? undefined : cpuUs - floor.cpuUs);
  const nodeSoapAdded = nodeSoap === undefined ? undefined : added(nodeSoap.cpuUs);
  const body = measured.map(({ row, result, rssBytes, cpuUs, minRps, maxRps }) => {
    const vsFloor = ratio(result.rps, floor?.result.rps);
    const vsNodeSoap = ratio(result.rps, nodeSoap?.result.rps);
    const floorVerdict = verdict(vsFloor, row.floorTarget, "x floor");
    const nodeSoapVerdict = verdict(vsNodeSoap, row.nodeSoapTarget, "x node-soap");
    const ownAdded = added(cpuUs);
    const addedVerdict =
      row.addedTarget === undefined
        ? ""
        : ownAdded === undefined || nodeSoapAdded === undefined
          ? `<=${row.addedTarget}x node-soap's n/a`
          : `<=${row.addedTarget}x node-soap's ${ownAdded <= row.addedTarget * nodeSoapAdded ? "PASS" : "MISS"}`;
    if (floorVerdict.endsWith("MISS") || nodeSoapVerdict.endsWith("MISS") || addedVerdict.endsWith("MISS"))
      allPass = false;
    const cells = [row.label, Math.round(result.rps).toString()];
    if (ROUNDS > 1) cells.push(`${Math.round(minRps)}-${Math.round(maxRps)}`);
    cells.push(
      result.p50ms.toFixed(2),
      result.p99ms.toFixed(2),
      (rssBytes / 1048576).toFixed(1),
      cpuUs.toFixed(1),
      ownAdded === undefined ? "" : ownAdded.toFixed(1),
      fixed(vsFloor),
      fixed(vsNodeSoap),
      // Throughput a CPU-second buys, relative: the same comparison with other load on the machine left out.
      fixed(ratio(floor?.cpuUs, cpuUs)),
      fixed(ratio(nodeSoap?.cpuUs, cpuUs)),
      String(result.failures),
      floorVerdict,
      nodeSoapVerdict,
      addedVerdict,
    );
    return cells;
  });
  const right = header.map((_, i) => i > 0 && i < header.length - 3);
  return { text: table(header, body, right), pass: allPass };
}

/** What the run prints on stdout, kept to be saved under bench/results/ as well. */
const report: string[] = [];

function say(text = ""): void {
  console.log(text);
  report.push(text);
}

function saveReport(): void {
  const file = resultsFile("bench", "txt");
  writeFileSync(file, `${report.join("\n")}\n`);
  console.error(`(saved to ${file})`);
}

async function main(): Promise<void> {
  let serversPass = true;
  const only = flags.only?.split(",").map((s) => s.trim());
  const withService =
    !flags["client-only"] && !flags["no-service"] && (only === undefined || only.includes("service"));
  const selected = only ? rows.filter((r) => only.includes(r.id)) : rows;
  const withShadow = only === undefined || only.includes("shadow");
  if (selected.length === 0 && !withService && !withShadow && !flags["client-only"])
    throw new Error(
      `--only matches no row; the rows are ${rows.map((r) => r.id).join(", ")}, service, shadow`,
    );
  if (!flags["client-only"] && selected.length > 0) {
    const command = await serversCommand("bench");
    serverArgs = command.args;
    const toolNote =
      TOOL === "wrk"
        ? `wrk -t${THREADS} (${wrkVersion()})`
        : `autocannon ${autocannonVersion()} in its own process${flags.tool === "autocannon" ? "" : " (wrk not found on PATH; apt-get install -y wrk to use it)"}, latencies in whole ms`;
    say(
      `Server throughput. Load tool: ${toolNote}; ${CONNECTIONS} connections; ${WARMUP} s warm-up + ${DURATION} s per row` +
        `${ROUNDS > 1 ? `, ${ROUNDS} rounds (medians shown)` : ""}; 127.0.0.1; node ${process.version}; ` +
        `${availableParallelism()} CPUs; ${command.note}.`,
    );
    // Rounds run every row in turn, so a slow spell on a shared machine spreads over all rows.
    const runs = new Map<Row, Measured[]>(selected.map((row) => [row, []]));
    for (let round = 1; round <= ROUNDS; round++) {
      for (const row of selected) {
        process.stderr.write(`  ${ROUNDS > 1 ? `round ${round}/${ROUNDS}: ` : ""}${row.label} ...\n`);
        runs.get(row)?.push(await measure(row));
      }
    }
    say();
    const servers = serverTable(selected.map((row) => summarize(row, runs.get(row) ?? [])));
    say(servers.text);
    say();
    say(
      "CPU µs/req: the server process's user+system time per answered request; the 'CPU x' ratios compare those,",
    );
    say(
      "so they stay meaningful when other processes share the machine. The reference row serves the x100 answer's",
    );
    say(
      "exact bytes from a raw node:http server: what sending that much costs without building it. The bare",
    );
    say(
      "concatenation row builds those bytes anew for every request, as plainly as JavaScript can (no checks, the",
    );
    say(
      "request not read) and sends them as ours does: the least a list answer built in JavaScript costs here.",
    );
    say();
    serversPass = servers.pass;
  }
  let clientPass = true;
  if (!flags["no-client"]) {
    say(
      "Client codec micro-benchmark (no network): binding.encodeRequest(op, writeParams(op, values)) + binding.decodeResponse(op, canned answer), InsertSubscriberSid, best of 5 trials",
    );
    say();
    const client = clientTable(runClientBench());
    say(client.text);
    say();
    clientPass = client.pass;
  }
  let servicePass = true;
  if (withService) {
    const { runServiceBench, DEFAULT_PARTS } = await import("./service.js");
    const service = await runServiceBench({
      duration: DURATION,
      warmup: WARMUP,
      connections: CONNECTIONS,
      rounds: ROUNDS,
      threads: THREADS,
      tool: TOOL,
      parts: DEFAULT_PARTS,
      csvRows: 50_000,
      csvCalls: 3,
      importRows: Math.round(positive("import-rows", flags["import-rows"])),
      importTimeout: 900,
      serviceNodeArgs: SERVER_NODE_ARGS,
    });
    say(service.text);
    say();
    servicePass = service.pass;
  }
  let shadowPass = true;
  if (!flags["client-only"] && withShadow) {
    const { runShadowBench } = await import("./shadow.js");
    const shadow = await runShadowBench({
      rate: positive("shadow-rate", flags["shadow-rate"]),
      seconds: DURATION,
      warmup: WARMUP,
      rounds: ROUNDS,
    });
    say(shadow.text);
    say();
    shadowPass = shadow.pass;
  }
  say(
    serversPass && clientPass && servicePass && shadowPass
      ? "All targets PASS."
      : "Some targets MISS (see above).",
  );
  saveReport();
}

main()
  .catch((error: unknown) => {
    console.error(error instanceof Error ? (error.stack ?? error.message) : error);
    process.exitCode = 1;
  })
  .finally(cleanup);
