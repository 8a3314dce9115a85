// Lists with their members, subscriber search (by address or name prefix, keyset pages), and a
// subscriber's page: fields, memberships, consent, opt-out, recent opens and clicks, and the opt-out action.

import { type RawBuilder, sql } from "kysely";
import { addOptout, removeOptout } from "../../tables/optouts.js";
import { type Html, html } from "../html.js";
import { redirect, sendHtml } from "../http.js";
import type { ConsoleRoute, RouteContext } from "../context.js";
import { count, nextLink, page, table, when } from "../layout.js";
import type { Engine } from "../../db/engine.js";
import { type Bounded, boundedCount, idOf } from "../queries.js";

/** Rows on a page of lists or subscribers. */
const PAGE_ROWS = 50;
const LISTS_PAGE = 20;
/** Longest search text, in characters. */
const MAX_QUERY = 254;

function shown(b: Bounded): string {
  return b.more ? `${count(b.n)}+` : count(b.n);
}

/** A text expression compared in byte order on both engines (the console's search indexes are built so). */
function binary(engine: Engine, expression: RawBuilder<unknown>): RawBuilder<string> {
  return engine === "postgres" ? sql<string>`${expression} collate "C"` : sql<string>`${expression}`;
}

async function lists(ctx: RouteContext): Promise<void> {
  const db = ctx.deps.store.db;
  const after = idOf(ctx.url.searchParams.get("after"));
  const rows = await db
    .selectFrom("mailing_lists")
    .select(["id", "name", "description", "from_email", "created_at"])
    .where("account_id", "=", ctx.account.id)
    .$if(after !== undefined, (q) => q.where("id", ">", after!))
    .orderBy("id")
    .limit(LISTS_PAGE + 1)
    .execute();
  const shownRows = rows.slice(0, LISTS_PAGE);
  const members = (listId: number, state: "active" | "pending" | "unsubscribed") =>
    boundedCount(
      db,
      db
        .selectFrom("memberships")
        .select("subscriber_id")
        .where("list_id", "=", listId)
        .where("state", "=", state),
    );
  const out: Html[] = [];
  for (const list of shownRows) {
    const [active, pending, unsubscribed] = [
      await members(list.id, "active"),
      await members(list.id, "pending"),
      await members(list.id, "unsubscribed"),
    ];
    out.push(html`<tr><td class="n">${list.id}</td><td>${list.name}</td><td>${list.from_email}</td>
<td class="n">${shown(active)}</td><td class="n">${shown(pending)}</td><td class="n">${shown(unsubscribed)}</td>
<td>${when(ctx.account, list.created_at)}</td></tr>`);
  }
  const body = html`${table(
    "Lists with their members by state",
    ["Id", "Name", "From", "Active", "Pending", "Unsubscribed", "Created"],
    out,
    "No lists yet (the admin CLI makes them: npm run admin -- list add).",
  )}
${rows.length > LISTS_PAGE ? nextLink("/console/lists", { after: String(shownRows.at(-1)!.id) }) : ""}`;
  sendHtml(
    ctx.req,
    ctx.res,
    page({ account: ctx.account, csrf: ctx.csrf, section: "/console/lists" }, "Lists", body),
  );
}

/** The search form's fields as the request gave them (bounded). */
function searchOf(url: URL): { q: string; by: "email" | "name" } {
  const q = (url.searchParams.get("q") ?? "").trim().slice(0, MAX_QUERY);
  const by = url.searchParams.get("by") === "name" ? "name" : "email";
  return { q, by };
}

