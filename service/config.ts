// Configuration: every option is an environment variable with a default, read once at start (the DKIM
// key files DKIM_KEYS names are read and checked here too). The same table feeds `npm start -- --help`
// and docs/operations.md ("Configuration").

import { createHash, createPrivateKey, type KeyObject } from "node:crypto";
import { readFileSync, statSync } from "node:fs";
import { isIP } from "node:net";
import { originProblem } from "../generated/runtime/server/cors.js";

export type Role = "api" | "worker" | "all";

export interface Config {
  readonly port: number;
  readonly host: string;
  readonly databaseUrl: string;
  readonly publicUrl: string;
  /** PUBLIC_URL was set: the WSDL's address uses it instead of the Host the caller reached. */
  readonly publicUrlSet: boolean;
  /** CORS_ORIGINS: web origins allowed to call the endpoint from a browser ("*": any); empty: none. */
  readonly corsOrigins: string[];
  /** TRUSTED_PROXIES: the operator's proxies, whose X-Forwarded-For names the caller; empty: never read. */
  readonly trustedProxies: readonly ProxyRange[];
  readonly importAllowHosts: string[];
  readonly importMaxBytes: number;
  readonly importTimeoutMs: number;
  readonly importStallMs: number;
  readonly importConcurrency: number;
  readonly outboxDir: string;
  /** SMTP server mail is delivered to; undefined: the outbox folder. */
  readonly smtpUrl: string | undefined;
  /** SMTP_ALLOW_PLAINTEXT_AUTH: log in to an smtp:// server that offers no STARTTLS. */
  readonly smtpAllowPlaintextAuth: boolean;
  /** SMTP_POOL_SIZE: SMTP connections kept open and reused, each one message at a time. */
  readonly smtpPoolSize: number;
  /** MAIL_DOMAIN_CONCURRENCY: messages in flight to one recipient domain (0: up to smtpPoolSize). */
  readonly mailDomainConcurrency: number;
  /** MAIL_DOMAIN_RATE: messages a minute to one recipient domain (0: no limit). */
  readonly mailDomainRate: number;
  /** undefined: no limit (retries end with mailRetryMaxAgeMs). */
  readonly mailMaxAttempts: number | undefined;
  readonly mailRetryMaxAgeMs: number;
  readonly mailRetryMaxIntervalMs: number;
  /** How long a delivered message keeps its whole text, in days (0: cut to its headers at delivery). */
  readonly outboxRetentionDays: number;
  /** Folder paid SMS are written to as `<id>.json` when smsUrl is unset. */
  readonly smsOutboxDir: string;
  /** HTTP gateway paid SMS are POSTed to; undefined: the SMS folder. */
  readonly smsUrl: string | undefined;
  /** SHA-256 of SMS_WEBHOOK_TOKEN (POST /sms/webhook: STOP and delivery receipts); undefined: no webhook. */
  readonly smsWebhookTokenHash: Buffer | undefined;
  /** Requests a minute one address may make to POST /sms/webhook. */
  readonly smsWebhookRate: number;
  readonly mailFrom: string;
  /** MAIL_FROM was set (else mailFrom is made up from PUBLIC_URL's host, and the start warns). */
  readonly mailFromSet: boolean;
  /** DKIM_KEYS: the signing key of each sending domain (empty: mail goes out unsigned). */
  readonly dkimKeys: readonly DkimKey[];
  readonly logLevel: string;
  /** LOG_FORMAT: json lines, or pretty (human-readable); auto: pretty when standard output is a terminal. */
  readonly logFormat: "json" | "pretty" | "auto";
  readonly sqliteSync: "FULL" | "NORMAL";
  readonly databasePool: number;
  readonly jobLeaseMs: number;
  readonly shutdownTimeoutMs: number;
  /** Password checks (scrypt) running at once. */
  readonly authConcurrency: number;
  /** How long a verified pair skips the password check for its source (at most 60 s). */
  readonly authCacheMs: number;
  readonly role: Role;
  /** SHA-256 of METRICS_TOKEN (the token itself is not kept); undefined: /metrics is 404 on the public port. */
  readonly metricsTokenHash: Buffer | undefined;
  /** Port of the separate metrics listener; undefined: none. */
  readonly metricsPort: number | undefined;
  readonly metricsHost: string;
  /** Bounces and complaints (service/operations/mailing/bounces.ts). */
  readonly bounce: BounceConfig;
  /** The operator's console at /console/ (service/console/). */
  readonly console: ConsoleConfig;
}

