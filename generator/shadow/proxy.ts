// The shadow proxy: every request goes to the answering host (the legacy host in mirror mode, ours in
// cut-over mode), whose answer the caller gets as sent: status line, headers in their order and case, body
// bytes (the hop-by-hop headers of RFC 9110 §7.6.1 are each connection's own). A copy of each request the
// config mirrors goes to the compared host afterwards, from a bounded queue, and the two answers are
// compared (compare.ts). The caller's answer never waits for the compared host: the copy is sent only once
// the answering host's answer has come whole (and gone on to the caller), on connections of its own, and
// whatever the compared host does (slow, dead, garbage) ends in a counter.
//
// Memory: a request is collected for comparison only while it and everything else held stays under
// limits.pendingBytes, and each body under limits.compareBytes; past either the exchange is passed on
// uncompared and counted as dropped. The queue holds at most limits.queue requests; limits.concurrency are
// in flight. So what the proxy holds is bounded by pendingBytes plus node's own per-connection buffers.
// Nothing of a request is kept once its comparison is done; reports (report.ts) store redacted copies.

import http from "node:http";
import https from "node:https";
import type { AddressInfo } from "node:net";
import { compareAnswers, type Answer, type CompareRules, type Verdict } from "./compare.js";
import { createRouter, type BindingLabel, type Classified } from "./classify.js";
import { mirrors, type HostPort, type ShadowConfig } from "./config.js";
import {
  createMetrics,
  METRICS_CONTENT_TYPE,
  type DropReason,
  type ShadowFailure,
  type ShadowMetrics,
} from "./metrics.js";

/** One compared exchange, as reports take it. Bodies are the bytes as sent; redaction is the report's. */
export interface Comparison {
  readonly operation: string;
  readonly binding: BindingLabel;
  readonly method: string;
  /** The request's path and query as the caller sent it. */
  readonly url: string;
  readonly requestHeaders: Readonly<Record<string, string>>;
  readonly requestBody: Uint8Array;
  readonly legacy: Answer;
  readonly ours: Answer;
  readonly verdict: Verdict;
  /** When the caller's request arrived (ms since the epoch). */
  readonly at: number;
}

/** An exchange with the answering host alone (record mode, or one not compared). */
export interface Exchange {
  readonly operation: string;
  readonly binding: BindingLabel;
  readonly method: string;
  readonly url: string;
  readonly requestHeaders: Readonly<Record<string, string>>;
  readonly requestBody: Uint8Array;
  readonly answer: Answer;
  readonly at: number;
}

export interface ShadowObserver {
  /** Each comparison done. Must not throw; it runs off the caller's path. */
  comparison?(comparison: Comparison): void;
  /** Each exchange collected with the answering host's answer (record): only when `collectAll` is set. */
  exchange?(exchange: Exchange): void;
}

export interface ShadowProxyOptions {
  readonly observer?: ShadowObserver;
  /**
   * Collect every operation request and answer of the answering host for `observer.exchange` (record
   * mode), within the same memory bounds, whether or not it is mirrored.
   */
  readonly collectAll?: boolean;
}

export interface ShadowProxy {
  /** http://host:port of the proxy. */
  readonly url: string;
  /** http://host:port/metrics, when the config has metrics. */
  readonly metricsUrl: string | undefined;
  readonly metrics: ShadowMetrics;
  /** What is held right now (tests and the bench): queue length, in flight, bytes. */
  held(): { queued: number; inFlight: number; pendingBytes: number };
  /** Resolves once every queued and in-flight comparison has ended (bounded by the shadow timeout). */
  drain(): Promise<void>;
  close(): Promise<void>;
}

/** Hop-by-hop headers (RFC 9110 §7.6.1) and what the proxy itself settles with each side. */
const HOP_BY_HOP = new Set([
  "connection",
  "keep-alive",
  "proxy-connection",
  "proxy-authenticate",
  "proxy-authorization",
  "te",
  "trailer",
  "transfer-encoding",
  "upgrade",
  "expect",
]);

