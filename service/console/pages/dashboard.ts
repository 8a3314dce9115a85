// The dashboard: subscribers and list memberships by state (bounded counts), the recent sendings with
// their rates, SMS credits and the imports in progress.

import { type Html, html } from "../html.js";
import { sendHtml } from "../http.js";
import type { ConsoleRoute, RouteContext } from "../context.js";
import { count, page, rate, table, when } from "../layout.js";
import { type SendingStatistics, listSendingStatistics } from "../../operations/mailing/sending-stats.js";
import { type Bounded, boundedCount } from "../queries.js";
import { accountOptoutKeys } from "../../tables/optouts.js";
import { accountMemberships, accountSubscriberIds } from "../../tables/subscribers.js";
import { importSummaries } from "../../tables/imports.js";

function shown(b: Bounded): string {
  return b.more ? `${count(b.n)}+` : count(b.n);
}

/** One sending as a table row: counts, and rates of the sent messages (as sending-stats.ts defines them). */
export function sendingRow(ctx: Pick<RouteContext, "account">, s: SendingStatistics): Html {
  return html`<tr>
<td><a href="/console/sendings/${s.id}">${s.newsletter.name}</a></td>
<td>${s.list.name}</td>
<td><span class="state state-${s.state}">${s.state}</span></td>
<td>${when(ctx.account, s.sendAt)}</td>
<td class="n">${count(s.sent)} / ${count(s.recipients)}</td>
<td class="n">${rate(s.delivered, s.sent)}</td>
<td class="n">${rate(s.bounced.total, s.sent)}</td>
<td class="n">${rate(s.opens.unique, s.delivered)}</td>
<td class="n">${rate(s.clicks.unique, s.delivered)}</td>
</tr>`;
}

export const SENDING_HEAD = [
  "Newsletter",
  "List",
  "State",
  "Send at",
  "Sent / recipients",
  "Delivered",
  "Bounced",
  "Unique opens",
  "Unique clicks",
];

/** An import's progress bar and numbers (the live view updates the same elements). */
function importProgress(i: {
  id: number;
  state: string;
  lines_done: number;
  rows_imported: number;
  rows_bad: number;
  file_length: number | null;
}): Html {
  return html`<div class="progress" data-import="${i.id}">
<progress max="100" value="${i.state === "done" ? 100 : 0}" aria-label="Import ${i.id} progress"></progress>
<span class="progress-text">${i.state}: ${count(Number(i.lines_done))} lines, ${count(Number(i.rows_imported))} imported, ${count(Number(i.rows_bad))} rejected</span>
</div>`;
}

async function dashboard(ctx: RouteContext): Promise<void> {
  const db = ctx.deps.store.db;
  const accountId = ctx.account.id;
  const members = (state: "active" | "pending" | "unsubscribed") =>
    boundedCount(db, accountMemberships(db, accountId, state));
  const [subscribers, active, pending, unsubscribed, optedOut] = [
    await boundedCount(db, accountSubscriberIds(db, accountId)),
    await members("active"),
    await members("pending"),
    await members("unsubscribed"),
    await boundedCount(db, accountOptoutKeys(db, accountId)),
  ];
  const sendings = await listSendingStatistics(db, accountId, { limit: 5 });
  const imports = await importSummaries(db, accountId, { active: true, limit: 10 });
  const tile = (label: string, value: string, note?: string) =>
    html`<div class="tile"><span class="tile-value">${value}</span><span class="tile-label">${label}</span>${note === undefined ? "" : html`<span class="tile-note">${note}</span>`}</div>`;
  const body = html`<section aria-labelledby="h-subscribers">
<h2 id="h-subscribers">Subscribers</h2>
<div class="tiles">
${tile("Subscribers", shown(subscribers))}
${tile("Active memberships", shown(active))}
${tile("Pending memberships", shown(pending), "waiting for confirmation")}
${tile("Unsubscribed memberships", shown(unsubscribed))}
${tile("Opted out", shown(optedOut), "of every list")}
${tile("SMS credits", ctx.account.sms_credits)}
</div>
</section>
<section aria-labelledby="h-sendings">
<h2 id="h-sendings">Recent sendings</h2>
${table(
  "The five newest sendings; rates of the messages sent (opens and clicks of the delivered ones)",
  SENDING_HEAD,
  sendings.map((s) => sendingRow(ctx, s)),
  "No sendings yet.",
)}
<p><a href="/console/sendings">All sendings</a></p>
</section>
<section aria-labelledby="h-imports">
<h2 id="h-imports">Imports in progress</h2>
${
  imports.length === 0
    ? html`<p class="empty">No import is queued or running.</p>`
    : html`<ul class="plain">${imports.map(
        (
          i,
        ) => html`<li><a href="/console/imports/${i.id}">Import ${i.id}</a> into ${i.list}, queued ${when(ctx.account, i.created_at)}
${importProgress(i)}</li>`,
      )}</ul>`
}
<p><a href="/console/imports">All imports</a></p>
</section>`;
  sendHtml(
    ctx.req,
    ctx.res,
    page({ account: ctx.account, csrf: ctx.csrf, section: "/console/" }, "Dashboard", body),
  );
}

export const DASHBOARD_ROUTES: readonly ConsoleRoute[] = [
  { method: "GET", path: /^\/console\/$/, kind: "page", run: dashboard },
];