/** One TRUSTED_PROXIES entry: an address (prefix = the family's bits) or a CIDR range. */
export interface ProxyRange {
  readonly address: string;
  readonly prefix: number;
  readonly family: "ipv4" | "ipv6";
}

export interface ConsoleConfig {
  readonly enabled: boolean;
  /** How long a console sign-in lasts, in ms. */
  readonly sessionMs: number;
  /** The session cookie is Secure even on a plain-HTTP request (TLS ends at a proxy). */
  readonly secureCookie: boolean;
}

export interface BounceConfig {
  /** VERP domain of the envelope sender; undefined: the From address is the envelope sender. */
  readonly domain: string | undefined;
  /** Port of the inbound SMTP receiver; undefined: none. */
  readonly smtpPort: number | undefined;
  readonly smtpHost: string;
  /** SHA-256 of BOUNCE_WEBHOOK_TOKEN; undefined: no webhook. */
  readonly webhookTokenHash: Buffer | undefined;
  readonly maxBytes: number;
  readonly softLimit: number;
  /** Reports a minute from one address (each receiver). */
  readonly perMinute: number;
}

interface Option {
  readonly name: string;
  readonly default: string;
  readonly doc: string;
}

export const OPTIONS: readonly Option[] = [
  { name: "PORT", default: "8080", doc: "TCP port of the HTTP server." },
  { name: "HOST", default: "127.0.0.1", doc: "Address to listen on (0.0.0.0 for every interface)." },
  {
    name: "DATABASE_URL",
    default: "sqlite:data/service.db",
    doc: "sqlite:<file> (created and migrated on start; the file's own folder is made, a missing parent folder is refused) or postgres://user:pass@host/db.",
  },
  {
    name: "PUBLIC_URL",
    default: "http://127.0.0.1:<PORT>",
    doc: "Base URL subscribers reach the service at (confirmation links).",
  },
  {
    name: "CORS_ORIGINS",
    default: "",
    doc: "Comma-separated origins (https://app.example, http://localhost:5173) whose web pages may call /ExternalAPIService.asmx from a browser, or * for any; unset: no CORS headers, preflights get 405.",
  },
  {
    name: "TRUSTED_PROXIES",
    default: "",
    doc: "Comma-separated addresses and CIDR ranges of your own proxies or load balancers (10.0.0.0/8, 127.0.0.1, fd00::/8): from these, the caller's address is read from X-Forwarded-For, right to left past these proxies only (sign-in throttle, consent records, webhook rate limits, request log); unset: the connection's address, the header ignored.",
  },
  {
    name: "IMPORT_ALLOW_HOSTS",
    default: "",
    doc: "Comma-separated hosts (host or host:port) file imports may fetch from even on private addresses.",
  },
  { name: "IMPORT_MAX_BYTES", default: "268435456", doc: "Largest import file, in bytes (256 MiB)." },
  {
    name: "IMPORT_TIMEOUT_MS",
    default: "1800000",
    doc: "Time allowed for one import download, in ms (30 min).",
  },
  {
    name: "IMPORT_STALL_MS",
    default: "60000",
    doc: "An import download that sends no byte for this long, in ms, is given up and retried later.",
  },
  {
    name: "IMPORT_CONCURRENCY",
    default: "4",
    doc: "Imports a worker process downloads and writes at once; never two of one account.",
  },
  {
    name: "OUTBOX_DIR",
    default: "data/outbox",
    doc: "Folder the outbox writes each e-mail to as an .eml file.",
  },
  {
    name: "SMTP_URL",
    default: "",
    doc: "smtp://user:pass@host:587 or smtps://...:465: deliver mail to this SMTP server instead of OUTBOX_DIR.",
  },
  {
    name: "SMS_OUTBOX_DIR",
    default: "data/sms",
    doc: "Folder paid SMS are written to, one <id>.json each (sender, recipient, text).",
  },
  {
    name: "SMS_WEBHOOK_TOKEN",
    default: "",
    doc: "Bearer token (at least 32 characters) of POST /sms/webhook, where the SMS gateway reports STOP messages and delivery receipts; unset: there is no such route.",
  },
  {
    name: "SMS_WEBHOOK_RATE",
    default: "600",
    doc: "Requests a minute one address may make to POST /sms/webhook (more: 429).",
  },
  {
    name: "SMS_URL",
    default: "",
    doc: "http(s) URL of an SMS gateway: each paid SMS is POSTed there as that JSON instead of written to SMS_OUTBOX_DIR.",
  },
  {
    name: "SMTP_ALLOW_PLAINTEXT_AUTH",
    default: "false",
    doc: "true: log in to an smtp:// server even without STARTTLS (the password in clear text). By default a user in SMTP_URL requires smtps:// or STARTTLS.",
  },
  {
    name: "SMTP_POOL_SIZE",
    default: "4",
    doc: "SMTP connections each worker process keeps open and reuses across messages (1 to 64); also how many messages it has in flight at once.",
  },
  {
    name: "MAIL_DOMAIN_CONCURRENCY",
    default: "0",
    doc: "E-mails in flight at once to one recipient domain (the part after @), per worker process; 0: no limit but SMTP_POOL_SIZE.",
  },
  {
    name: "MAIL_DOMAIN_RATE",
    default: "0",
    doc: "E-mails a minute to one recipient domain, per worker process (a burst of one second's worth); more wait in the queue, no attempt counted. 0: no limit.",
  },
  {
    name: "MAIL_RETRY_MAX_AGE_MS",
    default: "432000000",
    doc: "How long an e-mail that fails for a temporary reason (SMTP 4xx, refused login, network) is retried after its first attempt, in ms (5 days); then it is dead. An SMTP 5xx refusal is dead at once.",
  },
  {
    name: "MAIL_RETRY_MAX_INTERVAL_MS",
    default: "1800000",
    doc: "Longest wait between two delivery attempts of one e-mail, in ms (30 min); waits start at 1 min and double, each jittered to between half and all of that.",
  },
  {
    name: "MAIL_MAX_ATTEMPTS",
    default: "",
    doc: "If set, an e-mail is also dead after this many attempts, even before MAIL_RETRY_MAX_AGE_MS.",
  },
  {
    name: "OUTBOX_RETENTION_DAYS",
    default: "0",
    doc: "Days a delivered e-mail's whole text is kept in the database; then (at 0: at delivery) only its From, To, Subject, Date and Message-ID headers are.",
  },
  {
    name: "MAIL_FROM",
    default: "no-reply@<PUBLIC_URL host>",
    doc: "From address of service mail when the account and list set none (unset: the start logs a warning).",
  },
  {
    name: "DKIM_KEYS",
    default: "",
    doc: "DKIM signing keys per sending domain, comma-separated domain:selector:source, the source a PEM file's path (not readable by every user) or env:NAME (a variable holding the PEM), like example.com:s2026:/etc/mail/example.com.pem. Mail is signed by the key of its From domain or nearest parent domain; others go out unsigned (docs/mail.md).",
  },
  { name: "LOG_LEVEL", default: "info", doc: "pino level: fatal, error, warn, info, debug, silent." },
  {
    name: "LOG_FORMAT",
    default: "auto",
    doc: "json (one JSON line per entry), pretty (human-readable, pino-pretty) or auto: pretty when standard output is a terminal, else json.",
  },
  {
    name: "SQLITE_SYNC",
    default: "FULL",
    doc: "SQLite synchronous: FULL syncs every commit to disk; NORMAL survives a crash of the process, not of the machine.",
  },
  { name: "DATABASE_POOL", default: "10", doc: "PostgreSQL connections per process." },
  {
    name: "JOB_LEASE_MS",
    default: "30000",
    doc: "How long a worker holds a job without renewing; a crashed worker's job is taken over after it.",
  },
  {
    name: "SHUTDOWN_TIMEOUT_MS",
    default: "10000",
    doc: "On SIGTERM/Ctrl-C, time allowed for in-flight requests and jobs before exit.",
  },
  {
    name: "AUTH_CONCURRENCY",
    default: "2",
    doc: "Password checks (scrypt, ~50 ms and 16 MiB each) running at once; more wait in turn per caller address, 64 at most.",
  },
  {
    name: "AUTH_CACHE_MS",
    default: "60000",
    doc: "How long a verified user name and password skip the password check for the address that signed in (0 to 60000 ms; 0: always check).",
  },
  {
    name: "METRICS_TOKEN",
    default: "",
    doc: "Bearer token (at least 32 characters) that opens GET /metrics on the public port (Authorization: Bearer <token>); unset: /metrics there is 404.",
  },
  {
    name: "METRICS_PORT",
    default: "",
    doc: "Port of a separate listener that serves only /metrics and /healthz, without a token (any role, workers included); unset: none.",
  },
  {
    name: "METRICS_HOST",
    default: "127.0.0.1",
    doc: "Address the METRICS_PORT listener binds (loopback: only this host can scrape).",
  },
  {
    name: "BOUNCE_DOMAIN",
    default: "",
    doc: "Domain of the per-message return path (VERP: bounce-<mail id>-<mac>@<domain>), whose MX is the bounce receiver; unset: the From address is the envelope sender.",
  },
  {
    name: "BOUNCE_SMTP_PORT",
    default: "",
    doc: "Port of the inbound SMTP receiver of bounces and feedback reports (worker and all roles); unset: none.",
  },
  { name: "BOUNCE_SMTP_HOST", default: "127.0.0.1", doc: "Address the bounce receiver binds." },
  {
    name: "BOUNCE_WEBHOOK_TOKEN",
    default: "",
    doc: "Bearer token (at least 32 characters) of POST /bounces, which takes a forwarded report; unset: /bounces is 404.",
  },
  {
    name: "BOUNCE_MAX_BYTES",
    default: "262144",
    doc: "Largest report the receiver and the webhook read, in bytes.",
  },
  {
    name: "BOUNCE_SOFT_LIMIT",
    default: "3",
    doc: "Soft bounces of one address within 30 days that put it on the account's opt-out-all set.",
  },
  {
    name: "BOUNCE_RATE",
    default: "60",
    doc: "Reports a minute one address may send to the receiver or the webhook.",
  },
  {
    name: "CONSOLE",
    default: "true",
    doc: "false: no operator's console (/console/ is 404). The console signs in with an account's user name and password (docs/console.md).",
  },
  {
    name: "CONSOLE_SESSION_HOURS",
    default: "12",
    doc: "How long a console sign-in lasts, in hours (1 to 720); then the operator signs in again.",
  },
  {
    name: "CONSOLE_SECURE_COOKIE",
    default: "false",
    doc: "true: the console's session cookie is Secure on every request (TLS ends at a proxy); it always is on HTTPS requests and when PUBLIC_URL is https.",
  },
];

