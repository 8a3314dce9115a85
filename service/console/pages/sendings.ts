// Sendings: newest first with their rates (keyset pages), one sending's live progress, its opens and clicks
// over time (a JSON series the chart script draws with uPlot) and its clicks per link.

import { sql } from "kysely";
import { html } from "../html.js";
import { sendData, sendHtml } from "../http.js";
import type { ConsoleRoute, RouteContext } from "../context.js";
import { count, nextLink, page, rate, table, when } from "../layout.js";
import { idOf, sendingStats } from "../queries.js";
import { SENDING_HEAD, sendingRow } from "./dashboard.js";

/** Sendings a page lists: each row counts its unique opens and clicks (one index range each). */
const PAGE_ROWS = 10;
/** Points a chart has at most: the bucket is the smallest nice width that fits the span in these. */
const MAX_POINTS = 120;
const BUCKETS: ReadonlyArray<readonly [ms: number, label: string]> = [
  [60_000, "minute"],
  [5 * 60_000, "5 minutes"],
  [15 * 60_000, "15 minutes"],
  [3600_000, "hour"],
  [3 * 3600_000, "3 hours"],
  [6 * 3600_000, "6 hours"],
  [24 * 3600_000, "day"],
  [7 * 24 * 3600_000, "week"],
];
/** The shortest span a chart shows. */
const MIN_SPAN_MS = 30 * 60_000;
/** Links listed on a sending's page at most (most clicked first). */
const LINKS_SHOWN = 50;

async function sendings(ctx: RouteContext): Promise<void> {
  const before = idOf(ctx.url.searchParams.get("before"));
  const rows = await sendingStats(ctx.deps.store.db, ctx.account.id, {
    limit: PAGE_ROWS + 1,
    ...(before === undefined ? {} : { beforeId: before }),
  });
  const shown = rows.slice(0, PAGE_ROWS);
  const body = html`${table(
    "Sendings, newest first; rates of the messages sent (opens and clicks of the delivered ones)",
    SENDING_HEAD,
    shown.map((s) => sendingRow(ctx, s)),
    "No sendings yet.",
  )}
${rows.length > PAGE_ROWS ? nextLink("/console/sendings", { before: String(shown.at(-1)!.id) }) : ""}`;
  sendHtml(
    ctx.req,
    ctx.res,
    page({ account: ctx.account, csrf: ctx.csrf, section: "/console/sendings" }, "Sendings", body),
  );
}

async function sendingPage(ctx: RouteContext): Promise<void> {
  const id = idOf(ctx.match[1]);
  const section = { account: ctx.account, csrf: ctx.csrf, section: "/console/sendings" };
  const [s] = id === undefined ? [] : await sendingStats(ctx.deps.store.db, ctx.account.id, { limit: 1, id });
  if (s === undefined) {
    sendHtml(
      ctx.req,
      ctx.res,
      page(section, "No such sending", html`<p>This account has no sending with that id.</p>`),
      {
        status: 404,
      },
    );
    return;
  }
  const links = await ctx.deps.store.db
    .selectFrom("tracking_limits as l")
    .innerJoin("tracked_links as t", "t.id", "l.link_id")
    .select(["t.url", sql<number>`count(*)`.as("people"), sql<number>`sum(l.total)`.as("clicks")])
    .where("l.sending_id", "=", s.id)
    .where("t.sending_id", "=", s.id)
    .where("l.kind", "=", "click")
    .groupBy("t.url")
    .orderBy(sql`sum(l.total)`, "desc")
    .orderBy("t.url")
    .limit(LINKS_SHOWN)
    .execute();
  const running = s.state !== "done";
  const tile = (label: string, value: string) =>
    html`<div class="tile"><span class="tile-value">${value}</span><span class="tile-label">${label}</span></div>`;
  const body = html`<p>List <strong>${s.list}</strong>, send at ${when(ctx.account, s.sendAt)}${
    s.finishedAt === null ? "" : html`, finished ${when(ctx.account, s.finishedAt)}`
  }.</p>
<div class="live" data-poll="/console/sendings/${s.id}/progress" data-reload${running ? "" : html` data-finished="true"`}>
<div class="progress">
<progress max="100" value="${s.recipients === 0 ? (running ? 0 : 100) : Math.floor((100 * s.sent) / s.recipients)}" aria-label="Sending progress"></progress>
<span><span data-field="state">${s.state}</span>: <span data-field="sent">${s.sent}</span> of <span data-field="recipients">${s.recipients}</span> sent</span>
</div>
</div>
<div class="tiles">
${tile("Sent", count(s.sent))}
${tile("Delivered", rate(s.delivered, s.sent))}
${tile("Bounced", rate(s.bounced, s.sent))}
${tile("Unique opens", `${count(s.uniqueOpens)} (${rate(s.uniqueOpens, s.delivered)})`)}
${tile("Unique clicks", `${count(s.uniqueClicks)} (${rate(s.uniqueClicks, s.delivered)})`)}
</div>
<h2>Opens and clicks over time</h2>
<div class="chart" role="img" aria-label="Opens and clicks of this sending over time" data-series="/console/sendings/${s.id}/series" data-live="true"><p class="hint">The chart needs JavaScript; the numbers are above.</p></div>
<h2>Clicks per link</h2>
${table(
  "Links of the newsletter, most clicked first (shown as text, not followed)",
  ["Link", "People", "Clicks"],
  links.map(
    (l) =>
      html`<tr><td><code>${l.url}</code></td><td class="n">${count(Number(l.people))}</td><td class="n">${count(Number(l.clicks))}</td></tr>`,
  ),
  "No clicks yet.",
)}`;
  sendHtml(
    ctx.req,
    ctx.res,
    page(section, `Sending ${s.id}: ${s.newsletter}`, body, ["uplot.js", "console.js"]),
  );
}

