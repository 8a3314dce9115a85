// The `pg-scale` part of bench/service.ts (issue 28's scale-out row): 1, 2 and 4 service processes (each
// `--role all`: the API and every worker, as npm start runs them) on one PostgreSQL database of the bench's
// durable cluster, and for each count:
//
//  inserts   InsertSubscriberSid, a new address each call, from wrk: one wrk per process with the run's
//            connections split between them (32: 32, 16+16, 8x4), all at once; req/s is the sum.
//  sending   one SendNewsletter of --sending-recipients (10,000) new subscribers with tracking all, through the
//            first process; any process's sending worker may claim it, and every process's outbox worker
//            writes its mails to one shared outbox folder; msg/s from the call to the newest .eml.
//
// During each measurement it reads where the CPU went, from /proc: the service processes (utime + stime),
// the PostgreSQL cluster (the postmaster with every process it started, the exited backends included through
// the postmaster's cutime + cstime), and the rest of the machine's busy time from /proc/stat (the load
// generator and whatever else runs on the machine); and PostgreSQL's pg_stat_wal (WAL records, WAL syncs) and
// the database's commits (pg_stat_database), so a row says how many commits share one WAL flush. Each count
// starts fresh processes on a fresh database, in every round (1, 2, 4 in turn; medians of --rounds).

import { mkdirSync, readFileSync, readdirSync } from "node:fs";
import { loadavg } from "node:os";
import { join } from "node:path";
import pg from "pg";
import type { ThrowawayCluster } from "../test/service/support/postgres.js";
import { CLOCK_TICKS, cpuSeconds, tempDir } from "./process.js";
import {
  ENDPOINT,
  type LoadSpec,
  type SendingSummary,
  type ServiceBenchOptions,
  type ServiceChild,
  insertTemplate,
  intResult,
  load,
  post,
  sendNewsletter,
  startService,
  stopService,
} from "./service.js";
import type { ServiceSeed } from "./service-children.js";
import { type LoadResult, median, table } from "./summary.js";

/** The service process counts measured. */
export const SCALE_COUNTS = [1, 2, 4] as const;

export type ScaleOptions = Pick<
  ServiceBenchOptions,
  "duration" | "warmup" | "connections" | "rounds" | "threads" | "tool" | "serviceNodeArgs"
> & { readonly sendingRecipients: number; readonly progress: (line: string) => void };

/** Where the CPU went during one measurement, in seconds, and PostgreSQL's WAL and commit counts. */
export interface Usage {
  readonly seconds: number;
  readonly service: number;
  readonly postgres: number;
  /** This process and the children it reaped meanwhile: the load generator (wrk or autocannon). */
  readonly generator: number;
  /** Busy time of the whole machine (every CPU) from /proc/stat. */
  readonly machine: number;
  readonly walRecords: number;
  readonly walSyncs: number;
  readonly commits: number;
}

export interface ScaleMeasurement {
  readonly processes: number;
  readonly inserts: { readonly result: LoadResult; readonly usage: Usage };
  readonly sending: { readonly summary: SendingSummary; readonly usage: Usage };
}

// ---- /proc ---------------------------------------------------------------------------------------------------

/** /proc/<pid>/stat's fields after the command name (field 3 of the line is index 0 here). */
function statFields(pid: number): string[] {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  return stat.slice(stat.lastIndexOf(")") + 2).split(" ");
}

/**
 * CPU seconds a PostgreSQL cluster used so far: its postmaster (data/postmaster.pid) with the CPU of its
 * exited children (cutime + cstime: backends that closed), and every child still running (user + system).
 */
export function clusterCpuSeconds(cluster: ThrowawayCluster): number {
  const postmaster = Number(readFileSync(join(cluster.dir, "data", "postmaster.pid"), "utf8").split("\n")[0]);
  const own = statFields(postmaster);
  let ticks = Number(own[11]) + Number(own[12]) + Number(own[13]) + Number(own[14]);
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const fields = statFields(Number(entry));
      if (Number(fields[1]) === postmaster) ticks += Number(fields[11]) + Number(fields[12]);
    } catch {
      // gone meanwhile
    }
  }
  return ticks / CLOCK_TICKS;
}

/** CPU seconds of this process and of its children that exited and were reaped (the load generators). */
function generatorSeconds(): number {
  const fields = statFields(process.pid);
  return (Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14])) / CLOCK_TICKS;
}

