// The shadow proxy's config file (YAML; JSON is YAML too): which two hosts, which one answers, what is
// mirrored, which answer fields legitimately differ, what is secret, where reports go and the limits that
// hold its memory. Read with source positions, so every mistake is reported as `file:line:col message`
// naming the key; nothing starts until the whole file is right. The spec it names gives the operations,
// bindings, credentials and effects (generator normalize: the model the generated code carries).

import { readFileSync } from "node:fs";
import path from "node:path";
import type { ServiceModel } from "../../runtime/model.js";
import { compareDiagnostics, formatDiagnostic, type Diagnostic } from "../diagnostic.js";
import { loadModel } from "../generate.js";
import { displayPath, parseSpec, specReporter, type SpecPath, type SpecReporter } from "../load.js";
import { didYouMean, quoted } from "../suggest.js";
import { parseVolatilePath, type VolatilePath } from "./paths.js";

export type ShadowMode = "mirror" | "cutover";
export type MirrorPolicy = "reads" | "all" | "none";

export interface HostPort {
  readonly host: string;
  readonly port: number;
}

export interface OperationRules {
  /** Whether the operation is sent to the compared host; default from `mirror` and the spec's effect. */
  readonly mirror?: boolean;
  readonly volatile: readonly VolatilePath[];
}

export interface ShadowLimits {
  /** Requests waiting for the compared host beyond those in flight; more are dropped. */
  readonly queue: number;
  /** Requests in flight to the compared host at once. */
  readonly concurrency: number;
  /** Bytes held for comparisons (requests and answers being collected, queued or compared) at once. */
  readonly pendingBytes: number;
  /** Largest request or answer body collected for a comparison; a larger exchange is passed, not compared. */
  readonly compareBytes: number;
  /** Time the compared host has for one answer, ms. */
  readonly shadowTimeoutMs: number;
  /** Time the answering host has for one answer, ms (the caller gets 504 past it). */
  readonly primaryTimeoutMs: number;
  /** Connections kept to each host. */
  readonly sockets: number;
}

export interface ReportSettings {
  /** Folder for divergences.jsonl, report.html and stats.json; undefined: no files. */
  readonly dir?: string;
  /** Full divergence records written per operation, binding and first differing path; the rest are counted. */
  readonly examples: number;
  /** Largest divergences.jsonl, bytes; past it records are counted, not written. */
  readonly maxBytes: number;
  /** How often report.html and stats.json are rewritten, ms. */
  readonly intervalMs: number;
}

export interface ShadowConfig {
  /** The config file as messages name it. */
  readonly file: string;
  readonly model: ServiceModel;
  readonly listen: HostPort;
  readonly mode: ShadowMode;
  /** The legacy host's endpoint URL (`http://host/path/Service.asmx`). */
  readonly legacy: URL;
  /** Our server's endpoint URL; undefined only when recording without a compared host. */
  readonly ours: URL | undefined;
  readonly mirror: MirrorPolicy;
  readonly operations: ReadonlyMap<string, OperationRules>;
  /** Paths compared for no operation. */
  readonly volatile: readonly VolatilePath[];
  /** Element and parameter names redacted in everything stored (the spec's credentials always are). */
  readonly secrets: readonly string[];
  readonly report: ReportSettings;
  readonly metrics: HostPort | undefined;
  readonly limits: ShadowLimits;
  /** Send the caller's Host header to the hosts (default); false: each host's own. */
  readonly preserveHost: boolean;
}

const DEFAULT_LIMITS: ShadowLimits = {
  queue: 1000,
  concurrency: 16,
  pendingBytes: 64 * 1024 * 1024,
  compareBytes: 4 * 1024 * 1024,
  shadowTimeoutMs: 10_000,
  primaryTimeoutMs: 120_000,
  sockets: 64,
};

const DEFAULT_REPORT: ReportSettings = { examples: 20, maxBytes: 256 * 1024 * 1024, intervalMs: 10_000 };

/** A config that cannot be used: every problem, one `file:line:col message` line each. */
export class ShadowConfigError extends Error {
  readonly diagnostics: readonly Diagnostic[];
  constructor(diagnostics: readonly Diagnostic[]) {
    const sorted = [...diagnostics].sort(compareDiagnostics);
    super(sorted.map(formatDiagnostic).join("\n"));
    this.diagnostics = sorted;
    this.name = "ShadowConfigError";
  }
}

const TOP_KEYS = [
  "spec",
  "namespace",
  "listen",
  "mode",
  "legacy",
  "ours",
  "mirror",
  "operations",
  "volatile",
  "secrets",
  "report",
  "metrics",
  "limits",
  "preserveHost",
] as const;
const OPERATION_KEYS = ["mirror", "volatile"] as const;
const REPORT_KEYS = ["dir", "examples", "maxBytes", "intervalSeconds"] as const;
const LIMIT_KEYS = [
  "queue",
  "concurrency",
  "pendingBytes",
  "compareBytes",
  "shadowTimeoutMs",
  "primaryTimeoutMs",
  "sockets",
] as const;