async function subscribers(ctx: RouteContext): Promise<void> {
  const db = ctx.deps.store.db;
  const { q, by } = searchOf(ctx.url);
  const prefix = q.toLowerCase();
  // The end of the prefix's range: every text that starts with the prefix sorts below prefix + U+10FFFF.
  const end = `${prefix}\u{10FFFF}`;
  const afterKey = ctx.url.searchParams.get("after")?.slice(0, 2 * MAX_QUERY + 20);
  const afterId = idOf(ctx.url.searchParams.get("id"));
  let query = db
    .selectFrom("subscribers")
    .select(["id", "email", "name", "created_at", "email_key"])
    .where("account_id", "=", ctx.account.id);
  const engine = ctx.deps.store.engine;
  const key = by === "email" ? binary(engine, sql`email_key`) : binary(engine, sql`(lower(name))`);
  if (prefix !== "") query = query.where(key, ">=", prefix).where(key, "<", end);
  if (afterKey !== undefined && afterId !== undefined)
    // A row-value comparison: one range of the index (an OR of the two cases would scan from its start).
    query = query.where(sql<boolean>`(${key}, id) > (${afterKey}, ${afterId})`);
  const rows = await query
    .orderBy(key)
    .orderBy("id")
    .limit(PAGE_ROWS + 1)
    .execute();
  const page_ = rows.slice(0, PAGE_ROWS);
  const last = page_.at(-1);
  const body = html`<form class="search" method="get" action="/console/subscribers" role="search">
<div><label for="q">Address or name starts with</label>
<input id="q" name="q" type="search" value="${q}" maxlength="${MAX_QUERY}"></div>
<div><label for="by">Search by</label>
<select id="by" name="by"><option value="email"${by === "email" ? html` selected` : ""}>Address</option><option value="name"${by === "name" ? html` selected` : ""}>Name</option></select></div>
<button type="submit">Search</button>
</form>
${table(
  q === ""
    ? "Subscribers by address"
    : `Subscribers whose ${by === "email" ? "address" : "name"} starts with “${q}”`,
  ["Address", "Name", "Added"],
  page_.map(
    (s) =>
      html`<tr><td><a href="/console/subscribers/${s.id}">${s.email}</a></td><td>${s.name}</td><td>${when(ctx.account, s.created_at)}</td></tr>`,
  ),
  "No subscriber matches.",
)}
${
  rows.length > PAGE_ROWS && last !== undefined
    ? nextLink("/console/subscribers", {
        q,
        by,
        after: by === "email" ? last.email_key : last.name.toLowerCase(),
        id: String(last.id),
      })
    : ""
}`;
  sendHtml(
    ctx.req,
    ctx.res,
    page({ account: ctx.account, csrf: ctx.csrf, section: "/console/subscribers" }, "Subscribers", body),
  );
}

/** The account's subscriber of the path's id, or undefined (another account's ids too). */
async function subscriberOf(ctx: RouteContext) {
  const id = idOf(ctx.match[1]);
  if (id === undefined) return undefined;
  return ctx.deps.store.db
    .selectFrom("subscribers")
    .selectAll()
    .where("id", "=", id)
    .where("account_id", "=", ctx.account.id)
    .executeTakeFirst();
}

function missing(ctx: RouteContext): void {
  sendHtml(
    ctx.req,
    ctx.res,
    page(
      { account: ctx.account, csrf: ctx.csrf, section: "/console/subscribers" },
      "No such subscriber",
      html`<p>This account has no subscriber with that id. <a href="/console/subscribers">Search</a></p>`,
    ),
    { status: 404 },
  );
}

/** Recent opens and clicks shown on a subscriber's page. */
const EVENTS_SHOWN = 20;

