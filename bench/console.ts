// `npm run bench:console [-- --subscribers N --events N --runs N]`: server time of every console page on a
// large SQLite database: one account with 1,000,000 subscribers on one list and 10,000,000 tracking events
// over 10 sendings (the issue's size; smaller with the flags). The database is built once through the
// service's own migrations and then in bulk, and kept in the system's temporary folder for the next run
// (rebuilt when the sizes differ). The service runs in this process on it (api role: no workers); each page
// is requested `runs` times after one warm-up, and the time is the service's own (its request log's
// durationMs, from the request's arrival to its answer's end). Target: 200 ms each.

import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Writable } from "node:stream";
import { parseArgs } from "node:util";
import Database from "better-sqlite3";
import { createApp } from "../service/app.js";
import { hashPassword } from "../service/auth/authenticator.js";
import { readConfig } from "../service/config.js";
import { openStore } from "../service/db/database.js";

const { values: flags } = parseArgs({
  options: {
    subscribers: { type: "string", default: "1000000" },
    events: { type: "string", default: "10000000" },
    runs: { type: "string", default: "5" },
  },
});
const SUBSCRIBERS = Number(flags.subscribers);
const EVENTS = Number(flags.events);
const RUNS = Number(flags.runs);
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

interface Timing {
  readonly page: string;
  readonly ms: number[];
}

async function main(): Promise<void> {
  if (!existsSync(marker) || readFileSync(marker, "utf8") !== sizes) await build();
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
      DATABASE_URL: `sqlite:${file}`,
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
      `Console pages on SQLite, ${SUBSCRIBERS.toLocaleString("en-US")} subscribers, ${EVENTS.toLocaleString("en-US")} tracking events, ${RUNS} runs each (server time, ms)\n`,
    );
    console.log("| Page | Median ms | Max ms | Target |");
    console.log("|---|---:|---:|---|");
    for (const t of timings)
      console.log(
        `| \`${t.page}\` | ${median(t.ms).toFixed(1)} | ${Math.max(...t.ms).toFixed(1)} | ${Math.max(...t.ms) <= TARGET_MS ? `≤ ${TARGET_MS} ✓` : `≤ ${TARGET_MS} ✗`} |`,
      );
  } finally {
    await app.close();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
