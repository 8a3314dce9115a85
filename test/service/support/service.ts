// A running service for tests: a fresh database on the engine, the app on a free 127.0.0.1 port, and
// helpers that set up accounts and lists the way the admin CLI does (directly in the store).

import { mkdtempSync } from "node:fs";
import http from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable, Writable } from "node:stream";
import { runAdmin } from "../../../service/admin/cli.js";
import { ServiceFaultError, createClient } from "../../../generated/client.js";
import { type App, createApp } from "../../../service/app.js";
import { hashPassword } from "../../../service/auth/authenticator.js";
import { readConfig } from "../../../service/config.js";
import { type EngineName, freshDatabaseUrl } from "./engines.js";
import type { BindingName } from "../../../generated/runtime/model.js";

export interface TestService {
  readonly app: App;
  readonly url: string;
  /** The METRICS_PORT listener's URL, when the env set METRICS_PORT. */
  readonly metricsUrl: string | undefined;
  readonly databaseUrl: string;
  readonly outboxDir: string;
  /** SMS_OUTBOX_DIR: where the service writes paid SMS. */
  readonly smsDir: string;
  /** Every log line the service wrote, parsed. */
  readonly logs: Record<string, unknown>[];
  createAccount(username: string, password: string, settings?: { dd_fields?: number }): Promise<number>;
  createList(accountId: number, name: string): Promise<number>;
  /**
   * A client of the service; `from` is the loopback address its calls come from (127.0.0.0/8), so a test
   * can call as several sources (default: the usual 127.0.0.1).
   */
  client(
    username: string,
    password: string,
    binding?: BindingName,
    from?: string,
  ): ReturnType<typeof createClient>;
  close(): Promise<void>;
}

export const BINDINGS: readonly BindingName[] = ["soap11", "soap12", "httpGet", "httpPost"];

/** Password hashes cost a scrypt each: one per distinct password per process. */
const hashes = new Map<string, Promise<string>>();

export async function startService(
  engine: EngineName,
  label: string,
  env: Record<string, string> = {},
  options: { now?: () => number } = {},
): Promise<TestService> {
  const outboxDir = mkdtempSync(join(tmpdir(), "eas-outbox-"));
  const smsDir = mkdtempSync(join(tmpdir(), "eas-sms-"));
  const logs: Record<string, unknown>[] = [];
  const logDestination = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString("utf8").split("\n"))
        if (line !== "") logs.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  const databaseUrl = await freshDatabaseUrl(engine, label);
  const config = readConfig({
    PORT: "0",
    DATABASE_URL: databaseUrl,
    OUTBOX_DIR: outboxDir,
    SMS_OUTBOX_DIR: smsDir,
    PUBLIC_URL: "http://127.0.0.1:1",
    SQLITE_SYNC: "NORMAL",
    SHUTDOWN_TIMEOUT_MS: "5000",
    ...env,
  });
  const app = await createApp(config, { logDestination, ...options });
  const { url, metricsUrl } = await app.start();
  const base = url!;
  return {
    app,
    url: base,
    metricsUrl,
    databaseUrl,
    outboxDir,
    smsDir,
    logs,
    async createAccount(username, password, settings = {}) {
      if (!hashes.has(password)) hashes.set(password, hashPassword(password));
      const row = await app.store.db
        .insertInto("accounts")
        .values({ username, password_hash: await hashes.get(password)!, created_at: Date.now(), ...settings })
        .returning("id")
        .executeTakeFirstOrThrow();
      return row.id;
    },
    async createList(accountId, name) {
      const row = await app.store.db
        .insertInto("mailing_lists")
        .values({ account_id: accountId, name, created_at: Date.now() })
        .returning("id")
        .executeTakeFirstOrThrow();
      return row.id;
    },
    client(username, password, binding = "soap11", from) {
      return createClient({
        baseUrl: base,
        username,
        password,
        binding,
        ...(from === undefined ? {} : { fetch: fetchFrom(from) }),
      });
    },
    close: () => app.close(),
  };
}

/**
 * A fetch for the generated client whose connections come from `localAddress` (any 127.0.0.0/8 address
 * reaches the loopback server): one request per connection, the whole answer read, bounded by 10 s.
 */
export function fetchFrom(localAddress: string): typeof fetch {
  return (async (input: string | URL | Request, init: RequestInit = {}) => {
    const url = new URL(typeof input === "string" || input instanceof URL ? input : input.url);
    const body =
      init.body === null || init.body === undefined ? undefined : Buffer.from(init.body as string, "utf8");
    const headers: Record<string, string> = { ...(init.headers as Record<string, string> | undefined) };
    if (body !== undefined) headers["content-length"] = String(body.length);
    return new Promise<Response>((resolve, reject) => {
      const req = http.request(
        {
          host: url.hostname,
          port: url.port,
          path: url.pathname + url.search,
          method: init.method ?? "GET",
          headers,
          localAddress,
          agent: false,
          timeout: 10_000,
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on("data", (chunk: Buffer) => chunks.push(chunk));
          res.on("end", () => {
            const answer = new Headers();
            for (const [name, value] of Object.entries(res.headers))
              if (typeof value === "string") answer.set(name, value);
            resolve(new Response(Buffer.concat(chunks), { status: res.statusCode ?? 0, headers: answer }));
          });
          res.on("error", reject);
        },
      );
      req.on("timeout", () => req.destroy(new Error("no answer in 10 s")));
      req.on("error", reject);
      req.end(body);
    });
  }) as typeof fetch;
}

/** The fault a call answers with; fails when the call succeeds or throws anything else. */
export async function fault(promise: Promise<unknown>): Promise<ServiceFaultError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof ServiceFaultError) return error;
    throw error;
  }
  throw new Error("the call succeeded; a fault was expected");
}

/** Waits until `ready()` holds (log lines are written when a response closes), at most `ms`. */
export async function eventually(ready: () => boolean, ms = 5000): Promise<void> {
  for (let waited = 0; !ready() && waited < ms; waited += 10)
    await new Promise((resolve) => setTimeout(resolve, 10));
}

/** `npm run admin -- ...argv` in-process on a database, with `stdin` as its standard input. */
export async function admin(
  databaseUrl: string,
  argv: readonly string[],
  stdin = "",
): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = "";
  let stderr = "";
  const sink = (write: (text: string) => void) =>
    new Writable({
      write(chunk: Buffer, _encoding, done) {
        write(chunk.toString("utf8"));
        done();
      },
    });
  const code = await runAdmin(argv, {
    stdin: Readable.from(stdin === "" ? [] : [stdin]),
    stdout: sink((t) => (stdout += t)),
    stderr: sink((t) => (stderr += t)),
    env: { DATABASE_URL: databaseUrl },
  });
  return { code, stdout, stderr };
}

/** A curl-like call: an HTTP POST form to endpoint/Operation; the raw answer text. */
export async function post(
  base: string,
  operation: string,
  form: Record<string, string>,
): Promise<{ status: number; text: string }> {
  const response = await fetch(`${base}/ExternalAPIService.asmx/${operation}`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams(form).toString(),
  });
  return { status: response.status, text: await response.text() };
}
