// Cross-origin calls from browsers (CORS, Fetch standard §3.2): off unless ServerOptions.cors names the
// origins. Then every answer on the endpoint carries `Vary: Origin`, an answer to an allowed origin carries
// `Access-Control-Allow-Origin`, and a preflight (OPTIONS with Origin and Access-Control-Request-Method,
// no body) from an allowed origin is answered 204 with the methods (GET, POST) and the request headers
// (Content-Type, SOAPAction) the four bindings use. A refused origin gets no CORS header at all: its
// preflight goes on to the answer it would get without CORS (405), and the browser refuses the call.

/** ServerOptions.cors: which web pages (by origin) may call the endpoint from a browser. */
export interface CorsOptions {
  /**
   * Origins allowed, each `scheme://host[:port]` as a browser sends it in Origin (https://app.example,
   * http://localhost:5173; no path, no trailing slash; the default port left out), or the one entry "*"
   * for any origin. The service takes credentials as parameters, not cookies: no credentialed mode.
   */
  readonly origins: readonly string[];
  /** How long a browser may reuse a preflight's answer, in seconds (default 600; Chromium caps it at 7200). */
  readonly maxAgeSeconds?: number;
}

/** CorsOptions checked, as the adapters use them. */
export interface CorsPolicy {
  /** Any origin ("*"): answered `Access-Control-Allow-Origin: *`. */
  readonly any: boolean;
  readonly origins: ReadonlySet<string>;
  readonly maxAge: string;
}

const DEFAULT_CORS_MAX_AGE_SECONDS = 600;
/** The methods the bindings use (HEAD is GET's, and a simple method). */
const ALLOW_METHODS = "GET, POST";
/** SOAP 1.1's SOAPAction and the SOAP media types (text/xml, application/soap+xml) are not CORS-safelisted. */
const ALLOW_HEADERS = "Content-Type, SOAPAction";
/** The longest Origin compared; a browser's is a scheme, a host (at most 253) and a port. */
const MAX_ORIGIN = 300;

/** Checks ServerOptions.cors; a bad entry is a TypeError naming it. */
export function corsPolicy(options: CorsOptions | undefined): CorsPolicy | undefined {
  if (options === undefined) return undefined;
  const list: unknown = (options as { origins?: unknown }).origins;
  if (!Array.isArray(list))
    throw new TypeError('cors.origins must be an array of origins such as ["https://app.example"].');
  const origins = new Set<string>();
  let any = false;
  list.forEach((entry: unknown, index) => {
    if (entry === "*") {
      any = true;
      return;
    }
    const problem = originProblem(entry);
    if (problem !== undefined)
      throw new TypeError(
        `cors.origins[${index}] ${problem}; got ${JSON.stringify(entry) ?? String(entry)}.`,
      );
    origins.add(entry as string);
  });
  const maxAge = options.maxAgeSeconds ?? DEFAULT_CORS_MAX_AGE_SECONDS;
  if (!(Number.isInteger(maxAge) && maxAge >= 0 && maxAge <= 86_400))
    throw new TypeError(`cors.maxAgeSeconds must be a whole number from 0 to 86400; got ${String(maxAge)}.`);
  return { any, origins, maxAge: String(maxAge) };
}

/**
 * Why a configured origin is not one a browser would send, or undefined when it is. For a service's own
 * configuration checks too (the reference service refuses a bad CORS_ORIGINS entry at start).
 * @public
 */
export function originProblem(entry: unknown): string | undefined {
  const want = "must be an origin such as https://app.example (scheme, host and port only) or *";
  if (typeof entry !== "string" || entry === "" || entry.length > MAX_ORIGIN) return want;
  let parsed: URL;
  try {
    parsed = new URL(entry);
  } catch {
    return want;
  }
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:") return `${want} (http or https)`;
  // URL's origin is the serialized form browsers send: lower-case host, no default port, no slash.
  if (parsed.origin !== entry) return `${want}, written as browsers send it (${parsed.origin})`;
  return undefined;
}

/**
 * The CORS headers of every answer to a request with this Origin: `Vary: Origin` always, and
 * `Access-Control-Allow-Origin` when the origin is allowed. Origin is compared whole and exactly, so a
 * list of origins (a repeated header joined by commas), "null" or any other text matches nothing.
 */
export function corsHeaders(policy: CorsPolicy, origin: string | undefined): Record<string, string> {
  if (origin === undefined || origin.length > MAX_ORIGIN) return { vary: "Origin" };
  if (policy.any) return { vary: "Origin", "access-control-allow-origin": "*" };
  return policy.origins.has(origin)
    ? { vary: "Origin", "access-control-allow-origin": origin }
    : { vary: "Origin" };
}

/**
 * The answer to a CORS preflight from an allowed origin, or undefined when the request is no such
 * preflight (not OPTIONS, no Origin or Access-Control-Request-Method, a body announced, an origin not
 * allowed, a method the bindings do not take): it is then answered as any other request.
 */
export function preflightAnswer(
  policy: CorsPolicy,
  method: string,
  headers: Readonly<Record<string, string | undefined>>,
): { readonly status: 204; readonly headers: Record<string, string> } | undefined {
  if (method !== "OPTIONS") return undefined;
  const requested = headers["access-control-request-method"];
  if (requested !== "GET" && requested !== "POST" && requested !== "HEAD") return undefined;
  // A preflight has no body; one that announces a body takes the ordinary path and its limits.
  const length = headers["content-length"];
  if ((length !== undefined && length !== "0") || headers["transfer-encoding"] !== undefined)
    return undefined;
  const base = corsHeaders(policy, headers["origin"]);
  if (base["access-control-allow-origin"] === undefined) return undefined;
  return {
    status: 204,
    headers: {
      ...base,
      "access-control-allow-methods": ALLOW_METHODS,
      "access-control-allow-headers": ALLOW_HEADERS,
      "access-control-max-age": policy.maxAge,
    },
  };
}
