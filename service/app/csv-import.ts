// InsertCsvSubscribersWithDemDataUpdateOption: every row is checked first (the first bad line is named),
// then all rows are written in one transaction: all or nothing.

import {
  detectDelimiter,
  isCsvProblem,
  readCsvRows,
  subscriberRowProblem,
} from "../../generated/extensions.js";
import { clientError } from "../../generated/server.js";
import type { Store } from "../db/database.js";
import type { Account } from "../db/schema.js";
import { ServiceCodes, fieldNotActivated, invalidCsv } from "./errors.js";
import { rowLengthProblem } from "./limits.js";
import {
  type SubscriberRow,
  emailProblem,
  listOf,
  upsertSubscribers,
} from "./subscribers.js";

/**
 * Rows one call may carry: the rows of a call are held in memory and written in one transaction, so a
 * 64 MiB body of short rows (about a million) would cost hundreds of megabytes. Larger files go through
 * the import queue, which streams.
 */
export const MAX_CSV_ROWS = 100_000;

/** The most demographic fields a row may carry on any account (the generated rule's limit). */
export const MAX_DD_FIELDS = 100;

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

export async function importCsvText(
  store: Store,
  account: Account,
  listIdText: string,
  csv: string,
  update: boolean,
  now: number,
): Promise<number> {
  const list = await listOf(store.db, account, listIdText, "strMailingListId");
  const delimiter = detectDelimiter(csv, [",", "|"]);
  if (delimiter === undefined)
    throw invalidCsv(1, "needs Email, Name and Format separated by , or |");
  const rows: SubscriberRow[] = [];
  for (const item of readCsvRows(csv, delimiter, delimiter === ",")) {
    if (isCsvProblem(item)) throw invalidCsv(item.line, item.problem);
    const row = rowToSubscriber(item.fields, delimiter, account.dd_fields);
    if ("problem" in row) {
      if (row.notActivated !== undefined) {
        const base = fieldNotActivated(
          row.notActivated,
          account.dd_fields,
          "strCsvData",
        );
        throw clientError(
          ServiceCodes.FieldNotActivated,
          `strCsvData line ${item.line}: ${base.message}`,
          { parameter: "strCsvData" },
        );
      }
      throw invalidCsv(item.line, row.problem);
    }
    if (rows.length === MAX_CSV_ROWS) {
      throw invalidCsv(item.line, `is row ${MAX_CSV_ROWS + 1}; one call takes at most ${MAX_CSV_ROWS} rows (queue larger files with InsertCSVSubscribersWithDemDataFromFileToQueue)`);
    }
    rows.push(row);
  }
  if (rows.length === 0) throw invalidCsv(1, "holds no subscriber rows");
  const outcomes = await store.write((trx) =>
    upsertSubscribers(
      trx,
      store.engine,
      account,
      list.id,
      rows,
      { update, state: "active", recordOptedOut: false },
      now,
    ),
  );
  return outcomes.filter(
    (o) => o.outcome === "inserted" || o.outcome === "updated",
  ).length;
}
