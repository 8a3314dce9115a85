// Imports: the account's imports newest first (keyset pages), and one import's live progress (polling its
// JSON view every second while it runs) with the rejected lines, their line numbers and reasons.

import type { Import } from "../../db/schema.js";
import { accountImport, importSummaries } from "../../tables/imports.js";
import { listName } from "../../tables/lists.js";
import { html } from "../html.js";
import { sendData, sendHtml } from "../http.js";
import type { ConsoleRoute, RouteContext } from "../context.js";
import { count, nextLink, page, table, when } from "../layout.js";
import { idOf } from "../queries.js";

const PAGE_ROWS = 50;
const FINISHED = new Set(["done", "failed"]);

/** The first errors an import keeps (line and reason), parsed defensively. */
function rejected(text: string): { line: number; error: string }[] {
  try {
    const value: unknown = JSON.parse(text);
    if (!Array.isArray(value)) return [];
    return value
      .filter(
        (e): e is { line: number; error: string } =>
          typeof e?.line === "number" && typeof e?.error === "string",
      )
      .slice(0, 100);
  } catch {
    return [];
  }
}

/**
 * What the live view shows. While the file is read (fetching, importing) its length in lines is not known:
 * no percentage. Once applying, the staged good rows are known, so the percentage and the rows left are.
 */
export interface ImportView {
  readonly state: string;
  readonly lines: number;
  readonly rows: number;
  readonly imported: number;
  readonly skipped: number;
  readonly rejected: number;
  readonly finished: boolean;
  readonly percent?: number;
  readonly remaining?: number;
  readonly error: string;
}

function importState(i: Import): ImportView {
  const rows = Number(i.rows_imported) + Number(i.rows_skipped);
  const good = Math.max(0, Number(i.lines_done) - Number(i.rows_bad));
  const applying = i.state === "applying";
  return {
    state: i.state,
    lines: Number(i.lines_done),
    rows,
    imported: Number(i.rows_imported),
    skipped: Number(i.rows_skipped),
    rejected: Number(i.rows_bad),
    finished: FINISHED.has(i.state),
    ...(i.state === "done"
      ? { percent: 100 }
      : applying && good > 0
        ? { percent: Math.min(99, Math.floor((100 * rows) / good)), remaining: Math.max(0, good - rows) }
        : {}),
    error: i.error ?? "",
  };
}

async function imports(ctx: RouteContext): Promise<void> {
  const before = idOf(ctx.url.searchParams.get("before"));
  const rows = await importSummaries(ctx.deps.store.db, ctx.account.id, {
    beforeId: before,
    limit: PAGE_ROWS + 1,
  });
  const shown = rows.slice(0, PAGE_ROWS);
  const body = html`${table(
    "Imports, newest first",
    ["Import", "List", "State", "Lines read", "Imported", "Skipped", "Rejected", "Queued", "Finished"],
    shown.map(
      (i) => html`<tr><td><a href="/console/imports/${i.id}">Import ${i.id}</a></td><td>${i.list}</td>
<td><span class="state state-${i.state}">${i.state}</span></td><td class="n">${count(Number(i.lines_done))}</td>
<td class="n">${count(Number(i.rows_imported))}</td><td class="n">${count(Number(i.rows_skipped))}</td>
<td class="n">${count(Number(i.rows_bad))}</td><td>${when(ctx.account, i.created_at)}</td><td>${when(ctx.account, i.finished_at)}</td></tr>`,
    ),
    "No imports yet (ImportSubscribers, or npm run admin -- import).",
  )}
${rows.length > PAGE_ROWS ? nextLink("/console/imports", { before: String(shown.at(-1)!.id) }) : ""}`;
  sendHtml(
    ctx.req,
    ctx.res,
    page({ account: ctx.account, csrf: ctx.csrf, section: "/console/imports" }, "Imports", body),
  );
}

async function importOf(ctx: RouteContext): Promise<Import | undefined> {
  const id = idOf(ctx.match[1]);
  if (id === undefined) return undefined;
  return accountImport(ctx.deps.store.db, ctx.account.id, id);
}

async function importPage(ctx: RouteContext): Promise<void> {
  const i = await importOf(ctx);
  const section = { account: ctx.account, csrf: ctx.csrf, section: "/console/imports" };
  if (i === undefined) {
    sendHtml(
      ctx.req,
      ctx.res,
      page(section, "No such import", html`<p>This account has no import with that id.</p>`),
      {
        status: 404,
      },
    );
    return;
  }
  const list = await listName(ctx.deps.store.db, i.list_id);
  const s = importState(i);
  const errors = rejected(i.first_errors);
  const body = html`<p>Into list <strong>${list ?? ""}</strong>, queued ${when(ctx.account, i.created_at)}.</p>
<div class="live" data-poll="/console/imports/${i.id}/progress" data-reload${s.finished ? html` data-finished="true"` : ""}>
<div class="progress">
<progress max="100"${s.percent === undefined ? "" : html` value="${s.percent}"`} aria-label="Import progress"></progress>
<span><span data-field="state">${s.state}</span></span>
</div>
<dl class="fields">
<dt>Lines read</dt><dd data-field="lines">${s.lines}</dd>
<dt>Rows written</dt><dd data-field="rows">${s.rows}</dd>
<dt>Imported</dt><dd data-field="imported">${s.imported}</dd>
<dt>Skipped (opted out)</dt><dd data-field="skipped">${s.skipped}</dd>
<dt>Rejected</dt><dd data-field="rejected">${s.rejected}</dd>
<dt>Speed</dt><dd><span data-speed>–</span> <span data-left></span></dd>
<dt>Error</dt><dd data-field="error">${s.error}</dd>
</dl>
<p class="ok" data-done${s.finished ? "" : html` hidden`}>Finished.</p>
</div>
<h2>Rejected lines</h2>
${table(
  errors.length < s.rejected
    ? `The first ${errors.length} of ${count(s.rejected)} rejected lines`
    : "Every rejected line",
  ["Line", "Reason"],
  errors.map((e) => html`<tr><td class="n">${e.line}</td><td>${e.error}</td></tr>`),
  "No line was rejected.",
)}`;
  sendHtml(ctx.req, ctx.res, page(section, `Import ${i.id}`, body, ["console.js"]));
}

async function importProgress(ctx: RouteContext): Promise<void> {
  const i = await importOf(ctx);
  if (i === undefined) return sendData(ctx.req, ctx.res, "application/json", '{"error":"not found"}\n', 404);
  sendData(ctx.req, ctx.res, "application/json", `${JSON.stringify(importState(i))}\n`);
}

export const IMPORT_ROUTES: readonly ConsoleRoute[] = [
  { method: "GET", path: /^\/console\/imports$/, kind: "page", run: imports },
  { method: "GET", path: /^\/console\/imports\/(\d{1,16})$/, kind: "page", run: importPage },
  { method: "GET", path: /^\/console\/imports\/(\d{1,16})\/progress$/, kind: "data", run: importProgress },
];
