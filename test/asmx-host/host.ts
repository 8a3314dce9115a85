// A real ASMX runtime for the tests: Mono's ASP.NET (System.Web + System.Web.Services) serving a folder of
// .asmx files on 127.0.0.1, plus helpers to run Mono's `wsdl` tool and compiled C# clients against it.
// See README.md beside this file. Needs Debian's mono-devel (hasMono() in ../fixtures/system-component.ts).

import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import net from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { MCS, MONO, WSDL_TOOL } from "../fixtures/system-component.js";

/** The host's C# source; compiled by mcs on first use and cached by content hash. */
const HOST_SOURCE = fileURLToPath(new URL("./AsmxHost.cs", import.meta.url));
/** Git-ignored cache of compiled C# (the host, clients, proxies), keyed by content hash. */
export const BUILD_CACHE = fileURLToPath(new URL("../../.tmp/asmx-host/build/", import.meta.url));
/** The fixture services every test may use (drop an .asmx file here to add one). */
export const FIXTURE_SERVICES = fileURLToPath(new URL("./services/", import.meta.url));

/** How much of a child's stdout/stderr is kept for error messages. */
const OUTPUT_LIMIT = 64 * 1024;
/** Cache entries not used for this long are removed when a new one is made (proxies name the port, so each run adds some). */
const CACHE_MAX_AGE_MS = 24 * 60 * 60 * 1000;
const PORT_ATTEMPTS = 5;

export interface AsmxHostOptions {
  /** Folder holding the .asmx files (and web.config, App_Code/, bin/); copied, never written to. */
  readonly services: string;
  /** How long startup (app domain, compiling and loading every .asmx) may take; default 120 s. */
  readonly startTimeoutMs?: number;
  /** How long ASP.NET may take over one request before the host answers 504; default 60 s. */
  readonly requestTimeoutS?: number;
  /** Largest request body the host accepts (413 beyond); default 16 MiB. */
  readonly maxBodyBytes?: number;
  /** Also copy the host's stdout/stderr to this process's stderr as it comes (serve.ts does). */
  readonly echo?: boolean;
  /** Extra environment for the host process (such as TZ), on top of this process's. */
  readonly env?: Readonly<Record<string, string>>;
}

export interface AsmxHost {
  /** `http://127.0.0.1:{port}/`: the application root; a service is at `${url}Name.asmx`. */
  readonly url: string;
  readonly port: number;
  /** What the host process printed so far (bounded), for error messages. */
  output(): string;
  /** Stops the process (closing its stdin ends it) and removes its private copy of the services. */
  stop(): Promise<void>;
}

/** Runs `command`, collecting bounded output; rejects on a spawn error, never on a non-zero exit. */
export function run(
  command: string,
  args: readonly string[],
  options: { timeoutMs: number; cwd?: string; env?: NodeJS.ProcessEnv; input?: string },
): Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: options.cwd, env: options.env ?? process.env, stdio: "pipe" });
    const stdout = new BoundedText();
    const stderr = new BoundedText();
    child.stdout.setEncoding("utf8").on("data", (s: string) => stdout.add(s));
    child.stderr.setEncoding("utf8").on("data", (s: string) => stderr.add(s));
    const timer = setTimeout(() => {
      stderr.add(`\n[killed after ${options.timeoutMs} ms]`);
      child.kill("SIGKILL");
    }, options.timeoutMs);
    child.on("error", (err) => {
      clearTimeout(timer);
      reject(err);
    });
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout: stdout.text(), stderr: stderr.text() });
    });
    child.stdin.end(options.input ?? "");
  });
}