/** Raw header pairs without the hop-by-hop ones and those the Connection header names. */
function endToEnd(raw: readonly string[]): string[] {
  let named: Set<string> | undefined;
  for (let i = 0; i < raw.length; i += 2) {
    if (raw[i]!.toLowerCase() === "connection") {
      named ??= new Set();
      for (const token of raw[i + 1]!.split(",")) named.add(token.trim().toLowerCase());
    }
  }
  const out: string[] = [];
  for (let i = 0; i < raw.length; i += 2) {
    const lower = raw[i]!.toLowerCase();
    if (HOP_BY_HOP.has(lower) || named?.has(lower)) continue;
    out.push(raw[i]!, raw[i + 1]!);
  }
  return out;
}

/** Raw pairs with Host replaced, as an outgoing request's header list. */
function withHost(raw: readonly string[], host: string | undefined): string[] {
  const out: string[] = [];
  for (let i = 0; i < raw.length; i += 2) {
    if (host !== undefined && raw[i]!.toLowerCase() === "host") continue;
    out.push(raw[i]!, raw[i + 1]!);
  }
  if (host !== undefined) out.push("Host", host);
  return out;
}

/** Lower-case names, repeated values joined by ", " (as compare.ts takes them). */
function headerRecord(raw: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i]!.toLowerCase();
    out[name] = out[name] === undefined ? raw[i + 1]! : `${out[name]}, ${raw[i + 1]!}`;
  }
  return out;
}

/** What node's agents do with a request that are not in their public types. */
interface AgentInternals {
  addRequest(req: http.ClientRequest, options: object): void;
  readonly freeSockets: Record<string, import("node:net").Socket[] | undefined>;
  readonly sockets: Record<string, import("node:net").Socket[] | undefined>;
}

/**
 * A keep-alive agent of one origin that hands a request a free socket the short way. Node's addRequest
 * copies the request's options and the agent's into a new object on every request only to name the origin
 * (the largest single cost of a proxied request in a profile), then gives the reused socket a fresh async
 * context. An agent of one origin has one name; nothing here uses async context. So a free socket is taken
 * as node takes it (destroyed ones skipped, the newest first as `lifo` says, listed in `sockets` until it
 * is free again) and given to the request as node gives it; with none free, node's own way opens or queues.
 */
function oneOrigin<T extends typeof http.Agent>(Base: T): T {
  return class extends (Base as typeof http.Agent) {
    addRequest(req: http.ClientRequest, options: object): void {
      const self = this as unknown as AgentInternals;
      for (const name in self.freeSockets) {
        const free = self.freeSockets[name]!;
        while (free.length > 0 && free[0]!.destroyed) free.shift();
        const socket = free.pop();
        if (free.length === 0) delete self.freeSockets[name];
        if (socket === undefined) break;
        this.reuseSocket(socket, req);
        (req as unknown as { onSocket(socket: import("node:net").Socket): void }).onSocket(socket);
        (self.sockets[name] ??= []).push(socket);
        return;
      }
      (Base.prototype as unknown as AgentInternals).addRequest.call(this, req, options);
    }
  } as unknown as T;
}

const OneOriginHttpAgent = oneOrigin(http.Agent);
const OneOriginHttpsAgent = oneOrigin(https.Agent);

interface Upstream {
  readonly url: URL;
  readonly agent: http.Agent;
  readonly request: typeof http.request;
  /** The endpoint's path as the host has it. */
  readonly endpointPath: string;
  readonly hostHeader: string;
}

function upstream(url: URL, sockets: number): Upstream {
  const secure = url.protocol === "https:";
  const options = {
    keepAlive: true,
    maxSockets: sockets,
    maxFreeSockets: sockets,
    scheduling: "lifo" as const,
  };
  return {
    url,
    agent: secure ? new OneOriginHttpsAgent(options) : new OneOriginHttpAgent(options),
    request: secure ? https.request : http.request,
    endpointPath: url.pathname,
    hostHeader: url.host,
  };
}