export class ServiceConfigError extends Error {}

function int(env: NodeJS.ProcessEnv, name: string, fallback: number, min: number, max: number): number {
  const text = env[name];
  if (text === undefined || text === "") return fallback;
  if (!/^\d+$/.test(text) || Number(text) < min || Number(text) > max) {
    throw new ServiceConfigError(`${name} must be a whole number from ${min} to ${max}; it is "${text}".`);
  }
  return Number(text);
}

/** An optional absolute http(s) URL variable (undefined when unset or empty). */
function httpUrl(env: NodeJS.ProcessEnv, name: string): string | undefined {
  const text = env[name];
  if (text === undefined || text === "") return undefined;
  let ok = false;
  try {
    const parsed = new URL(text);
    ok = (parsed.protocol === "http:" || parsed.protocol === "https:") && parsed.hostname !== "";
  } catch {
    ok = false;
  }
  if (!ok)
    throw new ServiceConfigError(
      `${name} must be an absolute http or https URL, like https://sms.example/send.`,
    );
  return text;
}

/** Shortest METRICS_TOKEN accepted (128 bits as hex). */
const MIN_METRICS_TOKEN = 32;

/** SHA-256 of a METRICS_TOKEN: what the service keeps of it. */
export function metricsTokenHash(token: string): Buffer {
  return createHash("sha256").update(token, "utf8").digest();
}

