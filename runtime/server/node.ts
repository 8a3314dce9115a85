// node:http adapter: `(req, res, next?)`, usable as a plain request listener and as Express/Connect
// middleware (mounted anywhere: the endpoint is found at the end of the path). Every request on the
// endpoint is answered here, whatever happens: next() is only called for paths that are not ours.

import type { IncomingMessage, ServerResponse } from "node:http";
import type { Socket } from "node:net";
import type { Duplex } from "node:stream";
import { absoluteTarget, resolveEndpointUrl } from "./endpoint-url.js";
import { ErrorCodes } from "../errors.js";
import type { WireResponse } from "../protocol/binding.js";
import { LAST_RESORT, textErrorResponse } from "../protocol/text-error.js";
import { bodyKind, decodeRequestBody, SLOW_BODY } from "./body.js";
import { corsHeaders, preflightAnswer } from "./cors.js";
import {
  LARGE_BODY_BYTES,
  RequestLease,
  type BodyProgress,
  type BodyWatch,
  type ServerBudget,
} from "./budget.js";
import type { IncomingCall, ServiceCore } from "./core.js";

/** What the caller of a NodeHandler may hand over with one request. */
export interface NodeRequestInfo {
  /**
   * The request's log fields: the handler's context (CallContext.logFields) and onCall's event carry this
   * object, so the caller's own request log line gets what the handler added.
   */
  readonly logFields?: Record<string, unknown> | undefined;
  /**
   * The caller's address as the application determined it (say, from X-Forwarded-For behind its own trusted
   * proxies): the call context's remoteAddress. Default: the connection's peer address.
   */
  readonly remoteAddress?: string | undefined;
}

export type NodeHandler = (
  req: IncomingMessage,
  res: ServerResponse,
  next?: (error?: unknown) => void,
  info?: NodeRequestInfo,
) => void;

/**
 * Set on a request by createServer's checkContinue listener: the handler sends `100 Continue` itself,
 * once it has accepted the body (size, budget), so a refused client never starts sending.
 */
export const CONTINUE_PENDING: unique symbol = Symbol("easgen.continuePending");

/**
 * What watches a socket's close: a node of the socket's list of watchers (one listener per socket, not one
 * per request: pipelined requests are handled concurrently, and a listener each would pile up on the socket
 * and trip Node's leak warning). Linked in place, so watching and unwatching allocate nothing and take O(1).
 */
interface CloseWatcher {
  prev: CloseWatcher | null;
  next: CloseWatcher | null;
  list: WatcherList | null;
  closed(): void;
}

/** What the adapter keeps per connection: the close watchers, and whether it is closing. */
interface WatcherList {
  first: CloseWatcher | null;
  /**
   * An answer with `Connection: close` has been given on this connection: requests after it are not
   * processed (RFC 9112 §9.6), not answered (Node would never send the answers), and hold nothing.
   */
  closing: boolean;
  /** Requests dropped since then. */
  dropped: number;
}

const closeWatchers = new WeakMap<Socket, WatcherList>();

/** The connection's list, made (with its one close listener) on first use. */
function socketState(socket: Socket): WatcherList {
  let list = closeWatchers.get(socket);
  if (list === undefined) {
    const made: WatcherList = { first: null, closing: false, dropped: 0 };
    list = made;
    closeWatchers.set(socket, made);
    socket.once("close", () => {
      closeWatchers.delete(socket);
      let w = made.first;
      made.first = null;
      while (w !== null) {
        const next = w.next;
        w.prev = w.next = null;
        w.list = null;
        w.closed();
        w = next;
      }
    });
  }
  return list;
}

/** Calls watcher.closed() when the socket closes, unless unwatchClose(watcher) comes first. */
function watchClose(socket: Socket, watcher: CloseWatcher): void {
  const list = socketState(socket);
  watcher.list = list;
  watcher.prev = null;
  watcher.next = list.first;
  if (list.first !== null) list.first.prev = watcher;
  list.first = watcher;
}