/** The byte budget shared by every exchange collected for comparison. */
class Budget {
  used = 0;
  constructor(readonly limit: number) {}
  take(n: number): boolean {
    if (this.used + n > this.limit) return false;
    this.used += n;
    return true;
  }
  give(n: number): void {
    this.used -= n;
  }
}

/** A body being collected within the budget and a per-body limit; `failed` once either is exceeded. */
class Collector {
  chunks: Buffer[] = [];
  bytes = 0;
  failed = false;
  constructor(
    private readonly budget: Budget,
    private readonly max: number,
  ) {}
  add(chunk: Buffer): boolean {
    if (this.failed) return false;
    if (this.bytes + chunk.length > this.max || !this.budget.take(chunk.length)) {
      this.release();
      this.failed = true;
      return false;
    }
    this.chunks.push(chunk);
    this.bytes += chunk.length;
    return true;
  }
  body(): Buffer {
    if (this.chunks.length !== 1) this.chunks = [Buffer.concat(this.chunks, this.bytes)];
    return this.chunks[0] ?? Buffer.alloc(0);
  }
  release(): void {
    this.budget.give(this.bytes);
    this.bytes = 0;
    this.chunks = [];
  }
}

/** What the proxy collects of one caller's exchange while it may still be compared or recorded. */
interface Pending {
  readonly at: number;
  readonly method: string;
  readonly url: string;
  readonly rawHeaders: string[];
  /** The caller's end-to-end headers (no hop-by-hop ones, Host as sent), for every host's copy. */
  readonly endToEnd: string[];
  /** The caller's headers by lower-case name, once read (decide). */
  headers: Record<string, string> | undefined;
  readonly request: Collector;
  primary: Collector | undefined;
  primaryAnswer: Answer | undefined;
  classified: Classified | undefined;
  /** "mirror": waiting for or running on the compared host; "record": only the answering host's answer. */
  role: "undecided" | "mirror" | "record" | "none";
  shadowAnswer: Answer | undefined;
  shadowCollector: Collector | undefined;
  /** The exchange has ended (compared, recorded or given up); its collectors are released. */
  done: boolean;
  /** To be mirrored once the answering host's answer is complete (then it joins the queue). */
  awaitingAnswer: boolean;
  /** Why the request itself could not be collected (counted when it is classified). */
  dropped: DropReason | undefined;
  /** The caller sent the body chunked. */
  readonly chunked: boolean;
}

const SHADOW_RESPONSE_LIMIT_HEADERS = 16 * 1024;

