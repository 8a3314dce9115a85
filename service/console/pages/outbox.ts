// The outbox viewer: the account's e-mail (newest first, keyset pages) and one message with its headers,
// its HTML part in a sandboxed frame, its text part and its raw source; the SMS outbox likewise. A message's
// text comes from the database while it is kept whole (queued, dead, or within OUTBOX_RETENTION_DAYS),
// else from its `<id>.eml` in the outbox folder when delivery wrote one there, else only its headers are left.

import { readFile, stat } from "node:fs/promises";
import path from "node:path";
import PostalMime from "postal-mime";
import type { Mail } from "../../db/schema.js";
import { html } from "../html.js";
import { sendData, sendFrame, sendHtml } from "../http.js";
import type { ConsoleRoute, RouteContext } from "../context.js";
import { nextLink, page, table, when } from "../layout.js";
import { idOf } from "../queries.js";
import { accountSms, accountSmsPage } from "../../tables/sms.js";

const PAGE_ROWS = 50;
/** Largest message the viewer reads and parses, in bytes. */
const MAX_MESSAGE_BYTES = 8 * 1024 * 1024;
/** Raw source shown in the page at most, in characters (the whole is at …/raw). */
const SOURCE_SHOWN = 200_000;

async function mailOf(ctx: RouteContext): Promise<Mail | undefined> {
  const id = idOf(ctx.match[1]);
  if (id === undefined) return undefined;
  return ctx.deps.store.db
    .selectFrom("mail_outbox")
    .selectAll()
    .where("id", "=", id)
    .where("account_id", "=", ctx.account.id)
    .executeTakeFirst();
}

/** The message's whole source, and where it came from; undefined when only its headers are kept. */
async function sourceOf(ctx: RouteContext, mail: Mail): Promise<{ text: string; from: string } | undefined> {
  const whole = mail.state !== "sent" || mail.retained_since !== null;
  if (whole) return { text: mail.message, from: "the outbox table" };
  const file = path.join(ctx.deps.outboxDir, `${mail.id}.eml`);
  try {
    const info = await stat(file);
    if (!info.isFile() || info.size > MAX_MESSAGE_BYTES) return undefined;
    return { text: await readFile(file, "utf8"), from: `${mail.id}.eml in the outbox folder` };
  } catch {
    return undefined;
  }
}

async function parse(text: string) {
  try {
    return await PostalMime.parse(text, { maxNestingDepth: 20, maxHeadersSize: 65_536 });
  } catch {
    return undefined;
  }
}

async function outbox(ctx: RouteContext): Promise<void> {
  const before = idOf(ctx.url.searchParams.get("before"));
  const rows = await ctx.deps.store.db
    .selectFrom("mail_outbox")
    .select([
      "id",
      "kind",
      "to_address",
      "subject",
      "state",
      "attempts",
      "created_at",
      "sent_at",
      "last_error",
    ])
    .where("account_id", "=", ctx.account.id)
    .$if(before !== undefined, (q) => q.where("id", "<", before!))
    .orderBy("id", "desc")
    .limit(PAGE_ROWS + 1)
    .execute();
  const shown = rows.slice(0, PAGE_ROWS);
  const body = html`${table(
    "E-mail, newest first",
    ["Message", "To", "Subject", "Kind", "State", "Queued", "Sent"],
    shown.map(
      (
        m,
      ) => html`<tr><td><a href="/console/outbox/${m.id}">Mail ${m.id}</a></td><td>${m.to_address}</td><td>${m.subject}</td>
<td>${m.kind}</td><td><span class="state state-${m.state}">${m.state}</span>${m.last_error === null ? "" : html`<br><span class="hint">${m.last_error}</span>`}</td>
<td>${when(ctx.account, m.created_at)}</td><td>${when(ctx.account, m.sent_at)}</td></tr>`,
    ),
    "No e-mail yet.",
  )}
${rows.length > PAGE_ROWS ? nextLink("/console/outbox", { before: String(shown.at(-1)!.id) }) : ""}`;
  sendHtml(
    ctx.req,
    ctx.res,
    page({ account: ctx.account, csrf: ctx.csrf, section: "/console/outbox" }, "Outbox", body),
  );
}

