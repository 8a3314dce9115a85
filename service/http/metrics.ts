// Who may read /metrics (sign-in failure rates, queue depths: nothing for the public). On the public port
// only a caller with `Authorization: Bearer <METRICS_TOKEN>`; without METRICS_TOKEN, /metrics there is
// 404 like any unknown path. With METRICS_PORT a separate listener (METRICS_HOST, loopback by default)
// serves /metrics and /healthz alone, without a token, for a scraper on the host or a private network.

import { timingSafeEqual } from "node:crypto";
import type http from "node:http";
import type { Registry } from "prom-client";
import { createNodeServer } from "../../generated/runtime/server/listen.js";
import { metricsTokenHash } from "../config.js";

/**
 * Whether the request carries the bearer token whose hash is `tokenHash`: compared as SHA-256 digests in
 * constant time, so the time taken tells nothing about the token's characters or length.
 */
export function bearerMatches(req: http.IncomingMessage, tokenHash: Buffer): boolean {
  const header = req.headers.authorization;
  const match = typeof header === "string" ? /^Bearer +(\S+) *$/i.exec(header) : null;
  const given = metricsTokenHash(match?.[1] ?? "");
  return timingSafeEqual(given, tokenHash) && match !== null;
}

/** Answers GET|HEAD /metrics with the registry's text (503 when a collector's query fails). */
export async function sendMetrics(
  req: http.IncomingMessage,
  res: http.ServerResponse,
  registry: Registry,
): Promise<void> {
  let status = 200;
  let type: string = registry.contentType;
  let body: string;
  try {
    body = await registry.metrics();
  } catch {
    status = 503;
    type = "text/plain; charset=utf-8";
    body = "Metrics are unavailable: the database did not answer.\n";
  }
  res.writeHead(status, { "content-type": type, "cache-control": "no-store" });
  res.end(req.method === "HEAD" ? undefined : body);
}

/**
 * The METRICS_PORT listener: GET|HEAD /metrics and /healthz (`health` answers it), 405 for another
 * method, 404 for anything else. Short timeouts: a scraper sends a few hundred bytes.
 */
export function createMetricsServer(
  registry: Registry,
  health: (req: http.IncomingMessage, res: http.ServerResponse) => Promise<void>,
): http.Server {
  return createNodeServer(
    (req, res) => {
      const path = (req.url ?? "").split("?", 1)[0];
      const answer = (status: number, text: string, extra: Record<string, string> = {}) => {
        res.writeHead(status, {
          "content-type": "text/plain; charset=utf-8",
          "cache-control": "no-store",
          ...extra,
        });
        res.end(req.method === "HEAD" ? undefined : text);
      };
      if (path !== "/metrics" && path !== "/healthz")
        return answer(404, "Not found. This listener serves /metrics and /healthz.\n");
      if (req.method !== "GET" && req.method !== "HEAD")
        return answer(405, "Method not allowed.\n", { allow: "GET, HEAD" });
      const done = path === "/metrics" ? sendMetrics(req, res, registry) : health(req, res);
      done.catch(() => {
        if (!res.headersSent) answer(500, "Internal error.\n");
        else res.end();
      });
    },
    { headersTimeoutMs: 10_000, requestTimeoutMs: 10_000 },
  );
}
