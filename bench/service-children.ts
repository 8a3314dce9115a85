// The child processes of bench/service.ts, one kind per process: `node --import tsx bench/service-children.ts
// <service|files|autocannon>`. Each talks to its parent over IPC and exits when the parent goes away (IPC
// disconnect), so none outlives the benchmark.
//
// service     the whole service (createApp with the configuration from the environment, as `npm start`
//             reads it) on a database that the launcher fills with one account (SMS credits for every
//             SendSmsWithSenderName a run can make: SMS_BENCH_CREDITS), one list and one transactional
//             project first, the way the tests and the admin CLI do (directly in the store); with
//             BENCH_JOIN (JSON: a ServiceSeed another child reported) it fills nothing and uses those. Reports
//             { ready, port, username, password, accountId, listId, projectId } and then answers requests:
//             { id, cmd: "list" } -> { id, listId }           a new list of the account
//             { id, cmd: "count" } -> { id, subscribers, memberships, sms, smsWaiting, transactions }
//             { id, cmd: "import", importId } -> { id, row }  the imports row (state, counters, times)
//             { id, cmd: "sending-setup", recipients } -> { id, newsletterId, listId }  a template with two
//                 links and a holder, a module in it, a newsletter with tracking `all`, and a new list with
//                 that many active subscribers (written in bulk, directly in the store: INSERT ... SELECT
//                 over a counter, 100,000 a statement)
//             { id, cmd: "sending-progress", sendingId } -> { id, ...SendingProgress }  cheap counts to poll
//             (the sendings row, mails queued and dead: index lookups, no pass over the recipients);
//             { id, cmd: "sending-state", sendingId, files? } -> { id, ...SendingState }  progress counts;
//                 with files the .eml files of the outbox folder too (count, newest mtime)
// files       a file server on 127.0.0.1 that streams GET /rows?n=N&tag=T as N generated
//             `email;name;HTML;dd1` lines, made on the fly (never stored), with backpressure. Reports { port }.
// smtp        an SMTP sink on 127.0.0.1 (smtp-server, no AUTH, no STARTTLS) that answers 250 to every
//             message and keeps only counts: messages, bytes, distinct envelope recipients (and how many
//             came more than once), connections, the time of the last message. Reports { port }; then
//             { id, cmd: "stats" } -> { id, ...SinkStats }.
// autocannon  the fallback load tool when wrk is missing: autocannon's programmatic API with a new
//             request body per request (`setupRequest`), so every InsertSubscriberSid carries a new address.
//             Arguments as JSON in argv[3]; prints one JSON summary line (a LoadResult).

import { randomBytes } from "node:crypto";
import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { createRequire } from "node:module";
import { sql } from "kysely";
import { SMTPServer } from "smtp-server";
import { createApp } from "../service/app.js";
import { hashPassword } from "../service/auth/authenticator.js";
import { readConfig } from "../service/config.js";
import { fromAutocannon, type AutocannonResult, type LoadResult } from "./summary.js";

/** A request from bench/service.ts to the service child. */
export type ServiceRequest =
  | { cmd: "list" }
  | { cmd: "count" }
  | { cmd: "import"; importId: number }
  | { cmd: "sending-setup"; recipients: number }
  | { cmd: "sending-state"; sendingId: number; files?: boolean }
  | { cmd: "sending-progress"; sendingId: number };
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

/** The most mail_outbox rows sending-progress counts in one state (it reports at most this many). */
const PROGRESS_COUNT_CAP = 10_000;

/** What the bench polls while a sending runs: cheap enough to ask every 100 ms without slowing the service. */
export interface SendingProgress {
  /** The sendings row's state, sent counter and recipients count. */
  readonly state: string;
  readonly sent: number;
  readonly recipients: number;
  /**
   * mail_outbox rows still queued, and dead (nothing but the sending queues mail in this database), each
   * counted up to PROGRESS_COUNT_CAP.
   */
  readonly mailsQueued: number;
  readonly mailsDead: number;
}

/** A sending's progress, as the sending-state command answers it. */
export interface SendingState {
  /** The sendings row's state and recipients count. */
  readonly state: string;
  readonly recipients: number;
  /** sending_recipients rows of the sending by state. */
  readonly queued: number;
  readonly sent: number;
  readonly skipped: number;
  /** mail_outbox rows of those recipients (mail_id) by state, and their distinct addresses. */
  readonly mails: number;
  readonly mailsSent: number;
  readonly mailsDead: number;
  readonly addresses: number;
  /** Newsletter mails in mail_outbox altogether (nothing else in this database makes one). */
  readonly newsletterMails: number;
  /** With files: .eml files in the outbox folder and the newest one's mtime (ms since the epoch). */
  readonly emlFiles?: number;
  readonly lastEmlMs?: number;
}

