// Templates and newsletters, and a newsletter rendered for a chosen subscriber: the exact subject, HTML and
// text a sending would make for them (before tracking rewrites the links), the HTML in a sandboxed frame
// without scripts, served with a CSP of its own. A newsletter's page also schedules a sending of it
// (SendNewsletter's own checks; a refused form is shown again, filled, with the field named).

import {
  type RenderedNewsletter,
  loadNewsletterContent,
  renderNewsletter,
} from "../../operations/mailing/newsletters.js";
import { ServiceError } from "../../../generated/server.js";
import { sendNewsletter } from "../../operations/mailing/sendings.js";
import { accountSubscriber, accountSubscriberByKey, emailKey } from "../../tables/subscribers.js";
import type { Subscriber } from "../../db/schema.js";
import { listChoices } from "../../tables/lists.js";
import { newsletterPage, templatePage } from "../../tables/newsletters.js";
import { type Html, html } from "../html.js";
import { redirect, sendFrame, sendHtml } from "../http.js";
import type { ConsoleRoute, RouteContext } from "../context.js";
import { nextLink, page, table, when } from "../layout.js";
import { idOf } from "../queries.js";

const PAGE_ROWS = 50;
/** The unsubscribe links of a preview: inert, never a real recipient's token. */
const PREVIEW_UNSUBSCRIBE = "https://unsubscribe.invalid/preview";

async function newsletters(ctx: RouteContext): Promise<void> {
  const db = ctx.deps.store.db;
  const before = idOf(ctx.url.searchParams.get("before"));
  const rows = await newsletterPage(db, ctx.account.id, PAGE_ROWS + 1, before);
  const shown = rows.slice(0, PAGE_ROWS);
  const templates = await templatePage(db, ctx.account.id, PAGE_ROWS);
  const body = html`<h2>Newsletters</h2>
${table(
  "Newsletters, newest first: open one to preview it for a subscriber",
  ["Newsletter", "Subject", "Template", "Tracking", "Created"],
  shown.map(
    (n) =>
      html`<tr><td><a href="/console/newsletters/${n.id}">${n.name}</a></td><td>${n.subject}</td><td>${n.template}</td><td>${n.tracking}</td><td>${when(ctx.account, n.created_at)}</td></tr>`,
  ),
  "No newsletters yet.",
)}
${rows.length > PAGE_ROWS ? nextLink("/console/newsletters", { before: String(shown.at(-1)!.id) }) : ""}
<h2>Templates</h2>
${table(
  `The ${PAGE_ROWS} newest templates`,
  ["Template", "Subject", "Created"],
  templates.map(
    (t) => html`<tr><td>${t.name}</td><td>${t.subject}</td><td>${when(ctx.account, t.created_at)}</td></tr>`,
  ),
  "No templates yet.",
)}`;
  sendHtml(
    ctx.req,
    ctx.res,
    page({ account: ctx.account, csrf: ctx.csrf, section: "/console/newsletters" }, "Newsletters", body),
  );
}

/** The subscriber the preview is for: `subscriber` an id or an address of the account; undefined: a sample. */
async function recipientOf(ctx: RouteContext): Promise<Subscriber | undefined | "missing"> {
  const text = (ctx.url.searchParams.get("subscriber") ?? "").trim().slice(0, 254);
  if (text === "") return undefined;
  const id = idOf(text);
  const db = ctx.deps.store.db;
  const found =
    id !== undefined
      ? await accountSubscriber(db, ctx.account.id, id)
      : await accountSubscriberByKey(db, ctx.account.id, emailKey(text));
  return found ?? "missing";
}

async function rendered(
  ctx: RouteContext,
): Promise<
  { name: string; id: number; out: RenderedNewsletter; who: Subscriber | undefined | "missing" } | undefined
> {
  const id = idOf(ctx.match[1]);
  if (id === undefined) return undefined;
  const content = await loadNewsletterContent(ctx.deps.store.db, ctx.account.id, id);
  if (content === undefined) return undefined;
  const who = await recipientOf(ctx);
  const recipient =
    who === undefined || who === "missing"
      ? {
          email: "subscriber@example.com",
          name: "",
          format: "html",
          country_code: "",
          phone: "",
          fields: "{}",
        }
      : who;
  const out = renderNewsletter(
    content.template,
    content.newsletter,
    content.modules,
    recipient,
    new Map([
      ["unsubscribe", PREVIEW_UNSUBSCRIBE],
      ["unsubscribe_all", `${PREVIEW_UNSUBSCRIBE}/all`],
    ]),
  );
  return { name: content.newsletter.name, id, out, who };
}

/** Lists a schedule form offers at most (by name). */
const LISTS_OFFERED = 500;

/** The schedule form's fields: form name, label, SendNewsletter's parameter. */
const SCHEDULE_FIELDS = [
  ["list", "List", "strMailingListId"],
  ["from_email", "From address", "strFromEmail"],
  ["from_name", "From name", "strFromName"],
  ["send_date", "Send on (date)", "strSendDate"],
  ["send_time", "At (time of day)", "strSendTime"],
] as const;

type ScheduleField = (typeof SCHEDULE_FIELDS)[number][0];

/** A refused schedule form: what was typed, and the refusal with the field it names. */
interface Refused {
  readonly values: Readonly<Record<ScheduleField, string>>;
  readonly field: ScheduleField | undefined;
  readonly message: string;
}