async function subscriber(ctx: RouteContext): Promise<void> {
  const s = await subscriberOf(ctx);
  if (s === undefined) return missing(ctx);
  const db = ctx.deps.store.db;
  const memberships = await db
    .selectFrom("memberships as m")
    .innerJoin("mailing_lists as l", "l.id", "m.list_id")
    .select(["l.id", "l.name", "m.state", "m.created_at", "m.changed_at"])
    .where("m.subscriber_id", "=", s.id)
    .where("m.account_id", "=", ctx.account.id)
    .orderBy("l.id")
    .limit(200)
    .execute();
  const confirmations = await db
    .selectFrom("confirmations as c")
    .innerJoin("mailing_lists as l", "l.id", "c.list_id")
    .select(["l.name", "c.expires_at", "c.used_at"])
    .where("c.subscriber_id", "=", s.id)
    .where("c.account_id", "=", ctx.account.id)
    .orderBy("c.expires_at", "desc")
    .limit(20)
    .execute();
  const optout = await db
    .selectFrom("optouts")
    .select("created_at")
    .where("account_id", "=", ctx.account.id)
    .where("email_key", "=", s.email_key)
    .executeTakeFirst();
  const events = await db
    .selectFrom("tracking_events as e")
    .innerJoin("sendings as se", "se.id", "e.sending_id")
    .innerJoin("newsletters as n", "n.id", "se.newsletter_id")
    .leftJoin("tracked_links as t", "t.id", "e.link_id")
    .select(["e.id", "e.kind", "e.created_at", "e.sending_id", "n.name as newsletter", "t.url"])
    .where("e.subscriber_id", "=", s.id)
    .where("e.account_id", "=", ctx.account.id)
    .orderBy("e.id", "desc")
    .limit(EVENTS_SHOWN)
    .execute();
  let fields: [string, string][] = [];
  try {
    const parsed = JSON.parse(s.fields) as Record<string, unknown>;
    fields = Object.entries(parsed)
      .filter(([, v]) => typeof v === "string")
      .map(([k, v]): [string, string] => [`DD${k}`, v as string])
      .sort((a, b) => Number(a[0].slice(2)) - Number(b[0].slice(2)));
  } catch {
    fields = [];
  }
  const dl = (pairs: readonly [string, string][]) =>
    html`<dl class="fields">${pairs.map(([k, v]) => html`<dt>${k}</dt><dd>${v === "" ? "–" : v}</dd>`)}</dl>`;
  const body = html`${dl([
    ["Address", s.email],
    ["Name", s.name],
    ["Format", s.format],
    ["Country code", s.country_code],
    ["Phone", s.phone],
    ["Added", when(ctx.account, s.created_at)],
    [
      "Opted out of every list",
      optout === undefined ? "no" : `yes, since ${when(ctx.account, optout.created_at)}`,
    ],
  ])}
<div class="actions">
${
  optout === undefined
    ? html`<form method="post" action="/console/subscribers/${s.id}/opt-out"><input type="hidden" name="_csrf" value="${ctx.csrf}"><button class="danger" type="submit">Opt out of every list</button></form>`
    : html`<form method="post" action="/console/subscribers/${s.id}/opt-in"><input type="hidden" name="_csrf" value="${ctx.csrf}"><button type="submit">Take off the opt-out set</button></form>`
}
</div>
<h2>Demographic fields</h2>
${fields.length === 0 ? html`<p class="empty">No demographic field is set.</p>` : dl(fields)}
<h2>Memberships</h2>
${table(
  "Lists the subscriber joined, with the state and when it last changed",
  ["List", "State", "Joined", "Changed"],
  memberships.map(
    (m) =>
      html`<tr><td>${m.name}</td><td><span class="state state-${m.state}">${m.state}</span></td><td>${when(ctx.account, m.created_at)}</td><td>${when(ctx.account, m.changed_at)}</td></tr>`,
  ),
  "Not on any list.",
)}
<h2>Consent</h2>
${table(
  "Confirmation requests (double opt-in)",
  ["List", "Confirmed", "Link valid until"],
  confirmations.map(
    (c) =>
      html`<tr><td>${c.name}</td><td>${c.used_at === null ? "not yet" : when(ctx.account, c.used_at)}</td><td>${when(ctx.account, c.expires_at)}</td></tr>`,
  ),
  "No confirmation was asked for (added directly or imported).",
)}
<h2>Opens and clicks</h2>
${table(
  `The ${EVENTS_SHOWN} most recent`,
  ["When", "Kind", "Sending", "Link"],
  events.map(
    (e) =>
      html`<tr><td>${when(ctx.account, e.created_at)}</td><td>${e.kind === "view" ? "open" : e.kind}</td><td><a href="/console/sendings/${e.sending_id}">${e.newsletter}</a></td><td>${e.url ?? ""}</td></tr>`,
  ),
  "No opens or clicks.",
)}`;
  sendHtml(
    ctx.req,
    ctx.res,
    page(
      { account: ctx.account, csrf: ctx.csrf, section: "/console/subscribers" },
      s.name === "" ? s.email : s.name,
      body,
    ),
  );
}

async function optOut(ctx: RouteContext): Promise<void> {
  const s = await subscriberOf(ctx);
  if (s === undefined) return missing(ctx);
  const now = ctx.deps.now();
  await ctx.deps.store.db.transaction().execute((trx) => addOptout(trx, ctx.account.id, s.email, now));
  redirect(ctx.res, `/console/subscribers/${s.id}`);
}

async function optIn(ctx: RouteContext): Promise<void> {
  const s = await subscriberOf(ctx);
  if (s === undefined) return missing(ctx);
  await removeOptout(ctx.deps.store.db, ctx.account.id, s.email);
  redirect(ctx.res, `/console/subscribers/${s.id}`);
}

export const SUBSCRIBER_ROUTES: readonly ConsoleRoute[] = [
  { method: "GET", path: /^\/console\/lists$/, kind: "page", run: lists },
  { method: "GET", path: /^\/console\/subscribers$/, kind: "page", run: subscribers },
  { method: "GET", path: /^\/console\/subscribers\/(\d{1,16})$/, kind: "page", run: subscriber },
  { method: "POST", path: /^\/console\/subscribers\/(\d{1,16})\/opt-out$/, kind: "page", run: optOut },
  { method: "POST", path: /^\/console\/subscribers\/(\d{1,16})\/opt-in$/, kind: "page", run: optIn },
];
