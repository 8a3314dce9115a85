// Templates and newsletters, and a newsletter rendered for a chosen subscriber: the exact subject, HTML and
// text a sending would make for them (before tracking rewrites the links), the HTML in a sandboxed frame
// without scripts, served with a CSP of its own.

import {
  type RenderedNewsletter,
  loadNewsletterContent,
  renderNewsletter,
} from "../../operations/mailing/newsletters.js";
import { emailKey } from "../../tables/subscribers.js";
import type { Subscriber } from "../../db/schema.js";
import { html } from "../html.js";
import { sendFrame, sendHtml } from "../http.js";
import type { ConsoleRoute, RouteContext } from "../context.js";
import { nextLink, page, table, when } from "../layout.js";
import { idOf } from "../queries.js";

const PAGE_ROWS = 50;
/** The unsubscribe links of a preview: inert, never a real recipient's token. */
const PREVIEW_UNSUBSCRIBE = "https://unsubscribe.invalid/preview";

async function newsletters(ctx: RouteContext): Promise<void> {
  const db = ctx.deps.store.db;
  const before = idOf(ctx.url.searchParams.get("before"));
  const rows = await db
    .selectFrom("newsletters as n")
    .innerJoin("templates as t", "t.id", "n.template_id")
    .select(["n.id", "n.name", "n.subject", "n.tracking", "n.created_at", "t.name as template"])
    .where("n.account_id", "=", ctx.account.id)
    .$if(before !== undefined, (q) => q.where("n.id", "<", before!))
    .orderBy("n.id", "desc")
    .limit(PAGE_ROWS + 1)
    .execute();
  const shown = rows.slice(0, PAGE_ROWS);
  const templates = await db
    .selectFrom("templates")
    .select(["id", "name", "subject", "created_at"])
    .where("account_id", "=", ctx.account.id)
    .orderBy("id", "desc")
    .limit(PAGE_ROWS)
    .execute();
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
  const found = await ctx.deps.store.db
    .selectFrom("subscribers")
    .selectAll()
    .where("account_id", "=", ctx.account.id)
    .$if(id !== undefined, (q) => q.where("id", "=", id!))
    .$if(id === undefined, (q) => q.where("email_key", "=", emailKey(text)))
    .executeTakeFirst();
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

async function preview(ctx: RouteContext): Promise<void> {
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
<pre class="source">${found.out.text}</pre>`;
  sendHtml(ctx.req, ctx.res, page(section, `Preview: ${found.name}`, body));
}

async function previewFrame(ctx: RouteContext): Promise<void> {
  const found = await rendered(ctx);
  if (found === undefined) return sendFrame(ctx.req, ctx.res, "text/plain; charset=utf-8", "Not found.\n");
  sendFrame(ctx.req, ctx.res, "text/html; charset=utf-8", found.out.html);
}

export const NEWSLETTER_ROUTES: readonly ConsoleRoute[] = [
  { method: "GET", path: /^\/console\/newsletters$/, kind: "page", run: newsletters },
  { method: "GET", path: /^\/console\/newsletters\/(\d{1,16})$/, kind: "page", run: preview },
  {
    method: "GET",
    path: /^\/console\/newsletters\/(\d{1,16})\/preview\.html$/,
    kind: "data",
    run: previewFrame,
  },
];
