// `npm run bench:console [-- --engine sqlite|postgres --subscribers N --events N --runs N]`: server time of
// every console page on a large database: one account with 1,000,000 subscribers on one list and 10,000,000
// tracking events over 10 sendings (the issue's size; smaller with the flags). SQLite: the database is
// built once through the service's own migrations and then in bulk, and kept in the system's temporary
// folder for the next run (rebuilt when the sizes differ; an older one is migrated on open, and the time
// that took is printed). PostgreSQL: a throwaway cluster (test/service/support/postgres.ts), built each run
// with the same rows by generate_series, then the counters filled from them. The service runs in this
// process on it (api role: no workers); each page is requested `runs` times after one warm-up, and the
// time is the service's own (its request log's durationMs, from the request's arrival to its answer's
// end). Target: 200 ms each.
//
// Then the before and after of the sending counters (service/tables/sending-counters.ts), in one run on
// the same database: the statistics of the 10 sendings, sending 5's clicks per link and its chart's
// buckets, each recounted from the raw rows (what the pages did before the counters) and read from the
// counters.

import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Writable } from "node:stream";
import { parseArgs } from "node:util";
import Database from "better-sqlite3";
import { sql } from "kysely";
import { createApp } from "../service/app.js";
import { hashPassword } from "../service/auth/authenticator.js";
import { readConfig } from "../service/config.js";
import { type Store, openStore } from "../service/db/database.js";
import {
  BUCKET_WIDTHS,
  eventBuckets,
  linkCounts,
  readSendingCounters,
  rebuildSendingCounters,
  recountSendingCounters,
} from "../service/tables/sending-counters.js";
import { type ThrowawayCluster, startThrowawayCluster } from "../test/service/support/postgres.js";

const { values: flags } = parseArgs({
  options: {
    engine: { type: "string", default: "sqlite" },
    subscribers: { type: "string", default: "1000000" },
    events: { type: "string", default: "10000000" },
    runs: { type: "string", default: "5" },
  },
});
const SUBSCRIBERS = Number(flags.subscribers);
const EVENTS = Number(flags.events);
const RUNS = Number(flags.runs);
const ENGINE = flags.engine === "postgres" ? "postgres" : "sqlite";
const SENDINGS = 10;
const LINKS = 5;
const PASSWORD = "console-bench-password";
const TARGET_MS = 200;

const dir = join(tmpdir(), "eas-console-bench");
const file = join(dir, "console.db");
const marker = join(dir, "sizes.json");
const sizes = JSON.stringify({ SUBSCRIBERS, EVENTS, SENDINGS, version: 1 });