function unwatchClose(watcher: CloseWatcher): void {
  const list = watcher.list;
  if (list === null) return;
  if (watcher.prev !== null) watcher.prev.next = watcher.next;
  else list.first = watcher.next;
  if (watcher.next !== null) watcher.next.prev = watcher.prev;
  watcher.prev = watcher.next = null;
  watcher.list = null;
}

/**
 * A request's share of the budget, given back when its answer is handed to Node (send) or when its
 * connection closes first, whichever comes first. The lease is its own close watcher (watchClose): no
 * listener per request or per response (two a request measured about 2 µs of the ~40 µs Node itself spends
 * on one), and no closure or set entry either; while its body arrives it is its own BodyWatch too.
 */
class NodeLease extends RequestLease implements CloseWatcher, BodyWatch {
  prev: CloseWatcher | null = null;
  next: CloseWatcher | null = null;
  list: WatcherList | null = null;
  received = 0;
  mark = -1;
  prevBody: BodyWatch | null = null;
  nextBody: BodyWatch | null = null;
  watched = false;
  /** The request's refusal, called with SLOW_BODY when the body falls behind (set when the body is watched). */
  onSlow: ((response: WireResponse) => void) | undefined = undefined;
  private readonly progress: BodyProgress;

  constructor(budget: ServerBudget, progress: BodyProgress, socket: Socket) {
    super(budget);
    this.progress = progress;
    if (socket.destroyed) this.end();
    else watchClose(socket, this);
  }

  closed(): void {
    this.end();
  }

  tooSlow(): void {
    this.onSlow?.(SLOW_BODY);
  }

  /** The request is over: answered, refused or dropped. */
  override end(): void {
    unwatchClose(this);
    this.progress.unwatch(this);
    super.end();
  }
}

