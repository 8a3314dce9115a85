// Handler faults: an implementation whose InsertSubscriberSid throws (synchronously) or rejects with
// every awkward value there is, never settles, or returns the wrong shape, served through the node:http
// handler, the fetch adapter and a Connect/Express-style middleware chain, each with the default logger
// and with a logger that throws. The fault is chosen by the caller's user name (`{fault}/{mode}`), so one
// server serves the whole matrix. Target: every call gets a well-formed error answer.

import type http from "node:http";
import { createHandler, ServiceError, type CallContext, type ServerOptions } from "../../generated/server.js";
import {
  loadReferenceService,
  REF_BINDINGS,
  type RefBinding,
  type RefOperation,
} from "../conformance/reference/spec.js";
import { referenceRequest } from "../conformance/reference/request.js";
import { sampleImplementation, type ReceivedCall } from "../fixtures/fixture-server.js";
import { exchangeOnce, type Outcome } from "./connection.js";
import { judgeAnswer } from "./judge.js";
import { ENDPOINT } from "./requests.js";

/** Short enough for the matrix to stay quick; the never-settling handler is answered after it. */
const FAULT_HANDLER_TIMEOUT_MS = 300;

const TEN_MB = 10 * 1024 * 1024;

function errorWithThrowingMessage(): Error {
  const error = new Error("x");
  Object.defineProperty(error, "message", {
    get: () => {
      throw new Error("message getter");
    },
  });
  return error;
}

function proxyWhoseTrapsThrow(): object {
  const trap = () => {
    throw new Error("trap");
  };
  return new Proxy(
    {},
    {
      get: trap,
      set: trap,
      has: trap,
      ownKeys: trap,
      getOwnPropertyDescriptor: trap,
      getPrototypeOf: trap,
      setPrototypeOf: trap,
      defineProperty: trap,
      deleteProperty: trap,
      isExtensible: trap,
      preventExtensions: trap,
      apply: trap,
      construct: trap,
    },
  );
}

const serviceError = (code: string, message = "Refused.", status?: number) =>
  new ServiceError(code, message, status === undefined ? {} : { status });

/** Every value a handler throws or rejects with, by name. */
const THROWN: Readonly<Record<string, () => unknown>> = {
  null: () => null,
  undefined: () => undefined,
  zero: () => 0,
  "empty-string": () => "",
  string: () => "something broke",
  symbol: () => Symbol("s"),
  bigint: () => 10n,
  "null-prototype": () => Object.create(null),
  frozen: () => Object.freeze({ message: "frozen" }),
  "error-throwing-message": errorWithThrowingMessage,
  "proxy-throwing-traps": proxyWhoseTrapsThrow,
  "code-crlf": () => serviceError("Bad\r\nSet-Cookie: a=b"),
  "code-nul": () => serviceError("Bad\u0000Code"),
  "code-e-acute": () => serviceError("Café"),
  "code-emoji": () => serviceError("Code😀"),
  "code-10kb": () => serviceError("C".repeat(10 * 1024)),
  "status-0": () => serviceError("S", "Refused.", 0),
  "status-99": () => serviceError("S", "Refused.", 99),
  "status-1000": () => serviceError("S", "Refused.", 1000),
  "status-NaN": () => serviceError("S", "Refused.", Number.NaN),
  "status-200": () => serviceError("S", "Refused.", 200),
  "status-302": () => serviceError("S", "Refused.", 302),
  "message-nul": () => serviceError("M", "a\u0000b"),
  "message-crlf": () => serviceError("M", "a\r\nSet-Cookie: a=b"),
  "message-10mb": () => serviceError("M", "m".repeat(TEN_MB)),
};

/** The fault cases: each thrown value thrown and rejected, plus a promise that never settles and results of the wrong shape. */
export const FAULT_CASES: readonly string[] = [
  ...Object.keys(THROWN).flatMap((name) => [`${name}/throw`, `${name}/reject`]),
  "never-settles/async",
  "wrong-shape/sync",
  "wrong-shape/async",
];

function faultyInsert(_params: unknown, context: CallContext): unknown {
  const [name, mode] = context.credentials.username.split("/");
  if (name === "never-settles") return new Promise(() => {});
  if (name === "wrong-shape") {
    const wrong = { not: "a long" };
    return mode === "async" ? Promise.resolve(wrong) : wrong;
  }
  const make = THROWN[name];
  if (!make) return 1n;
  if (mode === "reject") return Promise.reject(make());
  throw make();
}

