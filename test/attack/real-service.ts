// Attacks on the reference service itself (not the generated server with a fixture implementation): the
// whole app in its own process (AttackChild "real-service" mode, real-service-child.ts) on a fresh SQLite
// database, plain HTTP calls to it with bounded times and sizes, and a probe that keeps calling while an
// attack runs, so that a row can say how slow an honest caller got during the attack.
//
//   const service = await startRealService({ accounts: [{ username: "victim", password: "...", lists: ["L"] }] });
//   const { result, probes } = await probeDuring(attack(service.port), () => healthz(service.port));
//   probes.maxMs <= 1000 ...
//   await service.child.stop();

import http from "node:http";
import { AttackChild } from "./child.js";
import type { RealServiceConfig, RealServiceInfo } from "./real-service-child.js";

export const ENDPOINT_PATH = "/ExternalAPIService.asmx";

export interface RealService {
  readonly child: AttackChild;
  readonly port: number;
  readonly url: string;
  readonly info: RealServiceInfo;
}

/** Starts the service in its own process; `nodeArgs` such as `--max-old-space-size=256` bound its heap. */
export async function startRealService(
  config: RealServiceConfig = {},
  nodeArgs: readonly string[] = [],
): Promise<RealService> {
  const child = await AttackChild.start({ mode: "real-service", service: config }, nodeArgs);
  return {
    child,
    port: child.port,
    url: `http://127.0.0.1:${child.port}`,
    info: child.info as RealServiceInfo,
  };
}

export interface HttpAnswer {
  readonly kind: "answer";
  readonly status: number;
  readonly headers: http.IncomingHttpHeaders;
  /** The body as text, cut at maxBodyBytes. */
  readonly body: string;
  readonly ms: number;
}

export interface HttpFailure {
  readonly kind: "failed";
  /** "timeout", or the socket error's code/message. */
  readonly detail: string;
  readonly ms: number;
}

export type HttpOutcome = HttpAnswer | HttpFailure;

export interface RequestOptions {
  readonly method?: string;
  readonly headers?: Readonly<Record<string, string>>;
  readonly body?: string | Buffer;
  /** The whole exchange, from connecting to the last byte (default 10 s). */
  readonly timeoutMs?: number;
  /** Body bytes kept (default 64 KiB); the rest is read and dropped. */
  readonly maxBodyBytes?: number;
  /** The loopback address the connection comes from (any of 127.0.0.0/8: a caller of its own). */
  readonly localAddress?: string;
}

/** One request on its own connection (no agent, so it never waits behind an attack's sockets). */
export function request(port: number, path: string, options: RequestOptions = {}): Promise<HttpOutcome> {
  const started = performance.now();
  const limit = options.maxBodyBytes ?? 64 * 1024;
  return new Promise((resolve) => {
    let settled = false;
    const finish = (outcome: HttpOutcome) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      req.destroy();
      resolve(outcome);
    };
    const body =
      options.body === undefined
        ? undefined
        : Buffer.isBuffer(options.body)
          ? options.body
          : Buffer.from(options.body, "utf8");
    const req = http.request(
      {
        host: "127.0.0.1",
        port,
        path,
        method: options.method ?? (body === undefined ? "GET" : "POST"),
        agent: false,
        ...(options.localAddress === undefined ? {} : { localAddress: options.localAddress }),
        headers: {
          ...(body === undefined ? {} : { "content-length": String(body.length) }),
          ...options.headers,
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        let kept = 0;
        res.on("data", (chunk: Buffer) => {
          if (kept >= limit) return;
          chunks.push(chunk.subarray(0, limit - kept));
          kept += Math.min(chunk.length, limit - kept);
        });
        res.on("end", () =>
          finish({
            kind: "answer",
            status: res.statusCode ?? 0,
            headers: res.headers,
            body: Buffer.concat(chunks).toString("utf8"),
            ms: performance.now() - started,
          }),
        );
        res.on("error", (error: NodeJS.ErrnoException) =>
          finish({ kind: "failed", detail: error.code ?? error.message, ms: performance.now() - started }),
        );
      },
    );
    const timer = setTimeout(
      () => finish({ kind: "failed", detail: "timeout", ms: performance.now() - started }),
      options.timeoutMs ?? 10_000,
    );
    req.on("error", (error: NodeJS.ErrnoException) =>
      finish({ kind: "failed", detail: error.code ?? error.message, ms: performance.now() - started }),
    );
    req.end(body);
  });
}

