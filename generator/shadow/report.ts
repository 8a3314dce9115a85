// The shadow proxy's report folder:
//   divergences.jsonl  one JSON object a line per divergence kept as an example (operation, binding, the
//                      first differing path, the request and both answers, redacted); at most
//                      report.examples per operation, binding and path, at most report.maxBytes in all
//   stats.json         per operation and binding: compared, matched, explained, diverged, and each
//                      differing path with its count
//   report.html        a static page: per-operation match rates, then each differing path with a
//                      side-by-side diff of its first example's answers
// stats.json and report.html are rewritten every report.intervalMs and when the proxy stops. What the report
// holds in memory is bounded: counts per operation × binding × path (paths of differences are capped per
// operation and binding) and one example per group for the page.

import { appendFileSync, mkdirSync, renameSync, writeFileSync } from "node:fs";
import path from "node:path";
import { diffLines } from "diff";
import { readXml } from "../../runtime/xml/scan.js";
import type { XmlElement } from "../../runtime/xml/tree.js";
import type { Answer } from "./compare.js";
import type { ShadowConfig } from "./config.js";
import type { Comparison, ShadowProxy } from "./proxy.js";
import { createRedactor, secretNames, type Redactor } from "./redact.js";

/** The largest body kept in a record or shown on the page, characters. */
const MAX_BODY_CHARS = 64 * 1024;
/** Distinct differing paths counted per operation and binding; more are counted under "(other paths)". */
const MAX_PATHS = 50;
/** Lines of a pretty-printed answer shown in a diff. */
const MAX_DIFF_LINES = 400;

export interface StoredAnswer {
  readonly status: number;
  readonly headers: Record<string, string>;
  readonly body: string;
}

/** One line of divergences.jsonl. */
export interface DivergenceRecord {
  readonly time: string;
  readonly operation: string;
  readonly binding: string;
  readonly outcome: "diverged" | "explained";
  readonly path: string;
  readonly what: string;
  readonly legacyValue: string;
  readonly oursValue: string;
  readonly known?: { readonly id: string; readonly why: string };
  readonly request: {
    readonly method: string;
    readonly url: string;
    readonly headers: Record<string, string>;
    readonly body: string;
  };
  readonly legacy: StoredAnswer;
  readonly ours: StoredAnswer;
}

/** stats.json. */
export interface ReportStats {
  readonly mode: string;
  readonly legacy: string;
  readonly ours: string | null;
  readonly since: string;
  readonly until: string;
  readonly records: { readonly written: number; readonly bytes: number; readonly notWritten: number };
  readonly held?: { readonly queued: number; readonly inFlight: number; readonly pendingBytes: number };
  readonly operations: readonly {
    readonly operation: string;
    readonly binding: string;
    readonly compared: number;
    readonly matched: number;
    readonly explained: number;
    readonly diverged: number;
    readonly paths: readonly { readonly path: string; readonly outcome: string; readonly count: number }[];
    readonly otherPaths?: number;
  }[];
}

interface Group {
  count: number;
  written: number;
  example: DivergenceRecord;
}

interface Counts {
  compared: number;
  matched: number;
  explained: number;
  diverged: number;
  /** path → group; at most MAX_PATHS. */
  groups: Map<string, Group>;
  otherPaths: number;
}

export interface Report {
  readonly dir: string;
  add(comparison: Comparison): void;
  /** Starts rewriting the page and stats on the interval. */
  start(proxy: ShadowProxy): void;
  /** Writes the page and stats a last time. */
  close(proxy?: ShadowProxy): Promise<void>;
  /** Writes stats.json and report.html now. */
  flush(proxy?: ShadowProxy): Promise<void>;
}

function bodyText(body: Uint8Array): string {
  const text = Buffer.from(body.buffer, body.byteOffset, body.length).toString("utf8");
  return text.length > MAX_BODY_CHARS
    ? `${text.slice(0, MAX_BODY_CHARS)}\n… (${text.length} characters)`
    : text;
}

function stored(answer: Answer, redact: Redactor): StoredAnswer {
  return {
    status: answer.status,
    headers: redact.headers(answer.headers),
    body: redact.xml(bodyText(answer.body)),
  };
}