async function message(ctx: RouteContext): Promise<void> {
  const mail = await mailOf(ctx);
  const section = { account: ctx.account, csrf: ctx.csrf, section: "/console/outbox" };
  if (mail === undefined) {
    sendHtml(
      ctx.req,
      ctx.res,
      page(section, "No such message", html`<p>This account has no message with that id.</p>`),
      {
        status: 404,
      },
    );
    return;
  }
  const source = await sourceOf(ctx, mail);
  // Without the whole source, the headers kept in the table are still a message to read.
  const parsed = await parse(source?.text ?? mail.message);
  const headers = (parsed?.headers ?? []).slice(0, 200);
  const body = html`<dl class="fields">
<dt>State</dt><dd><span class="state state-${mail.state}">${mail.state}</span>, ${mail.attempts} attempt(s)</dd>
<dt>Kind</dt><dd>${mail.kind}</dd>
<dt>Queued</dt><dd>${when(ctx.account, mail.created_at)}</dd>
<dt>Sent</dt><dd>${when(ctx.account, mail.sent_at)}</dd>
${mail.last_error === null ? "" : html`<dt>Last error</dt><dd>${mail.last_error}</dd>`}
<dt>Source</dt><dd>${source === undefined ? "only the headers are kept (delivered; OUTBOX_RETENTION_DAYS)" : source.from}</dd>
</dl>
<h2>Headers</h2>
${table(
  "The message's header fields, decoded",
  ["Field", "Value"],
  headers.map((h) => html`<tr><th scope="row">${h.originalKey ?? h.key}</th><td>${h.value}</td></tr>`),
  "No headers could be read.",
)}
${
  source === undefined
    ? ""
    : html`<h2>HTML part</h2>
${
  parsed?.html === undefined
    ? html`<p class="empty">The message has no HTML part.</p>`
    : html`<iframe class="mail" sandbox="" referrerpolicy="no-referrer" title="The message's HTML part" src="/console/outbox/${mail.id}/html"></iframe>`
}
<h2>Text part</h2>
${parsed?.text === undefined ? html`<p class="empty">The message has no text part.</p>` : html`<pre class="source">${parsed.text}</pre>`}
<h2>Raw source</h2>
<p><a href="/console/outbox/${mail.id}/raw">The whole source as text</a></p>
<details><summary>Show the source here</summary><pre class="source">${source.text.slice(0, SOURCE_SHOWN)}</pre></details>`
}`;
  sendHtml(ctx.req, ctx.res, page(section, mail.subject === "" ? `Mail ${mail.id}` : mail.subject, body));
}

async function messageHtml(ctx: RouteContext): Promise<void> {
  const mail = await mailOf(ctx);
  const source = mail === undefined ? undefined : await sourceOf(ctx, mail);
  const parsed = source === undefined ? undefined : await parse(source.text);
  if (parsed?.html === undefined)
    return sendData(ctx.req, ctx.res, "text/plain; charset=utf-8", "Not found.\n", 404);
  sendFrame(ctx.req, ctx.res, "text/html; charset=utf-8", parsed.html);
}

async function messageRaw(ctx: RouteContext): Promise<void> {
  const mail = await mailOf(ctx);
  const source = mail === undefined ? undefined : await sourceOf(ctx, mail);
  if (source === undefined)
    return sendData(ctx.req, ctx.res, "text/plain; charset=utf-8", "Not found.\n", 404);
  sendData(ctx.req, ctx.res, "text/plain; charset=utf-8", source.text);
}

