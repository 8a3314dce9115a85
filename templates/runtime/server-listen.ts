// A node:http server with the transport time limits set, for callers who do not bring their own server:
// a slow client may hold a connection only so long before its headers, and its whole request, are in.

import http from "node:http";
import { CONTINUE_PENDING, type NodeHandler } from "./server-node.js";

export interface TransportLimits {
  /** Time allowed for the request headers to arrive (default 20 s). */
  readonly headersTimeoutMs?: number;
  /** Time allowed for the whole request, body included (default 300 s: bulk CSV uploads are large). */
  readonly requestTimeoutMs?: number;
  /** Idle time before a keep-alive connection is closed (default 5 s, Node's own). */
  readonly keepAliveTimeoutMs?: number;
}

export const DEFAULT_HEADERS_TIMEOUT_MS = 20_000;
export const DEFAULT_REQUEST_TIMEOUT_MS = 300_000;

export function createNodeServer(
  handler: NodeHandler,
  limits: TransportLimits = {},
): http.Server {
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
  // .NET clients send `Expect: 100-continue`. Node would say "continue" before the handler runs; the
  // handler says it itself once the body is accepted (size, budget), so a refused client never sends it.
  server.on("checkContinue", (req: http.IncomingMessage, res: http.ServerResponse) => {
    (req as { [CONTINUE_PENDING]?: boolean })[CONTINUE_PENDING] = true;
    handler(req, res);
  });
  return server;
}