type Raw = Record<string, unknown>;

function isMap(value: unknown): value is Raw {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** `what` for a message: the value as YAML wrote it, shortened. */
function shownValue(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

class Reader {
  constructor(private readonly reporter: SpecReporter) {}

  problem(at: SpecPath, message: string, target?: "key" | "value"): void {
    this.reporter.report(at, message, target);
  }

  keys(map: Raw, at: SpecPath, allowed: readonly string[]): void {
    for (const key of Object.keys(map)) {
      if (!allowed.includes(key)) {
        this.problem(
          [...at, key],
          `unknown key ${quoted(key)}${didYouMean(key, allowed, quoted)}; expected one of: ${allowed.join(", ")}`,
          "key",
        );
      }
    }
  }

  map(value: unknown, at: SpecPath, what: string): Raw | undefined {
    if (value === undefined || value === null) return undefined;
    if (isMap(value)) return value;
    this.problem(at, `${what} must be a mapping of keys, not ${shownValue(value)}`);
    return undefined;
  }

  string(value: unknown, at: SpecPath, what: string): string | undefined {
    if (value === undefined || value === null) return undefined;
    if (typeof value === "string" && value.trim() !== "") return value;
    this.problem(at, `${what} must be a non-empty string, not ${shownValue(value)}`);
    return undefined;
  }

  integer(value: unknown, at: SpecPath, what: string, min: number, max: number): number | undefined {
    if (value === undefined || value === null) return undefined;
    if (typeof value === "number" && Number.isInteger(value) && value >= min && value <= max) return value;
    this.problem(at, `${what} must be a whole number from ${min} to ${max}, not ${shownValue(value)}`);
    return undefined;
  }

  boolean(value: unknown, at: SpecPath, what: string): boolean | undefined {
    if (value === undefined || value === null) return undefined;
    if (typeof value === "boolean") return value;
    this.problem(at, `${what} must be true or false, not ${shownValue(value)}`);
    return undefined;
  }

  oneOf<T extends string>(value: unknown, at: SpecPath, what: string, allowed: readonly T[]): T | undefined {
    if (value === undefined || value === null) return undefined;
    if (typeof value === "string" && (allowed as readonly string[]).includes(value)) return value as T;
    const hint = typeof value === "string" ? didYouMean(value, allowed) : "";
    this.problem(at, `${what} must be one of: ${allowed.join(", ")} (not ${shownValue(value)})${hint}`);
    return undefined;
  }

  strings(value: unknown, at: SpecPath, what: string): string[] {
    if (value === undefined || value === null) return [];
    if (!Array.isArray(value)) {
      this.problem(at, `${what} must be a list, not ${shownValue(value)}`);
      return [];
    }
    const out: string[] = [];
    value.forEach((item, i) => {
      const text = this.string(item, [...at, i], `${what}[${i}]`);
      if (text !== undefined) out.push(text);
    });
    return out;
  }

  /** `host:port` or `{ host, port }`; a bare number is a port on 127.0.0.1. */
  hostPort(value: unknown, at: SpecPath, what: string): HostPort | undefined {
    if (value === undefined || value === null) return undefined;
    const port = (p: unknown, where: SpecPath) => this.integer(p, where, `${what} port`, 0, 65535);
    if (typeof value === "number") {
      const p = port(value, at);
      return p === undefined ? undefined : { host: "127.0.0.1", port: p };
    }
    if (typeof value === "string") {
      const m = /^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+):(\d{1,5})$/.exec(value);
      if (m && Number(m[2]) <= 65535) return { host: m[1]!.replace(/^\[|\]$/g, ""), port: Number(m[2]) };
      this.problem(at, `${what} must be host:port such as 127.0.0.1:8090, not ${shownValue(value)}`);
      return undefined;
    }
    const map = this.map(value, at, what);
    if (!map) return undefined;
    this.keys(map, at, ["host", "port"]);
    const host = this.string(map["host"], [...at, "host"], `${what} host`) ?? "127.0.0.1";
    const p =
      map["port"] === undefined
        ? this.problem([...at], `${what} needs a port`)
        : port(map["port"], [...at, "port"]);
    return p === undefined ? undefined : { host, port: p };
  }

  /** An http(s) URL of a service endpoint: no query, no fragment, no credentials. */
  endpoint(value: unknown, at: SpecPath, what: string, endpointName: string): URL | undefined {
    const text = this.string(value, at, what);
    if (text === undefined) return undefined;
    let url: URL;
    try {
      url = new URL(text);
    } catch {
      this.problem(
        at,
        `${what} must be an http(s) URL such as http://host/${endpointName}, not ${shownValue(text)}`,
      );
      return undefined;
    }
    if (url.protocol !== "http:" && url.protocol !== "https:") {
      this.problem(at, `${what} must be an http or https URL, not ${url.protocol}`);
      return undefined;
    }
    if (url.username !== "" || url.password !== "") {
      this.problem(at, `${what} must not carry a user name or password (the proxy stores no credentials)`);
      return undefined;
    }
    if (url.search !== "" || url.hash !== "") {
      this.problem(at, `${what} must be the endpoint itself, without ?query or #fragment`);
      return undefined;
    }
    if (!url.pathname.toLowerCase().endsWith(`/${endpointName.toLowerCase()}`)) {
      this.problem(at, `${what} must end with the service's endpoint /${endpointName}, not ${url.pathname}`);
      return undefined;
    }
    return url;
  }
}

/** Reads and checks a config file; throws ShadowConfigError listing every problem. */
export function loadShadowConfig(file: string, cwd: string = process.cwd()): ShadowConfig {
  const absolute = path.resolve(cwd, file);
  const shown = displayPath(absolute, cwd);
  let text: string;
  try {
    text = readFileSync(absolute, "utf8");
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code ?? String(error);
    throw new ShadowConfigError([
      { file: shown, line: 1, col: 1, message: `cannot read the config (${reason})` },
    ]);
  }
  return parseShadowConfig(text, shown, path.dirname(absolute));
}

/** Checks config text; `dir` is where its relative paths start. Throws ShadowConfigError. */
export function parseShadowConfig(text: string, file: string, dir: string): ShadowConfig {
  const loaded = parseSpec(text, file);
  if (loaded.syntaxErrors.length > 0) throw new ShadowConfigError(loaded.syntaxErrors);
  const reporter = specReporter(loaded);
  const read = new Reader(reporter);
  const fail = (): never => {
    throw new ShadowConfigError(reporter.diagnostics);
  };
  const raw = loaded.value;
  if (!isMap(raw)) {
    read.problem([], "the config must be a mapping of keys such as spec:, legacy:, ours:");
    return fail();
  }
  read.keys(raw, [], TOP_KEYS);

  // The spec first: the operations' names are what the rest is checked against.
  const specPath = read.string(raw["spec"], ["spec"], "spec");
  if (specPath === undefined && raw["spec"] === undefined)
    read.problem([], 'missing "spec": the service\'s spec YAML');
  const namespace = read.string(raw["namespace"], ["namespace"], "namespace");
  let model: ServiceModel | undefined;
  if (specPath !== undefined) {
    const spec = path.resolve(dir, specPath);
    const result = loadModel({ spec, ...(namespace === undefined ? {} : { namespace }) });
    if (result.ok) model = result.model;
    else {
      const first = result.diagnostics[0]!;
      read.problem(
        ["spec"],
        `the spec ${specPath} does not validate (${result.diagnostics.length} problem${result.diagnostics.length === 1 ? "" : "s"}; first: ${formatDiagnostic(first)}); run easgen validate --spec ${specPath}`,
      );
    }
  }
  const endpointName = model?.endpoint ?? "Service.asmx";

  const listen = read.hostPort(raw["listen"], ["listen"], "listen");
  if (raw["listen"] === undefined)
    read.problem([], 'missing "listen": the address callers reach the proxy at, such as 127.0.0.1:8090');
  const mode = read.oneOf(raw["mode"], ["mode"], "mode", ["mirror", "cutover"] as const) ?? "mirror";
  const legacy = read.endpoint(raw["legacy"], ["legacy"], "legacy", endpointName);
  if (raw["legacy"] === undefined) read.problem([], 'missing "legacy": the legacy host\'s endpoint URL');
  const ours = read.endpoint(raw["ours"], ["ours"], "ours", endpointName);
  if (raw["ours"] === undefined && mode === "cutover")
    read.problem([], 'missing "ours": in cutover mode our server answers');
  const mirror =
    read.oneOf(raw["mirror"], ["mirror"], "mirror", ["reads", "all", "none"] as const) ?? "reads";

  const knownOps = new Set(model?.operations.map((op) => op.name) ?? []);
  const volatile = (value: unknown, at: SpecPath): VolatilePath[] =>
    read.strings(value, at, "volatile").flatMap((text, i) => {
      const parsed = parseVolatilePath(text);
      if (typeof parsed === "string") {
        read.problem([...at, i], `volatile path ${quoted(text)}: ${parsed}`);
        return [];
      }
      return [parsed];
    });
  const operations = new Map<string, OperationRules>();
  const rawOps = read.map(raw["operations"], ["operations"], "operations");
  for (const [name, value] of Object.entries(rawOps ?? {})) {
    const at = ["operations", name];
    if (model && !knownOps.has(name)) {
      read.problem(
        at,
        `${quoted(name)} is not an operation of ${model.name}${didYouMean(name, knownOps, quoted)}`,
        "key",
      );
      continue;
    }
    const op = read.map(value, at, `operations.${name}`) ?? {};
    read.keys(op, at, OPERATION_KEYS);
    const opMirror = read.boolean(op["mirror"], [...at, "mirror"], `operations.${name}.mirror`);
    operations.set(name, {
      ...(opMirror === undefined ? {} : { mirror: opMirror }),
      volatile: volatile(op["volatile"], [...at, "volatile"]),
    });
  }
  const everyVolatile = volatile(raw["volatile"], ["volatile"]);
  const secrets = read.strings(raw["secrets"], ["secrets"], "secrets");
  secrets.forEach((name, i) => {
    if (!/^[A-Za-z_][\w.-]*$/.test(name))
      read.problem(["secrets", i], `secret ${quoted(name)} must be an element or parameter name`);
  });

  const rawReport = read.map(raw["report"], ["report"], "report") ?? {};
  read.keys(rawReport, ["report"], REPORT_KEYS);
  const reportDir = read.string(rawReport["dir"], ["report", "dir"], "report.dir");
  const examples = read.integer(rawReport["examples"], ["report", "examples"], "report.examples", 0, 10_000);
  const maxBytes = read.integer(rawReport["maxBytes"], ["report", "maxBytes"], "report.maxBytes", 0, 2 ** 40);
  const interval = read.integer(
    rawReport["intervalSeconds"],
    ["report", "intervalSeconds"],
    "report.intervalSeconds",
    1,
    86_400,
  );
  const report: ReportSettings = {
    ...(reportDir === undefined ? {} : { dir: path.resolve(dir, reportDir) }),
    examples: examples ?? DEFAULT_REPORT.examples,
    maxBytes: maxBytes ?? DEFAULT_REPORT.maxBytes,
    intervalMs: interval === undefined ? DEFAULT_REPORT.intervalMs : interval * 1000,
  };

  const metrics = read.hostPort(raw["metrics"], ["metrics"], "metrics");
  const rawLimits = read.map(raw["limits"], ["limits"], "limits") ?? {};
  read.keys(rawLimits, ["limits"], LIMIT_KEYS);
  const limit = (key: (typeof LIMIT_KEYS)[number], min: number, max: number): number =>
    read.integer(rawLimits[key], ["limits", key], `limits.${key}`, min, max) ?? DEFAULT_LIMITS[key];
  const limits: ShadowLimits = {
    queue: limit("queue", 0, 1_000_000),
    concurrency: limit("concurrency", 1, 10_000),
    pendingBytes: limit("pendingBytes", 1024, 2 ** 40),
    compareBytes: limit("compareBytes", 1024, 2 ** 31),
    shadowTimeoutMs: limit("shadowTimeoutMs", 1, 3_600_000),
    primaryTimeoutMs: limit("primaryTimeoutMs", 1, 86_400_000),
    sockets: limit("sockets", 1, 100_000),
  };
  if (limits.compareBytes > limits.pendingBytes) {
    read.problem(
      ["limits", "compareBytes"],
      `limits.compareBytes (${limits.compareBytes}) must not exceed limits.pendingBytes (${limits.pendingBytes})`,
    );
  }
  const preserveHost = read.boolean(raw["preserveHost"], ["preserveHost"], "preserveHost") ?? true;
  if (
    listen &&
    metrics &&
    listen.port !== 0 &&
    listen.port === metrics.port &&
    listen.host === metrics.host
  ) {
    read.problem(
      ["metrics"],
      "metrics must listen on another port than listen: the proxy's own port passes everything on",
    );
  }

  if (reporter.diagnostics.length > 0 || !model || !listen || !legacy) return fail();
  return {
    file,
    model,
    listen,
    mode,
    legacy,
    ours,
    mirror,
    operations,
    volatile: everyVolatile,
    secrets,
    report,
    metrics,
    limits,
    preserveHost,
  };
}

/** Whether an operation is sent to the compared host: its own rule, else the policy and the spec's effect. */
export function mirrors(
  config: Pick<ShadowConfig, "mirror" | "operations" | "model">,
  operation: string,
): boolean {
  const own = config.operations.get(operation)?.mirror;
  if (own !== undefined) return own;
  if (config.mirror === "none") return false;
  if (config.mirror === "all") return true;
  return config.model.operations.find((op) => op.name === operation)?.effect === "read";
}
