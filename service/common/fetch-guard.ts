/**
 * A streaming HTTP(S) GET for the file import worker that refuses to reach private, loopback, link-local,
 * metadata and otherwise reserved addresses (SSRF guard).
 *
 * Every URL (the first one and each redirect target) is checked from scratch: scheme (http/https only), no
 * credentials, host present, host name rules, then the host is resolved here and every resolved address is
 * checked. The socket then connects only to an address that was checked (a pinned `lookup` is handed to
 * `http.request`), so a DNS answer that changes between the check and the connect (DNS rebinding) is never
 * used. Hosts listed in `IMPORT_ALLOW_HOSTS` skip the host name and address rules (not the scheme and
 * credential rules).
 *
 * The download has one deadline (DNS, connect, redirects, headers and body), a stall limit (no byte for that
 * long while the caller waits for one: a server that accepts and never answers, or drips) and a byte limit;
 * each, and the caller's abort signal, destroy the socket and surface as {@link FetchFailedError}.
 */
import { promises as dnsPromises, type LookupAddress, type LookupOptions } from "node:dns";
import type { IncomingMessage } from "node:http";
import { request as httpRequest } from "node:http";
import { request as httpsRequest } from "node:https";
import { BlockList, isIP, type LookupFunction } from "node:net";

/** One resolved address, as {@link GuardOptions.lookup} answers. */
export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

/** Options of {@link openGuardedStream}. */
export interface GuardOptions {
  /**
   * `IMPORT_ALLOW_HOSTS` entries: host names or IP literals (case-insensitive, IPv6 with or without
   * brackets), each optionally with `:port` (then only that port is exempt). A listed host skips the host
   * name and address rules.
   */
  allowHosts: readonly string[];
  /** Body size limit in bytes. */
  maxBytes: number;
  /** Limit for the whole download in milliseconds: DNS, connect, redirects, headers and body. */
  timeoutMs: number;
  /**
   * Longest wait for the next byte, in milliseconds (default: no limit but `timeoutMs`): from the start to
   * the response head, and from each time the caller asks for the next chunk of the body until it comes.
   * Time the caller spends with a chunk does not count.
   */
  stallMs?: number;
  /** Redirects followed at most (default 5). */
  maxRedirects?: number;
  /** Aborting it cancels the download (also mid-body). */
  signal?: AbortSignal;
  /** Injectable resolver (default `dns.promises.lookup(host, { all: true })`). */
  lookup?: (hostname: string) => Promise<ResolvedAddress[]>;
}

/** Why a URL was refused, as a short code ({@link ImportUrlRefusedError.reason}). */
export type RefusalReason =
  | "invalid-url"
  | "scheme"
  | "credentials"
  | "no-host"
  | "blocked-hostname"
  | "blocked-address"
  | "invalid-address";

/** The URL is not allowed (scheme, credentials, host, or a resolved address). The message is safe to show. */
export class ImportUrlRefusedError extends Error {
  /** Short code of the rule that refused the URL. */
  readonly reason: RefusalReason;

  constructor(message: string, reason: RefusalReason) {
    super(message);
    this.name = "ImportUrlRefusedError";
    this.reason = reason;
  }
}

/** What went wrong in a {@link FetchFailedError}. */
export type FetchFailureKind =
  | "dns"
  | "network"
  | "status"
  | "too-large"
  | "timeout"
  | "stall"
  | "aborted"
  | "redirects";

/** The download failed: DNS or network error, non-2xx status, too many redirects, too large, timeout, abort. */
export class FetchFailedError extends Error {
  /** Which of the failures it is. */
  readonly kind: FetchFailureKind;
  /** The HTTP status, for `kind: "status"`. */
  readonly status?: number;

  constructor(message: string, kind: FetchFailureKind, options?: { cause?: unknown; status?: number }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = "FetchFailedError";
    this.kind = kind;
    if (options?.status !== undefined) this.status = options.status;
  }
}

// ---------------------------------------------------------------------------------------------------------
// Address rules

interface Range {
  network: string;
  prefix: number;
  label: string;
}

