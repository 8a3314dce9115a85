// `import show | watch`: queued file imports (service/workers/imports.ts writes them) and their progress.
// Reads the imports table itself (the shape documented in db/schema.ts), so the CLI needs nothing of the
// worker.

import type { Store } from "../db/database.js";
import type { Import } from "../db/schema.js";
import { importById, recentImports } from "../tables/imports.js";
import {
  AdminError,
  type AdminContext,
  type Noun,
  findAccount,
  idOption,
  verb,
  wholeNumber,
} from "./context.js";
import { printable, record, table, timeJson, timeText } from "./format.js";

/** How often `import watch` reads the import (about twice a second). */
const WATCH_INTERVAL_MS = 500;
/** Rows per second are measured over this much recent time. */
const RATE_WINDOW_MS = 5_000;

const ENDED = new Set(["done", "failed"]);

/** One entry of `first_errors`: the file's line and why it is not a subscriber row. */
interface ImportError {
  readonly line: number;
  readonly error: string;
}

/** An import with `first_errors` parsed. */
type ImportStatus = Omit<Import, "first_errors"> & { readonly first_errors: readonly ImportError[] };

function withErrors(row: Import): ImportStatus {
  return { ...row, first_errors: parseErrors(row.first_errors) };
}

/** `first_errors` as a list; anything else stored there reads as no errors. */
function parseErrors(text: string): ImportError[] {
  try {
    const value: unknown = JSON.parse(text);
    if (!Array.isArray(value)) return [];
    return value.flatMap((e: unknown) =>
      typeof e === "object" && e !== null && "line" in e && "error" in e
        ? [{ line: Number(e.line), error: String(e.error) }]
        : [],
    );
  } catch {
    return [];
  }
}

async function importStatus(store: Store, id: number): Promise<ImportStatus | undefined> {
  const row = await importById(store.db, id);
  return row === undefined ? undefined : withErrors(row);
}

function importJson(status: ImportStatus) {
  return {
    id: status.id,
    listId: status.list_id,
    state: status.state,
    url: status.url,
    linesDone: status.lines_done,
    imported: status.rows_imported,
    skipped: status.rows_skipped,
    bad: status.rows_bad,
    firstErrors: status.first_errors,
    error: status.error,
    attempts: status.attempts,
    createdAt: timeJson(status.created_at),
    updatedAt: timeJson(status.updated_at),
    finishedAt: timeJson(status.finished_at),
  };
}

function importRecord(status: ImportStatus): string {
  const errors = status.first_errors.map((e) => `  line ${e.line}: ${printable(String(e.error))}`);
  return (
    record([
      ["id", status.id],
      ["list", status.list_id],
      ["state", status.state],
      ["url", status.url],
      ["lines done", status.lines_done],
      ["imported", status.rows_imported],
      ["skipped", status.rows_skipped],
      ["bad", status.rows_bad],
      ["attempts", status.attempts],
      ["error", status.error ?? undefined],
      ["created", timeText(status.created_at)],
      ["updated", timeText(status.updated_at)],
      ["finished", timeText(status.finished_at)],
    ]) + (errors.length === 0 ? "" : `first errors:\n${errors.join("\n")}\n`)
  );
}

function statusOutput(status: ImportStatus) {
  return { json: importJson(status), text: importRecord(status) };
}

async function statusOf(store: Store, id: number): Promise<ImportStatus> {
  const status = await importStatus(store, id);
  if (status === undefined) throw new AdminError(`--id: there is no import ${id}`);
  return status;
}

const show = verb({
  name: "show",
  describe: "Show an account's queued file imports (newest first), or one of them with its first errors",
  options: {
    account: { describe: "User name of the account", required: true },
    id: { describe: "One import's id (as InsertCSVSubscribersWithDemDataFromFileToQueue returned it)" },
    limit: { describe: "Imports shown at most (without --id)", default: "20" },
  },
  epilog: "--json prints an object for --id, else an array.",
  async run(ctx, o) {
    const id = o.id === undefined ? undefined : idOption(o.id);
    const limit = wholeNumber(o.limit ?? "20", "--limit", 1, 10_000);
    const account = await findAccount(ctx, o.account);
    const store = await ctx.store();
    if (id !== undefined) {
      const status = await importStatus(store, id);
      if (status === undefined || status.account_id !== account.id) {
        throw new AdminError(`--id: account ${account.username} has no import ${id}`);
      }
      return statusOutput(status);
    }
    const rows = await recentImports(store.db, account.id, limit);
    const statuses = rows.map(withErrors);
    return {
      json: statuses.map(importJson),
      text: table(
        ["id", "list", "state", "lines", "imported", "skipped", "bad", "created", "updated", "url"],
        statuses.map((s) => [
          s.id,
          s.list_id,
          s.state,
          s.lines_done,
          s.rows_imported,
          s.rows_skipped,
          s.rows_bad,
          timeText(s.created_at),
          timeText(s.updated_at),
          s.url,
        ]),
        `Account ${account.username} has no imports.`,
      ),
    };
  },
});

