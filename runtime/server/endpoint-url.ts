// The endpoint's public address, for the WSDL's soap:address and the help pages. The Host header is the
// caller's word, so it is never taken as it comes: a configured publicUrl wins; otherwise the Host (or,
// behind a trusted proxy, X-Forwarded-Host/-Proto) is used only when it is a plain host[:port] and, if
// allowedHosts is set, one it lists; otherwise the address the connection was accepted on.

export interface EndpointUrlOptions {
  /** The endpoint's absolute URL as clients reach it (`https://api.example/x/Service.asmx`). */
  readonly publicUrl?: string | undefined;
  /** Honour X-Forwarded-Proto and X-Forwarded-Host (set only behind a proxy that overwrites them). */
  readonly trustProxy?: boolean | undefined;
  /** Host names (with or without port, any case) the Host header may name; others are ignored. */
  readonly allowedHosts?: readonly string[] | undefined;
}

/** What a transport adapter knows about the request. */
export interface EndpointSource {
  readonly headers: Readonly<Record<string, string>>;
  /**
   * The authority of an absolute-form request target (`GET http://host/x.asmx`), which replaces the Host
   * header (RFC 9112 §3.2.2) and is checked as Host is; undefined for the usual origin-form (`GET /x.asmx`).
   */
  readonly targetHost?: string | undefined;
  /** "http" or "https", as the connection was made. */
  readonly scheme: string;
  /** The path of the endpoint as the caller reached it (`/x/Service.asmx`). */
  readonly basePath: string;
  /** host[:port] the connection was accepted on; IPv6 addresses in brackets. */
  readonly localHost: string;
}

/** host, IPv4, or [IPv6], then an optional port: nothing that could carry a user, a path or markup. */
const PLAIN_HOST =
  /^(?:[A-Za-z0-9_](?:[A-Za-z0-9_-]{0,62})(?:\.[A-Za-z0-9_](?:[A-Za-z0-9_-]{0,62}))*\.?|\[[0-9A-Fa-f:.]{2,45}\])(?::[0-9]{1,5})?$/;

function firstValue(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  const comma = value.indexOf(",");
  return (comma < 0 ? value : value.slice(0, comma)).trim();
}

function hostName(host: string): string {
  const lower = host.toLowerCase();
  if (lower.startsWith("[")) return lower.slice(0, lower.indexOf("]") + 1);
  const colon = lower.lastIndexOf(":");
  return colon < 0 ? lower : lower.slice(0, colon);
}

/**
 * Whether the URL parser takes a plain host[:port] as an http URL's host: PLAIN_HOST lets through what it
 * refuses (`[:::::]`, `[1.2.3.4]`, `1.2.3.256`, a last label of digits that is no IPv4 address), which would
 * make the page's address unreadable. Only a plain host is given here, so the URL is the host and nothing else.
 */
function parsesAsHost(host: string): boolean {
  try {
    new URL(`http://${host}/`);
    return true;
  } catch {
    return false;
  }
}

/** Whether host may be used: plain, and listed when a list is given (a listed name without port allows any port). */
export function isAcceptedHost(host: string, allowedHosts: readonly string[] | undefined): boolean {
  if (host.length > 300 || !PLAIN_HOST.test(host)) return false;
  const port = /:([0-9]+)$/.exec(host)?.[1];
  if (port !== undefined && Number(port) > 65535) return false;
  if (!parsesAsHost(host)) return false;
  if (allowedHosts === undefined) return true;
  const lower = host.toLowerCase();
  const name = hostName(lower);
  return allowedHosts.some((allowed) => {
    const a = allowed.toLowerCase();
    return a === lower || a === name;
  });
}

/** Checks a publicUrl option once: absolute http(s), no user info, no query or fragment. */
export function checkPublicUrl(publicUrl: string): string {
  let url: URL;
  try {
    url = new URL(publicUrl);
  } catch {
    throw new TypeError(`publicUrl must be an absolute URL; got ${JSON.stringify(publicUrl)}.`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:")
    throw new TypeError("publicUrl must be an http: or https: URL.");
  if (url.username !== "" || url.password !== "")
    throw new TypeError("publicUrl must not carry a user name or password.");
  if (url.search !== "" || url.hash !== "")
    throw new TypeError("publicUrl must not have a query or fragment.");
  return `${url.origin}${url.pathname.replace(/\/+$/, "")}`;
}

/**
 * The absolute-form request target `http://authority/path?query` (RFC 9112 §3.2.2: the scheme in any case,
 * http or https) split into its authority and the rest (`/path?query`, "/" when the path is empty), or
 * undefined when the target is not of that form. Only the split: the authority is checked where it is used.
 */
export function absoluteTarget(
  target: string,
): { readonly authority: string; readonly rest: string } | undefined {
  const m = /^https?:\/\//i.exec(target);
  if (m === null) return undefined;
  const from = m[0].length;
  let end = from;
  while (end < target.length) {
    const c = target.charCodeAt(end);
    if (c === 47 /* / */ || c === 63 /* ? */ || c === 35 /* # */) break;
    end++;
  }
  const rest = target.slice(end);
  return { authority: target.slice(from, end), rest: rest.charCodeAt(0) === 47 ? rest : `/${rest}` };
}

/**
 * The endpoint URL for one request. `publicEndpoint` is publicUrl already checked and completed with the
 * endpoint's name (see checkPublicUrl), or undefined.
 */
export function resolveEndpointUrl(
  source: EndpointSource,
  options: EndpointUrlOptions,
  publicEndpoint: string | undefined,
): string {
  if (publicEndpoint !== undefined) return publicEndpoint;
  const headers = source.headers;
  let scheme = source.scheme;
  let host = source.targetHost ?? headers["host"];
  if (options.trustProxy) {
    const proto = firstValue(headers["x-forwarded-proto"])?.toLowerCase();
    if (proto === "http" || proto === "https") scheme = proto;
    host = firstValue(headers["x-forwarded-host"]) ?? host;
  }
  const accepted = host !== undefined && isAcceptedHost(host, options.allowedHosts) ? host : source.localHost;
  return `${scheme}://${accepted}${encodeURI(source.basePath)}`;
}
