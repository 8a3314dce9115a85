// Read views: triggers (with how often each fired), transactional projects with their latest
// transactions, and the SMS credits ledger (newest first, keyset pages).

import { html } from "../html.js";
import { sendHtml } from "../http.js";
import type { ConsoleRoute, RouteContext } from "../context.js";
import { count, nextLink, page, table, when } from "../layout.js";
import { boundedCount, idOf } from "../queries.js";
import { projectPage, transactionPage } from "../../tables/projects.js";
import { ledgerRows, waitingCount } from "../../tables/sms.js";
import { firedSubscriberIds, triggerPage } from "../../tables/triggers.js";

const PAGE_ROWS = 50;

async function triggers(ctx: RouteContext): Promise<void> {
  const db = ctx.deps.store.db;
  const rows = await triggerPage(db, ctx.account.id, PAGE_ROWS);
  const out = [];
  for (const t of rows) {
    const fired = await boundedCount(db, firedSubscriberIds(db, t.id));
    out.push(html`<tr><td>${t.name}</td><td>${t.list}</td><td>${t.newsletter}</td><td>${t.from_email}</td>
<td class="n">${fired.more ? `${count(fired.n)}+` : count(fired.n)}</td><td>${when(ctx.account, t.created_at)}</td></tr>`);
  }
  const body = table(
    `Triggers: a newsletter sent to each new active member of a list (the ${PAGE_ROWS} newest)`,
    ["Trigger", "List", "Newsletter", "From", "Fired", "Created"],
    out,
    "No triggers.",
  );
  sendHtml(
    ctx.req,
    ctx.res,
    page({ account: ctx.account, csrf: ctx.csrf, section: "/console/triggers" }, "Triggers", body),
  );
}

async function transactional(ctx: RouteContext): Promise<void> {
  const db = ctx.deps.store.db;
  const projects = await projectPage(db, ctx.account.id, PAGE_ROWS);
  const before = idOf(ctx.url.searchParams.get("before"));
  const sent = await transactionPage(db, ctx.account.id, PAGE_ROWS + 1, before);
  const shown = sent.slice(0, PAGE_ROWS);
  const body = html`<h2>Projects</h2>
${table(
  "Transactional projects (a subject and body sent one message at a time)",
  ["Project", "Subject", "From", "Created"],
  projects.map(
    (p) =>
      html`<tr><td>${p.name}</td><td>${p.subject}</td><td>${p.from_email}</td><td>${when(ctx.account, p.created_at)}</td></tr>`,
  ),
  "No transactional projects.",
)}
<h2>Transactions</h2>
${table(
  "Transactional messages, newest first",
  ["Id", "Project", "Identifier", "To", "Send at", "Message"],
  shown.map(
    (
      t,
    ) => html`<tr><td class="n">${t.id}</td><td>${t.project}</td><td>${t.identifier ?? ""}</td><td>${t.email}</td><td>${when(ctx.account, t.send_at)}</td>
<td>${t.mail_id === null ? "not queued yet" : html`<a href="/console/outbox/${t.mail_id}">Mail ${t.mail_id}</a>`}</td></tr>`,
  ),
  "No transactional messages.",
)}
${sent.length > PAGE_ROWS ? nextLink("/console/transactional", { before: String(shown.at(-1)!.id) }) : ""}`;
  sendHtml(
    ctx.req,
    ctx.res,
    page({ account: ctx.account, csrf: ctx.csrf, section: "/console/transactional" }, "Transactional", body),
  );
}

async function credits(ctx: RouteContext): Promise<void> {
  const before = idOf(ctx.url.searchParams.get("before"));
  const rows = await ledgerRows(ctx.deps.store.db, ctx.account.id, PAGE_ROWS + 1, before);
  const waiting = await waitingCount(ctx.deps.store.db, ctx.account.id);
  const shown = rows.slice(0, PAGE_ROWS);
  const body = html`<div class="tiles">
<div class="tile"><span class="tile-value">${ctx.account.sms_credits}</span><span class="tile-label">SMS credits</span></div>
<div class="tile"><span class="tile-value">${ctx.account.sms_price}</span><span class="tile-label">Price of a segment</span></div>
<div class="tile"><span class="tile-value">${count(Number(waiting.n))}</span><span class="tile-label">SMS waiting for credits</span></div>
</div>
<h2>Ledger</h2>
${table(
  "Credits added and spent, newest first",
  ["When", "Amount", "Balance", "Reason", "SMS"],
  shown.map(
    (
      e,
    ) => html`<tr><td>${when(ctx.account, e.created_at)}</td><td class="n">${e.amount}</td><td class="n">${e.balance}</td><td>${e.reason}</td>
<td>${e.sms_id === null ? "" : html`<a href="/console/sms/${e.sms_id}">SMS ${e.sms_id}</a>`}</td></tr>`,
  ),
  "No ledger entries.",
)}
${rows.length > PAGE_ROWS ? nextLink("/console/credits", { before: String(shown.at(-1)!.id) }) : ""}`;
  sendHtml(
    ctx.req,
    ctx.res,
    page({ account: ctx.account, csrf: ctx.csrf, section: "/console/credits" }, "SMS credits", body),
  );
}

export const LEDGER_ROUTES: readonly ConsoleRoute[] = [
  { method: "GET", path: /^\/console\/triggers$/, kind: "page", run: triggers },
  { method: "GET", path: /^\/console\/transactional$/, kind: "page", run: transactional },
  { method: "GET", path: /^\/console\/credits$/, kind: "page", run: credits },
];
