// The parent's side of an attack target running in its own process (child-main.ts), so that its memory
// (VmHWM from /proc) and its event loop are measured alone, and a crash shows as the process exiting.
// Every child is killed when the parent exits; every wait is bounded.

import { spawn, type ChildProcess } from "node:child_process";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import type { RealServiceConfig } from "./real-service-child.js";

const CHILD_MAIN = fileURLToPath(new URL("./child-main.ts", import.meta.url));

export type ChildConfig =
  | { readonly mode: "service"; readonly options?: Record<string, unknown>; readonly signalWatch?: boolean }
  | { readonly mode: "faults" }
  | { readonly mode: "client" }
  /** The server generated into `dir` (patterns.ts), every handler answering its value's length. */
  | { readonly mode: "patterns"; readonly dir: string; readonly operations: readonly string[] }
  | { readonly mode: "real-service"; readonly service: RealServiceConfig };

export interface ChildStats {
  /** Largest event-loop stall since the last reset, ms. */
  readonly maxStallMs: number;
  /** CPU time the child has used since it started (user + system), ms. */
  readonly cpuMs: number;
  readonly started: number;
  readonly aborted: number;
  /** Fault listener: times `next(error)` was called, times the fetch adapter rejected. */
  readonly nextWithError: number;
  readonly fetchRejected: number;
  readonly bridgeRefused: number;
  /** Handler calls whose parameters held U+FFFD (service.ts handlerSaw). */
  readonly replacementCharacter: number;
  /** real-service: log lines written so far, and the last few (real-service-child.ts). */
  readonly logLines: number;
  readonly logTail: readonly string[];
}

export interface Memory {
  readonly hwmMb: number;
  readonly rssMb: number;
}

const running = new Set<ChildProcess>();
process.once("exit", () => {
  for (const child of running) child.kill("SIGKILL");
});

export class AttackChild {
  readonly pid: number;
  readonly port: number;
  /** What the child reported with its port (real-service: its data folder and accounts). */
  readonly info: unknown;
  /** Exit code or signal once the child is gone; undefined while it runs. */
  exit: string | undefined;
  /** Lines the child wrote to stderr (its default logger writes there), and the last few. */
  readonly stderr: { lines: number; readonly tail: string[] };
  private readonly process: ChildProcess;
  private nextId = 1;
  private readonly replies = new Map<number, (value: unknown) => void>();

  private constructor(
    child: ChildProcess,
    port: number,
    info: unknown,
    stderr: { lines: number; readonly tail: string[] },
  ) {
    this.process = child;
    this.info = info;
    this.stderr = stderr;
    this.pid = child.pid ?? 0;
    this.port = port;
    child.on("message", (message: { id?: number; reply?: unknown }) => {
      if (message.id !== undefined) {
        this.replies.get(message.id)?.(message.reply);
        this.replies.delete(message.id);
      }
    });
    child.once("exit", (code, signal) => {
      this.exit = signal ?? String(code);
      running.delete(child);
      for (const resolve of this.replies.values()) resolve(undefined);
      this.replies.clear();
    });
  }

  static async start(config: ChildConfig, nodeArgs: readonly string[] = []): Promise<AttackChild> {
    const child = spawn(
      process.execPath,
      [...nodeArgs, "--import", "tsx", CHILD_MAIN, JSON.stringify(config)],
      {
        stdio: ["ignore", "ignore", "pipe", "ipc"],
      },
    );
    running.add(child);
    let partial = "";
    const stderr = { lines: 0, tail: [] as string[] };
    child.stderr?.setEncoding("utf8");
    child.stderr?.on("data", (text: string) => {
      const parts = (partial + text).split("\n");
      partial = parts.pop() ?? "";
      stderr.lines += parts.length;
      stderr.tail.push(...parts.slice(-5).map((l) => l.slice(0, 300)));
      stderr.tail.splice(0, Math.max(0, stderr.tail.length - 5));
    });
    const started = await new Promise<{ port?: number; info?: unknown }>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error("the attack child did not start in 60 s")), 60_000);
      child.once("message", (m: { port?: number; info?: unknown }) => {
        clearTimeout(timer);
        resolve(m);
      });
      child.once("exit", (code) => {
        clearTimeout(timer);
        reject(new Error(`the attack child exited (${code}) before listening: ${stderr.tail.join(" | ")}`));
      });
    });
    return new AttackChild(child, started.port ?? 0, started.info, stderr);
  }

  /** Sends a request over IPC and waits (at most timeoutMs) for the child's reply. */
  ask<T>(message: Record<string, unknown>, timeoutMs = 10_000): Promise<T | undefined> {
    if (this.exit !== undefined) return Promise.resolve(undefined);
    const id = this.nextId++;
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.replies.delete(id);
        resolve(undefined);
      }, timeoutMs);
      this.replies.set(id, (value) => {
        clearTimeout(timer);
        resolve(value as T);
      });
      this.process.send({ ...message, id });
    });
  }

  stats(reset = false): Promise<ChildStats | undefined> {
    return this.ask<ChildStats>({ type: "stats", reset });
  }

  /** VmHWM (peak resident set since start) and VmRSS of the child, MiB. */
  memory(): Memory {
    try {
      const status = readFileSync(`/proc/${this.pid}/status`, "utf8");
      const kb = (key: string) => Number(new RegExp(`^${key}:\\s+(\\d+)`, "m").exec(status)?.[1] ?? 0);
      return { hwmMb: kb("VmHWM") / 1024, rssMb: kb("VmRSS") / 1024 };
    } catch {
      return { hwmMb: 0, rssMb: 0 };
    }
  }

  get alive(): boolean {
    return this.exit === undefined;
  }

  async stop(): Promise<void> {
    if (this.exit !== undefined) return;
    const gone = new Promise<void>((resolve) => this.process.once("exit", () => resolve()));
    this.process.kill("SIGTERM");
    const timer = setTimeout(() => this.process.kill("SIGKILL"), 3000);
    await gone;
    clearTimeout(timer);
  }
}
