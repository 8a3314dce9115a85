// The child processes of bench/service.ts, one kind per process: `node --import tsx bench/service-children.ts
// <service|files|autocannon>`. Each talks to its parent over IPC and exits when the parent goes away (IPC
// disconnect), so none outlives the benchmark.
//
// service     the whole service (createApp with the configuration from the environment, as `npm start`
//             reads it) on a database that the launcher fills with one account (SMS credits for every
//             SendSmsWithSenderName a run can make: SMS_BENCH_CREDITS), one list and one transactional
//             project first, the way the tests and the admin CLI do (directly in the store). Reports
//             { ready, port, username, password, accountId, listId, projectId } and then answers requests:
//             { id, cmd: "list" } -> { id, listId }           a new list of the account
//             { id, cmd: "count" } -> { id, subscribers, memberships, sms, smsWaiting, transactions }
//             { id, cmd: "import", importId } -> { id, row }  the imports row (state, counters, times)
// files       a file server on 127.0.0.1 that streams GET /rows?n=N&tag=T as N generated
//             `email;name;HTML;dd1` lines, made on the fly (never stored), with backpressure. Reports { port }.
// autocannon  the fallback load tool when wrk is missing: autocannon's programmatic API with a new
//             request body per request (`setupRequest`), so every InsertSubscriberSid carries a new address.
//             Arguments as JSON in argv[3]; prints one JSON summary line (a LoadResult).

import { randomBytes } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { createRequire } from "node:module";
import { sql } from "kysely";
import { createApp } from "../service/app.js";
import { hashPassword } from "../service/app/auth.js";
import { readConfig } from "../service/config.js";
import { fromAutocannon, type AutocannonResult, type LoadResult } from "./summary.js";

/** A request from bench/service.ts to the service child. */
export type ServiceRequest = { cmd: "list" } | { cmd: "count" } | { cmd: "import"; importId: number };
/** A request as sent, with the id its answer carries. */
export type ServiceCommand = ServiceRequest & { id: number };

/**
 * The account's SMS credits at the start: an exact decimal far beyond what any run can spend at the
 * default price of 1 a segment (a one-segment text costs 1), so every SendSmsWithSenderName is paid at once.
 */
export const SMS_BENCH_CREDITS = "1000000000000";

/** What the service child reports once it listens. */
export interface ServiceReady {
  readonly ready: true;
  readonly port: number;
  readonly username: string;
  readonly password: string;
  readonly accountId: number;
  readonly listId: number;
  /** The transactional project (strId of InsertTransaction). */
  readonly projectId: number;
}

/** Arguments of the autocannon kind. */
export interface AutocannonArgs {
  readonly url: string;
  readonly connections: number;
  readonly seconds: number;
  readonly headers: Record<string, string>;
  /** Every body is prefix + tag + "n" + counter + suffix. */
  readonly prefix: string;
  readonly tag: string;
  readonly suffix: string;
}

function send(message: unknown): void {
  process.send?.(message);
}

