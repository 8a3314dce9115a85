// A node:http server with the transport time limits set, for callers who do not bring their own server:
// a slow client may hold a connection only so long before its headers, and its whole request, are in.

import http from "node:http";
import type { Duplex } from "node:stream";
import { CONTINUE_PENDING, cutAfterLinger, type NodeHandler } from "./node.js";

/** Bytes read (and dropped) after answering a request Node's parser refused; then reading stops. */
const REFUSED_DRAIN_BYTES = 1024 * 1024;

const REFUSALS: Readonly<Record<string, number>> = {
  ERR_HTTP_REQUEST_TIMEOUT: 408,
  HPE_HEADER_OVERFLOW: 431,
  HPE_CHUNK_EXTENSIONS_OVERFLOW: 413,
};

const answered = new WeakSet<Duplex>();

/**
 * A request Node's HTTP parser refuses (a malformed Content-Length, a bad header, a time limit) gets its
 * status and a closed connection, as Node's default does; but Node writes and destroys at once, and with
 * the caller's body still arriving the reset can overtake the answer. Here the socket is half-closed after
 * the answer, what still arrives is read and dropped up to a limit (then reading stops), and it is cut
 * after a short time (cutAfterLinger, as the node adapter's own refusals).
 */
function answerRefused(error: Error & { code?: string }, socket: Duplex): void {
  if (answered.has(socket)) return;
  answered.add(socket);
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  const status = REFUSALS[error.code ?? ""] ?? 400;
  const reason = http.STATUS_CODES[status] ?? "Bad Request";
  socket.end(`HTTP/1.1 ${status} ${reason}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
  let drained = 0;
  socket.removeAllListeners("data");
  socket.on("data", (chunk: Buffer) => {
    drained += chunk.length;
    if (drained > REFUSED_DRAIN_BYTES) socket.pause();
  });
  socket.on("error", () => socket.destroy());
  socket.resume();
  cutAfterLinger(socket);
}

export interface TransportLimits {
  /** Time allowed for the request headers to arrive (default 20 s). */
  readonly headersTimeoutMs?: number;
  /** Time allowed for the whole request, body included (default 300 s: bulk CSV uploads are large). */
  readonly requestTimeoutMs?: number;
  /** Idle time before a keep-alive connection is closed (default 5 s, Node's own). */
  readonly keepAliveTimeoutMs?: number;
}

const DEFAULT_HEADERS_TIMEOUT_MS = 20_000;
const DEFAULT_REQUEST_TIMEOUT_MS = 300_000;

/** @codegen generated code imports it (test/repo/knip.test.ts) */
export function createNodeServer(handler: NodeHandler, limits: TransportLimits = {}): http.Server {
  const headersTimeout = limits.headersTimeoutMs ?? DEFAULT_HEADERS_TIMEOUT_MS;
  const requestTimeout = Math.max(limits.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS, headersTimeout);
  const server = http.createServer(
    {
      headersTimeout,
      requestTimeout,
      // Node checks the limits on this interval; keep it well under the shortest limit.
      connectionsCheckingInterval: Math.max(25, Math.min(30_000, Math.floor(headersTimeout / 4))),
    },
    (req, res) => handler(req, res),
  );
  if (limits.keepAliveTimeoutMs !== undefined) server.keepAliveTimeout = limits.keepAliveTimeoutMs;
  server.on("clientError", answerRefused);
  // .NET clients send `Expect: 100-continue`. Node would say "continue" before the handler runs; the
  // handler says it itself once the body is accepted (size, budget), so a refused client never sends it.
  server.on("checkContinue", (req: http.IncomingMessage, res: http.ServerResponse) => {
    (req as { [CONTINUE_PENDING]?: boolean })[CONTINUE_PENDING] = true;
    handler(req, res);
  });
  return server;
}