async function build(): Promise<void> {
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const store = await openStore(`sqlite:${file}`);
  await store.close();
  const db = new Database(file);
  db.pragma("journal_mode = WAL");
  db.pragma("synchronous = OFF");
  db.pragma("cache_size = -262144");
  const t0 = Date.now();
  const start = Date.UTC(2026, 10, 1);
  const hash = await hashPassword(PASSWORD);
  db.prepare(
    "insert into accounts (username, password_hash, created_at, sms_credits) values (?, ?, ?, '1000')",
  ).run("big", hash, start);
  db.prepare("insert into accounts (username, password_hash, created_at) values (?, ?, ?)").run(
    "other",
    hash,
    start,
  );
  db.prepare("insert into mailing_lists (account_id, name, created_at) values (1, 'Everyone', ?)").run(start);
  const sub = db.prepare(
    "insert into subscribers (account_id, email, email_key, name, created_at) values (1, ?, ?, ?, ?)",
  );
  const member = db.prepare(
    "insert into memberships (list_id, subscriber_id, account_id, state, created_at, changed_at) values (1, ?, 1, ?, ?, ?)",
  );
  const first = ["Anna", "Bo", "Carl", "Dana", "Erik", "Fia", "Gus", "Hanna", "Ivar", "Jo"];
  const BATCH = 100_000;
  for (let at = 0; at < SUBSCRIBERS; at += BATCH) {
    db.transaction(() => {
      for (let i = at; i < Math.min(SUBSCRIBERS, at + BATCH); i++) {
        const email = `user${i}@example.com`;
        sub.run(email, email, `${first[i % 10]} ${i}`, start + i);
        member.run(
          i + 1,
          i % 20 === 0 ? "pending" : i % 25 === 0 ? "unsubscribed" : "active",
          start + i,
          start + i,
        );
      }
    })();
  }
  console.error(`[console bench] ${SUBSCRIBERS} subscribers in ${((Date.now() - t0) / 1000).toFixed(0)} s`);
  db.prepare(
    "insert into templates (account_id, name, subject, html, created_at) values (1, 'T', 'Hi {{Name}}', ?, ?)",
  ).run('<p>Hello {{Name}}</p><p><a href="https://shop.example/">Shop</a></p>', start);
  for (let s = 1; s <= SENDINGS; s++) {
    const at = start + s * 86_400_000;
    db.prepare(
      "insert into newsletters (account_id, template_id, name, subject, tracking, created_at) values (1, 1, ?, 'Hi', 'all', ?)",
    ).run(`Issue ${s}`, at);
    db.prepare(
      "insert into sendings (account_id, newsletter_id, list_id, from_email, send_at, state, recipients, sent, created_at, finished_at) values (1, ?, 1, 'news@example.com', ?, 'done', ?, ?, ?, ?)",
    ).run(s, at, SUBSCRIBERS, SUBSCRIBERS, at, at + 3600_000);
    for (let l = 0; l < LINKS; l++)
      db.prepare("insert into tracked_links (account_id, sending_id, url) values (1, ?, ?)").run(
        s,
        `https://shop.example/${l}`,
      );
  }
  // Per sending: EVENTS / SENDINGS events, 70 % opens, 30 % clicks, by subscribers drawn with a fixed
  // stride (so many open twice); one tracking_limits row per (subscriber, link, kind), as the service keeps.
  const event = db.prepare(
    "insert into tracking_events (account_id, sending_id, subscriber_id, kind, link_id, created_at) values (1, ?, ?, ?, ?, ?)",
  );
  const limit = db.prepare(
    "insert into tracking_limits (sending_id, subscriber_id, link_id, kind, window_start, window_count, total) values (?, ?, ?, ?, ?, 1, 1) on conflict do update set total = total + 1",
  );
  const perSending = Math.floor(EVENTS / SENDINGS);
  for (let s = 1; s <= SENDINGS; s++) {
    const at = start + s * 86_400_000;
    for (let from = 0; from < perSending; from += BATCH) {
      db.transaction(() => {
        for (let e = from; e < Math.min(perSending, from + BATCH); e++) {
          const subscriber = 1 + ((e * 7919) % Math.max(1, Math.floor(SUBSCRIBERS * 0.6)));
          const click = e % 10 < 3;
          const link = click ? 1 + (s - 1) * LINKS + (e % LINKS) : 0;
          const when = at + Math.floor((e / perSending) * 7 * 86_400_000);
          event.run(s, subscriber, click ? "click" : "view", click ? link : null, when);
          limit.run(s, subscriber, link, click ? "click" : "view", when);
        }
      })();
    }
    console.error(
      `[console bench] sending ${s}: ${perSending} events, ${((Date.now() - t0) / 1000).toFixed(0)} s`,
    );
  }
  db.pragma("optimize");
  db.close();
  writeFileSync(marker, sizes);
}