/** Busy CPU seconds of the whole machine so far (/proc/stat: all but idle and iowait, every CPU). */
function machineBusySeconds(): number {
  const line = readFileSync("/proc/stat", "utf8").split("\n", 1)[0]!;
  const [, ...values] = line.trim().split(/\s+/);
  const n = values.map(Number);
  const total = n.slice(0, 8).reduce((a, b) => a + b, 0);
  return (total - n[3]! - n[4]!) / CLOCK_TICKS;
}

// ---- PostgreSQL counters ---------------------------------------------------------------------------------------

async function walCounters(adminUrl: string, database: string) {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    const wal = await client.query<{ wal_records: string; wal_sync: string }>(
      "select wal_records, wal_sync from pg_stat_wal",
    );
    const db = await client.query<{ xact_commit: string }>(
      "select xact_commit from pg_stat_database where datname = $1",
      [database],
    );
    return {
      walRecords: Number(wal.rows[0]?.wal_records ?? 0),
      walSyncs: Number(wal.rows[0]?.wal_sync ?? 0),
      commits: Number(db.rows[0]?.xact_commit ?? 0),
    };
  } finally {
    await client.end();
  }
}

/** Starts the counters; the returned function reads them again and gives the difference. */
async function meter(
  cluster: ThrowawayCluster,
  database: string,
  pids: readonly number[],
): Promise<() => Promise<Usage>> {
  const snapshot = async () => ({
    at: performance.now(),
    service: pids.reduce((sum, pid) => sum + cpuSeconds(pid), 0),
    postgres: clusterCpuSeconds(cluster),
    generator: generatorSeconds(),
    machine: machineBusySeconds(),
    // The counters' own session commits nothing in the measured database.
    ...(await walCounters(cluster.adminUrl, database)),
  });
  const before = await snapshot();
  return async () => {
    const after = await snapshot();
    return {
      seconds: (after.at - before.at) / 1000,
      service: after.service - before.service,
      postgres: after.postgres - before.postgres,
      generator: after.generator - before.generator,
      machine: after.machine - before.machine,
      walRecords: after.walRecords - before.walRecords,
      walSyncs: after.walSyncs - before.walSyncs,
      commits: after.commits - before.commits,
    };
  };
}

/** The options startService and load take (they read the load flags and serviceNodeArgs only). */
function asBenchOptions(options: ScaleOptions): ServiceBenchOptions {
  return { ...options, parts: [], csvRows: 0, csvCalls: 0, importRows: 0, importTimeout: 1 };
}

// ---- one count ---------------------------------------------------------------------------------------------

/** The processes on one database: the first fills it, the others join (BENCH_JOIN) with its account. */
async function startProcesses(
  count: number,
  databaseUrl: string,
  outboxDir: string,
  options: ScaleOptions,
): Promise<ServiceChild[]> {
  const env = { OUTBOX_DIR: outboxDir, MAIL_FROM: "news@bench.example.com" };
  const bench = asBenchOptions(options);
  const first = await startService(`scale-${count}-1`, databaseUrl, bench, env);
  const services = [first];
  try {
    const { ready: _ready, port: _port, ...seed } = first.ready;
    const join: ServiceSeed = seed;
    services.push(
      ...(await Promise.all(
        Array.from({ length: count - 1 }, (_, i) =>
          startService(`scale-${count}-${i + 2}`, databaseUrl, bench, {
            ...env,
            BENCH_JOIN: JSON.stringify(join),
          }),
        ),
      )),
    );
    return services;
  } catch (error) {
    await Promise.all(services.map((service) => stopService(service)));
    throw error;
  }
}