/** Keeps the first and last parts of a long output. */
class BoundedText {
  private head = "";
  private tail = "";
  private dropped = 0;
  add(s: string): void {
    if (this.head.length < OUTPUT_LIMIT / 2) {
      const take = OUTPUT_LIMIT / 2 - this.head.length;
      this.head += s.slice(0, take);
      s = s.slice(take);
    }
    this.tail += s;
    if (this.tail.length > OUTPUT_LIMIT / 2) {
      this.dropped += this.tail.length - OUTPUT_LIMIT / 2;
      this.tail = this.tail.slice(-OUTPUT_LIMIT / 2);
    }
  }
  text(): string {
    return this.dropped > 0
      ? `${this.head}\n[… ${this.dropped} characters left out …]\n${this.tail}`
      : this.head + this.tail;
  }
}

export interface CompileOptions {
  /** File name → C# source. */
  readonly sources: Readonly<Record<string, string>>;
  readonly target: "exe" | "library";
  /** Assemblies to reference (names like System.Web.Services.dll, or paths). */
  readonly references?: readonly string[];
  /** Output file name; default Program.exe / Library.dll. */
  readonly name?: string;
}

/**
 * Compiles C# with mcs into BUILD_CACHE/<hash>/ (the hash covers sources, references, target and the mcs
 * version) and returns the assembly's path; a second call with the same input compiles nothing. Throws with
 * mcs's messages when compilation fails.
 */