/** Bytes of an unwanted body read (and dropped) after a refusal before the connection is cut. */
const DRAIN_LIMIT = 64 * 1024;

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
export function pathBelowEndpoint(
  pathname: string,
  endpoint: string,
): { base: string; rest: string } | undefined {
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

/**
 * The answer's headers with content-length last, as a new object. Copied key by key: an object spread
 * (`{ ...headers, "content-length": n }`) measured ~0.85 µs a call on node 20 against ~25 ns for this loop.
 */
function withLength(
  headers: Readonly<Record<string, string>>,
  length: number,
): Record<string, string | number> {
  const out: Record<string, string | number> = {};
  for (const name in headers) out[name] = headers[name]!;
  out["content-length"] = length;
  return out;
}

/** Sends the answer; the request's lease, if any, ends as the answer is handed to Node. */
function send(res: ServerResponse, response: WireResponse, headOnly: boolean, lease?: RequestLease): void {
  lease?.end();
  if (res.headersSent || res.destroyed) return;
  const body = response.body;
  // The body goes out as a string in one write together with the head. byteLength flattens a body built
  // from many pieces once; when it is all ASCII (length = characters) it is written as latin1, the
  // same bytes as UTF-8 without transcoding.
  try {
    const length = Buffer.byteLength(body, "utf8");
    res.writeHead(response.status, withLength(response.headers, length));
    if (headOnly) res.end();
    else res.end(body, length === body.length ? "latin1" : "utf8");
  } catch {
    // A header value Node refuses, or a status it does not take: the fixed answer always goes out.
    if (res.headersSent) {
      res.destroy();
      return;
    }
    res.writeHead(LAST_RESORT.status, { ...LAST_RESORT.headers, "content-length": LAST_RESORT.body.length });
    res.end(headOnly ? undefined : LAST_RESORT.body);
  }
}

/** Time a refused connection is given to read its answer before it is cut. */
const REFUSED_LINGER_MS = 2_000;

/**
 * The end of a refused connection whose caller may still be sending: closing it at once with body bytes
 * unread is a reset, which can overtake the answer (the caller, failing its next write, never reads it).
 * So the answer is followed by a half-close (the caller's end), and the socket is cut at most
 * REFUSED_LINGER_MS later (sooner when the caller closes while it is still being read). The refusals stop
 * reading past their drain limit (pause), so the caller's sending stalls meanwhile. listen.ts ends
 * the refusals of Node's parser with it too.
 */
export function cutAfterLinger(socket: Duplex): void {
  const timer = setTimeout(() => socket.destroy(), REFUSED_LINGER_MS);
  (timer as { unref?: () => void }).unref?.();
  socket.once("close", () => clearTimeout(timer));
}

/**
 * Node ends a `Connection: close` answer with socket.destroySoon(), which destroys the socket as soon as the
 * answer is written; for a refused upload it half-closes and leaves the cut to cutAfterLinger instead.
 */
function lingerAfterAnswer(socket: Socket): void {
  socket.destroySoon = function lingering(this: Socket): void {
    if (this.writable) this.end();
    cutAfterLinger(this);
  };
}

/**
 * Answers with `Connection: close`: the connection ends after this answer (lingerAfterAnswer), and the
 * requests after it on the connection are dropped (dropRequest).
 */
function answerClosing(
  req: IncomingMessage,
  res: ServerResponse,
  response: WireResponse,
  lease?: RequestLease,
): void {
  socketState(req.socket).closing = true;
  res.setHeader("connection", "close");
  lingerAfterAnswer(req.socket);
  send(res, response, false, lease);
}

/**
 * Whether the answer has gone out (or is going): a pipelined request's answer waits until those before it
 * are answered. Only then may its request stop being read: a connection that is not read hides the caller's
 * leaving from the requests still running before it (their context.signal would never abort).
 */
function answerSent(res: ServerResponse): boolean {
  return res.socket !== null;
}

/**
 * Answers a request whose body is not wanted, reads at most DRAIN_LIMIT more of it and then stops reading
 * (the caller's sending stalls; lingerAfterAnswer cuts the connection once the caller had time to read).
 */
function refuseBody(
  req: IncomingMessage,
  res: ServerResponse,
  response: WireResponse,
  lease?: RequestLease,
): void {
  answerClosing(req, res, response, lease);
  let drained = 0;
  req.on("data", (chunk: Buffer) => {
    drained += chunk.length;
    if (drained > DRAIN_LIMIT && answerSent(res)) req.pause();
  });
  req.resume();
}

/**
 * Requests a connection may still send after it was told it closes before it is cut: each dropped one
 * holds its request and response objects until the connection closes (Node parses them and queues their
 * answers' places), so a client that keeps pipelining past the close is not followed far.
 */
const DROPPED_MAX = 128;

/**
 * A request on a closing connection: not processed, not answered (RFC 9112 §9.6: after a `close` answer no
 * further request is processed; the caller retries it on a new connection). Its body is read and dropped,
 * so the connection keeps being read and the caller's leaving is seen (by the requests still running before
 * the close).
 */
function dropRequest(req: IncomingMessage, state: WatcherList): void {
  req.resume();
  if (++state.dropped > DROPPED_MAX) req.socket.destroy();
}

/** For a path that is not the endpoint's (when there is no next() to pass it to). */
export const NOT_FOUND: WireResponse = textErrorResponse({
  status: 404,
  exceptionType: "System.Web.HttpException",
  message: "Not found.",
  code: ErrorCodes.NotFound,
});

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
  readonly transport: IncomingMessage;
  readonly logFields: Record<string, unknown> | undefined;
  private readonly req: IncomingMessage;
  private readonly res: ServerResponse;
  private readonly base: string;
  private readonly core: ServiceCore;
  /** The authority of an absolute-form request target, which replaces Host; undefined for origin-form. */
  private readonly authority: string | undefined;
  private controller: AbortController | undefined = undefined;

  constructor(
    req: IncomingMessage,
    res: ServerResponse,
    core: ServiceCore,
    place: { base: string; rest: string },
    query: string,
    headers: Readonly<Record<string, string>>,
    body: string,
    authority: string | undefined,
    info: NodeRequestInfo | undefined,
  ) {
    this.req = req;
    this.res = res;
    this.core = core;
    this.authority = authority;
    this.method = req.method ?? "GET";
    this.path = place.rest;
    this.base = place.base;
    this.query = query;
    this.headers = headers;
    this.body = body;
    this.remoteAddress = info?.remoteAddress ?? req.socket.remoteAddress ?? "";
    this.transport = req;
    this.logFields = info?.logFields;
  }

  get endpointUrl(): string {
    const req = this.req;
    const socket = req.socket;
    const original = (req as { originalUrl?: string }).originalUrl;
    const fullPath =
      original !== undefined
        ? safeDecode((absoluteTarget(original)?.rest ?? original).split("?")[0]!)
        : this.base;
    const local = socket.localAddress ?? "127.0.0.1";
    return resolveEndpointUrl(
      {
        headers: this.headers,
        targetHost: this.authority,
        scheme: (socket as { encrypted?: boolean }).encrypted ? "https" : "http",
        basePath: pathBelowEndpoint(fullPath, this.core.service.endpoint)?.base ?? this.base,
        localHost: `${local.includes(":") ? `[${local}]` : local}:${socket.localPort ?? 80}`,
      },
      this.core.options,
      this.core.publicEndpoint,
    );
  }

  /**
   * Aborted when the connection closes before the answer was sent. A pipelined request's response has
   * no socket of its own until the ones before it are answered, so the socket is watched directly.
   */
  get signal(): AbortSignal {
    if (this.controller === undefined) {
      const controller = new AbortController();
      this.controller = controller;
      const res = this.res;
      const socket = this.req.socket;
      if (res.writableFinished) return controller.signal;
      if (res.destroyed || socket.destroyed) {
        controller.abort();
        return controller.signal;
      }
      const watcher: CloseWatcher = {
        prev: null,
        next: null,
        list: null,
        closed: () => {
          if (!res.writableFinished) controller.abort();
        },
      };
      watchClose(socket, watcher);
      res.once("close", () => {
        unwatchClose(watcher);
        watcher.closed();
      });
    }
    return this.controller.signal;
  }
}