const grouped = new Intl.NumberFormat("en-US");

function rowsOf(status: ImportStatus): number {
  return status.rows_imported + status.rows_skipped + status.rows_bad;
}

function elapsedText(ms: number): string {
  const s = Math.floor(ms / 1000);
  const hms = [Math.floor(s / 3600), Math.floor(s / 60) % 60, s % 60];
  return (hms[0] === 0 ? hms.slice(1) : hms)
    .map((n, i) => (i === 0 ? String(n) : String(n).padStart(2, "0")))
    .join(":");
}

/** The progress line: state, lines, rows by outcome, rows per second, time watched. */
function progressLine(status: ImportStatus, rate: number | undefined, elapsedMs: number): string {
  const rateText = rate === undefined ? "- rows/s" : `${grouped.format(Math.round(rate))} rows/s`;
  return (
    `import ${status.id}  ${status.state.padEnd(9)}  lines ${grouped.format(status.lines_done)}  ` +
    `imported ${grouped.format(status.rows_imported)}  skipped ${grouped.format(status.rows_skipped)}  ` +
    `bad ${grouped.format(status.rows_bad)}  ${rateText}  ${elapsedText(elapsedMs)}`
  );
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Polls the import until it ends or `timeoutMs` passes, reporting progress on standard error. */
async function watchImport(ctx: AdminContext, id: number, timeoutMs: number): Promise<ImportStatus> {
  const store = await ctx.store();
  const stderr = ctx.io.stderr;
  const tty = (stderr as { isTTY?: boolean }).isTTY === true;
  const started = ctx.now();
  const samples: { at: number; rows: number }[] = [];
  let lastState: string | undefined;
  let status = await statusOf(store, id);
  const steps = Math.ceil(timeoutMs / WATCH_INTERVAL_MS) + 1;
  for (let step = 0; ; step++) {
    const at = ctx.now();
    samples.push({ at, rows: rowsOf(status) });
    while (samples.length > 2 && at - samples[1]!.at >= RATE_WINDOW_MS) samples.shift();
    const first = samples[0]!;
    const rate =
      at - first.at >= WATCH_INTERVAL_MS / 2
        ? ((rowsOf(status) - first.rows) * 1000) / (at - first.at)
        : undefined;
    const ended = ENDED.has(status.state);
    if (tty) {
      stderr.write(`\r\x1b[2K${progressLine(status, rate, at - started)}${ended ? "\n" : ""}`);
    } else if (status.state !== lastState) {
      stderr.write(`${progressLine(status, rate, at - started)}\n`);
    }
    lastState = status.state;
    if (ended) return status;
    if (step >= steps || at - started >= timeoutMs) {
      if (tty) stderr.write("\n");
      throw new AdminError(
        `import ${id} is still ${status.state} after --timeout ${Math.round(timeoutMs / 1000)} s (it goes on; watch again later)`,
      );
    }
    await sleep(Math.min(WATCH_INTERVAL_MS, Math.max(0, started + timeoutMs - at)));
    status = await statusOf(store, id);
  }
}

const watch = verb({
  name: "watch",
  describe:
    "Follow an import until it is done or failed: a progress line on standard error, the final state on standard output",
  options: {
    id: { describe: "The import's id", required: true },
    timeout: { describe: "Give up waiting after this many seconds (the import goes on)", default: "3600" },
  },
  epilog:
    "On a terminal the progress line is redrawn about twice a second (state, lines, rows, rows/s); otherwise one\n" +
    "line per state change. Exit code 0 when the import is done, 1 when it failed or --timeout passed.",
  async run(ctx, o) {
    const id = idOption(o.id);
    const timeoutMs = wholeNumber(o.timeout ?? "3600", "--timeout", 0, 7 * 24 * 3600) * 1000;
    const status = await watchImport(ctx, id, timeoutMs);
    if (status.state === "failed")
      throw new AdminError(`import ${id} failed: ${printable(status.error ?? "no reason recorded")}`);
    return statusOutput(status);
  },
});

export const importNoun: Noun = {
  name: "import",
  describe: "Queued file imports: show, watch (progress)",
  verbs: [show, watch],
};
