// The process side of bench/run.ts and bench/service.ts: child processes killed on exit (and on Ctrl-C when
// asked), temporary directories deleted, bounded waits, peak RSS and CPU time from /proc, bench/servers.ts
// bundled for the floor and the other servers, wrk runs, result files.
//
// Importing this module adds one process "exit" listener (cleanup) and runs `getconf CLK_TCK` once.

import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { LoadResult } from "./summary.js";

// ---- child processes and temporary directories ----------------------------------------------------------

const children = new Set<ChildProcess>();
const tmpDirs = new Set<string>();
const cleanupSteps: (() => void)[] = [];

/**
 * Kills (SIGKILL) every tracked child still running, runs the steps given to onCleanup, deletes every
 * directory from tempDir. Synchronous, so it also serves as the process's "exit" listener (registered here).
 */
export function cleanup(): void {
  for (const child of children) {
    if (child.exitCode === null && child.signalCode === null && child.pid !== undefined) {
      try {
        process.kill(child.pid, "SIGKILL");
      } catch {
        // already gone
      }
    }
  }
  children.clear();
  for (const step of cleanupSteps) step();
  for (const dir of tmpDirs) rmSync(dir, { recursive: true, force: true });
  tmpDirs.clear();
}

process.on("exit", cleanup);

/** A synchronous step for cleanup(), run after the children are killed and before the directories go. */
export function onCleanup(step: () => void): void {
  cleanupSteps.push(step);
}

/** On SIGINT, SIGTERM and SIGHUP: cleanup(), then exit with 130. For a script's main, once. */
export function cleanupOnSignals(): void {
  for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) {
    process.on(signal, () => {
      cleanup();
      process.exit(130);
    });
  }
}

/** Tracks a child: cleanup() kills it if it still runs. Returns the child. */
export function track<T extends ChildProcess>(child: T): T {
  children.add(child);
  child.on("exit", () => children.delete(child));
  return child;
}

/** A new directory under the system's temporary directory, deleted by cleanup() unless removeDir got it first. */
export function tempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  tmpDirs.add(dir);
  return dir;
}

/** Deletes a directory from tempDir now. */
export function removeDir(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
  tmpDirs.delete(dir);
}