export function createNodeHandler(core: ServiceCore): NodeHandler {
  const endpoint = core.service.endpoint;
  const limit = core.options.maxBodyBytes;
  const budget = core.budget;
  const progress = core.bodyProgress;

  return (req, res, next, info) => {
    let url = req.url ?? "/";
    // An absolute-form target (`GET http://host/x.asmx`, RFC 9112 §3.2.2): its path is routed, its authority
    // stands in for Host. Anything else not starting with "/" (`*`) is no path of ours.
    let authority: string | undefined;
    if (url.charCodeAt(0) !== 47) {
      const target = absoluteTarget(url);
      if (target !== undefined) {
        authority = target.authority;
        url = target.rest;
      }
    }
    const q = url.indexOf("?");
    const pathname = q < 0 ? url : url.slice(0, q);
    const place = pathBelowEndpoint(safeDecode(pathname), endpoint);
    const socket = req.socket;
    const state = closeWatchers.get(socket);
    if (!place) {
      if (next) return next();
      if (state?.closing) return dropRequest(req, state);
      return send(res, NOT_FOUND, false);
    }
    if (state?.closing) return dropRequest(req, state);
    const method = req.method ?? "GET";
    const headers = flatHeaders(req);
    const cors = core.cors;
    if (cors !== undefined) {
      const preflight = preflightAnswer(cors, method, headers);
      if (preflight !== undefined) {
        res.writeHead(preflight.status, preflight.headers);
        return void res.end();
      }
      // Set on the response, so every answer below (refusals included) carries them: writeHead merges them.
      const extra = corsHeaders(cors, headers["origin"]);
      for (const name in extra) res.setHeader(name, extra[name]!);
    }
    const contentType = headers["content-type"];
    const continuePending = (req as { [CONTINUE_PENDING]?: boolean })[CONTINUE_PENDING] === true;
    const declaredText = headers["content-length"];
    const declared = declaredText === undefined ? undefined : Number(declaredText);
    if (declared !== undefined && declared > limit) {
      // Refused from the header alone: the body is never read.
      return refuseBody(req, res, core.tooLarge(method, place.rest, contentType, limit));
    }
    // Refused at once, holding nothing, when the server has no room now for a call or for the announced
    // body. Otherwise nothing is taken yet either: bytes are held as they arrive (a large body's length is
    // only promised against the next large one) and the call slot once the body is in, so a peer that
    // announces a body and idles holds neither, and keeps no ordinary call out.
    if (!budget.hasRoom(declared ?? 0))
      return refuseBody(req, res, core.busy(method, place.rest, contentType));
    const lease = new NodeLease(budget, progress, socket);
    if (declared !== undefined) lease.promise(declared);

    // Most bodies arrive in one chunk: keep it as is. An upload (a declared length over LARGE_BODY_BYTES,
    // admitted against the promise budget, so all of them together announce no more than maxBufferedBytes)
    // gets one buffer of its length at its second chunk, filled in place: no second copy at the end. Its
    // pages take memory only as they are written (allocUnsafe leaves them untouched), so what it holds is
    // still what has arrived, and that is what the budget counts.
    let first: Buffer | undefined;
    let whole: Buffer | undefined;
    let more: Buffer[] | undefined;
    let size = 0;
    let refused = false;
    const refuseStreaming = (response: WireResponse) => {
      if (refused) return;
      refused = true;
      first = whole = more = undefined;
      answerClosing(req, res, response, lease);
      // Nothing more is read once the answer is out: the caller's sending stalls, and the connection is cut
      // after the linger. (An answer still waiting behind pipelined ones keeps the connection read.)
      if (answerSent(res)) req.pause();
    };
    if (declared !== undefined ? declared > 0 : headers["transfer-encoding"] !== undefined) {
      lease.onSlow = refuseStreaming;
      progress.watch(lease);
    }
    if (continuePending) res.writeContinue();

    req.on("data", (chunk: Buffer) => {
      if (refused) return;
      const end = size + chunk.length;
      lease.received = end;
      if (end > limit) return refuseStreaming(core.tooLarge(method, place.rest, contentType, limit));
      if (!lease.hold(end)) return refuseStreaming(core.busy(method, place.rest, contentType));
      if (whole !== undefined) {
        chunk.copy(whole, size);
        size = end;
        return;
      }
      if (first === undefined) {
        first = chunk;
      } else if (declared !== undefined && declared > LARGE_BODY_BYTES && declared >= end) {
        whole = Buffer.allocUnsafe(declared);
        first.copy(whole, 0);
        chunk.copy(whole, size);
        first = undefined;
      } else {
        (more ??= [first]).push(chunk);
      }
      size = end;
    });
    req.on("end", () => {
      if (refused) return;
      progress.unwatch(lease);
      const bytes =
        whole !== undefined
          ? whole.subarray(0, size)
          : more !== undefined
            ? Buffer.concat(more, size)
            : first;
      first = whole = more = undefined;
      // Another request's answer closed the connection meanwhile: this one is dropped too.
      const now = state ?? closeWatchers.get(socket);
      if (now?.closing) {
        lease.end();
        if (++now.dropped > DROPPED_MAX) socket.destroy();
        return;
      }
      // The body is in: the call takes its slot now, or the server is busy (the connection closes after the
      // answer, so a pipeline of refusals does not pile up behind the calls in progress).
      if (!lease.enter()) return answerClosing(req, res, core.busy(method, place.rest, contentType), lease);
      const decoded = decodeRequestBody(core, method, place.rest, contentType, bytes, bodyKind(place.rest));
      if (typeof decoded !== "string") return send(res, decoded, false, lease);
      const call = new NodeCall(
        req,
        res,
        core,
        place,
        q < 0 ? "" : url.slice(q + 1),
        headers,
        decoded,
        authority,
        info,
      );
      const headOnly = method === "HEAD";
      let response: WireResponse | Promise<WireResponse>;
      try {
        response = core.dispatch(call);
      } catch (error) {
        return send(res, core.lastResort(error, method, place.rest, contentType), headOnly, lease);
      }
      if (response instanceof Promise) {
        response.then(
          (r) => send(res, r, headOnly, lease),
          (error: unknown) =>
            send(res, core.lastResort(error, method, place.rest, contentType), headOnly, lease),
        );
      } else {
        send(res, response, headOnly, lease);
      }
    });
  };
}