/** The form that schedules a sending of the newsletter (filled again after a refusal). */
async function scheduleForm(ctx: RouteContext, newsletterId: number, refused?: Refused): Promise<Html> {
  const lists = await listChoices(ctx.deps.store.db, ctx.account.id, LISTS_OFFERED);
  const value = (field: ScheduleField) => refused?.values[field] ?? "";
  const invalid = (field: ScheduleField) =>
    refused?.field === field ? html` aria-invalid="true" aria-describedby="schedule-error"` : "";
  const input = (field: ScheduleField, label: string, attrs: Html) =>
    html`<div><label for="s-${field}">${label}</label><input id="s-${field}" name="${field}" value="${value(field)}"${attrs}${invalid(field)}></div>`;
  if (lists.length === 0) return html`<p class="empty">The account has no list to send to.</p>`;
  return html`${refused === undefined ? "" : html`<p class="error" role="alert" id="schedule-error">Not scheduled: ${refused.message}</p>`}
<form class="search" method="post" action="/console/newsletters/${newsletterId}/send" aria-label="Schedule a sending">
<input type="hidden" name="_csrf" value="${ctx.csrf}">
<div><label for="s-list">List</label><select id="s-list" name="list"${invalid("list")}>${lists.map(
    (l) =>
      html`<option value="${l.id}"${String(l.id) === value("list") ? html` selected` : ""}>${l.name}</option>`,
  )}</select></div>
${input("from_email", "From address", html` type="email" required maxlength="254" autocomplete="email"`)}
${input("from_name", "From name", html` maxlength="200"`)}
${input("send_date", "Send on (date)", html` type="date"`)}
${input("send_time", "At (time of day)", html` type="time"`)}
<button type="submit">Schedule</button>
</form>
<p class="hint">Date and time are in the account's zone (${ctx.account.time_zone}); without them the sending starts now.</p>`;
}

async function preview(ctx: RouteContext, refused?: Refused): Promise<void> {
  const found = await rendered(ctx);
  const section = { account: ctx.account, csrf: ctx.csrf, section: "/console/newsletters" };
  if (found === undefined) {
    sendHtml(
      ctx.req,
      ctx.res,
      page(section, "No such newsletter", html`<p>This account has no newsletter with that id.</p>`),
      {
        status: 404,
      },
    );
    return;
  }
  const chosen = ctx.url.searchParams.get("subscriber")?.trim().slice(0, 254) ?? "";
  const frame = `/console/newsletters/${found.id}/preview.html${chosen === "" ? "" : `?${new URLSearchParams({ subscriber: chosen })}`}`;
  const body = html`<form class="search" method="get" action="/console/newsletters/${found.id}">
<div><label for="subscriber">Preview for subscriber (address or id)</label>
<input id="subscriber" name="subscriber" value="${chosen}" maxlength="254"></div>
<button type="submit">Show</button>
</form>
${
  found.who === "missing"
    ? html`<p class="error" role="alert">This account has no such subscriber; showing the sample recipient.</p>`
    : found.who === undefined
      ? html`<p class="hint">Shown for a sample recipient without name or fields.</p>`
      : html`<p class="hint">Shown for <a href="/console/subscribers/${found.who.id}">${found.who.email}</a>.</p>`
}
<dl class="fields"><dt>Subject</dt><dd>${found.out.subject}</dd></dl>
<h2>HTML part</h2>
<iframe class="mail" sandbox="" referrerpolicy="no-referrer" title="The newsletter's HTML part" src="${frame}"></iframe>
<h2>Text part</h2>
<pre class="source">${found.out.text}</pre>
<h2>Schedule a sending</h2>
${await scheduleForm(ctx, found.id, refused)}`;
  sendHtml(
    ctx.req,
    ctx.res,
    page(section, `Preview: ${found.name}`, body),
    refused === undefined ? {} : { status: 400 },
  );
}

/** Schedules a sending of the newsletter: to its page, or the form again with the refusal (400). */
async function schedule(ctx: RouteContext): Promise<void> {
  const id = idOf(ctx.match[1]);
  const form = ctx.form ?? new Map<string, string>();
  const values = Object.fromEntries(SCHEDULE_FIELDS.map(([f]) => [f, form.get(f) ?? ""])) as Record<
    ScheduleField,
    string
  >;
  let sendingId: number;
  try {
    sendingId = await sendNewsletter(
      ctx.deps.store,
      ctx.account,
      {
        strNewsletterId: id === undefined ? "" : String(id),
        strMailingListId: values.list,
        strFromEmail: values.from_email,
        strFromName: values.from_name,
        strSendDate: values.send_date,
        strSendTime: values.send_time,
      },
      ctx.deps.now(),
    );
  } catch (error) {
    if (!(error instanceof ServiceError) || error.side !== "client") throw error;
    const named = SCHEDULE_FIELDS.find(([, , parameter]) => parameter === error.parameter);
    const message = named === undefined ? error.message : `${named[1]}: ${error.message}`;
    return preview(ctx, { values, field: named?.[0], message });
  }
  ctx.deps.wake?.();
  redirect(ctx.res, `/console/sendings/${sendingId}`);
}

async function previewFrame(ctx: RouteContext): Promise<void> {
  const found = await rendered(ctx);
  if (found === undefined) return sendFrame(ctx.req, ctx.res, "text/plain; charset=utf-8", "Not found.\n");
  sendFrame(ctx.req, ctx.res, "text/html; charset=utf-8", found.out.html);
}

export const NEWSLETTER_ROUTES: readonly ConsoleRoute[] = [
  { method: "GET", path: /^\/console\/newsletters$/, kind: "page", run: newsletters },
  { method: "GET", path: /^\/console\/newsletters\/(\d{1,16})$/, kind: "page", run: (ctx) => preview(ctx) },
  { method: "POST", path: /^\/console\/newsletters\/(\d{1,16})\/send$/, kind: "page", run: schedule },
  {
    method: "GET",
    path: /^\/console\/newsletters\/(\d{1,16})\/preview\.html$/,
    kind: "data",
    run: previewFrame,
  },
];