/** IPv4 ranges refused, most specific first (the first match names the rule). */
const V4_RANGES: readonly Range[] = [
  { network: "169.254.169.254", prefix: 32, label: "a cloud metadata address" },
  { network: "255.255.255.255", prefix: 32, label: "the broadcast address" },
  { network: "0.0.0.0", prefix: 8, label: "in the unspecified range 0.0.0.0/8" },
  { network: "10.0.0.0", prefix: 8, label: "private" },
  { network: "100.64.0.0", prefix: 10, label: "in the shared carrier-grade NAT range" },
  { network: "127.0.0.0", prefix: 8, label: "loopback" },
  { network: "169.254.0.0", prefix: 16, label: "link-local" },
  { network: "172.16.0.0", prefix: 12, label: "private" },
  { network: "192.0.0.0", prefix: 24, label: "reserved for protocol assignments" },
  { network: "192.0.2.0", prefix: 24, label: "reserved for documentation" },
  { network: "192.168.0.0", prefix: 16, label: "private" },
  { network: "198.18.0.0", prefix: 15, label: "reserved for benchmarking" },
  { network: "198.51.100.0", prefix: 24, label: "reserved for documentation" },
  { network: "203.0.113.0", prefix: 24, label: "reserved for documentation" },
  { network: "224.0.0.0", prefix: 4, label: "multicast" },
  { network: "240.0.0.0", prefix: 4, label: "reserved" },
];

/**
 * IPv6 ranges refused (IPv4-mapped, NAT64 and 6to4 addresses are judged by their embedded IPv4 address
 * before these). Beyond the required list: ::/96 (deprecated IPv4-compatible), fec0::/10 (deprecated
 * site-local), 100::/64 (discard-only), 64:ff9b:1::/48 (local-use NAT64), 2001::/23 (protocol assignments,
 * includes Teredo).
 */
const V6_RANGES: readonly Range[] = [
  { network: "::", prefix: 128, label: "the unspecified address" },
  { network: "::1", prefix: 128, label: "loopback" },
  { network: "::", prefix: 96, label: "in the deprecated IPv4-compatible range ::/96" },
  { network: "fc00::", prefix: 7, label: "private (unique local)" },
  { network: "fe80::", prefix: 10, label: "link-local" },
  { network: "fec0::", prefix: 10, label: "site-local (deprecated)" },
  { network: "ff00::", prefix: 8, label: "multicast" },
  { network: "2001:db8::", prefix: 32, label: "reserved for documentation" },
  { network: "100::", prefix: 64, label: "in the discard-only range 100::/64" },
  { network: "64:ff9b:1::", prefix: 48, label: "in the local-use NAT64 range" },
  { network: "2001::", prefix: 23, label: "reserved for protocol assignments" },
];

function buildList(ranges: readonly Range[], type: "ipv4" | "ipv6"): BlockList {
  const list = new BlockList();
  for (const range of ranges) list.addSubnet(range.network, range.prefix, type);
  return list;
}

const V4_LIST = buildList(V4_RANGES, "ipv4");
const V6_LIST = buildList(V6_RANGES, "ipv6");
const V4_SINGLE = V4_RANGES.map((range) => ({ range, list: buildList([range], "ipv4") }));
const V6_SINGLE = V6_RANGES.map((range) => ({ range, list: buildList([range], "ipv6") }));

/** Host names refused whatever they resolve to (besides every `*.localhost`). */
const BLOCKED_HOSTNAMES: ReadonlySet<string> = new Set(["localhost", "metadata.google.internal"]);

function v4Label(address: string): string | undefined {
  if (!V4_LIST.check(address, "ipv4")) return undefined;
  return V4_SINGLE.find((entry) => entry.list.check(address, "ipv4"))?.range.label ?? "reserved";
}

/** The 16 bytes of an IPv6 address (no zone index), or undefined when it is not one. */
function ipv6Bytes(address: string): Uint8Array | undefined {
  const halves = address.split("::");
  if (halves.length > 2) return undefined;
  const side = (text: string, last: boolean): number[] | undefined => {
    if (text === "") return [];
    const words: number[] = [];
    const groups = text.split(":");
    for (let i = 0; i < groups.length; i++) {
      const group = groups[i];
      if (last && i === groups.length - 1 && group.includes(".")) {
        if (isIP(group) !== 4) return undefined;
        const [a, b, c, d] = group.split(".").map(Number);
        words.push((a << 8) | b, (c << 8) | d);
      } else if (/^[0-9a-f]{1,4}$/i.test(group)) {
        words.push(parseInt(group, 16));
      } else {
        return undefined;
      }
    }
    return words;
  };
  const head = side(halves[0], halves.length === 1);
  const tail = halves.length === 2 ? side(halves[1], true) : [];
  if (!head || !tail) return undefined;
  const missing = 8 - head.length - tail.length;
  if (halves.length === 1 ? missing !== 0 : missing < 1) return undefined;
  const words = [...head, ...new Array<number>(missing).fill(0), ...tail];
  const bytes = new Uint8Array(16);
  words.forEach((word, i) => {
    bytes[2 * i] = word >> 8;
    bytes[2 * i + 1] = word & 0xff;
  });
  return bytes;
}