async function measureCount(
  cluster: ThrowawayCluster,
  count: number,
  round: number,
  options: ScaleOptions,
): Promise<ScaleMeasurement> {
  const database = `bench_scale_${count}_r${round}_${process.pid}`;
  const databaseUrl = await cluster.createDatabase(database);
  const outboxDir = join(tempDir(`eas-bench-scale-${count}-`), "outbox");
  mkdirSync(outboxDir, { recursive: true });
  const services = await startProcesses(count, databaseUrl, outboxDir, options);
  try {
    const pids = services.map((service) => service.pid);
    const { username, password, listId } = services[0]!.ready;
    const template = insertTemplate(username, password, listId);
    const operation = "InsertSubscriberSid";
    const bench = asBenchOptions(options);
    const spec = (service: ServiceChild, i: number, tag: string, seconds: number): LoadSpec => ({
      url: `http://127.0.0.1:${service.ready.port}${ENDPOINT}`,
      operation,
      template,
      tag: `${tag}p${i}`,
      seconds,
    });
    // One checked call on each (its credentials then in that process's cache), then a warm-up on all.
    for (const [i, service] of services.entries())
      intResult(
        await post(
          spec(service, i, "pre", 1).url,
          operation,
          `${template.prefix}pre${i}${template.suffix}`,
          30_000,
        ),
        operation,
      );
    const perProcess = { ...bench, connections: Math.max(1, Math.round(options.connections / count)) };
    const dir = tempDir("eas-bench-scale-load-");
    if (options.warmup > 0)
      await Promise.all(
        services.map((service, i) => load(spec(service, i, `w${round}`, options.warmup), perProcess, dir)),
      );
    const insertsDone = await meter(cluster, database, pids);
    const results = await Promise.all(
      services.map((service, i) => load(spec(service, i, `m${round}`, options.duration), perProcess, dir)),
    );
    const insertUsage = await insertsDone();
    const seconds = Math.max(...results.map((r) => r.seconds));
    const requests = results.reduce((n, r) => n + r.requests, 0);
    const result: LoadResult = {
      requests,
      seconds,
      rps: requests / seconds,
      p50ms: median(results.map((r) => r.p50ms)),
      p99ms: Math.max(...results.map((r) => r.p99ms)),
      failures: results.reduce((n, r) => n + r.failures, 0),
    };
    options.progress(
      `    ${count} process${count > 1 ? "es" : ""}: ${Math.round(result.rps)} inserts/s; sending to ${options.sendingRecipients} ...`,
    );
    const sendingDone = await meter(cluster, database, pids);
    const summary = await sendNewsletter(services[0]!, pids, options.sendingRecipients, options.progress);
    const sendingUsage = await sendingDone();
    return {
      processes: count,
      inserts: { result, usage: insertUsage },
      sending: { summary, usage: sendingUsage },
    };
  } finally {
    await Promise.all(services.map((service) => stopService(service)));
  }
}

// ---- the part ------------------------------------------------------------------------------------------------

export interface ScaleResult {
  /** Rows for bench/service.ts's main table (its columns). */
  readonly rows: string[][];
  /** The resource table and what it says, for the notes. */
  readonly notes: string[];
  readonly json: Record<string, unknown>;
  /** Every insert answered and every sending complete. */
  readonly ok: boolean;
}

const pct = (cpuSeconds: number, seconds: number) => `${Math.round((cpuSeconds / seconds) * 100)}%`;
const int = (n: number) => Math.round(n).toLocaleString("en-US");