/** The record of a comparison that differed, redacted. */
function divergenceRecord(c: Comparison, redact: Redactor): DivergenceRecord {
  const v = c.verdict;
  return {
    time: new Date(c.at).toISOString(),
    operation: c.operation,
    binding: c.binding,
    outcome: v.outcome === "explained" ? "explained" : "diverged",
    path: v.path ?? "",
    what: v.what ?? "",
    legacyValue: v.legacy ?? "",
    oursValue: v.ours ?? "",
    ...(v.known ? { known: v.known } : {}),
    request: {
      method: c.method,
      url: redact.url(c.url),
      headers: redact.headers(c.requestHeaders),
      body: redact.body(bodyText(c.requestBody), c.requestHeaders["content-type"]),
    },
    legacy: stored(c.legacy, redact),
    ours: stored(c.ours, redact),
  };
}

export function createReport(config: ShadowConfig, now: () => number = Date.now): Report {
  const dir = config.report.dir!;
  mkdirSync(dir, { recursive: true });
  const jsonl = path.join(dir, "divergences.jsonl");
  writeFileSync(jsonl, "", { mode: 0o600 });
  const redact = createRedactor(secretNames(config));
  const counts = new Map<string, Counts>();
  const started = now();
  let written = 0;
  let writtenBytes = 0;
  let notWritten = 0;
  let timer: NodeJS.Timeout | undefined;

  const countsOf = (operation: string, binding: string): Counts => {
    const key = `${operation}\u0000${binding}`;
    let found = counts.get(key);
    if (!found) {
      found = { compared: 0, matched: 0, explained: 0, diverged: 0, groups: new Map(), otherPaths: 0 };
      counts.set(key, found);
    }
    return found;
  };

  const snapshot = (proxy?: ShadowProxy): ReportStats => {
    const rows = [...counts.entries()]
      .map(([key, c]) => {
        const [operation, binding] = key.split("\u0000") as [string, string];
        return {
          operation,
          binding,
          compared: c.compared,
          matched: c.matched,
          explained: c.explained,
          diverged: c.diverged,
          paths: [...c.groups.entries()]
            .map(([p, g]) => ({ path: p, outcome: g.example.outcome, count: g.count }))
            .sort((a, b) => b.count - a.count),
          ...(c.otherPaths > 0 ? { otherPaths: c.otherPaths } : {}),
        };
      })
      .sort((a, b) =>
        a.operation === b.operation
          ? a.binding.localeCompare(b.binding)
          : a.operation.localeCompare(b.operation),
      );
    return {
      mode: config.mode,
      legacy: config.legacy.href,
      ours: config.ours?.href ?? null,
      since: new Date(started).toISOString(),
      until: new Date(now()).toISOString(),
      records: { written, bytes: writtenBytes, notWritten },
      ...(proxy ? { held: proxy.held() } : {}),
      operations: rows,
    };
  };

  const writeAtomically = (file: string, text: string) => {
    const temporary = `${file}.tmp`;
    writeFileSync(temporary, text, { mode: 0o600 });
    renameSync(temporary, file);
  };

  const flush = async (proxy?: ShadowProxy) => {
    const stats = snapshot(proxy);
    writeAtomically(path.join(dir, "stats.json"), `${JSON.stringify(stats, null, 2)}\n`);
    const examples = [...counts.values()].flatMap((c) =>
      [...c.groups.values()].map((g) => ({ ...g.example, count: g.count })),
    );
    writeAtomically(path.join(dir, "report.html"), renderReport(stats, examples));
  };

  return {
    dir,
    add(c) {
      const row = countsOf(c.operation, c.binding);
      row.compared++;
      if (c.verdict.outcome === "matched") {
        row.matched++;
        return;
      }
      if (c.verdict.outcome === "explained") row.explained++;
      else row.diverged++;
      const key = c.verdict.path ?? "";
      let group = row.groups.get(key);
      if (!group && row.groups.size >= MAX_PATHS) {
        row.otherPaths++;
        return;
      }
      if (group && group.written >= config.report.examples) {
        group.count++;
        notWritten++;
        return;
      }
      const record = divergenceRecord(c, redact);
      if (!group) {
        group = { count: 0, written: 0, example: record };
        row.groups.set(key, group);
      }
      group.count++;
      if (group.written >= config.report.examples) {
        notWritten++;
        return;
      }
      const line = `${JSON.stringify(record)}\n`;
      const bytes = Buffer.byteLength(line);
      if (writtenBytes + bytes > config.report.maxBytes) {
        notWritten++;
        return;
      }
      appendFileSync(jsonl, line);
      writtenBytes += bytes;
      written++;
      group.written++;
    },
    start(proxy) {
      timer = setInterval(() => {
        flush(proxy).catch(() => undefined);
      }, config.report.intervalMs);
      timer.unref();
    },
    async close(proxy) {
      if (timer) clearInterval(timer);
      await flush(proxy);
    },
    flush,
  };
}