function dotted(bytes: Uint8Array, at: number): string {
  return `${bytes[at]}.${bytes[at + 1]}.${bytes[at + 2]}.${bytes[at + 3]}`;
}

/** The IPv4 address embedded in an IPv4-mapped (::ffff:0:0/96), NAT64 (64:ff9b::/96) or 6to4 address. */
function embeddedV4(bytes: Uint8Array): { kind: string; v4: string } | undefined {
  const zeros = (from: number, to: number): boolean => bytes.slice(from, to).every((byte) => byte === 0);
  if (zeros(0, 10) && bytes[10] === 0xff && bytes[11] === 0xff)
    return { kind: "IPv4-mapped", v4: dotted(bytes, 12) };
  if (bytes[0] === 0x00 && bytes[1] === 0x64 && bytes[2] === 0xff && bytes[3] === 0x9b && zeros(4, 12)) {
    return { kind: "NAT64", v4: dotted(bytes, 12) };
  }
  if (bytes[0] === 0x20 && bytes[1] === 0x02) return { kind: "6to4", v4: dotted(bytes, 2) };
  return undefined;
}

/**
 * Why an IP address may not be fetched from ("private", "loopback", …), or undefined when it may.
 * Anything that is not an IP address is refused too.
 */
export function blockedAddressReason(address: string): string | undefined {
  const zone = address.indexOf("%");
  const bare = zone === -1 ? address : address.slice(0, zone);
  const family = isIP(bare);
  if (family === 4) return v4Label(bare);
  if (family !== 6) return "not an IP address";
  const bytes = ipv6Bytes(bare);
  if (!bytes) return "not an IP address";
  const embedded = embeddedV4(bytes);
  if (embedded) {
    const label = v4Label(embedded.v4);
    if (label) return `${label} (${embedded.kind} ${embedded.v4})`;
    if (embedded.kind === "IPv4-mapped") return undefined;
  }
  if (!V6_LIST.check(bare, "ipv6")) return undefined;
  return V6_SINGLE.find((entry) => entry.list.check(bare, "ipv6"))?.range.label ?? "reserved";
}

// ---------------------------------------------------------------------------------------------------------
// URL rules

/** A URL host without IPv6 brackets and without a trailing dot. */
function bareHost(hostname: string): string {
  let host = hostname.toLowerCase();
  if (host.startsWith("[") && host.endsWith("]")) host = host.slice(1, -1);
  while (host.endsWith(".")) host = host.slice(0, -1);
  return host;
}

function effectivePort(url: URL): string {
  return url.port !== "" ? url.port : url.protocol === "https:" ? "443" : "80";
}

/** Canonical form of a host name or IP literal, the way the URL parser writes it (without brackets). */
function canonicalHost(host: string): string {
  const family = isIP(host);
  try {
    return bareHost(new URL(`http://${family === 6 ? `[${host}]` : host}/`).hostname);
  } catch {
    return bareHost(host);
  }
}

/** Parses one `IMPORT_ALLOW_HOSTS` entry into host and optional port. */
function parseAllowEntry(entry: string): { host: string; port?: string } | undefined {
  const text = entry.trim().toLowerCase();
  if (text === "") return undefined;
  let host = text;
  let port: string | undefined;
  if (text.startsWith("[")) {
    const close = text.indexOf("]");
    if (close === -1) return undefined;
    host = text.slice(1, close);
    const rest = text.slice(close + 1);
    if (rest.startsWith(":")) port = rest.slice(1);
    else if (rest !== "") return undefined;
  } else if (isIP(text) !== 6) {
    const colon = text.lastIndexOf(":");
    if (colon !== -1) {
      host = text.slice(0, colon);
      port = text.slice(colon + 1);
    }
  }
  if (port !== undefined && !/^\d{1,5}$/.test(port)) return undefined;
  return { host: canonicalHost(host), port: port === undefined ? undefined : String(Number(port)) };
}

