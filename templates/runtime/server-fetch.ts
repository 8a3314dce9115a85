// fetch-style adapter: `(request: Request) => Promise<Response>`, for runtimes built on web standards.

import type { WireResponse } from "./protocol/binding.js";
import type { ServiceCore } from "./server.js";
import { pathBelowEndpoint } from "./server-node.js";

export type FetchHandler = (request: Request, info?: { remoteAddress?: string }) => Promise<Response>;

function toResponse(response: WireResponse, headOnly: boolean): Response {
  return new Response(headOnly ? null : response.body, { status: response.status, headers: response.headers });
}

/** Reads a body up to `limit` bytes; undefined when it is larger (reading stops there). */
async function readLimited(request: Request, limit: number): Promise<string | undefined> {
  if (!request.body) return "";
  const reader = request.body.getReader();
  const parts: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel();
      return undefined;
    }
    parts.push(value);
  }
  const all = new Uint8Array(size);
  let at = 0;
  for (const part of parts) {
    all.set(part, at);
    at += part.byteLength;
  }
  return new TextDecoder().decode(all);
}

export function createFetchHandler(core: ServiceCore): FetchHandler {
  const limit = core.options.maxBodyBytes;
  return async (request, info = {}) => {
    const url = new URL(request.url);
    let pathname: string;
    try {
      pathname = decodeURIComponent(url.pathname);
    } catch {
      pathname = url.pathname;
    }
    const place = pathBelowEndpoint(pathname, core.service.endpoint);
    if (!place) return new Response("Not found.", { status: 404, headers: { "content-type": "text/plain; charset=utf-8" } });
    const headers: Record<string, string> = {};
    request.headers.forEach((value, name) => {
      headers[name.toLowerCase()] = value;
    });
    const method = request.method.toUpperCase();
    const tooLarge = () => toResponse(core.tooLarge(method, place.rest, headers["content-type"], limit), false);
    if (Number(headers["content-length"] ?? 0) > limit) return tooLarge();
    const body = method === "GET" || method === "HEAD" ? "" : await readLimited(request, limit);
    if (body === undefined) return tooLarge();
    const response = await core.handle({
      method,
      path: place.rest,
      query: url.search.slice(1),
      headers,
      body,
      endpointUrl: `${url.origin}${place.base}`,
      remoteAddress: info.remoteAddress ?? "",
      signal: request.signal,
    });
    return toResponse(response, method === "HEAD");
  };
}