/** Starts the proxy (and its metrics listener) as the config says. */
export async function startShadowProxy(
  config: ShadowConfig,
  options: ShadowProxyOptions = {},
): Promise<ShadowProxy> {
  const { limits } = config;
  const legacy = upstream(config.legacy, limits.sockets);
  const ours = config.ours === undefined ? undefined : upstream(config.ours, limits.sockets);
  const primary = config.mode === "mirror" ? legacy : ours!;
  const compared = config.mode === "mirror" ? ours : legacy;
  const router = createRouter(config.model, primary.endpointPath);
  const budget = new Budget(limits.pendingBytes);
  const queue: Pending[] = [];
  let queueHead = 0;
  let inFlight = 0;
  /** Exchanges decided for mirroring whose answering host has not answered whole yet. */
  let awaiting = 0;
  const idle: (() => void)[] = [];
  const observer = options.observer ?? {};
  const collectAll = options.collectAll === true;
  const metrics = createMetrics({
    queued: () => queue.length - queueHead,
    inFlight: () => inFlight,
    pendingBytes: () => budget.used,
  });
  const rulesByOperation = new Map<string, CompareRules>();
  const secrets = new Set(config.secrets);
  for (const op of config.model.operations) {
    for (const p of op.params) if (p.credential) secrets.add(p.name);
    rulesByOperation.set(op.name, {
      volatile: [...config.volatile, ...(config.operations.get(op.name)?.volatile ?? [])],
      secrets,
    });
  }
  const everyRules: CompareRules = { volatile: config.volatile, secrets };

  const label = (p: Pending) => ({
    operation: p.classified?.operation ?? "(other)",
    binding: p.classified?.binding ?? "other",
  });

  /** The path and query for another host: the answering host's endpoint path replaced by that host's. */
  const pathFor = (target: Upstream, url: string): string => {
    if (target === primary) return url;
    const lower = url.toLowerCase();
    if (!lower.startsWith(router.endpointPath)) return url;
    return target.endpointPath + url.slice(router.endpointPath.length);
  };

  const finish = (p: Pending) => {
    if (p.done) return;
    p.done = true;
    if (p.awaitingAnswer) {
      p.awaitingAnswer = false;
      awaiting--;
    }
    p.request.release();
    p.primary?.release();
    p.shadowCollector?.release();
    checkIdle();
  };

  const checkIdle = () => {
    if (inFlight === 0 && awaiting === 0 && queue.length === queueHead) {
      for (const resolve of idle.splice(0)) resolve();
    }
  };

  const drop = (p: Pending, reason: DropReason) => {
    metrics.dropped.inc({ ...label(p), reason });
    finish(p);
  };

  /** Compares (or records) once everything the exchange waits for has arrived. */
  const settle = (p: Pending) => {
    if (p.done || p.primaryAnswer === undefined) return;
    const { operation, binding } = label(p);
    if (p.role === "record" || (p.role === "none" && collectAll)) {
      observer.exchange?.({
        operation,
        binding: binding as BindingLabel,
        method: p.method,
        url: p.url,
        requestHeaders: p.headers ?? headerRecord(p.rawHeaders),
        requestBody: p.request.body(),
        answer: p.primaryAnswer,
        at: p.at,
      });
      finish(p);
      return;
    }
    if (p.awaitingAnswer) {
      p.awaitingAnswer = false;
      awaiting--;
      enqueue(p);
      return;
    }
    if (p.role !== "mirror" || p.shadowAnswer === undefined) return;
    const [legacyAnswer, oursAnswer] =
      config.mode === "mirror" ? [p.primaryAnswer, p.shadowAnswer] : [p.shadowAnswer, p.primaryAnswer];
    const rules = rulesByOperation.get(operation) ?? everyRules;
    const verdict = compareAnswers(legacyAnswer, oursAnswer, rules);
    const labels = { operation, binding };
    if (verdict.outcome === "matched") metrics.matched.inc(labels);
    else if (verdict.outcome === "explained") metrics.explained.inc(labels);
    else metrics.diverged.inc(labels);
    if (observer.comparison === undefined && !(collectAll && observer.exchange !== undefined)) {
      finish(p);
      return;
    }
    const requestHeaders = p.headers ?? headerRecord(p.rawHeaders);
    const requestBody = p.request.body();
    if (collectAll) {
      observer.exchange?.({
        operation,
        binding: binding as BindingLabel,
        method: p.method,
        url: p.url,
        requestHeaders,
        requestBody,
        answer: p.primaryAnswer,
        at: p.at,
      });
    }
    observer.comparison?.({
      operation,
      binding: binding as BindingLabel,
      method: p.method,
      url: p.url,
      requestHeaders,
      requestBody,
      legacy: legacyAnswer,
      ours: oursAnswer,
      verdict,
      at: p.at,
    });
    finish(p);
  };

  const pump = () => {
    while (inFlight < limits.concurrency && queueHead < queue.length) {
      const p = queue[queueHead]!;
      queue[queueHead++] = undefined as unknown as Pending;
      if (queueHead > 1024 && queueHead * 2 > queue.length) {
        queue.splice(0, queueHead);
        queueHead = 0;
      }
      if (p.done) continue;
      sendToCompared(p);
    }
    checkIdle();
  };

  const shadowFailed = (p: Pending, reason: ShadowFailure) => {
    metrics.failed.inc({ ...label(p), reason });
    finish(p);
  };

  const sendToCompared = (p: Pending) => {
    const target = compared!;
    inFlight++;
    metrics.mirrored.inc(label(p));
    const body = p.request.body();
    // The caller's headers as the answering host got them, framing included: the copy must be read as the
    // original was (a duplicated or wrong Content-Length is refused by both, or by neither).
    const sent = withHost(p.endToEnd, config.preserveHost ? undefined : target.hostHeader);
    if (p.chunked) sent.push("Transfer-Encoding", "chunked");
    let ended = false;
    const end = (reason?: ShadowFailure) => {
      if (ended) return;
      ended = true;
      clearTimeout(timer);
      inFlight--;
      if (reason !== undefined) shadowFailed(p, reason);
      pump();
    };
    const req = target.request(
      {
        protocol: target.url.protocol,
        hostname: target.url.hostname,
        port: target.url.port,
        method: p.method,
        path: pathFor(target, p.url),
        headers: sent,
        agent: target.agent,
        maxHeaderSize: SHADOW_RESPONSE_LIMIT_HEADERS,
      },
      (res) => {
        if (p.done) {
          // Given up meanwhile (the answering host's answer was too large): read and forget.
          res.resume();
          res.on("end", () => end());
          res.on("error", () => end());
          return;
        }
        const collector = new Collector(budget, limits.compareBytes);
        p.shadowCollector = collector;
        res.on("data", (chunk: Buffer) => {
          if (p.done) return;
          if (!collector.add(chunk)) {
            end("large");
            res.destroy();
          }
        });
        res.on("end", () => {
          if (ended) return;
          if (p.done) {
            end();
            return;
          }
          p.shadowAnswer = {
            status: res.statusCode ?? 0,
            headers: headerRecord(res.rawHeaders),
            body: collector.body(),
          };
          end();
          settle(p);
        });
        res.on("error", () => end("reset"));
        res.on("aborted", () => end("reset"));
      },
    );
    const timer = setTimeout(() => {
      req.destroy();
      end("timeout");
    }, limits.shadowTimeoutMs);
    req.on("error", (error: NodeJS.ErrnoException) => {
      const code = error.code ?? "";
      end(
        code === "ECONNREFUSED" || code === "ENOTFOUND" || code === "EHOSTUNREACH"
          ? "refused"
          : code.startsWith("HPE_")
            ? "protocol"
            : "reset",
      );
    });
    req.end(body);
  };

  const enqueue = (p: Pending) => {
    if (queue.length - queueHead >= limits.queue && inFlight >= limits.concurrency) {
      drop(p, "queue");
      return;
    }
    queue.push(p);
    pump();
  };

  /** Once the caller's request is read: what becomes of the exchange. */
  const decide = (p: Pending) => {
    p.headers = headerRecord(p.rawHeaders);
    p.classified = router.classify(p.method, p.url, p.headers, p.done ? undefined : p.request.body());
    metrics.requests.inc(label(p));
    const known = p.classified.named.length > 0;
    const wanted =
      compared !== undefined && known && p.classified.named.every((name) => mirrors(config, name));
    if (p.dropped !== undefined) {
      if (wanted || (collectAll && known)) metrics.dropped.inc({ ...label(p), reason: p.dropped });
      return;
    }
    if (p.done) return;
    if (!wanted) {
      if (collectAll && known) {
        p.role = "record";
        settle(p);
      } else {
        p.role = "none";
        finish(p);
      }
      return;
    }
    p.role = "mirror";
    // The copy goes out once the caller has its answer: the compared host's work (and the proxy's part
    // of it) then never runs while the answering host is working on the caller's request, so on a
    // machine with few cores the two hosts do not compete for it (see docs/migration.md, "Cost").
    if (p.primaryAnswer !== undefined) enqueue(p);
    else {
      p.awaitingAnswer = true;
      awaiting++;
    }
  };

  const handle = (req: http.IncomingMessage, res: http.ServerResponse) => {
    const url = req.url ?? "/";
    const method = req.method ?? "GET";
    const candidate =
      (compared !== undefined || collectAll) && url.toLowerCase().startsWith(router.endpointPath);
    const forwarded = endToEnd(req.rawHeaders);
    const p: Pending = {
      at: Date.now(),
      method,
      url,
      rawHeaders: req.rawHeaders,
      endToEnd: forwarded,
      headers: undefined,
      request: new Collector(budget, limits.compareBytes),
      primary: undefined,
      primaryAnswer: undefined,
      classified: undefined,
      role: "undecided",
      awaitingAnswer: false,
      shadowAnswer: undefined,
      shadowCollector: undefined,
      done: !candidate,
      dropped: undefined,
      chunked: /chunked/i.test(String(req.headers["transfer-encoding"] ?? "")),
    };
    const forwardHeaders = withHost(forwarded, config.preserveHost ? undefined : primary.hostHeader);
    // A chunked body stays chunked: node frames a GET's or DELETE's body only when told to, and an unframed
    // body would reach the host as the start of another request.
    if (p.chunked) forwardHeaders.push("Transfer-Encoding", "chunked");
    const out = primary.request({
      protocol: primary.url.protocol,
      hostname: primary.url.hostname,
      port: primary.url.port,
      method,
      path: url,
      headers: forwardHeaders,
      agent: primary.agent,
    });
    let answered = false;
    // The caller's body goes on to the answering host as it comes, and the answer back to the caller, each
    // by hand with the same flow control as a pipe (pause on a full buffer, resume on "drain") but without a
    // pipe's listeners on both streams for every request.
    let forwarding = true;
    /** The caller's connection closed before its answer was written whole. */
    let callerGone = false;
    const resumeBody = () => {
      if (forwarding) req.resume();
    };
    // The answering host may answer before it has read the whole body, then close its connection or stop
    // reading. The rest of the body is still on the caller's connection, in front of its next request:
    // read it off (still collected within the limits, so the copy is the request as the caller sent it)
    // instead of leaving it for a request that will not take it, which would stall the caller's
    // connection until the request timeout and hold what was collected.
    out.on("close", () => {
      forwarding = false;
      if (!req.complete) req.resume();
    });
    const timer = setTimeout(() => fail(504, "timeout"), limits.primaryTimeoutMs);
    const fail = (status: number, reason: string) => {
      clearTimeout(timer);
      out.destroy();
      if (answered) return;
      answered = true;
      metrics.primaryErrors.inc({ reason });
      finish(p);
      if (res.headersSent) {
        res.destroy();
        return;
      }
      const text =
        status === 504
          ? "The answering host did not answer in time.\r\n"
          : "The answering host could not be reached.\r\n";
      res.writeHead(status, {
        "Content-Type": "text/plain; charset=utf-8",
        "Content-Length": Buffer.byteLength(text),
        Connection: "close",
      });
      res.end(text);
    };
    out.on("error", (error: NodeJS.ErrnoException) =>
      fail(502, error.code === "ECONNREFUSED" ? "refused" : "reset"),
    );
    out.on("response", (answer) => {
      if (answered) {
        answer.destroy();
        return;
      }
      answered = true;
      const collector = p.done ? undefined : new Collector(budget, limits.compareBytes);
      // The answering host's headers as they are: node adds no Date of its own.
      res.sendDate = false;
      p.primary = collector;
      res.writeHead(answer.statusCode ?? 502, answer.statusMessage, endToEnd(answer.rawHeaders));
      const resumeAnswer = () => answer.resume();
      answer.on("data", (chunk: Buffer) => {
        if (collector && !p.done && !collector.add(chunk)) drop(p, "large");
        if (!callerGone && !res.write(chunk)) {
          answer.pause();
          res.once("drain", resumeAnswer);
        }
      });
      answer.on("end", () => {
        clearTimeout(timer);
        // The caller's answer is finished before anything else is done with it.
        if (!callerGone) res.end();
        // Answered whole while the body is still coming: the host will not read it (closes `out`).
        if (!req.complete) out.destroy();
        if (collector && !p.done) {
          p.primaryAnswer = {
            status: answer.statusCode ?? 0,
            headers: headerRecord(answer.rawHeaders),
            body: collector.body(),
          };
          settle(p);
        }
      });
      answer.on("error", () => {
        clearTimeout(timer);
        finish(p);
        res.destroy();
      });
      answer.on("close", () => {
        if (!answer.complete && p.primaryAnswer === undefined) finish(p);
      });
    });
    req.on("data", (chunk: Buffer) => {
      if (forwarding && !out.write(chunk)) {
        req.pause();
        out.once("drain", resumeBody);
      }
      if (p.done) return;
      const before = p.request.bytes;
      if (!p.request.add(chunk)) {
        // Counted once the request is classified (decide), under its operation.
        p.dropped = before + chunk.length > limits.compareBytes ? "large" : "memory";
        finish(p);
      }
    });
    req.on("end", () => {
      if (forwarding) out.end();
      decide(p);
    });
    // A request that never ended (the caller went away mid-body, or sent less than it announced) is not
    // compared; whatever was collected for it is let go.
    req.on("close", () => {
      if (!req.complete && p.role === "undecided") finish(p);
    });
    // The caller went away: the answering host's exchange is abandoned too.
    // Whatever its role, an exchange whose answer will not arrive whole is not compared: a copy in the queue
    // or in flight finds it done, and what it holds is let go now.
    res.on("close", () => {
      if (!res.writableFinished) {
        callerGone = true;
        clearTimeout(timer);
        out.destroy();
        if (p.primaryAnswer === undefined) finish(p);
      }
    });
  };

  const server = http.createServer(
    { keepAlive: true, requestTimeout: limits.primaryTimeoutMs + 10_000, headersTimeout: 30_000 },
    handle,
  );
  server.on("clientError", (_error, socket) => {
    if (socket.writable)
      socket.end("HTTP/1.1 400 Bad Request\r\nConnection: close\r\nContent-Length: 0\r\n\r\n");
    else socket.destroy();
  });
  await listen(server, config.listen);
  let metricsServer: http.Server | undefined;
  if (config.metrics) {
    metricsServer = http.createServer((req, res) => {
      if (req.method === "GET" && (req.url ?? "").split("?")[0] === "/metrics") {
        res.writeHead(200, { "Content-Type": METRICS_CONTENT_TYPE });
        res.end(metrics.text());
        return;
      }
      res
        .writeHead(404, { "Content-Type": "text/plain; charset=utf-8" })
        .end("Not found: the metrics are at /metrics\n");
    });
    await listen(metricsServer, config.metrics);
  }
  const address = (s: http.Server) => {
    const a = s.address() as AddressInfo;
    return `http://${a.family === "IPv6" ? `[${a.address}]` : a.address}:${a.port}`;
  };
  const closeServer = (s: http.Server) =>
    new Promise<void>((resolve) => {
      s.close(() => resolve());
      s.closeAllConnections();
    });

  return {
    url: address(server),
    metricsUrl: metricsServer ? `${address(metricsServer)}/metrics` : undefined,
    metrics,
    held: () => ({ queued: queue.length - queueHead, inFlight, pendingBytes: budget.used }),
    drain: () =>
      new Promise<void>((resolve) => {
        idle.push(resolve);
        checkIdle();
      }),
    close: async () => {
      await Promise.all([closeServer(server), ...(metricsServer ? [closeServer(metricsServer)] : [])]);
      legacy.agent.destroy();
      ours?.agent.destroy();
    },
  };
}

function listen(server: http.Server, at: HostPort): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(at.port, at.host, () => {
      server.off("error", reject);
      resolve();
    });
  });
}