/** The promise, or a rejection `<what> did not finish within <ms> ms` when it takes longer. */
export function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const limit = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not finish within ${ms} ms`)), ms);
  });
  return Promise.race([promise, limit]).finally(() => clearTimeout(timer));
}

/** A child's whole stdout once it exits with 0; rejects on another exit (with its stderr) or after limitMs (and kills it). */
export function collect(child: ChildProcess, what: string, limitMs: number): Promise<string> {
  let out = "";
  child.stdout?.setEncoding("utf8").on("data", (d: string) => (out += d));
  let err = "";
  child.stderr?.setEncoding("utf8").on("data", (d: string) => (err += d));
  const done = new Promise<string>((resolve, reject) => {
    child.once("error", reject);
    child.once("exit", (code, signal) =>
      code === 0
        ? resolve(out)
        : reject(new Error(`${what} exited with ${code ?? signal}: ${err.trim() || out.trim()}`)),
    );
  });
  return withTimeout(done, limitMs, what).catch((error: unknown) => {
    if (child.exitCode === null) child.kill("SIGKILL");
    throw error;
  });
}

/** Asks a child to exit (IPC disconnect, so a --cpu-prof profile gets written), kills it after killAfterMs. */
export async function stopChild(
  { child }: { readonly child: ChildProcess },
  killAfterMs: number,
): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  if (child.connected) child.disconnect();
  const timer = setTimeout(() => child.kill("SIGKILL"), killAfterMs);
  await exited;
  clearTimeout(timer);
}

// ---- /proc -------------------------------------------------------------------------------------------------

/** Peak resident set of a process so far (VmHWM), in bytes. */
export function peakRss(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const m = /^VmHWM:\s+(\d+)\s+kB/m.exec(status);
  if (!m) throw new Error(`no VmHWM in /proc/${pid}/status`);
  return Number(m[1]) * 1024;
}

/** Clock ticks a second (getconf CLK_TCK): the unit of /proc/<pid>/stat and /proc/stat times. */
export const CLOCK_TICKS = (() => {
  const r = spawnSync("getconf", ["CLK_TCK"], { encoding: "utf8" });
  const n = Number(r.stdout?.trim());
  return Number.isFinite(n) && n > 0 ? n : 100;
})();

/** CPU time (user + system) a process has used so far, in seconds (/proc/<pid>/stat). */
export function cpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  // Fields after the command name (which is in parentheses and may hold spaces): utime is the 14th
  // field of the line, stime the 15th.
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS;
}

// ---- the benchmark servers ----------------------------------------------------------------------------------

const serversSource = fileURLToPath(new URL("./servers.ts", import.meta.url));

/**
 * How a bench/servers.ts process is started (its kind goes after these arguments). The servers are bundled to
 * plain JavaScript with tsx's own esbuild (the same transform tsx applies) into .tmp/<buildName>/, inside the
 * project so the bundle's bare imports (soap) resolve from node_modules; so a server process carries no
 * TypeScript loader: tsx alone adds ~35 MiB of RSS and startup work that no deployed server has. Falls back
 * to `--import tsx`; the note says which.
 */
export async function serversCommand(buildName: string): Promise<{ args: string[]; note: string }> {
  const buildDir = fileURLToPath(new URL(`../.tmp/${buildName}/`, import.meta.url));
  try {
    const require = createRequire(import.meta.url);
    const esbuild = createRequire(require.resolve("tsx/package.json"))("esbuild") as typeof import("esbuild");
    rmSync(buildDir, { recursive: true, force: true });
    await esbuild.build({
      entryPoints: { servers: serversSource },
      outdir: buildDir,
      outExtension: { ".js": ".mjs" },
      bundle: true,
      splitting: true,
      format: "esm",
      platform: "node",
      target: "node20",
      packages: "external",
      logLevel: "error",
    });
    return { args: [join(buildDir, "servers.mjs")], note: `servers bundled with esbuild ${esbuild.version}` };
  } catch (error) {
    return {
      args: ["--import", "tsx", serversSource],
      note: `servers run under tsx (bundling failed: ${(error as Error).message})`,
    };
  }
}

// ---- wrk -------------------------------------------------------------------------------------------------

/** Whether wrk is on the PATH. */
export function hasWrk(): boolean {
  return spawnSync("wrk", ["--version"], { stdio: "ignore" }).error === undefined;
}

/** A Lua string literal for a wrk script (printable ASCII only). */
export function luaString(s: string): string {
  if (!/^[\x20-\x7e]*$/.test(s)) throw new Error("wrk scripts here carry printable ASCII only");
  return JSON.stringify(s); // \" and \\ mean the same in Lua
}

/** wrk's settings for one run. */
export interface WrkRun {
  readonly url: string;
  readonly seconds: number;
  readonly threads: number;
  readonly connections: number;
}

/**
 * Writes the Lua lines (which set the requests) to `script` with a `done` function that prints a one-line
 * JSON summary, runs wrk with it (bounded: the duration + 30 s) and reads that summary.
 */
export async function runWrk(script: string, lines: readonly string[], run: WrkRun): Promise<LoadResult> {
  writeFileSync(
    script,
    `${[
      ...lines,
      "done = function(summary, latency, requests)",
      "  local e = summary.errors",
      '  io.write(string.format("WRKJSON {\\"requests\\":%d,\\"us\\":%d,\\"p50\\":%d,\\"p99\\":%d,\\"failures\\":%d}\\n",',
      "    summary.requests, summary.duration, latency:percentile(50), latency:percentile(99),",
      "    e.connect + e.read + e.write + e.status + e.timeout))",
      "end",
    ].join("\n")}\n`,
  );
  const args = [
    "-t",
    String(run.threads),
    "-c",
    String(run.connections),
    "-d",
    `${run.seconds}s`,
    "--timeout",
    "10s",
    "-s",
    script,
    run.url,
  ];
  const out = await collect(
    track(spawn("wrk", args, { stdio: ["ignore", "pipe", "pipe"] })),
    "wrk",
    (run.seconds + 30) * 1000,
  );
  const line = out.split("\n").find((l) => l.startsWith("WRKJSON "));
  if (!line) throw new Error(`wrk printed no summary:\n${out}`);
  const r = JSON.parse(line.slice(8)) as {
    requests: number;
    us: number;
    p50: number;
    p99: number;
    failures: number;
  };
  const seconds = r.us / 1e6;
  return {
    requests: r.requests,
    seconds,
    rps: r.requests / seconds,
    p50ms: r.p50 / 1000,
    p99ms: r.p99 / 1000,
    failures: r.failures,
  };
}

// ---- results ---------------------------------------------------------------------------------------------

/** bench/results/<name>-<ISO time with - for : and .>.<ext>, the directory made if missing. */
export function resultsFile(name: string, ext: string): string {
  const dir = fileURLToPath(new URL("./results/", import.meta.url));
  mkdirSync(dir, { recursive: true });
  return join(dir, `${name}-${new Date().toISOString().replace(/[:.]/g, "-")}.${ext}`);
}