async function compileCSharp(options: CompileOptions): Promise<string> {
  const name = options.name ?? (options.target === "exe" ? "Program.exe" : "Library.dll");
  const references = options.references ?? [];
  const hash = createHash("sha256");
  hash.update(JSON.stringify({ target: options.target, name, references, mcs: await mcsVersion() }));
  for (const file of Object.keys(options.sources).sort()) hash.update(`\0${file}\0${options.sources[file]}`);
  const dir = join(BUILD_CACHE, hash.digest("hex").slice(0, 24));
  const output = join(dir, name);
  if (existsSync(output)) {
    const now = new Date();
    utimesSync(dir, now, now); // in use: keep it past the next pruning
    return output;
  }
  pruneCache();

  // Compile in a private folder, then rename it into place: parallel test files may race on one hash.
  mkdirSync(BUILD_CACHE, { recursive: true });
  const work = mkdtempSync(join(BUILD_CACHE, "tmp-"));
  try {
    for (const [file, text] of Object.entries(options.sources)) writeFileSync(join(work, file), text);
    const args = [
      "-nologo",
      "-debug-",
      `-target:${options.target}`,
      `-out:${join(work, name)}`,
      ...references.map((r) => `-r:${r}`),
      ...Object.keys(options.sources).map((file) => join(work, file)),
    ];
    const result = await run(MCS, args, { timeoutMs: 120_000 });
    if (result.code !== 0 || !existsSync(join(work, name))) {
      throw new Error(
        `mcs failed (exit ${result.code}) compiling ${Object.keys(options.sources).join(", ")}:\n${result.stdout}${result.stderr}`,
      );
    }
    try {
      renameSync(work, dir);
    } catch (err) {
      if (!existsSync(output)) throw err; // another process won the race with the same content
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  return output;
}

/** Removes cache entries (and abandoned temporary folders) older than CACHE_MAX_AGE_MS. */
function pruneCache(): void {
  if (!existsSync(BUILD_CACHE)) return;
  const cutoff = Date.now() - CACHE_MAX_AGE_MS;
  for (const entry of readdirSync(BUILD_CACHE)) {
    const path = join(BUILD_CACHE, entry);
    try {
      if (statSync(path).mtimeMs < cutoff) rmSync(path, { recursive: true, force: true });
    } catch {
      // removed by a parallel test file meanwhile
    }
  }
}

let mcsVersionCache: Promise<string> | undefined;
function mcsVersion(): Promise<string> {
  mcsVersionCache ??= run(MCS, ["--version"], { timeoutMs: 30_000 }).then((r) => r.stdout.trim());
  return mcsVersionCache;
}

/** The host executable, compiled from AsmxHost.cs (cached). */
function compileHost(): Promise<string> {
  return compileCSharp({
    sources: { "AsmxHost.cs": readFileSync(HOST_SOURCE, "utf8") },
    target: "exe",
    references: ["System.Web.dll"],
    name: "AsmxHost.exe",
  });
}

/** A port free on 127.0.0.1 right now (HttpListener cannot take port 0, so Node picks one). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address !== null ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/**
 * Starts Mono's ASP.NET over a private copy of `services` on a free port of 127.0.0.1. Resolves once every
 * .asmx answered its ?WSDL (so compile errors fail here, with ASP.NET's message); retries on a port clash.
 * Takes a few seconds: start one host per test file (beforeAll) and stop it in afterAll.
 */
export async function startAsmxHost(options: AsmxHostOptions): Promise<AsmxHost> {
  if (!existsSync(options.services))
    throw new Error(`startAsmxHost: services folder ${options.services} does not exist`);
  const exe = await compileHost();
  let lastError: Error | undefined;
  for (let attempt = 0; attempt < PORT_ATTEMPTS; attempt++) {
    const started = await startOnce(options, exe, await freePort());
    if ("host" in started) return started.host;
    lastError = started.error;
    if (!started.portInUse) break;
  }
  throw lastError ?? new Error("startAsmxHost: no attempt made");
}

async function startOnce(
  options: AsmxHostOptions,
  exe: string,
  port: number,
): Promise<{ host: AsmxHost } | { error: Error; portInUse: boolean }> {
  // <root>/app is the ASP.NET application (services + bin/AsmxHost.exe, where the app domain loads the host
  // class from); <root>/aspnet is TMPDIR, where ASP.NET keeps its compiled pages. Both go on stop().
  const root = mkdtempSync(join(tmpdir(), "asmx-host-"));
  const app = join(root, "app");
  cpSync(options.services, app, { recursive: true });
  mkdirSync(join(app, "bin"), { recursive: true });
  cpSync(exe, join(app, "bin", "AsmxHost.exe"));
  mkdirSync(join(root, "aspnet"));

  const args = [
    join(app, "bin", "AsmxHost.exe"),
    "--root",
    app,
    "--port",
    String(port),
    "--request-timeout",
    String(options.requestTimeoutS ?? 60),
    "--max-body",
    String(options.maxBodyBytes ?? 16 * 1024 * 1024),
  ];
  const child = spawn(MONO, args, {
    cwd: app,
    env: { ...process.env, ...options.env, TMPDIR: join(root, "aspnet") },
    stdio: "pipe",
  });
  const out = new BoundedText();
  const removeRoot = () => rmSync(root, { recursive: true, force: true });
  const exited = new Promise<void>((resolve) => child.once("close", () => resolve()));

  const ready = await new Promise<{ url: string } | { error: string; portInUse: boolean }>((resolve) => {
    let pending = "";
    const timer = setTimeout(
      () =>
        resolve({ error: `did not start within ${options.startTimeoutMs ?? 120_000} ms`, portInUse: false }),
      options.startTimeoutMs ?? 120_000,
    );
    const finish = (v: { url: string } | { error: string; portInUse: boolean }) => {
      clearTimeout(timer);
      resolve(v);
    };
    child.stdout.setEncoding("utf8").on("data", (s: string) => {
      out.add(s);
      if (options.echo) process.stderr.write(s);
      pending += s;
      let nl: number;
      while ((nl = pending.indexOf("\n")) >= 0) {
        const line = pending.slice(0, nl).trim();
        pending = pending.slice(nl + 1);
        if (line.startsWith("ASMX-HOST LISTENING "))
          finish({ url: line.slice("ASMX-HOST LISTENING ".length) });
        else if (line.startsWith("ASMX-HOST PORT-IN-USE"))
          finish({ error: `port ${port} in use`, portInUse: true });
        else if (line.startsWith("ASMX-HOST WARMUP-FAILED")) {
          // The body (ASP.NET's error page) follows on stderr; give it a moment to arrive.
          setTimeout(() => finish({ error: line.slice("ASMX-HOST ".length), portInUse: false }), 500);
        }
      }
    });
    child.stderr.setEncoding("utf8").on("data", (s: string) => {
      out.add(s);
      if (options.echo) process.stderr.write(s);
    });
    child.once("error", (err) => finish({ error: `cannot run ${MONO}: ${err.message}`, portInUse: false }));
    child.once("close", (code, signal) =>
      finish({ error: `exited (code ${code}, signal ${signal})`, portInUse: false }),
    );
  });

  const stop = async () => {
    child.stdin.end();
    const killer = setTimeout(() => child.kill("SIGKILL"), 10_000);
    await exited;
    clearTimeout(killer);
    removeRoot();
  };

  if ("error" in ready) {
    await stop();
    const text = stripHtml(out.text());
    return {
      error: new Error(`ASMX host over ${options.services} ${ready.error}; its output:\n${text}`),
      portInUse: ready.portInUse,
    };
  }
  return { host: { url: ready.url, port, output: () => out.text(), stop } };
}

/** ASP.NET's error pages are HTML; keep their text readable in a failure message. */
function stripHtml(text: string): string {
  if (!/<html/i.test(text)) return text;
  return text
    .replace(/<(script|style)[\s\S]*?<\/\1>/gi, "")
    .replace(/<[^>]+>/g, "")
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&amp;/g, "&")
    .replace(/\n\s*\n+/g, "\n");
}

/** The protocols Mono's `wsdl` tool generates proxies for: SOAP 1.1, SOAP 1.2, HTTP GET, HTTP POST. */
export type ProxyProtocol = "SOAP" | "SOAP12" | "HttpGet" | "HttpPost";

/**
 * Runs Mono's `wsdl` tool on `wsdlUrl` and returns the proxy's C# source, with its classes in `namespace`
 * (default `Proxy<protocol>`, so one client can hold proxies for several protocols).
 */
export async function generateProxy(
  wsdlUrl: string,
  protocol: ProxyProtocol,
  namespace = `Proxy${protocol}`,
): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), "asmx-wsdl-"));
  try {
    const file = join(dir, "Proxy.cs");
    const result = await run(
      WSDL_TOOL,
      ["-nologo", `-protocol:${protocol}`, `-namespace:${namespace}`, `-out:${file}`, wsdlUrl],
      {
        timeoutMs: 120_000,
        cwd: dir,
      },
    );
    if (result.code !== 0 || !existsSync(file)) {
      throw new Error(
        `wsdl -protocol:${protocol} ${wsdlUrl} failed (exit ${result.code}):\n${result.stdout}${result.stderr}`,
      );
    }
    return readFileSync(file, "utf8");
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** What a proxy (and a client using one) references: HttpGet/HttpPost proxies also need EnterpriseServices. */
const PROXY_REFERENCES = [
  "System.Web.Services.dll",
  "System.Xml.dll",
  "System.EnterpriseServices.dll",
] as const;

export interface ClientResult {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * Compiles `sources` (a Main program, usually with wsdl-generated proxies beside it) into an executable
 * (cached) and runs it under Mono with `args`; the caller asserts on exit code and output.
 */
export async function runCSharpClient(options: {
  sources: Readonly<Record<string, string>>;
  args?: readonly string[];
  references?: readonly string[];
  timeoutMs?: number;
}): Promise<ClientResult> {
  const exe = await compileCSharp({
    sources: options.sources,
    target: "exe",
    references: [...PROXY_REFERENCES, ...(options.references ?? [])],
    name: "Client.exe",
  });
  const result = await run(MONO, ["--debug", exe, ...(options.args ?? [])], {
    timeoutMs: options.timeoutMs ?? 60_000,
  });
  return { code: result.code, stdout: result.stdout, stderr: result.stderr };
}