/** What the SMTP sink has received. */
export interface SinkStats {
  /** Messages answered 250 (the DATA accepted). */
  readonly messages: number;
  readonly bytes: number;
  /** Distinct envelope recipients, and recipients that came more than once. */
  readonly recipients: number;
  readonly duplicates: number;
  /** Connections opened in all, and the most open at once. */
  readonly connections: number;
  readonly peakConnections: number;
  /** Epoch ms of the last message's 250. */
  readonly lastMessageMs: number;
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

/** What a joining service child (BENCH_JOIN) is told of the first one's account, list and project. */
export type ServiceSeed = Omit<ServiceReady, "ready" | "port">;

async function serviceChild(): Promise<void> {
  const config = readConfig({ ...process.env, PORT: "0", HOST: "127.0.0.1" });
  // The service's own request logs go to stdout at info; the bench sets LOG_LEVEL (warn) in the environment.
  const app = await createApp(config);
  // BENCH_JOIN: another instance on a database the first child filled (bench/scale-out.ts): its account.
  const join = process.env.BENCH_JOIN;
  const seed: ServiceSeed =
    join === undefined ? await seedDatabase(app.store) : (JSON.parse(join) as ServiceSeed);
  let lists = 0;
  const newList = async (): Promise<number> => {
    const row = await app.store.db
      .insertInto("mailing_lists")
      .values({
        account_id: seed.accountId,
        name: `bench list ${process.pid}-${++lists}`,
        created_at: Date.now(),
      })
      .returning("id")
      .executeTakeFirstOrThrow();
    return row.id;
  };
  const { url } = await app.start();
  const port = Number(new URL(url!).port);
  process.on("message", (message: ServiceCommand) => {
    const answer = async (): Promise<Record<string, unknown>> => {
      if (message.cmd === "list") return { listId: await newList() };
      if (message.cmd === "count") {
        const s = await app.store.db
          .selectFrom("subscribers")
          .select(sql<number>`count(*)`.as("n"))
          .executeTakeFirstOrThrow();
        const m = await app.store.db
          .selectFrom("memberships")
          .select(sql<number>`count(*)`.as("n"))
          .executeTakeFirstOrThrow();
        const sms = await app.store.db
          .selectFrom("sms_messages")
          .select([
            sql<number>`count(*)`.as("n"),
            sql<number>`count(case when state = 'waiting' then 1 end)`.as("waiting"),
          ])
          .executeTakeFirstOrThrow();
        const t = await app.store.db
          .selectFrom("transactions")
          .select(sql<number>`count(*)`.as("n"))
          .executeTakeFirstOrThrow();
        return {
          subscribers: Number(s.n),
          memberships: Number(m.n),
          sms: Number(sms.n),
          smsWaiting: Number(sms.waiting),
          transactions: Number(t.n),
        };
      }
      if (message.cmd === "import") {
        const row = await app.store.db
          .selectFrom("imports")
          .selectAll()
          .where("id", "=", message.importId)
          .executeTakeFirst();
        return { row: row ?? null };
      }
      if (message.cmd === "sending-setup")
        return sendingSetup(app.store, seed.accountId, await newList(), message.recipients);
      if (message.cmd === "sending-progress")
        return { ...(await sendingProgress(app.store, message.sendingId)) };
      if (message.cmd === "sending-state")
        return {
          ...(await sendingState(
            app.store,
            message.sendingId,
            message.files === true ? config.outboxDir : undefined,
          )),
        };
      throw new Error(`unknown command ${JSON.stringify(message)}`);
    };
    answer().then(
      (result) => send({ id: message.id, ...result }),
      (error: unknown) =>
        send({ id: message.id, error: error instanceof Error ? error.message : String(error) }),
    );
  });
  const ready: ServiceReady = { ready: true, port, ...seed };
  send(ready);
}

type BenchStore = Awaited<ReturnType<typeof createApp>>["store"];

/** One account (SMS credits for every call of a run), one list and one transactional project. */
async function seedDatabase(store: BenchStore): Promise<ServiceSeed> {
  const username = "bench";
  const password = randomBytes(12).toString("base64url");
  const now = Date.now();
  const account = await store.db
    .insertInto("accounts")
    .values({
      username,
      password_hash: await hashPassword(password),
      sms_credits: SMS_BENCH_CREDITS,
      created_at: now,
    })
    .returning("id")
    .executeTakeFirstOrThrow();
  const list = await store.db
    .insertInto("mailing_lists")
    .values({ account_id: account.id, name: "bench list", created_at: now })
    .returning("id")
    .executeTakeFirstOrThrow();
  const project = await store.db
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
  return { username, password, accountId: account.id, listId: list.id, projectId: project.id };
}

/** The sending part's content: a template with two links and a holder, a module, a newsletter tracking `all`, N members. */
async function sendingSetup(
  store: BenchStore,
  accountId: number,
  listId: number,
  recipients: number,
): Promise<{ newsletterId: number; listId: number }> {
  const now = Date.now();
  const { db } = store;
  const template = await db
    .insertInto("templates")
    .values({
      account_id: accountId,
      name: "bench template",
      subject: "News for {{Name}}",
      html:
        '<html><body><h1>Hello {{Name}}</h1><p>This week: <a href="https://example.com/articles/1?src=news">the first article</a> ' +
        'and <a href="https://example.com/articles/2">the second one</a>.</p>{{holder:1}}' +
        '<p>Your code: {{DD1}}</p><p><a href="{{unsubscribe}}">Unsubscribe</a></p></body></html>',
      text: "Hello {{Name}}\nThe first article: https://example.com/articles/1?src=news\n{{holder:1}}\nYour code: {{DD1}}\nUnsubscribe: {{unsubscribe}}\n",
      created_at: now,
    })
    .returning("id")
    .executeTakeFirstOrThrow();
  const newsletter = await db
    .insertInto("newsletters")
    .values({
      account_id: accountId,
      template_id: template.id,
      name: "bench newsletter",
      subject: "News for {{Name}}",
      tracking: "all",
      created_at: now,
    })
    .returning("id")
    .executeTakeFirstOrThrow();
  const code =
    '<div class="module"><p>Offer for {{Name}}: <a href="https://example.com/offer?code={{DD1}}">see the offer</a></p></div>';
  const module = await db
    .insertInto("modules")
    .values({ account_id: accountId, name: "bench module", code, created_at: now })
    .returning("id")
    .executeTakeFirstOrThrow();
  await db
    .insertInto("newsletter_modules")
    .values({
      account_id: accountId,
      newsletter_id: newsletter.id,
      module_id: module.id,
      code,
      holder_id: 1,
      filter_id: null,
      created_at: now,
    })
    .execute();
  // In bulk: each slice of subscribers one INSERT ... SELECT over a counter, then their memberships one
  // more (the same on both engines), so a list of a million is made in seconds.
  const SLICE = 100_000;
  for (let first = 1; first <= recipients; first += SLICE) {
    const last = Math.min(recipients, first + SLICE - 1);
    await store.write(async (trx) => {
      const before = await trx
        .selectFrom("subscribers")
        .select(sql<number>`coalesce(max(id), 0)`.as("id"))
        .executeTakeFirstOrThrow();
      const prefix = `s${listId}n`;
      await sql`with recursive n(i) as (
          select cast(${first} as integer) union all select i + 1 from n where i < cast(${last} as integer))
        insert into subscribers (account_id, email, email_key, name, fields, created_at)
        select ${accountId}, cast(${prefix} as text) || i || '@bench.example.com',
          cast(${prefix} as text) || i || '@bench.example.com', 'Name ' || i, '{"1":"C-' || i || '"}', ${now}
        from n`.execute(trx);
      await sql`insert into memberships (list_id, subscriber_id, account_id, state, created_at, changed_at)
        select ${listId}, id, ${accountId}, 'active', ${now}, ${now} from subscribers
        where id > ${Number(before.id)} and account_id = ${accountId}`.execute(trx);
    });
  }
  return { newsletterId: newsletter.id, listId };
}

async function sendingProgress(store: BenchStore, sendingId: number): Promise<SendingProgress> {
  const { db } = store;
  const sending = await db
    .selectFrom("sendings")
    .select(["state", "sent", "recipients"])
    .where("id", "=", sendingId)
    .executeTakeFirst();
  // Counted up to PROGRESS_COUNT_CAP index entries: a backlog of a million is not walked at every poll.
  const count = async (state: "queued" | "dead") =>
    Number(
      (
        await db
          .selectFrom((eb) =>
            eb
              .selectFrom("mail_outbox")
              .select("id")
              .where("state", "=", state)
              .limit(PROGRESS_COUNT_CAP)
              .as("capped"),
          )
          .select(sql<number>`count(*)`.as("n"))
          .executeTakeFirstOrThrow()
      ).n,
    );
  return {
    state: sending?.state ?? "missing",
    sent: Number(sending?.sent ?? 0),
    recipients: Number(sending?.recipients ?? 0),
    mailsQueued: await count("queued"),
    mailsDead: await count("dead"),
  };
}

async function sendingState(
  store: BenchStore,
  sendingId: number,
  outboxDir: string | undefined,
): Promise<SendingState> {
  const { db } = store;
  const sending = await db
    .selectFrom("sendings")
    .select(["state", "recipients"])
    .where("id", "=", sendingId)
    .executeTakeFirst();
  const byState = await db
    .selectFrom("sending_recipients")
    .select(["state", sql<number>`count(*)`.as("n")])
    .where("sending_id", "=", sendingId)
    .groupBy("state")
    .execute();
  const counts = Object.fromEntries(byState.map((r) => [r.state, Number(r.n)]));
  const mails = await db
    .selectFrom("sending_recipients as r")
    .innerJoin("mail_outbox as m", "m.id", "r.mail_id")
    .select([
      sql<number>`count(*)`.as("n"),
      sql<number>`count(case when m.state = 'sent' then 1 end)`.as("sent"),
      sql<number>`count(case when m.state = 'dead' then 1 end)`.as("dead"),
      sql<number>`count(distinct m.to_address)`.as("addresses"),
    ])
    .where("r.sending_id", "=", sendingId)
    .executeTakeFirstOrThrow();
  const all = await db
    .selectFrom("mail_outbox")
    .select(sql<number>`count(*)`.as("n"))
    .where("kind", "=", "newsletter")
    .executeTakeFirstOrThrow();
  let files: { emlFiles: number; lastEmlMs: number } | undefined;
  if (outboxDir !== undefined) {
    let emlFiles = 0;
    let lastEmlMs = 0;
    // Read as a stream: a million names are never held at once.
    const folder = fs.existsSync(outboxDir) ? fs.opendirSync(outboxDir, { bufferSize: 1024 }) : undefined;
    for (let entry = folder?.readSync(); entry != null; entry = folder!.readSync()) {
      if (!entry.name.endsWith(".eml")) continue;
      emlFiles++;
      lastEmlMs = Math.max(lastEmlMs, fs.statSync(path.join(outboxDir, entry.name)).mtimeMs);
    }
    folder?.closeSync();
    files = { emlFiles, lastEmlMs };
  }
  return {
    state: sending?.state ?? "missing",
    recipients: Number(sending?.recipients ?? 0),
    queued: counts.queued ?? 0,
    sent: counts.sent ?? 0,
    skipped: counts.skipped ?? 0,
    mails: Number(mails.n),
    mailsSent: Number(mails.sent),
    mailsDead: Number(mails.dead),
    addresses: Number(mails.addresses),
    newsletterMails: Number(all.n),
    ...files,
  };
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
  const autocannon = createRequire(import.meta.url)("autocannon") as (
    options: Record<string, unknown>,
  ) => Promise<AutocannonResult>;
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

/** The SMTP sink: accepts every message, keeps counts (and one entry per recipient, to find duplicates). */
async function smtpSink(): Promise<void> {
  const seen = new Set<string>();
  const stats = {
    messages: 0,
    bytes: 0,
    duplicates: 0,
    connections: 0,
    peakConnections: 0,
    lastMessageMs: 0,
  };
  let open = 0;
  const server = new SMTPServer({
    secure: false,
    authOptional: true,
    disabledCommands: ["STARTTLS", "AUTH"],
    logger: false,
    onConnect(_session, callback) {
      stats.connections++;
      stats.peakConnections = Math.max(stats.peakConnections, ++open);
      callback();
    },
    onClose() {
      open--;
    },
    onData(stream, session, callback) {
      let bytes = 0;
      stream.on("data", (chunk: Buffer) => (bytes += chunk.length));
      stream.on("end", () => {
        stats.messages++;
        stats.bytes += bytes;
        stats.lastMessageMs = Date.now();
        for (const { address } of session.envelope.rcptTo) {
          if (seen.has(address)) stats.duplicates++;
          else seen.add(address);
        }
        callback();
      });
    },
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  server.on("error", () => {}); // a client's reset connection: counted by nothing, fatal to nothing
  process.on("message", (message: { id: number; cmd: string }) => {
    if (message.cmd === "stats")
      send({ id: message.id, ...stats, recipients: seen.size } satisfies SinkStats & { id: number });
  });
  send({ port: (server.server.address() as AddressInfo).port });
}

async function main(): Promise<void> {
  const kind = process.argv[2];
  if (kind === "autocannon") return autocannonChild(JSON.parse(process.argv[3] ?? "{}") as AutocannonArgs);
  if (!process.send)
    throw new Error("bench/service-children.ts must be started by bench/service.ts (it reports over IPC).");
  process.on("disconnect", () => process.exit(0));
  if (kind === "service") return serviceChild();
  if (kind === "smtp") return smtpSink();
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
