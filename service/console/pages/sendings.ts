// Sendings: newest first with their rates (keyset pages), one sending's live progress, its opens and clicks
// over time (a JSON series the chart script draws with uPlot) and its clicks per link. Every number is
// sending-stats.ts's (the admin CLI's), read from the sending counters; the chart from their buckets.

import {
  SendingControlError,
  cancelSending,
  pauseSending,
  resumeSending,
} from "../../operations/mailing/sending-control.js";
import {
  listSendingStatistics,
  sendingLinkClicks,
  sendingStatistics,
} from "../../operations/mailing/sending-stats.js";
import { BUCKET_WIDTHS, eventBuckets, eventSpan } from "../../tables/sending-counters.js";
import { accountSending } from "../../tables/sendings.js";
import { type Html, html } from "../html.js";
import { redirect, sendData, sendHtml } from "../http.js";
import type { ConsoleRoute, RouteContext } from "../context.js";
import { count, nextLink, page, rate, table, when } from "../layout.js";
import { idOf } from "../queries.js";
import { SENDING_HEAD, sendingRow } from "./dashboard.js";

/** Sendings a page lists. */
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
  const rows = await listSendingStatistics(ctx.deps.store.db, ctx.account.id, {
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

/** States a sending can be paused in, and cancelled in (sending-control.ts says why). */
const PAUSABLE = new Set(["scheduled", "expanding", "sending"]);
const CANCELLABLE = new Set([...PAUSABLE, "paused"]);

/** A one-button form that POSTs to `action` with the session's CSRF token. */
function button(
  ctx: RouteContext,
  action: string,
  label: string,
  extra: Html | string = "",
  danger = false,
): Html {
  return html`<form method="post" action="${action}"><input type="hidden" name="_csrf" value="${ctx.csrf}">${extra}<button${danger ? html` class="danger"` : ""} type="submit">${label}</button></form>`;
}

/** Pause, resume and cancel as the sending's state allows; none for a trigger's sending. */
function controls(
  ctx: RouteContext,
  s: { id: number; state: string },
  trigger: number | null,
): Html | string {
  if (trigger !== null)
    return html`<p class="hint">This sending belongs to a trigger: it runs as long as the trigger.</p>`;
  const forms: Html[] = [];
  if (PAUSABLE.has(s.state)) forms.push(button(ctx, `/console/sendings/${s.id}/pause`, "Pause"));
  if (s.state === "paused") forms.push(button(ctx, `/console/sendings/${s.id}/resume`, "Resume"));
  if (CANCELLABLE.has(s.state))
    forms.push(html`<a class="button danger" href="/console/sendings/${s.id}/cancel">Cancel…</a>`);
  return forms.length === 0 ? "" : html`<div class="actions">${forms}</div>`;
}

function noSuchSending(ctx: RouteContext): void {
  const section = { account: ctx.account, csrf: ctx.csrf, section: "/console/sendings" };
  sendHtml(
    ctx.req,
    ctx.res,
    page(section, "No such sending", html`<p>This account has no sending with that id.</p>`),
    { status: 404 },
  );
}

async function sendingPage(ctx: RouteContext, refused?: string): Promise<void> {
  const id = idOf(ctx.match[1]);
  const section = { account: ctx.account, csrf: ctx.csrf, section: "/console/sendings" };
  const s = id === undefined ? undefined : await sendingStatistics(ctx.deps.store.db, ctx.account.id, id);
  const row = s === undefined ? undefined : await sendingOf(ctx);
  if (s === undefined || row === undefined) return noSuchSending(ctx);
  const links = await sendingLinkClicks(ctx.deps.store.db, ctx.account.id, s.id, LINKS_SHOWN);
  const running = s.state !== "done";
  const tile = (label: string, value: string) =>
    html`<div class="tile"><span class="tile-value">${value}</span><span class="tile-label">${label}</span></div>`;
  const body = html`${refused === undefined ? "" : html`<p class="error" role="alert">${refused}</p>`}
<p>List <strong>${s.list.name}</strong>, send at ${when(ctx.account, s.sendAt)}${
    s.finishedAt === null ? "" : html`, finished ${when(ctx.account, s.finishedAt)}`
  }.</p>
${controls(ctx, s, row.trigger_id)}
<div class="live" data-poll="/console/sendings/${s.id}/progress" data-reload${running ? "" : html` data-finished="true"`}>
<div class="progress">
<progress max="100" value="${s.recipients === 0 ? (running ? 0 : 100) : Math.floor((100 * s.sent) / s.recipients)}" aria-label="Sending progress"></progress>
<span><span data-field="state">${s.state}</span>: <span data-field="sent">${s.sent}</span> of <span data-field="recipients">${s.recipients}</span> sent</span>
</div>
</div>
<div class="tiles">
${tile("Sent", count(s.sent))}
${tile("Delivered", rate(s.delivered, s.sent))}
${tile("Bounced", rate(s.bounced.total, s.sent))}
${tile("Unique opens", `${count(s.opens.unique)} (${rate(s.opens.unique, s.delivered)})`)}
${tile("Unique clicks", `${count(s.clicks.unique)} (${rate(s.clicks.unique, s.delivered)})`)}
${tile("Waiting or held", count(s.pending))}
${tile("Failed", count(s.failed))}
${tile("Complaints", count(s.complaints))}
${tile("Unsubscribed", count(s.unsubscribes))}
</div>
<h2>Opens and clicks over time</h2>
<div class="chart" role="img" aria-label="Opens and clicks of this sending over time" data-series="/console/sendings/${s.id}/series" data-live="true"><p class="hint">The chart needs JavaScript; the numbers are above.</p></div>
<h2>Clicks per link</h2>
${table(
  "Links of the newsletter, clicked by most people first (shown as text, not followed)",
  ["Link", "People", "Clicks"],
  links.map(
    (l) =>
      html`<tr><td><code>${l.url}</code></td><td class="n">${count(l.unique)}</td><td class="n">${count(l.total)}</td></tr>`,
  ),
  "No tracked links.",
)}`;
  sendHtml(
    ctx.req,
    ctx.res,
    page(section, `Sending ${s.id}: ${s.newsletter.name}`, body, ["uplot.js", "console.js"]),
    refused === undefined ? {} : { status: 409 },
  );
}

async function sendingOf(ctx: RouteContext) {
  const id = idOf(ctx.match[1]);
  if (id === undefined) return undefined;
  return accountSending(ctx.deps.store.db, ctx.account.id, id);
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
 * its last event: `t` the buckets' starts in Unix seconds, `opens` and `clicks` the events in each. Read
 * from the sending's per-minute counter buckets (spans up to a day and a half) or per-hour ones (longer):
 * a few thousand rows at most, however many events.
 */
async function sendingSeries(ctx: RouteContext) {
  const s = await sendingOf(ctx);
  if (s === undefined) return undefined;
  const db = ctx.deps.store.db;
  const span = await eventSpan(db, s.id);
  if (span === undefined) {
    return { t: [] as number[], opens: [] as number[], clicks: [] as number[], bucketLabel: "hour" };
  }
  // From the send time to now (a running sending's curve grows as time passes), a year at most, and at
  // least MIN_SPAN_MS so a young sending's first events are not one lone point.
  const [minute, hour] = BUCKET_WIDTHS;
  let start = Math.min(Number(s.send_at), span.first);
  const last = Math.min(Math.max(span.last + minute, ctx.deps.now()), start + 365 * 24 * 3600_000);
  if (last - start < MIN_SPAN_MS) start = last - MIN_SPAN_MS;
  const [bucket, bucketLabel] = BUCKETS.find(([ms]) => (last - start) / ms < MAX_POINTS) ?? BUCKETS.at(-1)!;
  const first = start - (start % bucket);
  const points = Math.min(MAX_POINTS * 8, Math.floor((last - first) / bucket) + 1);
  // Every chart bucket is a whole number of the counters' buckets.
  const rows = await eventBuckets(db, s.id, bucket >= hour ? hour : minute, first, first + points * bucket);
  const t = Array.from({ length: points }, (_, i) => (first + i * bucket) / 1000);
  const opens = new Array<number>(points).fill(0);
  const clicks = new Array<number>(points).fill(0);
  for (const row of rows) {
    const b = Math.floor((row.bucket - first) / bucket);
    if (b < 0 || b >= points) continue;
    opens[b]! += row.opens;
    clicks[b]! += row.clicks;
  }
  return { t, opens, clicks, bucketLabel };
}

async function series(ctx: RouteContext): Promise<void> {
  const found = await sendingSeries(ctx);
  if (found === undefined)
    return sendData(ctx.req, ctx.res, "application/json", '{"error":"not found"}\n', 404);
  sendData(ctx.req, ctx.res, "application/json", `${JSON.stringify(found)}\n`);
}

/** Runs a pause, resume or cancel; back to the sending's page, or its page with the refusal (409). */
async function control(ctx: RouteContext, change: (id: number) => Promise<unknown>): Promise<void> {
  const id = idOf(ctx.match[1]);
  if (id === undefined) return noSuchSending(ctx);
  try {
    await change(id);
  } catch (error) {
    if (!(error instanceof SendingControlError)) throw error;
    if (error.message === `there is no sending ${id}`) return noSuchSending(ctx);
    return sendingPage(ctx, `Nothing was changed: ${error.message}.`);
  }
  ctx.deps.wake?.();
  redirect(ctx.res, `/console/sendings/${id}`);
}

const pause = (ctx: RouteContext) => control(ctx, (id) => pauseSending(ctx.deps.store, ctx.account.id, id));
const resume = (ctx: RouteContext) => control(ctx, (id) => resumeSending(ctx.deps.store, ctx.account.id, id));

/** Cancel asks first: its form carries `confirm=yes` only from this page. */
async function cancelQuestion(ctx: RouteContext): Promise<void> {
  const s = await sendingOf(ctx);
  if (s === undefined) return noSuchSending(ctx);
  const section = { account: ctx.account, csrf: ctx.csrf, section: "/console/sendings" };
  const body = html`<p>Cancel sending ${s.id}? Its recipients still waiting will not get it, and its messages
waiting or held in the outbox are withdrawn. Messages already delivered stay delivered. This cannot be undone.</p>
<div class="actions">
${button(ctx, `/console/sendings/${s.id}/cancel`, "Yes, cancel the sending", html`<input type="hidden" name="confirm" value="yes">`, true)}
<a class="button" href="/console/sendings/${s.id}">No, keep it</a>
</div>`;
  sendHtml(ctx.req, ctx.res, page(section, `Cancel sending ${s.id}?`, body));
}

async function cancel(ctx: RouteContext): Promise<void> {
  const id = idOf(ctx.match[1]);
  if (ctx.form?.get("confirm") !== "yes") return redirect(ctx.res, `/console/sendings/${id ?? ""}/cancel`);
  return control(ctx, (sendingId) =>
    cancelSending(ctx.deps.store, ctx.account.id, sendingId, ctx.deps.now()),
  );
}

export const SENDING_ROUTES: readonly ConsoleRoute[] = [
  { method: "GET", path: /^\/console\/sendings$/, kind: "page", run: sendings },
  { method: "GET", path: /^\/console\/sendings\/(\d{1,16})$/, kind: "page", run: (ctx) => sendingPage(ctx) },
  { method: "GET", path: /^\/console\/sendings\/(\d{1,16})\/progress$/, kind: "data", run: sendingProgress },
  { method: "GET", path: /^\/console\/sendings\/(\d{1,16})\/series$/, kind: "data", run: series },
  { method: "POST", path: /^\/console\/sendings\/(\d{1,16})\/pause$/, kind: "page", run: pause },
  { method: "POST", path: /^\/console\/sendings\/(\d{1,16})\/resume$/, kind: "page", run: resume },
  { method: "GET", path: /^\/console\/sendings\/(\d{1,16})\/cancel$/, kind: "page", run: cancelQuestion },
  { method: "POST", path: /^\/console\/sendings\/(\d{1,16})\/cancel$/, kind: "page", run: cancel },
];