function faultHandler(logger: "default" | "throwing"): ReturnType<typeof createHandler> {
  const sink = { push: () => 0 } as unknown as ReceivedCall[];
  const options: ServerOptions = {
    handlerTimeoutMs: FAULT_HANDLER_TIMEOUT_MS,
    ...(logger === "throwing"
      ? {
          log: () => {
            throw new Error("the logger itself fails");
          },
        }
      : {}),
  };
  return createHandler(sampleImplementation(sink, { InsertSubscriberSid: faultyInsert as never }), options);
}

export const ADAPTERS = ["node", "fetch", "middleware"] as const;
export type Adapter = (typeof ADAPTERS)[number];
export const LOGGERS = ["default", "throwing"] as const;

export interface AdapterTrouble {
  /** Times the middleware chain's `next` was called with an error (Express would answer with a stack). */
  nextWithError: number;
  /** Times the fetch adapter's promise rejected instead of resolving with a Response. */
  fetchRejected: number;
  /** Requests the fetch bridge could not turn into a Request (methods fetch forbids, say). */
  bridgeRefused: number;
}

/**
 * `http://authority` of an absolute-form target (RFC 9112 §3.2.2; "" for the usual origin-form) and the path
 * after it, which routing uses (as Express does).
 */
function splitProtohost(url: string): readonly [string, string] {
  const m = /^https?:\/\/[^/?#]*/i.exec(url);
  return m ? [m[0], url.slice(m[0].length) || "/"] : ["", url];
}

/** Serves the fetch adapter on node:http, the way a fetch runtime would call it. */
function fetchBridge(
  fetchHandler: ReturnType<typeof createHandler>["fetch"],
  trouble: AdapterTrouble,
): http.RequestListener {
  return (req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const headers = new Headers();
      for (const [name, value] of Object.entries(req.headers)) {
        if (
          value === undefined ||
          ["host", "connection", "content-length", "transfer-encoding", "keep-alive", "expect"].includes(name)
        )
          continue;
        headers.set(name, Array.isArray(value) ? value.join(", ") : value);
      }
      const method = req.method ?? "GET";
      let request: Request;
      try {
        // An absolute-form target is the request's URL as it stands, as a fetch runtime makes it.
        const url = req.url ?? "/";
        request = new Request(splitProtohost(url)[0] === "" ? `http://127.0.0.1${url}` : url, {
          method,
          headers,
          ...(method === "GET" || method === "HEAD" ? {} : { body: Buffer.concat(chunks) }),
        });
      } catch {
        // Not the adapter's doing: a request a fetch runtime would never hand it (a method fetch refuses).
        trouble.bridgeRefused++;
        res.writeHead(405, {
          "content-type": "text/plain; charset=utf-8",
          "x-content-type-options": "nosniff",
        });
        res.end("The fetch bridge cannot build this Request.");
        return;
      }
      fetchHandler(request, { remoteAddress: req.socket.remoteAddress }).then(
        async (response) => {
          const body = Buffer.from(await response.arrayBuffer());
          const out: Record<string, string> = {};
          response.headers.forEach((value, name) => (out[name] = value));
          res.writeHead(response.status, { ...out, "content-length": body.length });
          res.end(body);
        },
        () => {
          trouble.fetchRejected++;
          res.writeHead(598, { "content-type": "text/plain" });
          res.end("the fetch adapter rejected");
        },
      );
    });
  };
}

/**
 * A minimal Connect/Express chain: mount prefix stripped from req.url as app.use does (after the scheme and
 * authority of an absolute-form target, which it keeps), an error-handling next.
 */
function middlewareChain(
  mount: string,
  handler: ReturnType<typeof createHandler>,
  trouble: AdapterTrouble,
): http.RequestListener {
  return (req, res) => {
    const originalUrl = req.url ?? "/";
    Object.assign(req, { originalUrl, baseUrl: mount });
    const [protohost, path] = splitProtohost(originalUrl);
    req.url = protohost + (path.slice(mount.length) || "/");
    const next = (error?: unknown) => {
      req.url = originalUrl;
      if (error !== undefined) {
        trouble.nextWithError++;
        res.writeHead(599, { "content-type": "text/plain" });
        res.end("next(error) was called");
        return;
      }
      // The chain's own end: a path that is not the service's (as Express's final 404 would).
      res.writeHead(404, {
        "content-type": "text/plain; charset=utf-8",
        "x-content-type-options": "nosniff",
      });
      res.end("No route.");
    };
    try {
      handler(req, res, next);
    } catch (error) {
      next(error ?? new Error("thrown"));
    }
  };
}

