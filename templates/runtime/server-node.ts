// node:http adapter: `(req, res, next?)`, usable as a plain request listener and as Express/Connect
// middleware (mounted anywhere: the endpoint is found at the end of the path).

import type { IncomingMessage, ServerResponse } from "node:http";
import type { WireResponse } from "./protocol/binding.js";
import type { ServiceCore } from "./server.js";

export type NodeHandler = (req: IncomingMessage, res: ServerResponse, next?: (error?: unknown) => void) => void;

function flatHeaders(req: IncomingMessage): Record<string, string> {
  const out: Record<string, string> = {};
  const raw = req.headers;
  for (const name in raw) {
    const value = raw[name];
    if (value !== undefined) out[name] = Array.isArray(value) ? value.join(", ") : value;
  }
  return out;
}

/** Splits a request path into the part below the endpoint ("" or "/Op"), or undefined if not ours. */
export function pathBelowEndpoint(pathname: string, endpoint: string): { base: string; rest: string } | undefined {
  const lower = pathname.toLowerCase();
  const marker = `/${endpoint.toLowerCase()}`;
  const at = lower.lastIndexOf(marker);
  if (at < 0) return undefined;
  const rest = pathname.slice(at + marker.length);
  if (rest !== "" && (!rest.startsWith("/") || rest.indexOf("/", 1) >= 0)) return undefined;
  return { base: pathname.slice(0, at + marker.length), rest: rest === "/" ? "" : rest };
}

function safeDecode(path: string): string {
  try {
    return decodeURIComponent(path);
  } catch {
    return path;
  }
}

function send(res: ServerResponse, response: WireResponse, headOnly: boolean): void {
  const body = Buffer.from(response.body, "utf8");
  res.writeHead(response.status, { ...response.headers, "content-length": body.length });
  res.end(headOnly ? undefined : body);
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
      return send(res, { status: 404, headers: { "content-type": "text/plain; charset=utf-8" }, body: "Not found." }, false);
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
    const abort = new AbortController();
    res.on("close", () => {
      if (!res.writableFinished) abort.abort();
    });
    const chunks: Buffer[] = [];
    let size = 0;
    let refused = false;
    req.on("data", (chunk: Buffer) => {
      if (refused) return;
      size += chunk.length;
      if (size > limit) {
        refused = true;
        chunks.length = 0;
        res.setHeader("connection", "close");
        send(res, core.tooLarge(method, place.rest, headers["content-type"], limit), false);
        req.destroy();
        return;
      }
      chunks.push(chunk);
    });
    req.on("end", () => {
      if (refused) return;
      const host = headers["host"] ?? "localhost";
      const scheme = (req.socket as { encrypted?: boolean }).encrypted ? "https" : "http";
      const original = (req as { originalUrl?: string }).originalUrl;
      const fullPath = original !== undefined ? safeDecode(original.split("?")[0]) : place.base;
      const basePlace = pathBelowEndpoint(fullPath, endpoint);
      core
        .handle({
          method,
          path: place.rest,
          query: q < 0 ? "" : url.slice(q + 1),
          headers,
          body: chunks.length === 1 ? chunks[0].toString("utf8") : Buffer.concat(chunks).toString("utf8"),
          endpointUrl: `${scheme}://${host}${basePlace?.base ?? place.base}`,
          remoteAddress: req.socket.remoteAddress ?? "",
          signal: abort.signal,
        })
        .then(
          (response) => send(res, response, method === "HEAD"),
          (error: unknown) => (next ? next(error) : res.destroy(error as Error)),
        );
    });
  };
}
