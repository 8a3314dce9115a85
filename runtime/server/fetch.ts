// fetch-style adapter: `(request: Request) => Promise<Response>`, for runtimes built on web standards.
// Same guards as the node:http adapter: body limit, server-wide budget, charset decoding, and an answer
// for every request whatever the handler does.

import { joinChunks } from "./bytes.js";
import { isAcceptedHost, resolveEndpointUrl } from "./endpoint-url.js";
import type { WireResponse } from "../protocol/binding.js";
import { LAST_RESORT } from "../protocol/text-error.js";
import { bodyKind, decodeRequestBody, SLOW_BODY } from "./body.js";
import { corsHeaders, preflightAnswer } from "./cors.js";
import { RequestLease, type BodyProgress, type BodyWatch } from "./budget.js";
import type { ServiceCore } from "./core.js";
import { NOT_FOUND, pathBelowEndpoint } from "./node.js";

/** What the caller of a FetchHandler may hand over with one request. */
export interface FetchRequestInfo {
  /** The caller's address (CallContext.remoteAddress); "" when not given. */
  readonly remoteAddress?: string | undefined;
  /** The request's log fields (CallContext.logFields, onCall's event): see NodeRequestInfo. */
  readonly logFields?: Record<string, unknown> | undefined;
}

export type FetchHandler = (request: Request, info?: FetchRequestInfo) => Promise<Response>;

function toResponse(response: WireResponse, headOnly: boolean): Response {
  try {
    return new Response(headOnly ? null : response.body, {
      status: response.status,
      headers: response.headers,
    });
  } catch {
    return new Response(headOnly ? null : LAST_RESORT.body, {
      status: LAST_RESORT.status,
      headers: LAST_RESORT.headers,
    });
  }
}

/** A body being read, as BodyProgress watches it: cut (the read cancelled) when it falls behind. */
class FetchBodyWatch implements BodyWatch {
  received = 0;
  mark = -1;
  prevBody: BodyWatch | null = null;
  nextBody: BodyWatch | null = null;
  watched = false;
  slow = false;
  private readonly reader: ReadableStreamDefaultReader<Uint8Array>;

  constructor(reader: ReadableStreamDefaultReader<Uint8Array>) {
    this.reader = reader;
  }

  tooSlow(): void {
    this.slow = true;
    this.reader.cancel().catch(() => undefined);
  }
}

/**
 * Reads a body up to `limit` bytes, reserving each chunk in the lease as it arrives; "large"/"busy" when
 * refused, "slow" when it fell behind (BodyProgress).
 */
async function readLimited(
  request: Request,
  limit: number,
  lease: RequestLease,
  progress: BodyProgress,
): Promise<Uint8Array | "large" | "busy" | "slow"> {
  if (!request.body) return new Uint8Array(0);
  const reader = request.body.getReader();
  const watch = new FetchBodyWatch(reader);
  progress.watch(watch);
  try {
    const parts: Uint8Array[] = [];
    let size = 0;
    for (;;) {
      const { done, value } = await reader.read();
      if (watch.slow) return "slow";
      if (done) break;
      size += value.byteLength;
      watch.received = size;
      const refusal = size > limit ? "large" : lease.hold(size) ? undefined : "busy";
      if (refusal !== undefined) {
        await reader.cancel().catch(() => undefined);
        return refusal;
      }
      parts.push(value);
    }
    return joinChunks(parts, size);
  } finally {
    progress.unwatch(watch);
  }
}

export function createFetchHandler(core: ServiceCore): FetchHandler {
  const limit = core.options.maxBodyBytes;
  const handle = answer(core, limit);
  const cors = core.cors;
  if (cors === undefined) return handle;
  return async (request, info) => {
    if (!isOurs(core, request)) return handle(request, info);
    const headers: Record<string, string> = {};
    request.headers.forEach((value, name) => {
      headers[name] = value;
    });
    const preflight = preflightAnswer(cors, request.method.toUpperCase(), headers);
    if (preflight !== undefined) return new Response(null, preflight);
    const response = await handle(request, info);
    const extra = corsHeaders(cors, headers["origin"]);
    for (const name in extra) response.headers.set(name, extra[name]!);
    return response;
  };
}

function isOurs(core: ServiceCore, request: Request): boolean {
  const pathname = new URL(request.url).pathname;
  let decoded: string;
  try {
    decoded = decodeURIComponent(pathname);
  } catch {
    decoded = pathname;
  }
  return pathBelowEndpoint(decoded, core.service.endpoint) !== undefined;
}

function answer(core: ServiceCore, limit: number): FetchHandler {
  return async (request, info = {}) => {
    const url = new URL(request.url);
    let pathname: string;
    try {
      pathname = decodeURIComponent(url.pathname);
    } catch {
      pathname = url.pathname;
    }
    const place = pathBelowEndpoint(pathname, core.service.endpoint);
    if (!place) return toResponse(NOT_FOUND, false);
    const headers: Record<string, string> = {};
    request.headers.forEach((value, name) => {
      headers[name.toLowerCase()] = value;
    });
    const method = request.method.toUpperCase();
    const contentType = headers["content-type"];
    const headOnly = method === "HEAD";
    const declared = Number(headers["content-length"] ?? 0);
    if (declared > limit) return toResponse(core.tooLarge(method, place.rest, contentType, limit), false);
    // As the node adapter: refused at once when there is no room now; else bytes are held as they arrive
    // and the call slot taken once the body is in (a body still arriving holds no slot).
    if (!core.budget.hasRoom(Number.isFinite(declared) ? declared : 0))
      return toResponse(core.busy(method, place.rest, contentType), false);
    const lease = new RequestLease(core.budget);
    if (Number.isFinite(declared)) lease.promise(declared);
    try {
      const bytes =
        method === "GET" || method === "HEAD"
          ? undefined
          : await readLimited(request, limit, lease, core.bodyProgress);
      if (bytes === "large") return toResponse(core.tooLarge(method, place.rest, contentType, limit), false);
      if (bytes === "busy") return toResponse(core.busy(method, place.rest, contentType), false);
      if (bytes === "slow") return toResponse(SLOW_BODY, false);
      if (!lease.enter()) return toResponse(core.busy(method, place.rest, contentType), false);
      const body = decodeRequestBody(core, method, place.rest, contentType, bytes, bodyKind(place.rest));
      if (typeof body !== "string") return toResponse(body, false);
      const response = await core.handle({
        method,
        path: place.rest,
        query: url.search.slice(1),
        headers,
        body,
        // Made when asked for (the WSDL and help pages): an operation call needs no address.
        get endpointUrl() {
          return resolveEndpointUrl(
            {
              headers,
              scheme: url.protocol === "https:" ? "https" : "http",
              basePath: place.base,
              localHost: isAcceptedHost(url.host, core.options.allowedHosts) ? url.host : "localhost",
            },
            core.options,
            core.publicEndpoint,
          );
        },
        remoteAddress: info.remoteAddress ?? "",
        signal: request.signal,
        transport: request,
        logFields: info.logFields,
      });
      return toResponse(response, headOnly);
    } catch (error) {
      return toResponse(core.lastResort(error, method, place.rest, contentType), headOnly);
    } finally {
      lease.end();
    }
  };
}