/** Whether the URL's host (and port, when the entry names one) is listed in `allowHosts`. */
export function isAllowedHost(url: URL, allowHosts: readonly string[]): boolean {
  const host = bareHost(url.hostname);
  const port = effectivePort(url);
  return allowHosts.some((entry) => {
    const allowed = parseAllowEntry(entry);
    return (
      allowed !== undefined && allowed.host === host && (allowed.port === undefined || allowed.port === port)
    );
  });
}

function refuseUrl(
  url: string,
  allowHosts: readonly string[],
): { error?: ImportUrlRefusedError; parsed?: URL } {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return { error: new ImportUrlRefusedError("the URL is not a valid absolute URL", "invalid-url") };
  }
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:") {
    const scheme = parsed.protocol.replace(/:$/, "");
    return {
      error: new ImportUrlRefusedError(`the scheme ${scheme} is not allowed (only http and https)`, "scheme"),
    };
  }
  if (parsed.username !== "" || parsed.password !== "") {
    return {
      error: new ImportUrlRefusedError("URLs with a user name or password are not allowed", "credentials"),
    };
  }
  const host = bareHost(parsed.hostname);
  if (host === "") return { error: new ImportUrlRefusedError("the URL has no host", "no-host") };
  if (isAllowedHost(parsed, allowHosts)) return { parsed };
  if (BLOCKED_HOSTNAMES.has(host) || host.endsWith(".localhost")) {
    return { error: new ImportUrlRefusedError(`the host ${host} is not allowed`, "blocked-hostname") };
  }
  if (isIP(host) !== 0) {
    const why = blockedAddressReason(host);
    if (why) return { error: new ImportUrlRefusedError(`the address ${host} is ${why}`, "blocked-address") };
  }
  return { parsed };
}

/**
 * Synchronous shape check of an import URL: http/https only, no user name or password, a host; host names
 * `localhost`, `*.localhost` and `metadata.google.internal` and IP-literal hosts in a blocked range are
 * refused unless listed in `allowHosts`. Host names are not resolved here ({@link openGuardedStream} does).
 * Returns the refusal, or undefined when the URL may be tried.
 */
export function checkImportUrl(
  url: string,
  allowHosts: readonly string[],
): ImportUrlRefusedError | undefined {
  return refuseUrl(url, allowHosts).error;
}

// ---------------------------------------------------------------------------------------------------------
// Deadline and cancellation

/**
 * One deadline, a stall limit and the caller's signal, merged into one AbortSignal whose reason is a
 * FetchFailedError.
 */
class Deadline {
  private readonly controller = new AbortController();
  private readonly timer: NodeJS.Timeout;
  private readonly onCallerAbort: () => void;
  private stallTimer: NodeJS.Timeout | undefined;

  constructor(
    timeoutMs: number,
    private readonly callerSignal: AbortSignal | undefined,
    private readonly stallMs?: number,
  ) {
    this.timer = setTimeout(
      () => this.abort(new FetchFailedError(`the download did not finish within ${timeoutMs} ms`, "timeout")),
      Math.max(0, Math.min(timeoutMs, 2 ** 31 - 1)),
    );
    this.timer.unref();
    this.onCallerAbort = () =>
      this.abort(
        new FetchFailedError("the download was cancelled", "aborted", { cause: callerSignal?.reason }),
      );
    if (callerSignal?.aborted) this.onCallerAbort();
    else callerSignal?.addEventListener("abort", this.onCallerAbort, { once: true });
    this.waitForBytes();
  }

  /** Bytes are awaited from now on: the stall limit runs (again). */
  waitForBytes(): void {
    if (this.stallMs === undefined || this.controller.signal.aborted) return;
    clearTimeout(this.stallTimer);
    const ms = this.stallMs;
    this.stallTimer = setTimeout(
      () => this.abort(new FetchFailedError(`no data arrived for ${ms} ms`, "stall")),
      Math.max(1, Math.min(ms, 2 ** 31 - 1)),
    );
    this.stallTimer.unref();
  }