export async function runScaleOut(cluster: ThrowawayCluster, options: ScaleOptions): Promise<ScaleResult> {
  const load1 = loadavg()[0]!;
  const runs = new Map<number, ScaleMeasurement[]>(SCALE_COUNTS.map((count) => [count, []]));
  for (let round = 1; round <= options.rounds; round++) {
    for (const count of SCALE_COUNTS) {
      options.progress(`  scale-out round ${round}/${options.rounds}: ${count} service process(es) ...`);
      runs.get(count)!.push(await measureCount(cluster, count, round, options));
    }
  }
  const load2 = loadavg()[0]!;
  let ok = true;
  const rows: string[][] = [];
  const resource: string[][] = [];
  const summaries = SCALE_COUNTS.map((count) => {
    const list = runs.get(count)!;
    /** The run whose value is the median (so its resources go with it). */
    const middle = <T>(value: (m: ScaleMeasurement) => number, pick: (m: ScaleMeasurement) => T): T => {
      const sorted = [...list].sort((a, b) => value(a) - value(b));
      return pick(sorted[Math.floor((sorted.length - 1) / 2)]!);
    };
    const insertRate = (m: ScaleMeasurement) => m.inserts.result.rps;
    const sendRate = (m: ScaleMeasurement) =>
      m.sending.summary.final.mailsSent / (m.sending.summary.ms / 1000);
    const inserts = middle(insertRate, (m) => m.inserts);
    const sending = middle(sendRate, (m) => m.sending);
    const failures = list.reduce((n, m) => n + m.inserts.result.failures, 0);
    const problems = list.flatMap((m) => m.sending.summary.problems);
    if (failures > 0 || problems.length > 0) ok = false;
    return {
      count,
      insertRps: median(list.map(insertRate)),
      insertRange: [Math.min(...list.map(insertRate)), Math.max(...list.map(insertRate))],
      sendRate: median(list.map(sendRate)),
      sendRange: [Math.min(...list.map(sendRate)), Math.max(...list.map(sendRate))],
      inserts,
      sending,
      failures,
      problems,
    };
  });
  const base = summaries[0]!;
  for (const s of summaries) {
    const u = s.inserts.usage;
    rows.push([
      `service PostgreSQL (durable), ${s.count} process${s.count > 1 ? "es" : ""} (API + workers), InsertSubscriberSid`,
      int(s.insertRps),
      options.rounds > 1 ? `${int(s.insertRange[0]!)}-${int(s.insertRange[1]!)}` : "",
      s.inserts.result.p50ms.toFixed(2),
      s.inserts.result.p99ms.toFixed(2),
      "",
      "",
      ((u.service * 1e6) / Math.max(1, s.inserts.result.requests)).toFixed(0),
      "",
      "",
      String(s.failures),
      `${(s.insertRps / base.insertRps).toFixed(2)}x 1 process`,
    ]);
  }
  for (const s of summaries) {
    rows.push([
      `SendNewsletter on PostgreSQL, ${s.count} process${s.count > 1 ? "es" : ""}, ${int(options.sendingRecipients)} recipients, to .eml`,
      `${int(s.sendRate)} msg/s`,
      options.rounds > 1 ? `${int(s.sendRange[0]!)}-${int(s.sendRange[1]!)}` : "",
      "",
      "",
      (s.sending.summary.ms / 1000).toFixed(1),
      (s.sending.summary.rssBytes / 1048576).toFixed(1),
      "",
      "",
      "",
      s.problems.length > 0 ? "1" : "0",
      `${(s.sendRate / base.sendRate).toFixed(2)}x 1 process` +
        (s.problems.length > 0 ? `; MISS: ${s.problems.join("; ")}` : ""),
    ]);
  }
  for (const s of summaries) {
    for (const [what, usage, rate] of [
      ["inserts", s.inserts.usage, `${int(s.insertRps)} req/s`],
      ["sending", s.sending.usage, `${int(s.sendRate)} msg/s`],
    ] as const) {
      const rest = Math.max(0, usage.machine - usage.service - usage.postgres - usage.generator);
      const idle = Math.max(0, usage.seconds * availableCpus() - usage.machine);
      resource.push([
        `${s.count} x ${what}`,
        rate,
        pct(usage.service, usage.seconds),
        pct(usage.postgres, usage.seconds),
        pct(usage.generator, usage.seconds),
        pct(rest, usage.seconds),
        pct(idle, usage.seconds),
        int(usage.commits / usage.seconds),
        int(usage.walSyncs / usage.seconds),
        usage.walSyncs > 0 ? (usage.commits / usage.walSyncs).toFixed(1) : "",
      ]);
    }
  }
  const header = [
    "processes x work",
    "rate (median run)",
    "service CPU",
    "PostgreSQL CPU",
    "load generator",
    "other jobs",
    "idle",
    "commits/s",
    "WAL syncs/s",
    "commits per sync",
  ];
  const notes = [
    `Scale-out (pg-scale): 1, 2 and 4 service processes (--role all) on one PostgreSQL database of the durable cluster, ${options.rounds} round(s), ` +
      `load average ${load1.toFixed(1)} at the start and ${load2.toFixed(1)} at the end; inserts from one wrk per process (${options.connections} connections split between them), ` +
      `the sending through the first process with every process's workers writing to one outbox folder. Where the CPU went during the run whose rate is the median ` +
      `(percent of one core; ${availableCpus()} cores = ${availableCpus() * 100}%), from /proc: the service processes, the PostgreSQL cluster (postmaster, backends, WAL writer), ` +
      `the load generator (wrk, and the bench process itself), the rest of the machine's busy time (other jobs on the shared machine), and idle; commits and WAL syncs from pg_stat_database and pg_stat_wal:`,
    "",
    table(
      header,
      resource,
      header.map((_, i) => i > 0),
    ),
  ];
  const json = {
    counts: SCALE_COUNTS,
    loadavg: [load1, load2],
    runs: Object.fromEntries([...runs].map(([count, list]) => [count, list])),
  };
  return { rows, notes, json, ok };
}

function availableCpus(): number {
  return readFileSync("/proc/stat", "utf8")
    .split("\n")
    .filter((line) => /^cpu\d+ /.test(line)).length;
}
