// Lists with their members, subscriber search (by address or name prefix, keyset pages), and a
// subscriber's page: fields, memberships, confirmations and consent records, opt-out, recent opens and
// clicks, the opt-out action, and a form that edits the subscriber's fields (every value checked first: a
// refused form changes nothing and is shown again, filled, with each refused field named). Every read
// goes through the table groups' modules in service/tables/.

import {
  MAX_COUNTRY_CODE,
  MAX_FIELD_VALUE,
  MAX_NAME,
  MAX_PHONE,
  characterCount,
} from "../../common/limits.js";
import type { Account } from "../../db/schema.js";
import { confirmationsWithLists } from "../../tables/confirmations.js";
import { recentConsents } from "../../tables/consents.js";
import { listPage } from "../../tables/lists.js";
import { addOptout, optoutSince, removeOptout } from "../../tables/optouts.js";
import { subscriberSearchPage } from "../../tables/subscriber-data.js";
import {
  accountSubscriber,
  listMemberIds,
  membershipsWithLists,
  setSubscriberDetails,
} from "../../tables/subscribers.js";
import { subscriberEvents } from "../../tables/tracking.js";
import { type Html, html } from "../html.js";
import { redirect, sendHtml } from "../http.js";
import type { ConsoleRoute, RouteContext } from "../context.js";
import { count, nextLink, page, table, when } from "../layout.js";
import { type Bounded, boundedCount, idOf } from "../queries.js";

/** Rows on a page of lists or subscribers. */
const PAGE_ROWS = 50;
const LISTS_PAGE = 20;
/** Longest search text, in characters. */
const MAX_QUERY = 254;

function shown(b: Bounded): string {
  return b.more ? `${count(b.n)}+` : count(b.n);
}