  /** Bytes came (or the caller is busy with them): the stall limit waits for the next waitForBytes. */
  gotBytes(): void {
    clearTimeout(this.stallTimer);
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** The FetchFailedError that ended the download (only when the signal is aborted). */
  get reason(): FetchFailedError {
    return this.controller.signal.reason as FetchFailedError;
  }

  private abort(error: FetchFailedError): void {
    if (!this.controller.signal.aborted) this.controller.abort(error);
  }

  /** Throws the reason when the deadline passed or the caller aborted. */
  throwIfDone(): void {
    if (this.controller.signal.aborted) throw this.reason;
  }

  /** Settles with the promise, or rejects with the reason when the deadline or the caller comes first. */
  race<T>(promise: Promise<T>): Promise<T> {
    this.throwIfDone();
    return new Promise<T>((resolve, reject) => {
      const onAbort = (): void => reject(this.reason);
      this.signal.addEventListener("abort", onAbort, { once: true });
      promise.then(
        (value) => {
          this.signal.removeEventListener("abort", onAbort);
          resolve(value);
        },
        (error: unknown) => {
          this.signal.removeEventListener("abort", onAbort);
          reject(error);
        },
      );
    });
  }

  dispose(): void {
    clearTimeout(this.timer);
    clearTimeout(this.stallTimer);
    this.callerSignal?.removeEventListener("abort", this.onCallerAbort);
  }
}

// ---------------------------------------------------------------------------------------------------------
// Resolution, connection, body

const REDIRECT_STATUSES: ReadonlySet<number> = new Set([301, 302, 303, 307, 308]);

async function defaultLookup(hostname: string): Promise<ResolvedAddress[]> {
  const answers = await dnsPromises.lookup(hostname, { all: true });
  return answers.map((answer) => ({ address: answer.address, family: answer.family === 6 ? 6 : 4 }));
}

function errorCode(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === "string" ? code : undefined;
}

/** Resolves the URL's host and checks every address (unless the host is allowed). */
async function resolveChecked(
  url: URL,
  options: GuardOptions,
  deadline: Deadline,
): Promise<ResolvedAddress[]> {
  const host = bareHost(url.hostname);
  const literal = isIP(host);
  if (literal !== 0) return [{ address: host, family: literal === 6 ? 6 : 4 }];
  const allowed = isAllowedHost(url, options.allowHosts);
  let answers: ResolvedAddress[];
  try {
    answers = await deadline.race((options.lookup ?? defaultLookup)(host));
  } catch (error) {
    if (error instanceof FetchFailedError) throw error;
    const code = errorCode(error);
    throw new FetchFailedError(`could not resolve the host ${host}${code ? ` (${code})` : ""}`, "dns", {
      cause: error,
    });
  }
  if (answers.length === 0) throw new FetchFailedError(`the host ${host} has no address`, "dns");
  const checked: ResolvedAddress[] = [];
  for (const answer of answers) {
    const family = isIP(answer.address);
    if (family === 0) {
      throw new ImportUrlRefusedError(
        `the host ${host} resolved to something that is not an IP address`,
        "invalid-address",
      );
    }
    if (!allowed) {
      const why = blockedAddressReason(answer.address);
      if (why)
        throw new ImportUrlRefusedError(
          `the address ${answer.address} of host ${host} is ${why}`,
          "blocked-address",
        );
    }
    checked.push({ address: answer.address, family: family === 6 ? 6 : 4 });
  }
  return checked;
}

/** A `lookup` for `http.request` that answers only the checked addresses, never asking DNS again. */
function pinnedLookup(host: string, addresses: readonly ResolvedAddress[]): LookupFunction {
  return (hostname: string, options: LookupOptions, callback) => {
    if (bareHost(hostname) !== host) {
      const error: NodeJS.ErrnoException = new Error(`unexpected lookup of ${hostname}`);
      error.code = "ENOTFOUND";
      process.nextTick(callback, error, "", 0);
      return;
    }
    const wanted = options.family === 4 || options.family === 6 ? options.family : undefined;
    const usable = wanted ? addresses.filter((entry) => entry.family === wanted) : [...addresses];
    if (usable.length === 0) {
      const error: NodeJS.ErrnoException = new Error(`no IPv${wanted ?? ""} address for ${hostname}`);
      error.code = "ENOTFOUND";
      process.nextTick(callback, error, "", 0);
      return;
    }
    if (options.all) {
      const all: LookupAddress[] = usable.map((entry) => ({ address: entry.address, family: entry.family }));
      process.nextTick(callback, null, all);
    } else {
      process.nextTick(callback, null, usable[0].address, usable[0].family);
    }
  };
}

function networkError(error: unknown, url: URL): FetchFailedError {
  if (error instanceof FetchFailedError) return error;
  const code = errorCode(error);
  const message = error instanceof Error ? error.message : String(error);
  const host = bareHost(url.hostname);
  return new FetchFailedError(
    `the download from ${host} failed: ${code && !message.includes(code) ? `${code} ` : ""}${message}`,
    "network",
    { cause: error },
  );
}

/** Sends the GET to one checked address and resolves with the response head. */
function requestOnce(
  url: URL,
  addresses: readonly ResolvedAddress[],
  deadline: Deadline,
): Promise<IncomingMessage> {
  deadline.throwIfDone();
  const host = bareHost(url.hostname);
  const https = url.protocol === "https:";
  return new Promise<IncomingMessage>((resolve, reject) => {
    let settled = false;
    const request = (https ? httpsRequest : httpRequest)({
      protocol: url.protocol,
      host,
      port: Number(effectivePort(url)),
      path: `${url.pathname}${url.search}`,
      method: "GET",
      headers: { host: url.host, accept: "*/*", "user-agent": "external-api-service import" },
      agent: false,
      lookup: pinnedLookup(host, addresses),
      ...(https && isIP(host) === 0 ? { servername: host } : {}),
    });
    const onAbort = (): void => {
      request.destroy();
      if (!settled) {
        settled = true;
        reject(deadline.reason);
      }
    };
    deadline.signal.addEventListener("abort", onAbort, { once: true });
    request.on("error", (error) => {
      deadline.signal.removeEventListener("abort", onAbort);
      if (settled) return;
      settled = true;
      reject(deadline.signal.aborted ? deadline.reason : networkError(error, url));
    });
    request.on("response", (response) => {
      deadline.signal.removeEventListener("abort", onAbort);
      // A socket error after the head must not go unhandled; the body iterator reports it.
      response.on("error", () => undefined);
      if (settled) {
        response.destroy();
        return;
      }
      settled = true;
      resolve(response);
    });
    request.end();
  });
}

/**
 * What identifies one version of a file, from its response head: a strong ETag (a weak one promises the
 * same meaning, not the same bytes, so it does not count), Last-Modified and Content-Length, each
 * undefined when absent or longer than 256 characters.
 */
export interface FileVersion {
  readonly etag: string | undefined;
  readonly lastModified: string | undefined;
  readonly length: number | undefined;
}

function fileVersion(response: IncomingMessage, length: number | undefined): FileVersion {
  const header = (value: string | undefined): string | undefined =>
    value === undefined || value === "" || value.length > 256 ? undefined : value;
  const etag = header(response.headers.etag);
  return {
    etag: etag !== undefined && !etag.startsWith("W/") ? etag : undefined,
    lastModified: header(response.headers["last-modified"]),
    length,
  };
}

/**
 * Whether two responses are the same version of a file: they carry a strong ETag or a Last-Modified, and
 * every one of ETag, Last-Modified and Content-Length is the same. Without either validator nothing tells
 * two versions apart, so they are never the same.
 */
export function sameFileVersion(a: FileVersion, b: FileVersion): boolean {
  if (a.etag === undefined && a.lastModified === undefined) return false;
  return a.etag === b.etag && a.lastModified === b.lastModified && a.length === b.length;
}

function parseContentLength(value: string | undefined): number | undefined {
  return value !== undefined && /^\d+$/.test(value) ? Number(value) : undefined;
}

/** The body as Buffers, counting bytes; ends the download (socket and deadline) however it finishes. */
function guardedBody(
  response: IncomingMessage,
  url: URL,
  maxBytes: number,
  deadline: Deadline,
): AsyncGenerator<Buffer> {
  const onAbort = (): void => {
    response.destroy();
  };
  deadline.signal.addEventListener("abort", onAbort, { once: true });
  return (async function* body(): AsyncGenerator<Buffer> {
    let received = 0;
    try {
      deadline.throwIfDone();
      deadline.waitForBytes();
      for await (const chunk of response as AsyncIterable<Buffer>) {
        deadline.gotBytes();
        received += chunk.length;
        if (received > maxBytes) {
          throw new FetchFailedError(`the file is larger than the limit of ${maxBytes} bytes`, "too-large");
        }
        yield chunk;
        deadline.waitForBytes();
      }
      deadline.throwIfDone();
    } catch (error) {
      if (error instanceof FetchFailedError) throw error;
      if (deadline.signal.aborted) throw deadline.reason;
      throw networkError(error, url);
    } finally {
      deadline.signal.removeEventListener("abort", onAbort);
      deadline.dispose();
      response.destroy();
    }
  })();
}

/**
 * GETs `url` as a stream, following redirects (301, 302, 303, 307, 308; at most `maxRedirects`, default 5)
 * and checking every URL and every resolved address before connecting to it (see the module comment).
 * Resolves once a 2xx head arrived; the body is then read with `for await`, chunk by chunk (never buffered
 * whole). Rejects with {@link ImportUrlRefusedError} when a URL or address is refused, and with
 * {@link FetchFailedError} for DNS and network errors, a non-2xx status, too many redirects, a
 * `content-length` above `maxBytes`, the deadline or the abort signal. The body iterator throws
 * FetchFailedError when the byte limit, the deadline or the signal strikes mid-body, and destroys the socket
 * whenever it stops (also when the consumer stops early).
 */
export async function openGuardedStream(
  url: string,
  options: GuardOptions,
): Promise<{ body: AsyncIterable<Buffer>; finalUrl: string; contentLength?: number; version: FileVersion }> {
  const maxRedirects = options.maxRedirects ?? 5;
  if (!Number.isFinite(options.maxBytes) || options.maxBytes < 0)
    throw new TypeError("maxBytes must be a number >= 0");
  if (!Number.isFinite(options.timeoutMs) || options.timeoutMs <= 0)
    throw new TypeError("timeoutMs must be a number > 0");
  if (!Number.isInteger(maxRedirects) || maxRedirects < 0)
    throw new TypeError("maxRedirects must be an integer >= 0");
  if (options.stallMs !== undefined && (!Number.isFinite(options.stallMs) || options.stallMs <= 0))
    throw new TypeError("stallMs must be a number > 0");
  const deadline = new Deadline(options.timeoutMs, options.signal, options.stallMs);
  try {
    let current = url;
    for (let redirects = 0; ; redirects++) {
      deadline.throwIfDone();
      const { error, parsed } = refuseUrl(current, options.allowHosts);
      if (error || !parsed)
        throw afterRedirects(
          error ?? new ImportUrlRefusedError("the URL is not valid", "invalid-url"),
          redirects,
        );
      let addresses: ResolvedAddress[];
      try {
        addresses = await resolveChecked(parsed, options, deadline);
      } catch (refusal) {
        throw refusal instanceof ImportUrlRefusedError ? afterRedirects(refusal, redirects) : refusal;
      }
      deadline.waitForBytes(); // each request's head has the whole stall limit
      const response = await requestOnce(parsed, addresses, deadline);
      const status = response.statusCode ?? 0;
      if (REDIRECT_STATUSES.has(status)) {
        const location = response.headers.location;
        response.destroy();
        if (location === undefined || location === "") {
          throw new FetchFailedError(
            `the server answered HTTP ${status} without a Location header`,
            "status",
            { status },
          );
        }
        if (redirects >= maxRedirects) {
          throw new FetchFailedError(`too many redirects (more than ${maxRedirects})`, "redirects");
        }
        try {
          current = new URL(location, parsed).href;
        } catch {
          throw afterRedirects(
            new ImportUrlRefusedError("the redirect target is not a valid URL", "invalid-url"),
            redirects + 1,
          );
        }
        continue;
      }
      if (status < 200 || status > 299) {
        response.destroy();
        throw new FetchFailedError(`the server answered HTTP ${status}`, "status", { status });
      }
      const contentLength = parseContentLength(response.headers["content-length"]);
      if (contentLength !== undefined && contentLength > options.maxBytes) {
        response.destroy();
        throw new FetchFailedError(
          `the file is larger than the limit of ${options.maxBytes} bytes (content-length ${contentLength})`,
          "too-large",
        );
      }
      // The caller's time until it asks for the body does not count as a stall.
      deadline.gotBytes();
      const body = guardedBody(response, parsed, options.maxBytes, deadline);
      const version = fileVersion(response, contentLength);
      return contentLength === undefined
        ? { body, finalUrl: parsed.href, version }
        : { body, finalUrl: parsed.href, contentLength, version };
    }
  } catch (error) {
    deadline.dispose();
    throw error;
  }
}

/** The same refusal, saying it happened after redirects. */
function afterRedirects(error: ImportUrlRefusedError, redirects: number): ImportUrlRefusedError {
  if (redirects === 0) return error;
  return new ImportUrlRefusedError(
    `${error.message} (after ${redirects} redirect${redirects === 1 ? "" : "s"})`,
    error.reason,
  );
}