/** The same rows as build() on a PostgreSQL database, by generate_series; then the counters from them. */
async function buildPostgres(url: string): Promise<void> {
  const store = await openStore(url);
  const t0 = Date.now();
  const start = Date.UTC(2026, 10, 1);
  const hash = await hashPassword(PASSWORD);
  const run = (text: string) => sql.raw(text).execute(store.db);
  try {
    // Bulk rows without the counting triggers (each statement would count its million rows at once);
    // the counters are filled from the rows at the end, as the migration does.
    await store.db.transaction().execute(async (trx) => {
      await sql`set local session_replication_role = replica`.execute(trx);
      await sql`insert into accounts (username, password_hash, created_at, sms_credits) values ('big', ${hash}, ${start}, '1000'), ('other', ${hash}, ${start}, '0')`.execute(
        trx,
      );
      await sql`insert into mailing_lists (account_id, name, created_at) values (1, 'Everyone', ${start})`.execute(
        trx,
      );
      await sql
        .raw(
          `insert into subscribers (account_id, email, email_key, name, created_at)
           select 1, 'user' || i || '@example.com', 'user' || i || '@example.com',
             (array['Anna','Bo','Carl','Dana','Erik','Fia','Gus','Hanna','Ivar','Jo'])[i % 10 + 1] || ' ' || i, ${start} + i
           from generate_series(0, ${SUBSCRIBERS - 1}) i`,
        )
        .execute(trx);
      await sql
        .raw(
          `insert into memberships (list_id, subscriber_id, account_id, state, created_at, changed_at)
           select 1, i + 1, 1, case when i % 20 = 0 then 'pending' when i % 25 = 0 then 'unsubscribed' else 'active' end,
             ${start} + i, ${start} + i
           from generate_series(0, ${SUBSCRIBERS - 1}) i`,
        )
        .execute(trx);
      console.error(
        `[console bench] ${SUBSCRIBERS} subscribers in ${((Date.now() - t0) / 1000).toFixed(0)} s`,
      );
      await sql`insert into templates (account_id, name, subject, html, created_at) values (1, 'T', 'Hi {{Name}}', ${'<p>Hello {{Name}}</p><p><a href="https://shop.example/">Shop</a></p>'}, ${start})`.execute(
        trx,
      );
      const perSending = Math.floor(EVENTS / SENDINGS);
      const audience = Math.max(1, Math.floor(SUBSCRIBERS * 0.6));
      for (let s = 1; s <= SENDINGS; s++) {
        const at = start + s * 86_400_000;
        await sql`insert into newsletters (account_id, template_id, name, subject, tracking, created_at) values (1, 1, ${`Issue ${s}`}, 'Hi', 'all', ${at})`.execute(
          trx,
        );
        await sql`insert into sendings (account_id, newsletter_id, list_id, from_email, send_at, state, recipients, sent, created_at, finished_at) values (1, ${s}, 1, 'news@example.com', ${at}, 'done', ${SUBSCRIBERS}, ${SUBSCRIBERS}, ${at}, ${at + 3600_000})`.execute(
          trx,
        );
        for (let l = 0; l < LINKS; l++)
          await sql`insert into tracked_links (account_id, sending_id, url) values (1, ${s}, ${`https://shop.example/${l}`})`.execute(
            trx,
          );
        await sql
          .raw(
            `insert into tracking_events (account_id, sending_id, subscriber_id, kind, link_id, created_at)
             select 1, ${s}, 1 + (e::bigint * 7919) % ${audience},
               case when e % 10 < 3 then 'click' else 'view' end,
               case when e % 10 < 3 then ${1 + (s - 1) * LINKS} + e % ${LINKS} end,
               ${at} + floor(e::float8 / ${perSending} * 7 * 86400000)::bigint
             from generate_series(0, ${perSending - 1}) e`,
          )
          .execute(trx);
        console.error(
          `[console bench] sending ${s}: ${perSending} events, ${((Date.now() - t0) / 1000).toFixed(0)} s`,
        );
      }
      await sql
        .raw(
          `insert into tracking_limits (sending_id, subscriber_id, link_id, kind, window_start, window_count, total)
           select sending_id, subscriber_id, coalesce(link_id, 0), kind, min(created_at), 1, count(*)
           from tracking_events group by sending_id, subscriber_id, coalesce(link_id, 0), kind`,
        )
        .execute(trx);
      await rebuildSendingCounters(trx);
    });
    // As autovacuum would have by then: statistics, and the visibility map index-only scans need.
    await run("vacuum analyze");
    console.error(`[console bench] built in ${((Date.now() - t0) / 1000).toFixed(0)} s`);
  } finally {
    await store.close();
  }
}

/** The median of `runs` runs of `work` after a warm-up (ms). */
async function timed(work: () => Promise<unknown>, runs: number): Promise<number> {
  const ms: number[] = [];
  await work();
  for (let run = 0; run < runs; run++) {
    const t = performance.now();
    await work();
    ms.push(performance.now() - t);
  }
  return ms.sort((a, b) => a - b)[Math.floor(ms.length / 2)]!;
}

/** Recounted from the raw rows against read from the counters, on the bench's sendings (median ms). */
async function beforeAfter(store: Store): Promise<string[]> {
  const db = store.db;
  const ids = Array.from({ length: SENDINGS }, (_, i) => i + 1);
  const span = [Date.UTC(2026, 10, 1), Date.UTC(2027, 0, 1)] as const;
  const rows: [string, () => Promise<unknown>, () => Promise<unknown>][] = [
    [
      `statistics of the ${SENDINGS} sendings (the sendings list)`,
      () => recountSendingCounters(db, ids),
      () => readSendingCounters(db, ids),
    ],
    [
      "statistics of sending 5 (its page)",
      () => recountSendingCounters(db, [5]),
      () => readSendingCounters(db, [5]),
    ],
    ["clicks per link of sending 5", () => linkCounts(db, 5, true), () => linkCounts(db, 5)],
    [
      "sending 5's opens and clicks per hour (its chart)",
      () => eventBuckets(db, 5, BUCKET_WIDTHS[1], span[0], span[1], true),
      () => eventBuckets(db, 5, BUCKET_WIDTHS[1], span[0], span[1]),
    ],
  ];
  const out = ["| Read | Recounted from the raw rows, ms | From the counters, ms |", "|---|---:|---:|"];
  for (const [what, recount, counters] of rows) {
    // A recount takes seconds: one timed run after the warm-up is enough.
    const before = await timed(recount, 1);
    const after = await timed(counters, RUNS);
    out.push(
      `| ${what} | ${before.toLocaleString("en-US", { maximumFractionDigits: 0 })} | ${after.toFixed(2)} |`,
    );
  }
  return out;
}

interface Timing {
  readonly page: string;
  readonly ms: number[];
}