async function lists(ctx: RouteContext): Promise<void> {
  const db = ctx.deps.store.db;
  const after = idOf(ctx.url.searchParams.get("after"));
  const rows = await listPage(db, ctx.account.id, after, LISTS_PAGE + 1);
  const shownRows = rows.slice(0, LISTS_PAGE);
  const members = (listId: number, state: "active" | "pending" | "unsubscribed") =>
    boundedCount(db, listMemberIds(db, listId, state));
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
  const afterKey = ctx.url.searchParams.get("after")?.slice(0, 2 * MAX_QUERY + 20);
  const afterId = idOf(ctx.url.searchParams.get("id"));
  const rows = await subscriberSearchPage(db, ctx.deps.store.engine, ctx.account.id, {
    prefix: q.toLowerCase(),
    by,
    after: afterKey !== undefined && afterId !== undefined ? { key: afterKey, id: afterId } : undefined,
    limit: PAGE_ROWS + 1,
  });
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
  return accountSubscriber(ctx.deps.store.db, ctx.account.id, id);
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

/** Consent records shown on a subscriber's page (the most recent). */
const CONSENTS_SHOWN = 50;

/** Recent opens and clicks shown on a subscriber's page. */
const EVENTS_SHOWN = 20;

/** The edit form's own fields: form name, label, longest value (characters). */
const OWN_FIELDS = [
  ["name", "Name", MAX_NAME],
  ["country_code", "Country code", MAX_COUNTRY_CODE],
  ["phone", "Phone", MAX_PHONE],
] as const;

/** An edit form as sent: its values by form name, and each refused field's message by form name. */
interface Edit {
  readonly values: ReadonlyMap<string, string>;
  readonly problems: ReadonlyMap<string, string>;
}

/** The demographic fields of a subscriber as DDn → value. */
function demographic(fieldsJson: string): Map<string, string> {
  try {
    const parsed = JSON.parse(fieldsJson) as Record<string, unknown>;
    return new Map(
      Object.entries(parsed)
        .filter(([, v]) => typeof v === "string")
        .map(([k, v]) => [`DD${k}`, v as string]),
    );
  } catch {
    return new Map();
  }
}

/** Checks an edit form: every problem, by form name (none: it may be written). */
function checkEdit(account: Account, form: ReadonlyMap<string, string>): Edit {
  const problems = new Map<string, string>();
  const values = new Map<string, string>();
  for (const [name, label, max] of OWN_FIELDS) {
    const value = form.get(name) ?? "";
    values.set(name, value);
    if (/[\u0000-\u001f\u007f]/.test(value))
      problems.set(name, `${label}: control characters are not allowed`);
    else if (characterCount(value) > max) problems.set(name, `${label}: at most ${max} characters`);
  }
  const format = form.get("format") ?? "";
  values.set("format", format);
  if (format !== "HTML" && format !== "Text") problems.set("format", "Format: HTML or Text");
  for (const [name, value] of form) {
    const dd = /^DD(\d{1,4})$/.exec(name);
    if (dd === null) continue;
    const n = Number(dd[1]);
    values.set(name, value);
    if (n < 1 || n > account.dd_fields)
      problems.set(name, `${name}: the account has DD1 to DD${account.dd_fields} activated`);
    else if (characterCount(value) > MAX_FIELD_VALUE)
      problems.set(name, `${name}: at most ${MAX_FIELD_VALUE} characters`);
  }
  return { values, problems };
}

/** The form that edits a subscriber's own and demographic fields, filled from `values`. */
function editForm(ctx: RouteContext, id: number, values: ReadonlyMap<string, string>, edit?: Edit): Html {
  const problem = (name: string) => edit?.problems.get(name);
  const invalid = (name: string) =>
    problem(name) === undefined ? "" : html` aria-invalid="true" aria-describedby="edit-problems"`;
  const input = (name: string, label: string, max: number) =>
    html`<div><label for="f-${name}">${label}</label><input id="f-${name}" name="${name}" value="${values.get(name) ?? ""}" maxlength="${max}"${invalid(name)}></div>`;
  const dd = Array.from({ length: ctx.account.dd_fields }, (_, i) => `DD${i + 1}`);
  const format = values.get("format") ?? "HTML";
  return html`${
    edit === undefined || edit.problems.size === 0
      ? ""
      : html`<div class="error" role="alert" id="edit-problems"><p>Nothing was changed:</p><ul>${[...edit.problems.values()].map((m) => html`<li>${m}</li>`)}</ul></div>`
  }
<form class="search" method="post" action="/console/subscribers/${id}/fields" aria-label="Edit the subscriber's fields">
<input type="hidden" name="_csrf" value="${ctx.csrf}">
${OWN_FIELDS.map(([name, label, max]) => input(name, label, max))}
<div><label for="f-format">Format</label><select id="f-format" name="format"${invalid("format")}>${[
    "HTML",
    "Text",
  ].map((f) => html`<option${f === format ? html` selected` : ""}>${f}</option>`)}</select></div>
${dd.map((name) => input(name, name, MAX_FIELD_VALUE))}
<button type="submit">Save fields</button>
</form>`;
}

async function subscriber(ctx: RouteContext, edit?: Edit): Promise<void> {
  const s = await subscriberOf(ctx);
  if (s === undefined) return missing(ctx);
  const db = ctx.deps.store.db;
  const memberships = await membershipsWithLists(db, ctx.account.id, s.id, 200);
  const confirmations = await confirmationsWithLists(db, ctx.account.id, s.id, 20);
  // The most recent consents (a subscriber's page, not an archive: `subscriber export` has them all).
  const consents = await recentConsents(db, s.id, CONSENTS_SHOWN);
  const listNames = new Map(memberships.map((m) => [m.id, m.name]));
  const optedOutAt = await optoutSince(db, ctx.account.id, s.email_key);
  const events = await subscriberEvents(db, ctx.account.id, s.id, EVENTS_SHOWN);
  const fields = [...demographic(s.fields)].sort((a, b) => Number(a[0].slice(2)) - Number(b[0].slice(2)));
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
      optedOutAt === undefined ? "no" : `yes, since ${when(ctx.account, optedOutAt)}`,
    ],
  ])}
