// Peers for the shadow proxy's tests, all on loopback: a legacy stand-in that differs from our server in
// planted, known ways; compared hosts that are slow (held until released), dead, or answer garbage; a raw
// HTTP reader that sees a response's status line, headers and body bytes as sent.

import http from "node:http";
import net, { type AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";
import { createClient } from "../../generated/client.js";
import type { BindingName } from "../../generated/runtime/model.js";
import { parseShadowConfig, type ShadowConfig } from "../../generator/shadow/config.js";
import {
  startShadowProxy,
  type Comparison,
  type Exchange,
  type ShadowProxy,
  type ShadowProxyOptions,
} from "../../generator/shadow/proxy.js";
import { startFixtureServer, type FixtureServer } from "../fixtures/fixture-server.js";
import { listenOnLoopback, type Listening } from "../fixtures/raw-http.js";
import { samples } from "../fixtures/samples.js";

export const ROOT = fileURLToPath(new URL("../../", import.meta.url));
export const SPEC = "spec/ExternalAPIService.yaml";
export const BINDINGS: readonly BindingName[] = ["soap11", "soap12", "httpGet", "httpPost"];

/**
 * The planted differences of the legacy stand-in, each with what the comparison must report. The stand-in is
 * our server behind a rewriting layer, under /legacy/ (the proxy maps the path for our server).
 */
export const PLANTED = {
  /** Every binding: the first ROI row's value differs. */
  roiValue: { operation: "GetRoiResults", path: "RoiResult[1]/Value", legacy: "12.75", ours: "12.5" },
  /** HTTP GET only: the host fails the call with a 500 text. */
  filtersOnGet: {
    operation: "GetNewsletterFilters",
    binding: "httpGet",
    path: "status",
    legacy: "500",
    ours: "200",
  },
} as const;

/** Legacy rewrites that are not differences: a volatile timestamp, and a DataSet schema in .NET's other form. */
function rewrite(operation: string | undefined, body: string, calls: number): string {
  switch (operation) {
    case "GetRoiResults":
      return body.replace(">12.5<", ">12.75<");
    case "GetTriggerIdForAccount":
      // A creation time the host fills in: the config calls it volatile.
      return body.replace(
        /<Created>[^<]*<\/Created>/g,
        `<Created>2031-01-01T00:00:${String(calls % 60).padStart(2, "0")}</Created>`,
      );
    case "GetSubscriberMailingLists":
      // Another .NET version's schema: no msdata:UseCurrentLocale, another prefix for XML Schema.
      return body
        .replace(' msdata:UseCurrentLocale="true"', "")
        .replace(/xmlns:xs=/g, "xmlns:x2=")
        .replace(/(<\/?)xs:/g, "$1x2:")
        .replace(/"xs:/g, '"x2:');
    default:
      return body;
  }
}

function operationOf(req: http.IncomingMessage, body: string): string | undefined {
  const path = (req.url ?? "").split("?")[0]!;
  const slash = path.lastIndexOf("/");
  const tail = path.slice(slash + 1);
  if (tail !== "ExternalAPIService.asmx") return tail;
  return /<(?:\w+:)?Body[^>]*>\s*<(?:\w+:)?(\w+)/.exec(body)?.[1];
}

export interface LegacyStandIn {
  /** http://127.0.0.1:port/legacy/ExternalAPIService.asmx */
  readonly endpointUrl: string;
  readonly inner: FixtureServer;
  /** Requests the stand-in answered, by operation. */
  readonly answered: Map<string, number>;
  /** Every request's method, path and body length, in order. */
  readonly received: { method: string; url: string; bodyBytes: number }[];
  /** Raw answers as the stand-in sent them (status line, headers as written, body), newest last. */
  close(): Promise<void>;
}

export async function startLegacyStandIn(): Promise<LegacyStandIn> {
  const inner = await startFixtureServer();
  const answered = new Map<string, number>();
  const received: LegacyStandIn["received"] = [];
  let calls = 0;
  const outer: Listening = await listenOnLoopback((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const request = Buffer.concat(chunks);
      received.push({ method: req.method ?? "", url: req.url ?? "", bodyBytes: request.length });
      const operation = operationOf(req, request.toString("utf8"));
      answered.set(operation ?? "?", (answered.get(operation ?? "?") ?? 0) + 1);
      // No Date header: the bytes a caller gets are then the same on every call.
      res.sendDate = false;
      if (operation === "GetNewsletterFilters" && req.method === "GET") {
        const text = "System.Exception: The filters are offline\r\n   at Legacy.Filters()";
        res.writeHead(500, "Internal Server Error", {
          "Content-Type": "text/plain; charset=utf-8",
          "X-AspNet-Version": "4.0.30319",
          "Content-Length": Buffer.byteLength(text),
        });
        res.end(text);
        return;
      }
      const path = (req.url ?? "").replace(/^\/legacy/, "");
      const headers: http.OutgoingHttpHeaders = { ...req.headers, "content-length": String(request.length) };
      delete headers["transfer-encoding"];
      const up = http.request(
        `${inner.baseUrl}${path}`,
        { method: req.method, headers, agent: false },
        (answer) => {
          const parts: Buffer[] = [];
          answer.on("data", (c: Buffer) => parts.push(c));
          answer.on("end", () => {
            const body = Buffer.from(
              rewrite(operation, Buffer.concat(parts).toString("utf8"), calls++),
              "utf8",
            );
            const out: Record<string, string> = {
              "X-AspNet-Version": "4.0.30319",
              "Cache-Control": "private, max-age=0",
            };
            for (const [name, value] of Object.entries(answer.headers)) {
              if (name === "content-type" || name === "x-error-code")
                out[name === "content-type" ? "Content-Type" : name] = String(value);
            }
            out["Content-Length"] = String(body.length);
            res.writeHead(answer.statusCode ?? 500, out);
            res.end(body);
          });
        },
      );
      up.end(request);
    });
  });
  return {
    endpointUrl: `${outer.origin}/legacy/ExternalAPIService.asmx`,
    inner,
    answered,
    received,
    close: async () => {
      await outer.close();
      await inner.close();
    },
  };
}