/** One listener for the whole matrix: `/{adapter}/{logger}/ExternalAPIService.asmx...`. */
export function faultListener(trouble: AdapterTrouble): http.RequestListener {
  const routes = new Map<string, http.RequestListener>();
  for (const logger of LOGGERS) {
    const handler = faultHandler(logger);
    routes.set(`/node/${logger}`, (req, res) => handler(req, res));
    routes.set(`/fetch/${logger}`, fetchBridge(handler.fetch, trouble));
    routes.set(`/middleware/${logger}`, middlewareChain(`/middleware/${logger}`, handler, trouble));
  }
  return (req, res) => {
    const [, adapter, logger] = splitProtohost(req.url ?? "/")[1].split("/", 3);
    const route = routes.get(`/${adapter}/${logger}`);
    if (route) return route(req, res);
    res.writeHead(404);
    res.end();
  };
}

export interface FaultCall {
  readonly adapter: Adapter;
  readonly logger: (typeof LOGGERS)[number];
  readonly binding: RefBinding;
  readonly fault: string;
}

function faultMatrix(): FaultCall[] {
  return ADAPTERS.flatMap((adapter) =>
    LOGGERS.flatMap((logger) =>
      REF_BINDINGS.flatMap((binding) => FAULT_CASES.map((fault) => ({ adapter, logger, binding, fault }))),
    ),
  );
}

/** The request bytes of one matrix call: the .NET InsertSubscriberSid with the fault named as user name. */
let insertOperation: RefOperation | undefined;
function faultRequest(call: FaultCall): Buffer {
  const op = (insertOperation ??= loadReferenceService().operations.get("InsertSubscriberSid")!);
  if (!op) throw new Error("InsertSubscriberSid missing from the spec");
  const ref = referenceRequest(op, call.binding, {
    strUsername: call.fault,
    strPassword: "p",
    strEmail: "a@b",
    strFormat: "HTML",
    strMailingListID: "1",
  });
  const target = `/${call.adapter}/${call.logger}${ENDPOINT}${ref.path}${ref.query ? `?${ref.query}` : ""}`;
  const body = Buffer.from(ref.body, "utf8");
  const head = [
    `${ref.method} ${target} HTTP/1.1`,
    "Host: 127.0.0.1",
    ...Object.entries(ref.headers).map(([n, v]) => `${n}: ${v}`),
  ];
  if (ref.method !== "GET") head.push(`Content-Length: ${body.length}`);
  return Buffer.concat([Buffer.from(`${head.join("\r\n")}\r\n\r\n`, "utf8"), body]);
}

/** Why a matrix answer is wrong, or undefined: well-formed, an error status, a clean error code. */
function judgeFaultAnswer(call: FaultCall, outcome: Outcome): string | undefined {
  if (outcome.kind !== "answer") return outcome.detail;
  const verdict = judgeAnswer(outcome);
  if (verdict) return verdict;
  if (outcome.status < 400 || outcome.status > 599) return `status ${outcome.status}`;
  const code = outcome.headers["x-error-code"];
  if (code !== undefined && !/^[A-Za-z0-9_.-]{1,100}$/.test(code))
    return `X-Error-Code ${JSON.stringify(code.slice(0, 40))}`;
  const soap = call.binding === "soap11" || call.binding === "soap12";
  const type = outcome.headers["content-type"] ?? "";
  if (soap && !/xml/.test(type)) return `SOAP error as ${type}`;
  if (!soap && !type.startsWith("text/plain")) return `HTTP-binding error as ${type}`;
  return undefined;
}

export interface FaultRun {
  readonly calls: number;
  readonly failures: Map<string, number>;
  readonly examples: string[];
  readonly slowestMs: number;
}

/** Runs the whole matrix against a faultListener on `port`, `parallel` calls at a time. */
export async function runFaultMatrix(port: number, parallel = 8): Promise<FaultRun> {
  const matrix = faultMatrix();
  const failures = new Map<string, number>();
  const examples: string[] = [];
  let next = 0;
  let slowestMs = 0;
  const worker = async () => {
    while (next < matrix.length) {
      const call = matrix[next++];
      const outcome = await exchangeOnce(port, faultRequest(call), { timeoutMs: 10_000 });
      slowestMs = Math.max(slowestMs, outcome.ms);
      const why = judgeFaultAnswer(call, outcome);
      if (why) {
        const key = `${call.adapter}/${call.fault}`;
        failures.set(key, (failures.get(key) ?? 0) + 1);
        if (examples.length < 10)
          examples.push(`${call.adapter} ${call.logger} ${call.binding} ${call.fault}: ${why}`);
      }
    }
  };
  await Promise.all(Array.from({ length: parallel }, worker));
  return { calls: matrix.length, failures, examples, slowestMs };
}