/** METRICS_TOKEN's hash; refused (without echoing it) when it is too short to be a secret. */
function metricsToken(env: NodeJS.ProcessEnv): Buffer | undefined {
  const token = env.METRICS_TOKEN;
  if (token === undefined || token === "") return undefined;
  if (token.length < MIN_METRICS_TOKEN || /\s/.test(token)) {
    throw new ServiceConfigError(
      `METRICS_TOKEN must be at least ${MIN_METRICS_TOKEN} characters without spaces (as from: openssl rand -hex 16).`,
    );
  }
  return metricsTokenHash(token);
}

/** A webhook's bearer token's hash; refused (without echoing it) when too short to be a secret. */
function webhookToken(
  env: NodeJS.ProcessEnv,
  name: "BOUNCE_WEBHOOK_TOKEN" | "SMS_WEBHOOK_TOKEN",
): Buffer | undefined {
  const token = env[name];
  if (token === undefined || token === "") return undefined;
  if (token.length < MIN_METRICS_TOKEN || /\s/.test(token))
    throw new ServiceConfigError(
      `${name} must be at least ${MIN_METRICS_TOKEN} characters without spaces (as from: openssl rand -hex 16).`,
    );
  return metricsTokenHash(token);
}

function bounceDomain(env: NodeJS.ProcessEnv): string | undefined {
  const text = (env.BOUNCE_DOMAIN ?? "").trim().toLowerCase();
  if (text === "") return undefined;
  if (
    !/^(?=.{1,253}$)[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*$/.test(
      text,
    )
  )
    throw new ServiceConfigError(
      `BOUNCE_DOMAIN must be a domain name, like bounces.example.com; it is "${env.BOUNCE_DOMAIN}".`,
    );
  return text;
}

function logFormat(env: NodeJS.ProcessEnv): "json" | "pretty" | "auto" {
  const text = (env.LOG_FORMAT ?? "").trim().toLowerCase();
  if (text === "") return "auto";
  if (text === "json" || text === "pretty" || text === "auto") return text;
  throw new ServiceConfigError(`LOG_FORMAT must be json, pretty or auto; it is "${env.LOG_FORMAT}".`);
}

/** An optional true/false variable (also 1/0, yes/no; any case). */
function bool(env: NodeJS.ProcessEnv, name: string, fallback: boolean): boolean {
  const text = (env[name] ?? "").trim().toLowerCase();
  if (text === "") return fallback;
  if (["true", "1", "yes"].includes(text)) return true;
  if (["false", "0", "no"].includes(text)) return false;
  throw new ServiceConfigError(`${name} must be true or false; it is "${env[name]}".`);
}

/** CORS_ORIGINS as a list; each entry an origin as browsers send it, or "*". */
function corsOrigins(env: NodeJS.ProcessEnv): string[] {
  const list = (env.CORS_ORIGINS ?? "")
    .split(",")
    .map((entry) => entry.trim())
    .filter((entry) => entry !== "");
  for (const entry of list) {
    const problem = entry === "*" ? undefined : originProblem(entry);
    if (problem !== undefined) throw new ServiceConfigError(`CORS_ORIGINS: "${entry}" ${problem}.`);
  }
  return list;
}

/** Most ranges TRUSTED_PROXIES may list. */
const MAX_PROXY_RANGES = 64;

/** TRUSTED_PROXIES as ranges; each entry an IP address or address/prefix, else an error naming it. */
function trustedProxies(env: NodeJS.ProcessEnv): ProxyRange[] {
  const list = (env.TRUSTED_PROXIES ?? "")
    .split(",")
    .map((entry) => entry.trim())
    .filter((entry) => entry !== "");
  if (list.length > MAX_PROXY_RANGES)
    throw new ServiceConfigError(
      `TRUSTED_PROXIES lists at most ${MAX_PROXY_RANGES} ranges; it has ${list.length}.`,
    );
  return list.map((entry) => {
    const slash = entry.indexOf("/");
    const address = slash < 0 ? entry : entry.slice(0, slash);
    const version = address.includes("%") ? 0 : isIP(address);
    if (version === 0)
      throw new ServiceConfigError(
        `TRUSTED_PROXIES: "${entry}" is not an IP address or a range like 10.0.0.0/8 or fd00::/8.`,
      );
    const bits = version === 4 ? 32 : 128;
    const prefixText = slash < 0 ? String(bits) : entry.slice(slash + 1);
    if (!/^\d{1,3}$/.test(prefixText) || Number(prefixText) > bits)
      throw new ServiceConfigError(`TRUSTED_PROXIES: "${entry}": the prefix length must be 0 to ${bits}.`);
    return { address, prefix: Number(prefixText), family: version === 4 ? "ipv4" : "ipv6" };
  });
}

export interface DkimKey {
  /** The signing domain (d=), lower case. */
  readonly domain: string;
  /** The selector (s=): the key's TXT record is at `<selector>._domainkey.<domain>`. */
  readonly selector: string;
  /** The private key, parsed once (read from its file or variable as PEM, PKCS#1 or PKCS#8). */
  readonly privateKey: KeyObject;
}

const DKIM_DOMAIN =
  /^(?=.{1,253}$)[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)+$/;
const SELECTOR = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*$/i;
/** Smallest RSA key accepted (RFC 8301: verifiers may refuse shorter ones). */
const MIN_RSA_BITS = 1024;

/**
 * DKIM_KEYS as keys: comma-separated `domain:selector:source`, where source is a path to a PEM file (not
 * readable by others than its owner and group) or `env:NAME`, an environment variable holding the PEM.
 * Each key must be an RSA private key of at least 1024 bits (2048 recommended); one key per domain.
 */
function parseDkimKeys(value: string | undefined, env: NodeJS.ProcessEnv): DkimKey[] {
  const keys: DkimKey[] = [];
  const entries = (value ?? "")
    .split(",")
    .map((entry) => entry.trim())
    .filter((entry) => entry !== "");
  for (const [index, entry] of entries.entries()) {
    const at = `DKIM_KEYS entry ${index + 1}`;
    const first = entry.indexOf(":");
    const second = first < 0 ? -1 : entry.indexOf(":", first + 1);
    if (second < 0)
      throw new ServiceConfigError(
        `${at} must be domain:selector:/path/to/key.pem or domain:selector:env:NAME.`,
      );
    const domain = entry.slice(0, first).trim().toLowerCase().replace(/\.$/, "");
    const selector = entry.slice(first + 1, second).trim();
    const source = entry.slice(second + 1).trim();
    if (!DKIM_DOMAIN.test(domain))
      throw new ServiceConfigError(`${at}: "${domain}" is not a domain name, like example.com.`);
    if (!SELECTOR.test(selector))
      throw new ServiceConfigError(
        `${at} (${domain}): the selector must be letters, digits, dots and hyphens.`,
      );
    if (keys.some((key) => key.domain === domain))
      throw new ServiceConfigError(`${at}: ${domain} has a key already (one key per domain).`);
    const privateKey = readKey(at, domain, source, env);
    keys.push({ domain, selector, privateKey });
  }
  return keys;
}

function readKey(at: string, domain: string, source: string, env: NodeJS.ProcessEnv): KeyObject {
  let pem: string;
  if (source.startsWith("env:")) {
    const name = source.slice(4);
    pem = env[name] ?? "";
    if (pem === "")
      throw new ServiceConfigError(`${at} (${domain}): the variable ${name} is unset or empty.`);
    // a PEM in one line with \n escapes (as some deployment tools store multi-line values)
    if (!pem.includes("\n")) pem = pem.replace(/\\n/g, "\n");
  } else {
    if (source === "") throw new ServiceConfigError(`${at} (${domain}): the key file's path is empty.`);
    let mode: number;
    try {
      mode = statSync(source).mode;
      pem = readFileSync(source, "utf8");
    } catch (error) {
      const code = (error as { code?: string }).code ?? "error";
      throw new ServiceConfigError(`${at} (${domain}): cannot read the key file ${source} (${code}).`);
    }
    if ((mode & 0o004) !== 0)
      throw new ServiceConfigError(
        `${at} (${domain}): the key file ${source} is readable by every user; chmod 600 (or 640) it.`,
      );
  }
  let key: KeyObject;
  try {
    key = createPrivateKey(pem);
  } catch {
    throw new ServiceConfigError(`${at} (${domain}): the key is not a PEM private key.`);
  }
  const bits = key.asymmetricKeyDetails?.modulusLength ?? 0;
  if (key.asymmetricKeyType !== "rsa" || bits < MIN_RSA_BITS)
    throw new ServiceConfigError(
      `${at} (${domain}): the key must be an RSA private key of at least ${MIN_RSA_BITS} bits (2048 recommended).`,
    );
  return key;
}

export function readConfig(env: NodeJS.ProcessEnv, role: Role = "all"): Config {
  const port = int(env, "PORT", 8080, 0, 65535);
  const host = env.HOST || "127.0.0.1";
  const publicUrl = (
    env.PUBLIC_URL || `http://${host === "0.0.0.0" || host === "::" ? "127.0.0.1" : host}:${port}`
  ).replace(/\/+$/, "");
  let publicHost: string;
  try {
    const parsed = new URL(publicUrl);
    if (parsed.protocol !== "http:" && parsed.protocol !== "https:") throw new Error();
    publicHost = parsed.hostname;
  } catch {
    throw new ServiceConfigError(`PUBLIC_URL must be an absolute http or https URL; it is "${publicUrl}".`);
  }
  const sync = (env.SQLITE_SYNC || "FULL").toUpperCase();
  if (sync !== "FULL" && sync !== "NORMAL")
    throw new ServiceConfigError(`SQLITE_SYNC must be FULL or NORMAL; it is "${env.SQLITE_SYNC}".`);
  const smtpUrl = env.SMTP_URL || undefined;
  if (smtpUrl !== undefined) {
    let valid = false;
    try {
      const parsed = new URL(smtpUrl);
      valid = (parsed.protocol === "smtp:" || parsed.protocol === "smtps:") && parsed.hostname !== "";
    } catch {
      // refused below, without echoing the value (it may hold a password)
    }
    if (!valid)
      throw new ServiceConfigError(
        "SMTP_URL must be an smtp:// or smtps:// URL with a host, like smtp://user:pass@mail.example:587.",
      );
  }
  return {
    port,
    host,
    databaseUrl: env.DATABASE_URL || "sqlite:data/service.db",
    publicUrl,
    publicUrlSet: Boolean(env.PUBLIC_URL),
    corsOrigins: corsOrigins(env),
    trustedProxies: trustedProxies(env),
    importAllowHosts: (env.IMPORT_ALLOW_HOSTS ?? "")
      .split(",")
      .map((h) => h.trim())
      .filter((h) => h !== ""),
    importMaxBytes: int(env, "IMPORT_MAX_BYTES", 256 * 1024 * 1024, 1, Number.MAX_SAFE_INTEGER),
    importTimeoutMs: int(env, "IMPORT_TIMEOUT_MS", 30 * 60_000, 1, 24 * 3600_000),
    importStallMs: int(env, "IMPORT_STALL_MS", 60_000, 100, 24 * 3600_000),
    importConcurrency: int(env, "IMPORT_CONCURRENCY", 4, 1, 64),
    outboxDir: env.OUTBOX_DIR || "data/outbox",
    smtpUrl,
    smtpAllowPlaintextAuth: bool(env, "SMTP_ALLOW_PLAINTEXT_AUTH", false),
    smtpPoolSize: int(env, "SMTP_POOL_SIZE", 4, 1, 64),
    mailDomainConcurrency: int(env, "MAIL_DOMAIN_CONCURRENCY", 0, 0, 1000),
    mailDomainRate: int(env, "MAIL_DOMAIN_RATE", 0, 0, 1_000_000),
    mailMaxAttempts: env.MAIL_MAX_ATTEMPTS ? int(env, "MAIL_MAX_ATTEMPTS", 0, 1, 1_000_000) : undefined,
    mailRetryMaxAgeMs: int(env, "MAIL_RETRY_MAX_AGE_MS", 5 * 24 * 3600_000, 0, 365 * 24 * 3600_000),
    mailRetryMaxIntervalMs: int(env, "MAIL_RETRY_MAX_INTERVAL_MS", 30 * 60_000, 1000, 24 * 3600_000),
    outboxRetentionDays: int(env, "OUTBOX_RETENTION_DAYS", 0, 0, 3650),
    smsOutboxDir: env.SMS_OUTBOX_DIR || "data/sms",
    smsUrl: httpUrl(env, "SMS_URL"),
    smsWebhookTokenHash: webhookToken(env, "SMS_WEBHOOK_TOKEN"),
    smsWebhookRate: int(env, "SMS_WEBHOOK_RATE", 600, 1, 1_000_000),
    mailFrom: env.MAIL_FROM || `no-reply@${publicHost.replace(/^\[|\]$/g, "")}`,
    mailFromSet: (env.MAIL_FROM ?? "") !== "",
    dkimKeys: parseDkimKeys(env.DKIM_KEYS, env),
    logLevel: env.LOG_LEVEL || "info",
    logFormat: logFormat(env),
    sqliteSync: sync,
    databasePool: int(env, "DATABASE_POOL", 10, 1, 1000),
    jobLeaseMs: int(env, "JOB_LEASE_MS", 30_000, 100, 3600_000),
    shutdownTimeoutMs: int(env, "SHUTDOWN_TIMEOUT_MS", 10_000, 0, 3600_000),
    authConcurrency: int(env, "AUTH_CONCURRENCY", 2, 1, 64),
    authCacheMs: int(env, "AUTH_CACHE_MS", 60_000, 0, 60_000),
    role,
    metricsTokenHash: metricsToken(env),
    metricsPort: env.METRICS_PORT ? int(env, "METRICS_PORT", 0, 0, 65535) : undefined,
    metricsHost: env.METRICS_HOST || "127.0.0.1",
    bounce: {
      domain: bounceDomain(env),
      smtpPort: env.BOUNCE_SMTP_PORT ? int(env, "BOUNCE_SMTP_PORT", 0, 0, 65535) : undefined,
      smtpHost: env.BOUNCE_SMTP_HOST || "127.0.0.1",
      webhookTokenHash: webhookToken(env, "BOUNCE_WEBHOOK_TOKEN"),
      maxBytes: int(env, "BOUNCE_MAX_BYTES", 262_144, 1024, 16 * 1024 * 1024),
      softLimit: int(env, "BOUNCE_SOFT_LIMIT", 3, 1, 1000),
      perMinute: int(env, "BOUNCE_RATE", 60, 1, 1_000_000),
    },
    console: {
      enabled: bool(env, "CONSOLE", true),
      sessionMs: int(env, "CONSOLE_SESSION_HOURS", 12, 1, 720) * 3600_000,
      secureCookie: bool(env, "CONSOLE_SECURE_COOKIE", false) || publicUrl.startsWith("https:"),
    },
  };
}

export function helpText(): string {
  const width = Math.max(...OPTIONS.map((o) => o.name.length));
  const lines = OPTIONS.map(
    (o) => `  ${o.name.padEnd(width)}  ${o.doc} Default: ${o.default === "" ? "(none)" : o.default}`,
  );
  return [
    "Usage: npm start -- [--role api|worker|all] [--help]",
    "",
    "Serves ExternalAPIService (SOAP 1.1, SOAP 1.2, HTTP GET, HTTP POST) at /ExternalAPIService.asmx,",
    "with /confirm/{token}, /u/{token}, /t/..., /healthz (and /metrics with METRICS_TOKEN or METRICS_PORT),",
    "the operator's console at /console/ (CONSOLE=false turns it off),",
    "and runs the background workers.",
    "",
    "  --role all     API and workers in one process (default)",
    "  --role api     only the HTTP API",
    "  --role worker  only the workers (imports, mail and SMS delivery)",
    "",
    "Environment variables:",
    ...lines,
    "",
  ].join("\n");
}