// ---- the page ---------------------------------------------------------------------------------------

function escapeHtml(text: string): string {
  return text.replace(
    /[&<>"']/g,
    (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!,
  );
}

function escapeXmlText(text: string): string {
  return text.replace(/[&<>]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;" })[c]!);
}

/** An answer's body one element a line, attributes sorted, for a readable diff; text as it is otherwise. */
function prettyBody(body: string): string {
  let root: XmlElement;
  try {
    root = readXml(body, { maxDepth: 64, maxAttributes: 256, maxElements: 20_000 });
  } catch {
    return body;
  }
  const lines: string[] = [];
  const walk = (el: XmlElement, depth: number) => {
    if (lines.length >= MAX_DIFF_LINES) return;
    const name = el.prefix === "" ? el.local : `${el.prefix}:${el.local}`;
    const attrs = [...el.attrs]
      .map((a) => `${a.ns === "" ? "" : `{${a.ns}}`}${a.local}="${escapeXmlText(a.value)}"`)
      .sort()
      .map((a) => ` ${a}`)
      .join("");
    const pad = "  ".repeat(depth);
    const text = /^[ \t\r\n]*$/.test(el.text) && el.children.length > 0 ? "" : escapeXmlText(el.text);
    if (el.children.length === 0) {
      lines.push(`${pad}<${name}${attrs}>${text}</${name}>`);
      return;
    }
    lines.push(`${pad}<${name}${attrs}>${text}`);
    for (const child of el.children) walk(child, depth + 1);
    lines.push(`${pad}</${name}>`);
  };
  walk(root, 0);
  if (lines.length >= MAX_DIFF_LINES) lines.push(`… (shortened at ${MAX_DIFF_LINES} lines)`);
  return lines.join("\n");
}

/** Two columns of lines: legacy left, ours right, removed and added lines marked. */
function sideBySide(legacy: string, ours: string): string {
  const rows: string[] = [];
  const cell = (text: string | undefined, kind: string) =>
    text === undefined ? '<td class="none"></td>' : `<td class="${kind}">${escapeHtml(text)}</td>`;
  let pendingLeft: string[] = [];
  let pendingRight: string[] = [];
  const flushPending = () => {
    for (let i = 0; i < Math.max(pendingLeft.length, pendingRight.length); i++) {
      rows.push(`<tr>${cell(pendingLeft[i], "del")}${cell(pendingRight[i], "add")}</tr>`);
    }
    pendingLeft = [];
    pendingRight = [];
  };
  for (const part of diffLines(`${prettyBody(legacy)}\n`, `${prettyBody(ours)}\n`)) {
    const lines = part.value.replace(/\n$/, "").split("\n");
    if (part.removed) pendingLeft.push(...lines);
    else if (part.added) pendingRight.push(...lines);
    else {
      flushPending();
      for (const line of lines) rows.push(`<tr>${cell(line, "same")}${cell(line, "same")}</tr>`);
    }
  }
  flushPending();
  return `<table class="diff"><tr><th>legacy</th><th>ours</th></tr>${rows.join("")}</table>`;
}

function percent(part: number, whole: number): string {
  return whole === 0 ? "–" : `${((100 * part) / whole).toFixed(1)} %`;
}

/** The static HTML report: no script, no external resource. */
function renderReport(
  stats: ReportStats,
  examples: readonly (DivergenceRecord & { count: number })[],
): string {
  const byOperation = new Map<
    string,
    { compared: number; matched: number; explained: number; diverged: number; bindings: string[] }
  >();
  for (const row of stats.operations) {
    const op = byOperation.get(row.operation) ?? {
      compared: 0,
      matched: 0,
      explained: 0,
      diverged: 0,
      bindings: [],
    };
    op.compared += row.compared;
    op.matched += row.matched;
    op.explained += row.explained;
    op.diverged += row.diverged;
    op.bindings.push(`${row.binding} ${percent(row.matched + row.explained, row.compared)}`);
    byOperation.set(row.operation, op);
  }
  const total = [...byOperation.values()].reduce(
    (t, o) => ({
      compared: t.compared + o.compared,
      matched: t.matched + o.matched,
      explained: t.explained + o.explained,
      diverged: t.diverged + o.diverged,
    }),
    { compared: 0, matched: 0, explained: 0, diverged: 0 },
  );
  const operationRows = [...byOperation.entries()]
    .map(([name, o]) => {
      const rate = o.compared === 0 ? 1 : (o.matched + o.explained) / o.compared;
      return `<tr class="${o.diverged > 0 ? "bad" : "good"}"><td>${escapeHtml(name)}</td><td class="n">${o.compared}</td><td class="n">${o.matched}</td><td class="n">${o.explained}</td><td class="n">${o.diverged}</td><td><span class="bar"><span style="width:${(rate * 100).toFixed(1)}%"></span></span> ${percent(o.matched + o.explained, o.compared)}</td><td>${escapeHtml(o.bindings.join(" · "))}</td></tr>`;
    })
    .join("\n");
  const sorted = [...examples].sort((a, b) =>
    a.outcome === b.outcome ? b.count - a.count : a.outcome === "diverged" ? -1 : 1,
  );
  const sections = sorted
    .map(
      (e) => `<section class="${e.outcome}">
<h3>${escapeHtml(e.operation)} · ${escapeHtml(e.binding)} · <code>${escapeHtml(e.path)}</code> <span class="count">${e.count}×</span> <span class="tag">${e.outcome}</span></h3>
<p>${escapeHtml(e.what)}: legacy <code>${escapeHtml(e.legacyValue)}</code>, ours <code>${escapeHtml(e.oursValue)}</code>${e.known ? `<br>Known difference <b>${escapeHtml(e.known.id)}</b>: ${escapeHtml(e.known.why)}` : ""}</p>
<details><summary>Request: ${escapeHtml(e.request.method)} ${escapeHtml(e.request.url)}</summary><pre>${escapeHtml(e.request.body)}</pre></details>
<p class="status">legacy: ${e.legacy.status} ${escapeHtml(e.legacy.headers["content-type"] ?? "")} · ours: ${e.ours.status} ${escapeHtml(e.ours.headers["content-type"] ?? "")}</p>
${sideBySide(e.legacy.body, e.ours.body)}
</section>`,
    )
    .join("\n");
  return `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>Shadow report: ${escapeHtml(stats.mode)} mode</title>
<style>
body{font:14px/1.4 system-ui,sans-serif;margin:1.5em;color:#222}
table{border-collapse:collapse}td,th{padding:.2em .6em;border-bottom:1px solid #ddd;text-align:left;vertical-align:top}
td.n{text-align:right;font-variant-numeric:tabular-nums}td{white-space:nowrap}td:last-child{white-space:normal}tr.bad td:first-child{color:#a00;font-weight:600}
.bar{display:inline-block;width:8em;height:.7em;background:#f3c6c6;vertical-align:middle}.bar span{display:block;height:100%;background:#5a5}
section{margin:1.5em 0;padding:.5em 1em;border-left:4px solid #c33;background:#fcfcfc}section.explained{border-color:#d90}
.tag{font-size:80%;padding:0 .4em;background:#eee;border-radius:3px}.count{color:#666;font-weight:400}
table.diff{font:12px/1.35 ui-monospace,monospace;width:100%;table-layout:fixed}table.diff td{white-space:pre-wrap;word-break:break-all;border:0;padding:0 .5em}
td.del{background:#fdd}td.add{background:#dfd}td.none{background:#f4f4f4}pre{background:#f4f4f4;padding:.5em;white-space:pre-wrap;word-break:break-all}
</style></head><body>
<h1>Shadow report</h1>
<p>${escapeHtml(stats.mode)} mode · legacy ${escapeHtml(stats.legacy)} · ours ${escapeHtml(stats.ours ?? "none")}<br>${escapeHtml(stats.since)} – ${escapeHtml(stats.until)} · ${total.compared} compared, ${total.matched} matched, ${total.explained} explained, ${total.diverged} diverged (${percent(total.matched + total.explained, total.compared)} the same)</p>
<h2>Operations</h2>
<table><tr><th>operation</th><th>compared</th><th>matched</th><th>explained</th><th>diverged</th><th>the same</th><th>per binding</th></tr>
${operationRows}
</table>
<h2>Differences</h2>
${sections || "<p>None.</p>"}
</body></html>
`;
}