/** An operation over HTTP POST (form-encoded), the cheapest binding to write by hand. */
export function callHttpPost(
  port: number,
  operation: string,
  params: Readonly<Record<string, string>>,
  options: RequestOptions = {},
): Promise<HttpOutcome> {
  return request(port, `${ENDPOINT_PATH}/${operation}`, {
    ...options,
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", ...options.headers },
    body: new URLSearchParams(params).toString(),
  });
}

/** GET /healthz: the database answers and the event loop is free. */
export function healthz(port: number, timeoutMs = 10_000): Promise<HttpOutcome> {
  return request(port, "/healthz", { timeoutMs });
}

export interface ProbeStats {
  readonly count: number;
  /** Probes that got no answer, or an answer whose status was not `okStatus`. */
  readonly failed: number;
  readonly maxMs: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  /** The first few failures, for the row's details. */
  readonly examples: readonly string[];
}

export interface ProbeOptions {
  /** Pause between one probe's answer and the next probe (default 100 ms). */
  readonly everyMs?: number;
  /** The status a good answer has (default 200). */
  readonly okStatus?: number;
}

/**
 * Runs `probe` one after another, every `everyMs`, for as long as `attack` is pending (at least once, and
 * once more after it settled is not done: the row measures during the attack). Returns the attack's result
 * and the probes' latencies.
 */
export async function probeDuring<T>(
  attack: Promise<T>,
  probe: () => Promise<HttpOutcome>,
  options: ProbeOptions = {},
): Promise<{ result: T; probes: ProbeStats }> {
  const everyMs = options.everyMs ?? 100;
  const okStatus = options.okStatus ?? 200;
  let done = false;
  const settled = attack.finally(() => {
    done = true;
  });
  const times: number[] = [];
  const examples: string[] = [];
  let failed = 0;
  do {
    const outcome = await probe();
    times.push(outcome.ms);
    if (outcome.kind === "failed" || outcome.status !== okStatus) {
      failed++;
      if (examples.length < 5)
        examples.push(
          outcome.kind === "failed"
            ? `probe failed: ${outcome.detail} after ${Math.round(outcome.ms)} ms`
            : `probe answered ${outcome.status} after ${Math.round(outcome.ms)} ms`,
        );
    }
    if (!done)
      await Promise.race([
        settled.catch(() => undefined),
        new Promise((resolve) => setTimeout(resolve, everyMs)),
      ]);
  } while (!done);
  const result = await settled;
  const sorted = [...times].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
  return {
    result,
    probes: {
      count: times.length,
      failed,
      maxMs: sorted.at(-1) ?? 0,
      p50Ms: at(0.5),
      p99Ms: at(0.99),
      examples,
    },
  };
}

/** "n probes, p50 x ms, max y ms" for a row's measured column. */
export function describeProbes(probes: ProbeStats): string {
  return `${probes.count} probes: p50 ${Math.round(probes.p50Ms)} ms, max ${Math.round(probes.maxMs)} ms${probes.failed ? `, ${probes.failed} failed` : ""}`;
}

/** Runs `count` tasks with at most `concurrency` in flight; bounded by `count`. */
export async function inParallel(
  count: number,
  concurrency: number,
  task: (index: number) => Promise<void>,
): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < count) await task(next++);
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, count) }, worker));
}