async function main(): Promise<void> {
  let cluster: ThrowawayCluster | undefined;
  let databaseUrl = `sqlite:${file}`;
  if (ENGINE === "postgres") {
    cluster = await startThrowawayCluster();
    databaseUrl = await cluster.createDatabase("console_bench");
    await buildPostgres(databaseUrl);
  } else {
    if (!existsSync(marker) || readFileSync(marker, "utf8") !== sizes) await build();
    // Migrations the cached database does not have yet (the counters' fills them from its rows).
    const t = Date.now();
    await (await openStore(databaseUrl)).close();
    console.error(`[console bench] opened (and migrated) in ${((Date.now() - t) / 1000).toFixed(1)} s`);
  }
  try {
    await measure(databaseUrl);
  } finally {
    await cluster?.stop();
  }
}

async function measure(databaseUrl: string): Promise<void> {
  const lines: Record<string, unknown>[] = [];
  const logDestination = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString("utf8").split("\n")) if (line !== "") lines.push(JSON.parse(line));
      done();
    },
  });
  const config = readConfig(
    {
      PORT: "0",
      DATABASE_URL: databaseUrl,
      LOG_LEVEL: "info",
      OUTBOX_DIR: join(dir, "outbox"),
      SMS_OUTBOX_DIR: join(dir, "sms"),
    },
    "api",
  );
  const app = await createApp(config, { logDestination });
  const { url } = await app.start();
  try {
    let cookie = "";
    const get = async (path: string, body?: string) => {
      const res = await fetch(`${url}${path}`, {
        method: body === undefined ? "GET" : "POST",
        redirect: "manual",
        headers: {
          cookie,
          ...(body === undefined ? {} : { "content-type": "application/x-www-form-urlencoded" }),
        },
        ...(body === undefined ? {} : { body }),
      });
      for (const set of res.headers.getSetCookie()) {
        const pair = set.split(";", 1)[0]!;
        cookie = cookie === "" ? pair : `${cookie}; ${pair}`;
      }
      return { status: res.status, text: await res.text() };
    };
    const form = await get("/console/sign-in");
    const csrf = /name="_csrf" value="([^"]+)"/.exec(form.text)![1]!;
    const signed = await get(
      "/console/sign-in",
      new URLSearchParams({ _csrf: csrf, username: "big", password: PASSWORD }).toString(),
    );
    if (signed.status !== 303) throw new Error(`sign-in: ${signed.status}`);
    const mid = Math.floor(SUBSCRIBERS / 2);
    const pages = [
      "/console/",
      "/console/lists",
      "/console/subscribers",
      `/console/subscribers?q=user${mid}&by=email`,
      "/console/subscribers?q=hanna&by=name",
      `/console/subscribers?q=&by=email&after=user${mid}%40example.com&id=${mid + 1}`,
      `/console/subscribers/${mid}`,
      "/console/imports",
      "/console/newsletters",
      "/console/newsletters/5?subscriber=42",
      "/console/newsletters/5/preview.html?subscriber=42",
      "/console/sendings",
      "/console/sendings/5",
      "/console/sendings/5/progress",
      "/console/sendings/5/series",
      "/console/outbox",
      "/console/sms",
      "/console/triggers",
      "/console/transactional",
      "/console/credits",
    ];
    const timings: Timing[] = [];
    for (const page of pages) {
      const ms: number[] = [];
      for (let run = 0; run <= RUNS; run++) {
        const before = lines.length;
        const answer = await get(page);
        if (answer.status !== 200) throw new Error(`${page}: ${answer.status}`);
        for (let wait = 0; wait < 100 && lines.length === before; wait++)
          await new Promise((r) => setTimeout(r, 5));
        const line = lines.slice(before).find((l) => typeof l.durationMs === "number");
        if (run > 0 && line !== undefined) ms.push(line.durationMs as number);
      }
      timings.push({ page, ms });
    }
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? Number.NaN;
    console.log(
      `Console pages on ${ENGINE === "postgres" ? "PostgreSQL" : "SQLite"}, ${SUBSCRIBERS.toLocaleString("en-US")} subscribers, ${EVENTS.toLocaleString("en-US")} tracking events, ${RUNS} runs each (server time, ms)\n`,
    );
    console.log("| Page | Median ms | Max ms | Target |");
    console.log("|---|---:|---:|---|");
    for (const t of timings)
      console.log(
        `| \`${t.page}\` | ${median(t.ms).toFixed(1)} | ${Math.max(...t.ms).toFixed(1)} | ${Math.max(...t.ms) <= TARGET_MS ? `≤ ${TARGET_MS} ✓` : `≤ ${TARGET_MS} ✗`} |`,
      );
    console.log(
      `\nA sending's numbers recounted from the raw rows (as the pages did before the counters; one run) and read from the counters (median of ${RUNS} runs), in-process\n`,
    );
    for (const line of await beforeAfter(app.store)) console.log(line);
  } finally {
    await app.close();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