async function sendingOf(ctx: RouteContext) {
  const id = idOf(ctx.match[1]);
  if (id === undefined) return undefined;
  return ctx.deps.store.db
    .selectFrom("sendings")
    .select(["id", "state", "sent", "recipients", "send_at"])
    .where("id", "=", id)
    .where("account_id", "=", ctx.account.id)
    .executeTakeFirst();
}

async function sendingProgress(ctx: RouteContext): Promise<void> {
  const s = await sendingOf(ctx);
  if (s === undefined) return sendData(ctx.req, ctx.res, "application/json", '{"error":"not found"}\n', 404);
  const recipients = Number(s.recipients);
  const sent = Number(s.sent);
  const view = {
    state: s.state,
    sent,
    recipients,
    rows: sent,
    finished: s.state === "done",
    ...(recipients > 0
      ? { percent: Math.floor((100 * sent) / recipients), remaining: recipients - sent }
      : {}),
  };
  sendData(ctx.req, ctx.res, "application/json", `${JSON.stringify(view)}\n`);
}

/**
 * Opens and clicks per bucket from the sending's start (its send time, or its first event if earlier) to
 * its last event: `t` the buckets' starts in Unix seconds, `opens` and `clicks` the events in each. One
 * grouped read of the index (sending_id, kind, created_at).
 */
async function sendingSeries(ctx: RouteContext) {
  const s = await sendingOf(ctx);
  if (s === undefined) return undefined;
  const db = ctx.deps.store.db;
  const span = await db
    .selectFrom("tracking_events")
    .select([sql<number | null>`min(created_at)`.as("first"), sql<number | null>`max(created_at)`.as("last")])
    .where("sending_id", "=", s.id)
    .where("kind", "in", ["view", "click"])
    .executeTakeFirst();
  if (span?.first === null || span?.first === undefined || span.last === null) {
    return { t: [] as number[], opens: [] as number[], clicks: [] as number[], bucketLabel: "hour" };
  }
  // From the send time to now (a running sending's curve grows as time passes), a year at most, and at
  // least MIN_SPAN_MS so a young sending's first events are not one lone point.
  let start = Math.min(Number(s.send_at), Number(span.first));
  const last = Math.min(Math.max(Number(span.last), ctx.deps.now()), start + 365 * 24 * 3600_000);
  if (last - start < MIN_SPAN_MS) start = last - MIN_SPAN_MS;
  const [bucket, bucketLabel] = BUCKETS.find(([ms]) => (last - start) / ms < MAX_POINTS) ?? BUCKETS.at(-1)!;
  const first = start - (start % bucket);
  const rows = await db
    .selectFrom("tracking_events")
    // Literals (whole numbers of our own), so the grouped expression is the selected one on PostgreSQL.
    .select([
      "kind",
      sql<number>`(created_at - ${sql.lit(first)}) / ${sql.lit(bucket)}`.as("b"),
      sql<number>`count(*)`.as("n"),
    ])
    .where("sending_id", "=", s.id)
    .where("kind", "in", ["view", "click"])
    .groupBy(["kind", sql`(created_at - ${sql.lit(first)}) / ${sql.lit(bucket)}`])
    .execute();
  const points = Math.min(MAX_POINTS * 8, Math.floor((last - first) / bucket) + 1);
  const t = Array.from({ length: points }, (_, i) => (first + i * bucket) / 1000);
  const opens = new Array<number>(points).fill(0);
  const clicks = new Array<number>(points).fill(0);
  for (const row of rows) {
    const b = Math.floor(Number(row.b));
    if (b < 0 || b >= points) continue;
    (row.kind === "view" ? opens : clicks)[b] = Number(row.n);
  }
  return { t, opens, clicks, bucketLabel };
}

async function series(ctx: RouteContext): Promise<void> {
  const found = await sendingSeries(ctx);
  if (found === undefined)
    return sendData(ctx.req, ctx.res, "application/json", '{"error":"not found"}\n', 404);
  sendData(ctx.req, ctx.res, "application/json", `${JSON.stringify(found)}\n`);
}

export const SENDING_ROUTES: readonly ConsoleRoute[] = [
  { method: "GET", path: /^\/console\/sendings$/, kind: "page", run: sendings },
  { method: "GET", path: /^\/console\/sendings\/(\d{1,16})$/, kind: "page", run: sendingPage },
  { method: "GET", path: /^\/console\/sendings\/(\d{1,16})\/progress$/, kind: "data", run: sendingProgress },
  { method: "GET", path: /^\/console\/sendings\/(\d{1,16})\/series$/, kind: "data", run: series },
];