async function serviceChild(): Promise<void> {
  const config = readConfig({ ...process.env, PORT: "0", HOST: "127.0.0.1" });
  // The service's own request logs go to stdout at info; the bench sets LOG_LEVEL (warn) in the environment.
  const app = await createApp(config);
  const username = "bench";
  const password = randomBytes(12).toString("base64url");
  const now = Date.now();
  const account = await app.store.db
    .insertInto("accounts")
    .values({ username, password_hash: await hashPassword(password), sms_credits: SMS_BENCH_CREDITS, created_at: now })
    .returning("id")
    .executeTakeFirstOrThrow();
  let lists = 0;
  const newList = async (): Promise<number> => {
    const row = await app.store.db
      .insertInto("mailing_lists")
      .values({ account_id: account.id, name: `bench list ${++lists}`, created_at: Date.now() })
      .returning("id")
      .executeTakeFirstOrThrow();
    return row.id;
  };
  const listId = await newList();
  const project = await app.store.db
    .insertInto("projects")
    .values({
      account_id: account.id,
      name: "bench project",
      subject: "Order {{DD1}}",
      text_body: "Hello {{Name}}, your order {{DD1}} is on its way.",
      html_body: "<p>Hello {{Name}},</p><p>your order <b>{{DD1}}</b> is on its way.</p>",
      created_at: now,
    })
    .returning("id")
    .executeTakeFirstOrThrow();
  const { url } = await app.start();
  const port = Number(new URL(url!).port);
  process.on("message", (message: ServiceCommand) => {
    const answer = async (): Promise<Record<string, unknown>> => {
      if (message.cmd === "list") return { listId: await newList() };
      if (message.cmd === "count") {
        const s = await app.store.db.selectFrom("subscribers").select(sql<number>`count(*)`.as("n")).executeTakeFirstOrThrow();
        const m = await app.store.db.selectFrom("memberships").select(sql<number>`count(*)`.as("n")).executeTakeFirstOrThrow();
        const sms = await app.store.db
          .selectFrom("sms_messages")
          .select([sql<number>`count(*)`.as("n"), sql<number>`count(case when state = 'waiting' then 1 end)`.as("waiting")])
          .executeTakeFirstOrThrow();
        const t = await app.store.db.selectFrom("transactions").select(sql<number>`count(*)`.as("n")).executeTakeFirstOrThrow();
        return { subscribers: Number(s.n), memberships: Number(m.n), sms: Number(sms.n), smsWaiting: Number(sms.waiting), transactions: Number(t.n) };
      }
      if (message.cmd === "import") {
        const row = await app.store.db.selectFrom("imports").selectAll().where("id", "=", message.importId).executeTakeFirst();
        return { row: row ?? null };
      }
      throw new Error(`unknown command ${JSON.stringify(message)}`);
    };
    answer().then(
      (result) => send({ id: message.id, ...result }),
      (error: unknown) => send({ id: message.id, error: error instanceof Error ? error.message : String(error) }),
    );
  });
  const ready: ServiceReady = { ready: true, port, username, password, accountId: account.id, listId, projectId: project.id };
  send(ready);
}

/** The generated file: line i (1-based) of tag T is `fT<i>@bench.example.com;Name <i>;HTML;<i mod 100>`. */
function fileServer(): http.Server {
  return http.createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    const n = Number(url.searchParams.get("n"));
    const tag = url.searchParams.get("tag") ?? "x";
    if (url.pathname !== "/rows" || !Number.isInteger(n) || n < 0 || !/^[a-z0-9]+$/.test(tag)) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { "content-type": "text/csv; charset=utf-8" });
    let i = 0;
    const pump = (): void => {
      while (i < n) {
        let chunk = "";
        const end = Math.min(n, i + 1000);
        while (i < end) {
          i++;
          chunk += `f${tag}${i}@bench.example.com;Name ${i};HTML;${i % 100}\n`;
        }
        if (!res.write(chunk)) {
          res.once("drain", pump);
          return;
        }
      }
      res.end();
    };
    res.on("close", () => (i = n)); // the client went away: stop generating
    pump();
  });
}

async function autocannonChild(args: AutocannonArgs): Promise<void> {
  type Request = { method: string; headers: Record<string, string>; body?: string };
  const autocannon = createRequire(import.meta.url)("autocannon") as (options: Record<string, unknown>) => Promise<AutocannonResult>;
  let counter = 0;
  const result = await autocannon({
    url: args.url,
    connections: args.connections,
    duration: args.seconds,
    requests: [
      {
        method: "POST",
        headers: args.headers,
        setupRequest(request: Request): Request {
          request.body = `${args.prefix}${args.tag}n${++counter}${args.suffix}`;
          return request;
        },
      },
    ],
  });
  const summary: LoadResult = fromAutocannon(result);
  process.stdout.write(`ACJSON ${JSON.stringify(summary)}\n`);
}

async function main(): Promise<void> {
  const kind = process.argv[2];
  if (kind === "autocannon") return autocannonChild(JSON.parse(process.argv[3] ?? "{}") as AutocannonArgs);
  if (!process.send) throw new Error("bench/service-children.ts must be started by bench/service.ts (it reports over IPC).");
  process.on("disconnect", () => process.exit(0));
  if (kind === "service") return serviceChild();
  if (kind === "files") {
    const server = fileServer();
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    send({ port: (server.address() as AddressInfo).port });
    return;
  }
  throw new Error(`unknown kind ${String(kind)}`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
