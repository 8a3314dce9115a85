// node:http adapter: `(req, res, next?)`, usable as a plain request listener and as Express/Connect
// middleware (mounted anywhere: the endpoint is found at the end of the path).

import type { IncomingMessage, ServerResponse } from "node:http";
import type { WireResponse } from "./protocol/binding.js";
import type { IncomingCall, ServiceCore } from "./server.js";

export type NodeHandler = (req: IncomingMessage, res: ServerResponse, next?: (error?: unknown) => void) => void;

/** One string per header name. Node joins repeated headers itself except a few (set-cookie), so the
 * object is used as it is unless one of those turns up. */
function flatHeaders(req: IncomingMessage): Readonly<Record<string, string>> {
  const raw = req.headers;
  for (const name in raw) {
    if (typeof raw[name] !== "string") return copyHeaders(raw);
  }
  return raw as Record<string, string>;
}

function copyHeaders(raw: IncomingMessage["headers"]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name in raw) {
    const value = raw[name];
    if (value !== undefined) out[name] = Array.isArray(value) ? value.join(", ") : value;
  }
  return out;
}

/** Splits a request path into the part below the endpoint ("" or "/Op"), or undefined if not ours. */
export function pathBelowEndpoint(pathname: string, endpoint: string): { base: string; rest: string } | undefined {
  const lower = pathname.toLowerCase();
  const marker = markerOf(endpoint);
  const at = lower.lastIndexOf(marker);
  if (at < 0) return undefined;
  const rest = pathname.slice(at + marker.length);
  if (rest !== "" && (!rest.startsWith("/") || rest.indexOf("/", 1) >= 0)) return undefined;
  return { base: pathname.slice(0, at + marker.length), rest: rest === "/" ? "" : rest };
}

let lastEndpoint = "";
let lastMarker = "/";

/** `/{endpoint}` in lower case (remembered: every request asks for the same one). */
function markerOf(endpoint: string): string {
  if (endpoint !== lastEndpoint) {
    lastMarker = `/${endpoint.toLowerCase()}`;
    lastEndpoint = endpoint;
  }
  return lastMarker;
}

function safeDecode(path: string): string {
  if (path.indexOf("%") < 0) return path;
  try {
    return decodeURIComponent(path);
  } catch {
    return path;
  }
}

function send(res: ServerResponse, response: WireResponse, headOnly: boolean): void {
  const body = response.body;
  // The body goes out as a string in one write together with the head. byteLength flattens a body built
  // from many pieces once; when it is all ASCII (length = characters) it is written as latin1, the
  // same bytes as UTF-8 without transcoding.
  const length = Buffer.byteLength(body, "utf8");
  res.writeHead(response.status, { ...response.headers, "content-length": length });
  if (headOnly) res.end();
  else res.end(body, length === body.length ? "latin1" : "utf8");
}

const NOT_FOUND: WireResponse = { status: 404, headers: { "content-type": "text/plain; charset=utf-8" }, body: "Not found." };

/**
 * The IncomingCall of one node:http request. The endpoint URL and the caller's abort signal are made
 * only when asked for (the WSDL and help pages need the URL; only a handler reading context.signal
 * needs the signal), so an ordinary call allocates neither.
 */
class NodeCall implements IncomingCall {
  readonly method: string;
  readonly path: string;
  readonly query: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
  readonly remoteAddress: string;
  private readonly req: IncomingMessage;
  private readonly res: ServerResponse;
  private readonly base: string;
  private readonly endpoint: string;
  private controller: AbortController | undefined = undefined;

  constructor(
    req: IncomingMessage,
    res: ServerResponse,
    method: string,
    place: { base: string; rest: string },
    query: string,
    headers: Readonly<Record<string, string>>,
    body: string,
    endpoint: string,
  ) {
    this.req = req;
    this.res = res;
    this.method = method;
    this.path = place.rest;
    this.base = place.base;
    this.query = query;
    this.headers = headers;
    this.body = body;
    this.remoteAddress = req.socket.remoteAddress ?? "";
    this.endpoint = endpoint;
  }

  get endpointUrl(): string {
    const req = this.req;
    const host = this.headers["host"] ?? "localhost";
    const scheme = (req.socket as { encrypted?: boolean }).encrypted ? "https" : "http";
    const original = (req as { originalUrl?: string }).originalUrl;
    const fullPath = original !== undefined ? safeDecode(original.split("?")[0]) : this.base;
    const basePlace = pathBelowEndpoint(fullPath, this.endpoint);
    return `${scheme}://${host}${basePlace?.base ?? this.base}`;
  }

  /** Aborted when the connection closes before the answer was sent. */
  get signal(): AbortSignal {
    if (this.controller === undefined) {
      const controller = new AbortController();
      this.controller = controller;
      const res = this.res;
      if (res.destroyed) {
        if (!res.writableFinished) controller.abort();
      } else {
        res.on("close", () => {
          if (!res.writableFinished) controller.abort();
        });
      }
    }
    return this.controller.signal;
  }
}

/** An error the core did not turn into an answer: Express's next(error), or the connection dropped. */
function failed(res: ServerResponse, error: unknown, next: ((error?: unknown) => void) | undefined): void {
  if (next) next(error);
  else res.destroy(error as Error);
}

export function createNodeHandler(core: ServiceCore): NodeHandler {
  const endpoint = core.service.endpoint;
  const limit = core.options.maxBodyBytes;

  return (req, res, next) => {
    const url = req.url ?? "/";
    const q = url.indexOf("?");
    const pathname = q < 0 ? url : url.slice(0, q);
    const place = pathBelowEndpoint(safeDecode(pathname), endpoint);
    if (!place) {
      if (next) return next();
      return send(res, NOT_FOUND, false);
    }
    const method = req.method ?? "GET";
    const headers = flatHeaders(req);
    const declared = Number(headers["content-length"] ?? 0);
    if (declared > limit) {
      // Refused from the header alone: the body is never read.
      res.setHeader("connection", "close");
      send(res, core.tooLarge(method, place.rest, headers["content-type"], limit), false);
      req.resume();
      return;
    }
    // Most bodies arrive in one chunk: keep it as is, collect only when a second one comes.
    let first: Buffer | undefined;
    let more: Buffer[] | undefined;
    let size = 0;
    let refused = false;
    req.on("data", (chunk: Buffer) => {
      if (refused) return;
      size += chunk.length;
      if (size > limit) {
        refused = true;
        first = undefined;
        more = undefined;
        res.setHeader("connection", "close");
        send(res, core.tooLarge(method, place.rest, headers["content-type"], limit), false);
        req.destroy();
        return;
      }
      if (first === undefined) first = chunk;
      else (more ??= [first]).push(chunk);
    });
    req.on("end", () => {
      if (refused) return;
      const body = more !== undefined ? Buffer.concat(more, size).toString("utf8") : first !== undefined ? first.toString("utf8") : "";
      const call = new NodeCall(req, res, method, place, q < 0 ? "" : url.slice(q + 1), headers, body, endpoint);
      let response: WireResponse | Promise<WireResponse>;
      try {
        response = core.dispatch(call);
      } catch (error) {
        return failed(res, error, next);
      }
      const headOnly = method === "HEAD";
      if (response instanceof Promise) {
        response.then(
          (r) => send(res, r, headOnly),
          (error: unknown) => failed(res, error, next),
        );
      } else {
        send(res, response, headOnly);
      }
    });
  };
}
