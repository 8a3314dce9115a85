// InsertCsvSubscribersWithDemDataUpdateOption: every row is checked first (the first bad line is named),
// then all rows are written in one transaction: all or nothing.
//
// The event loop stays free for everyone else: the rows are read and checked in slices of SLICE_MS with a
// turn of the event loop between them, and written in chunks of CHUNK_ROWS, a turn between chunks, inside
// the one transaction (Store.writeLong: on SQLite on a second connection, so reads go on meanwhile and see
// the list before the call or after it, never half of it). At most CSV_AT_ONCE calls are read and
// written at once, one per account, accounts served in turn (the rows of a call are held in memory).

import {
  detectDelimiter,
  isCsvProblem,
  readCsvRows,
  subscriberRowProblem,
} from "../../../generated/extensions.js";
import { clientError } from "../../../generated/server.js";
import type { Store } from "../../db/database.js";
import type { Account } from "../../db/schema.js";
import { ServiceCodes, fieldNotActivated, invalidCsv } from "../../common/errors.js";
import { rowLengthProblem } from "../../common/limits.js";
import { FairGate, TimeSlicer } from "../../common/slices.js";
import {
  CHUNK_ROWS,
  type SubscriberRow,
  keepLatest,
  upsertSubscribers,
} from "../../tables/subscriber-insert.js";
import { emailProblem } from "../../common/input.js";
import { listOf } from "../../tables/lists.js";

/**
 * Rows one call may carry: the rows of a call are held in memory and written in one transaction, so a
 * 64 MiB body of short rows (about a million) would cost hundreds of megabytes. Larger files go through
 * the import queue, which streams.
 */
const MAX_CSV_ROWS = 100_000;

/** CSV bulk inserts read and written at once per process (each holds up to MAX_CSV_ROWS rows). */
const CSV_AT_ONCE = 2;

const gates = new WeakMap<Store, FairGate<number>>();

/** The most demographic fields a row may carry on any account (the generated rule's limit). */
const MAX_DD_FIELDS = 100;

/**
 * One delimited row (Email, Name, Format, dd1..) as a subscriber row, or why it is not one (a Name or DD
 * value over its limit in limits.ts included). The CSV bulk insert and the queued file import both read
 * rows with it.
 */
export function rowToSubscriber(
  fields: readonly string[],
  delimiter: string,
  activated: number,
): SubscriberRow | { problem: string; notActivated?: number } {
  const problem = subscriberRowProblem(fields, delimiter, MAX_DD_FIELDS);
  if (problem !== undefined) return { problem };
  const email = fields[0]!.trim();
  const bad = emailProblem(email);
  if (bad !== undefined) return { problem: `Email ${bad}` };
  const dd = new Map<number, string>();
  for (let i = 3; i < fields.length; i++) {
    const value = fields[i]!;
    if (value === "") continue;
    if (i - 2 > activated)
      return {
        problem: `DD${i - 2} is not activated on this account`,
        notActivated: i - 2,
      };
    dd.set(i - 2, value);
  }
  const name = fields[1]!.trim();
  const tooLong = rowLengthProblem(name, dd);
  if (tooLong !== undefined) return { problem: tooLong };
  return {
    email,
    name,
    format: fields[2]!.trim(),
    fields: dd,
  };
}

/**
 * The CSV bulk insert of `account` into its list: every row checked first, then all written in one
 * transaction; the number inserted plus, with `update`, those whose data changed. `signal` (the call's)
 * drops a call that waits for its turn or is still reading when the caller is gone; once writing, it
 * finishes.
 */
export async function importCsvText(
  store: Store,
  account: Account,
  listIdText: string,
  csv: string,
  update: boolean,
  now: number,
  signal?: AbortSignal,
): Promise<number> {
  const list = await listOf(store.db, account, listIdText, "strMailingListId");
  let gate = gates.get(store);
  if (gate === undefined) gates.set(store, (gate = new FairGate<number>(CSV_AT_ONCE)));
  return gate.run(account.id, () => readAndWrite(store, account, list.id, csv, update, now, signal), signal);
}

async function readAndWrite(
  store: Store,
  account: Account,
  listId: number,
  csv: string,
  update: boolean,
  now: number,
  signal: AbortSignal | undefined,
): Promise<number> {
  const delimiter = detectDelimiter(csv, [",", "|"]);
  if (delimiter === undefined) throw invalidCsv(1, "needs Email, Name and Format separated by , or |");
  const slicer = new TimeSlicer();
  // The rows kept: the last of each address (as upsertSubscribers keeps them), built as they are read.
  const latest = new Map<string, SubscriberRow>();
  let count = 0;
  for (const item of readCsvRows(csv, delimiter, delimiter === ",")) {
    if (isCsvProblem(item)) throw invalidCsv(item.line, item.problem);
    const row = rowToSubscriber(item.fields, delimiter, account.dd_fields);
    if ("problem" in row) {
      if (row.notActivated !== undefined) {
        const base = fieldNotActivated(row.notActivated, account.dd_fields, "strCsvData");
        throw clientError(ServiceCodes.FieldNotActivated, `strCsvData line ${item.line}: ${base.message}`, {
          parameter: "strCsvData",
        });
      }
      throw invalidCsv(item.line, row.problem);
    }
    if (count === MAX_CSV_ROWS) {
      throw invalidCsv(
        item.line,
        `is row ${MAX_CSV_ROWS + 1}; one call takes at most ${MAX_CSV_ROWS} rows (queue larger files with InsertCSVSubscribersWithDemDataFromFileToQueue)`,
      );
    }
    count += 1;
    keepLatest(latest, row);
    if (count % 256 === 0) {
      await slicer.pause();
      signal?.throwIfAborted();
    }
  }
  if (count === 0) throw invalidCsv(1, "holds no subscriber rows");
  const rows = [...latest.values()];
  await slicer.pause();
  const outcomes = await store.writeLong(async (trx) => {
    const written = [];
    for (let at = 0; at < rows.length; at += CHUNK_ROWS) {
      written.push(
        ...(await upsertSubscribers(
          trx,
          store.engine,
          account,
          listId,
          rows.slice(at, at + CHUNK_ROWS),
          { update, state: "active", recordOptedOut: false },
          now,
        )),
      );
      await slicer.pause();
    }
    return written;
  });
  return outcomes.filter((o) => o.outcome === "inserted" || o.outcome === "updated").length;
}