async function smsList(ctx: RouteContext): Promise<void> {
  const before = idOf(ctx.url.searchParams.get("before"));
  const rows = await accountSmsPage(ctx.deps.store.db, ctx.account.id, PAGE_ROWS + 1, before);
  const shown = rows.slice(0, PAGE_ROWS);
  const body = html`${table(
    "SMS, newest first",
    ["SMS", "From", "To", "Text", "Segments", "Cost", "State", "Queued", "Sent"],
    shown.map(
      (
        s,
      ) => html`<tr><td><a href="/console/sms/${s.id}">SMS ${s.id}</a></td><td>${s.sender_name}</td><td>+${s.country_code} ${s.phone_number}</td>
<td>${s.message}</td><td class="n">${s.segments}</td><td class="n">${s.cost}</td><td><span class="state state-${s.state}">${s.state}</span></td>
<td>${when(ctx.account, s.created_at)}</td><td>${when(ctx.account, s.sent_at)}</td></tr>`,
    ),
    "No SMS yet.",
  )}
${rows.length > PAGE_ROWS ? nextLink("/console/sms", { before: String(shown.at(-1)!.id) }) : ""}`;
  sendHtml(
    ctx.req,
    ctx.res,
    page({ account: ctx.account, csrf: ctx.csrf, section: "/console/sms" }, "SMS", body),
  );
}

async function smsPage(ctx: RouteContext): Promise<void> {
  const id = idOf(ctx.match[1]);
  const section = { account: ctx.account, csrf: ctx.csrf, section: "/console/sms" };
  const sms = id === undefined ? undefined : await accountSms(ctx.deps.store.db, ctx.account.id, id);
  if (sms === undefined) {
    sendHtml(
      ctx.req,
      ctx.res,
      page(section, "No such SMS", html`<p>This account has no SMS with that id.</p>`),
      {
        status: 404,
      },
    );
    return;
  }
  let written: string | undefined;
  try {
    const file = path.join(ctx.deps.smsOutboxDir, `${sms.id}.json`);
    if ((await stat(file)).size <= MAX_MESSAGE_BYTES) written = await readFile(file, "utf8");
  } catch {
    written = undefined;
  }
  const body = html`<dl class="fields">
<dt>From</dt><dd>${sms.sender_name}</dd>
<dt>To</dt><dd>+${sms.country_code} ${sms.phone_number}</dd>
<dt>Text</dt><dd>${sms.message}</dd>
<dt>Encoding</dt><dd>${sms.encoding}, ${sms.segments} segment(s), cost ${sms.cost}</dd>
<dt>State</dt><dd><span class="state state-${sms.state}">${sms.state}</span>, ${sms.attempts} attempt(s)</dd>
<dt>Queued</dt><dd>${when(ctx.account, sms.created_at)}</dd>
<dt>Paid</dt><dd>${when(ctx.account, sms.paid_at)}</dd>
<dt>Sent</dt><dd>${when(ctx.account, sms.sent_at)}</dd>
${sms.last_error === null ? "" : html`<dt>Last error</dt><dd>${sms.last_error}</dd>`}
</dl>
<h2>As written to the SMS outbox folder</h2>
${written === undefined ? html`<p class="empty">No file (not sent yet, or sent to the SMS gateway).</p>` : html`<pre class="source">${written}</pre>`}`;
  sendHtml(ctx.req, ctx.res, page(section, `SMS ${sms.id}`, body));
}

export const OUTBOX_ROUTES: readonly ConsoleRoute[] = [
  { method: "GET", path: /^\/console\/outbox$/, kind: "page", run: outbox },
  { method: "GET", path: /^\/console\/outbox\/(\d{1,16})$/, kind: "page", run: message },
  { method: "GET", path: /^\/console\/outbox\/(\d{1,16})\/html$/, kind: "data", run: messageHtml },
  { method: "GET", path: /^\/console\/outbox\/(\d{1,16})\/raw$/, kind: "data", run: messageRaw },
  { method: "GET", path: /^\/console\/sms$/, kind: "page", run: smsList },
  { method: "GET", path: /^\/console\/sms\/(\d{1,16})$/, kind: "page", run: smsPage },
];