<div class="actions">
${
  optedOutAt === undefined
    ? html`<form method="post" action="/console/subscribers/${s.id}/opt-out"><input type="hidden" name="_csrf" value="${ctx.csrf}"><button class="danger" type="submit">Opt out of every list</button></form>`
    : html`<form method="post" action="/console/subscribers/${s.id}/opt-in"><input type="hidden" name="_csrf" value="${ctx.csrf}"><button type="submit">Take off the opt-out set</button></form>`
}
</div>
<h2>Demographic fields</h2>
${fields.length === 0 ? html`<p class="empty">No demographic field is set.</p>` : dl(fields)}
<h2 id="h-edit">Edit fields</h2>
${editForm(
  ctx,
  s.id,
  edit?.values ??
    new Map([
      ["name", s.name],
      ["country_code", s.country_code],
      ["phone", s.phone],
      ["format", s.format],
      ...fields,
    ]),
  edit,
)}
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
${table(
  `Consent records, the ${CONSENTS_SHOWN} most recent: each given or withdrawn, how, from where, and the text shown`,
  ["When", "Consent", "List", "How", "From address", "Browser", "Text shown"],
  consents.map(
    (c) =>
      html`<tr><td>${when(ctx.account, c.at)}</td><td>${c.kind}</td><td>${c.listId === null ? "every list" : (listNames.get(c.listId) ?? `list ${c.listId}`)}</td><td>${c.source}</td><td>${c.ip ?? ""}</td><td>${c.userAgent ?? ""}</td><td><details><summary>Show</summary><pre class="source">${c.text}</pre></details></td></tr>`,
  ),
  "No consent recorded.",
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
    edit === undefined ? {} : { status: 400 },
  );
}

async function optOut(ctx: RouteContext): Promise<void> {
  const s = await subscriberOf(ctx);
  if (s === undefined) return missing(ctx);
  const now = ctx.deps.now();
  await ctx.deps.store.db.transaction().execute((trx) => addOptout(trx, ctx.account.id, s.email, now));
  redirect(ctx.res, `/console/subscribers/${s.id}`);
}

/** Saves the edit form: all of it, or (any field refused) nothing, the form shown again with the reasons. */
async function saveFields(ctx: RouteContext): Promise<void> {
  const s = await subscriberOf(ctx);
  if (s === undefined) return missing(ctx);
  const edit = checkEdit(ctx.account, ctx.form ?? new Map());
  if (edit.problems.size > 0) return subscriber(ctx, edit);
  // The form's DD fields set or (empty) clear theirs; a field the form did not send is kept.
  const fields = demographic(s.fields);
  for (const [name, value] of edit.values)
    if (name.startsWith("DD")) value === "" ? fields.delete(name) : fields.set(name, value);
  await ctx.deps.store.write((trx) =>
    setSubscriberDetails(trx, ctx.account.id, s.id, {
      name: edit.values.get("name")!,
      format: edit.values.get("format")!,
      country_code: edit.values.get("country_code")!,
      phone: edit.values.get("phone")!,
      fields: JSON.stringify(Object.fromEntries([...fields].map(([name, value]) => [name.slice(2), value]))),
    }),
  );
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
  {
    method: "GET",
    path: /^\/console\/subscribers\/(\d{1,16})$/,
    kind: "page",
    run: (ctx) => subscriber(ctx),
  },
  { method: "POST", path: /^\/console\/subscribers\/(\d{1,16})\/fields$/, kind: "page", run: saveFields },
  { method: "POST", path: /^\/console\/subscribers\/(\d{1,16})\/opt-out$/, kind: "page", run: optOut },
  { method: "POST", path: /^\/console\/subscribers\/(\d{1,16})\/opt-in$/, kind: "page", run: optIn },
];