/** A compared host that takes requests and answers none until released. */
export async function startHeldHost(
  target: string,
): Promise<Listening & { received: number; release(): void }> {
  const waiting: (() => void)[] = [];
  let released = false;
  const state = { received: 0 };
  const listening = await listenOnLoopback((req, res) => {
    state.received++;
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const go = () => {
        const up = http.request(
          `${target}${req.url ?? ""}`,
          { method: req.method, headers: req.headers, agent: false },
          (answer) => {
            res.writeHead(answer.statusCode ?? 500, answer.headers);
            answer.pipe(res);
          },
        );
        up.on("error", () => res.destroy());
        up.end(Buffer.concat(chunks));
      };
      if (released) go();
      else waiting.push(go);
    });
  });
  const release = () => {
    released = true;
    for (const go of waiting.splice(0)) go();
  };
  return Object.defineProperties(listening, {
    received: { get: () => state.received },
    release: { value: release },
  }) as Listening & { received: number; release(): void };
}

/** A TCP listener that answers every connection with bytes that are not HTTP. */
export async function startGarbageHost(): Promise<{ port: number; close(): Promise<void> }> {
  const server = net.createServer((socket) => {
    socket.on("error", () => undefined);
    socket.once("data", () => socket.end("\x00\x01garbage that is not HTTP\r\n\r\n"));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    port: (server.address() as AddressInfo).port,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** A port nothing listens on. */
export async function deadPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

export function shadowConfig(text: string): ShadowConfig {
  return parseShadowConfig(`spec: ${SPEC}\nlisten: 127.0.0.1:0\n${text}`, "shadow.yaml", ROOT);
}

export interface RunningProxy {
  readonly proxy: ShadowProxy;
  readonly comparisons: Comparison[];
  readonly exchanges: Exchange[];
  /** The base URL a caller of the answering host's path uses (the generated client appends the endpoint). */
  baseUrl(prefix: string): string;
}

export async function runProxy(
  config: ShadowConfig,
  options: Omit<ShadowProxyOptions, "observer"> = {},
): Promise<RunningProxy> {
  const comparisons: Comparison[] = [];
  const exchanges: Exchange[] = [];
  const proxy = await startShadowProxy(config, {
    ...options,
    observer: { comparison: (c) => comparisons.push(c), exchange: (e) => exchanges.push(e) },
  });
  return { proxy, comparisons, exchanges, baseUrl: (prefix) => `${proxy.url}${prefix}` };
}

/** Every read operation's sample call on every binding through the generated client; results or errors. */
export async function callReads(baseUrl: string, operations: readonly string[]): Promise<number> {
  let calls = 0;
  for (const binding of BINDINGS) {
    const client = createClient({ baseUrl, username: "u", password: "p", binding }) as unknown as Record<
      string,
      (p: unknown) => Promise<unknown>
    >;
    for (const op of operations) {
      await client[op]!(samples[op as keyof typeof samples].params).catch(() => undefined);
      calls++;
    }
  }
  return calls;
}

/** A response as sent on the wire: the status line, the header lines in order and case, the body bytes. */
export interface RawAnswer {
  readonly statusLine: string;
  readonly headers: readonly [string, string][];
  readonly body: Buffer;
}

/** Sends a request over a fresh connection (Connection: close) and reads the response as sent. */
export function rawExchange(
  url: string,
  method: string,
  headers: Record<string, string>,
  body = "",
): Promise<RawAnswer> {
  const target = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(target.port), target.hostname);
    const chunks: Buffer[] = [];
    socket.on("data", (c: Buffer) => chunks.push(c));
    socket.on("error", reject);
    socket.on("end", () => {
      const all = Buffer.concat(chunks);
      const split = all.indexOf("\r\n\r\n");
      const head = all.subarray(0, split).toString("latin1").split("\r\n");
      const lines: [string, string][] = head.slice(1).map((line) => {
        const colon = line.indexOf(":");
        return [line.slice(0, colon), line.slice(colon + 1).trim()];
      });
      let rest = all.subarray(split + 4);
      if (lines.some(([n, v]) => n.toLowerCase() === "transfer-encoding" && /chunked/i.test(v))) {
        const parts: Buffer[] = [];
        for (let guard = 0; guard < 100_000; guard++) {
          const eol = rest.indexOf("\r\n");
          const size = parseInt(rest.subarray(0, eol).toString("latin1"), 16);
          if (!(size > 0)) break;
          parts.push(rest.subarray(eol + 2, eol + 2 + size));
          rest = rest.subarray(eol + 2 + size + 2);
        }
        rest = Buffer.concat(parts);
      }
      resolve({ statusLine: head[0]!, headers: lines, body: rest });
    });
    const bytes = Buffer.from(body, "utf8");
    const lines = [
      `${method} ${target.pathname}${target.search} HTTP/1.1`,
      `Host: ${headers["Host"] ?? target.host}`,
      "Connection: close",
    ];
    for (const [name, value] of Object.entries(headers)) if (name !== "Host") lines.push(`${name}: ${value}`);
    if (method !== "GET") lines.push(`Content-Length: ${bytes.length}`);
    socket.write(`${lines.join("\r\n")}\r\n\r\n`);
    socket.write(bytes);
  });
}

/** The end-to-end headers of a raw answer (what a proxy must pass as they are). */
export function endToEndHeaders(answer: RawAnswer): [string, string][] {
  const hop = new Set(["connection", "keep-alive", "transfer-encoding"]);
  return answer.headers.filter(([name]) => !hop.has(name.toLowerCase()));
}

/** Waits until `condition` holds, polling; bounded. */
export async function until(condition: () => boolean, what: string, ms = 20_000): Promise<void> {
  const end = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
