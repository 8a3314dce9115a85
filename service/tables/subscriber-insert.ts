// Writing subscribers with their membership of a list (docs/service-interface.md "Subscriber operations").
// The CSV bulk insert and the queued file import write through upsertSubscribers, one set-based path: a
// chunk of rows costs a handful of statements, whatever its size. A single insert goes through
// insertSubscriber, which picks the fastest of three paths with the same outcome and stored rows: SQLite's
// prepared statements in the group commit, PostgreSQL's one statement for a new address, or the general
// path (upsertSubscribers). test/service/subscriber-insert.test.ts runs the same inserts through each path
// on both engines and compares the rows.

import { type Kysely, type Transaction, sql } from "kysely";
import type { SqliteAccess, Db, Store } from "../db/database.js";
import type { Engine } from "../db/engine.js";
import { ACCOUNT_BY_ID, type AccountCheck, accountMatches, checkOf, matchingAccountSql } from "./accounts.js";
import type { Account, Database, MailingList, MembershipState, Subscriber } from "../db/schema.js";
import { notFound } from "../common/errors.js";
import { idFromText } from "../common/input.js";
import { listOf } from "./lists.js";
import { emailKey } from "./subscribers.js";

/** One subscriber row as the caller gave it; empty strings mean "not given". */
export interface SubscriberRow {
  readonly email: string;
  readonly name?: string | undefined;
  readonly format?: string | undefined;
  readonly countryCode?: string | undefined;
  readonly phone?: string | undefined;
  /** DD number → value; an empty value is "not given". */
  readonly fields?: ReadonlyMap<number, string> | undefined;
}

export interface UpsertOptions {
  /** Existing subscribers get the non-empty values given (true) or keep theirs (false). */
  readonly update: boolean;
  /** The membership state asked for: active, or pending (double opt-in; an active one stays active). */
  readonly state: "active" | "pending";
  /** Keep a bare subscriber record for opted-out addresses, so single inserts can return an id. */
  readonly recordOptedOut: boolean;
}

export interface UpsertOutcome {
  readonly id: number;
  readonly emailKey: string;
  readonly outcome: "inserted" | "updated" | "unchanged" | "optedOut";
  /** The membership's state after the write (undefined for opted-out addresses: nothing changed). */
  readonly state: MembershipState | undefined;
}

/** The ways a single insert can be written; insertSubscriber picks one (see the top of this file). */
export type InsertPath = "sqlite" | "postgres" | "general";

export interface SingleInsertOptions extends UpsertOptions {
  /**
   * Work in the insert's own transaction after the write, with the list and the outcome (the pending
   * insert's confirmation mail). Only the general path has such a transaction: given, it is the path.
   */
  readonly afterWrite?: (
    trx: Transaction<Database>,
    list: MailingList,
    outcome: UpsertOutcome,
  ) => Promise<void>;
  /** The path to take (tests compare them); default: the fastest the store and the options allow. */
  readonly path?: InsertPath;
}

/**
 * The path of a single insert on `store`: SQLite's prepared statements; on PostgreSQL, the one statement
 * for an active insert that updates (it falls back to the general path when the address is not new);
 * else the general path.
 */
function singleInsertPath(store: Store, options: SingleInsertOptions): InsertPath {
  if (options.afterWrite !== undefined) return "general";
  if (store.sqlite !== undefined) return "sqlite";
  if (store.engine === "postgres" && options.state === "active" && options.update) return "postgres";
  return "general";
}

/**
 * One subscriber row into the account's list named by `listIdText`, as upsertSubscribers writes it: NotFound
 * naming `listParameter` (nothing written) when the account has no such list; undefined for an opted-out
 * address that gets no record (recordOptedOut false). Every path gives the same outcome and rows.
 */
export async function insertSubscriber(
  store: Store,
  account: Account,
  listIdText: string | undefined,
  listParameter: string,
  row: SubscriberRow,
  options: SingleInsertOptions,
  now: number,
): Promise<UpsertOutcome | undefined> {
  const path = options.path ?? singleInsertPath(store, options);
  const upsert: UpsertOptions = {
    update: options.update,
    state: options.state,
    recordOptedOut: options.recordOptedOut,
  };
  if (path === "sqlite") {
    const sqlite = store.sqlite;
    if (sqlite === undefined) throw new Error("the sqlite insert path needs a SQLite store");
    return sqlite.writeSync(() =>
      upsertOneSqlite(sqlite, account, listIdText, listParameter, row, upsert, now),
    );
  }
  if (path === "postgres" && upsert.state === "active" && upsert.update) {
    const { id } = await insertNewPostgres(store.db, checkOf(account), listIdText, row, now);
    if (id !== undefined) return { id, emailKey: emailKey(row.email), outcome: "inserted", state: "active" };
  }
  return store.write(async (trx) => {
    const list = await listOf(trx, account, listIdText, listParameter);
    const [outcome] = await upsertSubscribers(trx, store.engine, account, list.id, [row], upsert, now);
    if (outcome !== undefined) await options.afterWrite?.(trx, list, outcome);
    return outcome;
  });
}

function mergedFields(stored: string, given: ReadonlyMap<number, string> | undefined): string {
  if (given === undefined || given.size === 0) return stored;
  const fields = JSON.parse(stored) as Record<string, string>;
  for (const [n, value] of given) if (value !== "") fields[String(n)] = value;
  return JSON.stringify(fields);
}

function givenOr(value: string | undefined, current: string): string {
  return value === undefined || value === "" ? current : value;
}

type StoredValues = Pick<Subscriber, "name" | "format" | "country_code" | "phone" | "fields">;

/** A stored subscriber updated with a row (an absent or empty value keeps the stored one), and whether anything changed. */
function updatedSubscriber(
  current: StoredValues,
  row: SubscriberRow,
): { next: StoredValues; changed: boolean } {
  const next = {
    name: givenOr(row.name, current.name),
    format: givenOr(row.format, current.format),
    country_code: givenOr(row.countryCode, current.country_code),
    phone: givenOr(row.phone, current.phone),
    fields: mergedFields(current.fields, row.fields),
  };
  const changed =
    next.name !== current.name ||
    next.format !== current.format ||
    next.country_code !== current.country_code ||
    next.phone !== current.phone ||
    next.fields !== current.fields;
  return { next, changed };
}

/** Rows per statement: 9 bound values a row stays far below both engines' parameter limits. */
/** A new subscriber's demographic fields as stored: JSON of the non-empty values by field number. */
function newFieldsJson(row: SubscriberRow): string {
  return mergedFields("{}", row.fields);
}

export const CHUNK_ROWS = 500;

/**
 * Adds `row` to the rows kept by address (case-insensitive): the last row of each address, in the order of
 * those last rows, as upsertSubscribers writes them (a caller that writes in chunks keeps them so).
 */
export function keepLatest(latest: Map<string, SubscriberRow>, row: SubscriberRow): void {
  const key = emailKey(row.email);
  latest.delete(key);
  latest.set(key, row);
}

/**
 * Writes rows into a list, in the caller's transaction. Rows with the same address (case-insensitive):
 * the last one counts. Opted-out addresses change nothing.
 */
export async function upsertSubscribers(
  trx: Db,
  engine: Engine,
  account: Account,
  listId: number,
  rows: readonly SubscriberRow[],
  options: UpsertOptions,
  now: number,
): Promise<UpsertOutcome[]> {
  const outcomes: UpsertOutcome[] = [];
  const latest = new Map<string, SubscriberRow>();
  for (const row of rows) keepLatest(latest, row);
  const entries = [...latest];
  for (let at = 0; at < entries.length; at += CHUNK_ROWS) {
    outcomes.push(
      ...(await upsertChunk(trx, engine, account, listId, entries.slice(at, at + CHUNK_ROWS), options, now)),
    );
  }
  return outcomes;
}

async function upsertChunk(
  trx: Db,
  engine: Engine,
  account: Account,
  listId: number,
  chunk: readonly (readonly [string, SubscriberRow])[],
  options: UpsertOptions,
  now: number,
): Promise<UpsertOutcome[]> {
  const keys = chunk.map(([key]) => key);
  const existingQuery = trx
    .selectFrom("subscribers")
    .select(["id", "email_key", "name", "format", "country_code", "phone", "fields"])
    .where("account_id", "=", account.id)
    .where("email_key", "in", keys);
  // On PostgreSQL the rows are locked until commit, so a concurrent writer cannot slip between the
  // read and the merged write; SQLite has one writer at a time anyway.
  const existingRows = await (engine === "postgres" ? existingQuery.forUpdate() : existingQuery).execute();
  const existing = new Map(existingRows.map((r) => [r.email_key, r]));
  const optedOut = new Set(
    (
      await trx
        .selectFrom("optouts")
        .select("email_key")
        .where("account_id", "=", account.id)
        .where("email_key", "in", keys)
        .execute()
    ).map((r) => r.email_key),
  );

  type Values = {
    account_id: number;
    email: string;
    email_key: string;
    name: string;
    format: string;
    country_code: string;
    phone: string;
    fields: string;
    created_at: number;
  };
  const writes: Values[] = [];
  const outcomeOf = new Map<string, UpsertOutcome["outcome"]>();
  const bare: Values[] = [];
  for (const [key, row] of chunk) {
    const current = existing.get(key);
    if (optedOut.has(key)) {
      outcomeOf.set(key, "optedOut");
      if (current === undefined && options.recordOptedOut) {
        bare.push({
          account_id: account.id,
          email: row.email,
          email_key: key,
          name: "",
          format: "HTML",
          country_code: "",
          phone: "",
          fields: "{}",
          created_at: now,
        });
      }
      continue;
    }
    if (current === undefined) {
      const fields = newFieldsJson(row);
      writes.push({
        account_id: account.id,
        email: row.email,
        email_key: key,
        name: row.name ?? "",
        format: givenOr(row.format, "HTML"),
        country_code: row.countryCode ?? "",
        phone: row.phone ?? "",
        fields,
        created_at: now,
      });
      outcomeOf.set(key, "inserted");
    } else if (options.update) {
      const { next, changed } = updatedSubscriber(current, row);
      if (changed)
        writes.push({ account_id: account.id, email: row.email, email_key: key, ...next, created_at: now });
      outcomeOf.set(key, changed ? "updated" : "unchanged");
    } else {
      outcomeOf.set(key, "unchanged");
    }
  }

  const ids = new Map(existingRows.map((r) => [r.email_key, r.id]));
  for (const batch of [writes, bare]) {
    if (batch.length === 0) continue;
    const written = await trx
      .insertInto("subscribers")
      .values(batch)
      .onConflict((oc) =>
        batch === bare
          ? oc.columns(["account_id", "email_key"]).doNothing()
          : oc.columns(["account_id", "email_key"]).doUpdateSet((eb) => ({
              name: eb.ref("excluded.name"),
              format: eb.ref("excluded.format"),
              country_code: eb.ref("excluded.country_code"),
              phone: eb.ref("excluded.phone"),
              fields: eb.ref("excluded.fields"),
            })),
      )
      .returning(["id", "email_key"])
      .execute();
    for (const r of written) ids.set(r.email_key, r.id);
  }
  const missing = keys.filter(
    (k) => !ids.has(k) && (outcomeOf.get(k) !== "optedOut" || options.recordOptedOut),
  );
  if (missing.length > 0) {
    // A concurrent insert of the same address won the race (opted-out bare records): read its id.
    const found = await trx
      .selectFrom("subscribers")
      .select(["id", "email_key"])
      .where("account_id", "=", account.id)
      .where("email_key", "in", missing)
      .execute();
    for (const r of found) ids.set(r.email_key, r.id);
  }

  const joining = keys.filter((k) => outcomeOf.get(k) !== "optedOut");
  const states = new Map<string, MembershipState>();
  if (joining.length > 0) {
    const memberships = joining.map((k) => ({
      list_id: listId,
      subscriber_id: ids.get(k)!,
      account_id: account.id,
      state: options.state as MembershipState,
      created_at: now,
      changed_at: now,
    }));
    await trx
      .insertInto("memberships")
      .values(memberships)
      .onConflict((oc) =>
        oc
          .columns(["list_id", "subscriber_id"])
          .doUpdateSet({ state: options.state, changed_at: now })
          // Active stays active; asking again for the same state keeps its time.
          .where(sql.ref("memberships.state"), "<>", "active")
          .where(sql.ref("memberships.state"), "<>", options.state),
      )
      .execute();
    if (options.state === "active") {
      // Every membership written or kept is active now.
      for (const k of joining) states.set(k, "active");
    } else {
      // Pending asked: a membership that was active stayed active; read which.
      const after = await trx
        .selectFrom("memberships")
        .select(["subscriber_id", "state"])
        .where("list_id", "=", listId)
        .where(
          "subscriber_id",
          "in",
          memberships.map((m) => m.subscriber_id),
        )
        .execute();
      const stateById = new Map(after.map((m) => [m.subscriber_id, m.state]));
      for (const k of joining) states.set(k, stateById.get(ids.get(k)!)!);
    }
  }
  return keys
    .filter((k) => ids.has(k))
    .map((k) => ({ id: ids.get(k)!, emailKey: k, outcome: outcomeOf.get(k)!, state: states.get(k) }));
}

// ---- SQLite's single-row path ------------------------------------------------------------------------
//
// A single insert (InsertSubscriberSid and friends) on SQLite runs these prepared statements inside
// SqliteAccess.writeSync: the same reads and writes as upsertChunk does for one row, with the
// existing-subscriber and opt-out reads merged into one statement. Constant texts, bound values only.

const SQL = {
  /**
   * Always one row: whether the account has the list, the subscriber's columns (null when there is
   * none) and whether the address opted out.
   */
  existing:
    "select l.id as list_id, s.id, s.name, s.format, s.country_code, s.phone, s.fields, " +
    "exists (select 1 from optouts o where o.account_id = ? and o.email_key = ?) as opted_out " +
    "from (select 1) left join mailing_lists l on l.id = ? and l.account_id = ? " +
    "left join subscribers s on s.account_id = ? and s.email_key = ?",
  account: ACCOUNT_BY_ID,
  upsert:
    "insert into subscribers (account_id, email, email_key, name, format, country_code, phone, fields, created_at) " +
    "values (?, ?, ?, ?, ?, ?, ?, ?, ?) on conflict (account_id, email_key) do update set " +
    "name = excluded.name, format = excluded.format, country_code = excluded.country_code, phone = excluded.phone, fields = excluded.fields " +
    "returning id",
  bare:
    "insert into subscribers (account_id, email, email_key, name, format, country_code, phone, fields, created_at) " +
    "values (?, ?, ?, '', 'HTML', '', '', '{}', ?) on conflict (account_id, email_key) do nothing returning id",
  idByKey: "select id from subscribers where account_id = ? and email_key = ?",
  membership:
    "insert into memberships (list_id, subscriber_id, account_id, state, created_at, changed_at) values (?, ?, ?, ?, ?, ?) " +
    "on conflict (list_id, subscriber_id) do update set state = ?, changed_at = ? " +
    "where memberships.state <> ? and memberships.state <> ?",
  membershipState: "select state from memberships where list_id = ? and subscriber_id = ?",
} as const;

type Statements = { readonly [Name in keyof typeof SQL]: ReturnType<SqliteAccess["statement"]> };

const statementsOf = new WeakMap<SqliteAccess, Statements>();

function statements(sqlite: SqliteAccess): Statements {
  let found = statementsOf.get(sqlite);
  if (found === undefined) {
    found = Object.fromEntries(
      Object.entries(SQL).map(([name, text]) => [name, sqlite.statement(text)]),
    ) as unknown as Statements;
    statementsOf.set(sqlite, found);
  }
  return found;
}

/**
 * The account of a cached credentials check (Authenticator.cached), read inside SqliteAccess.writeSync
 * work, or undefined when the pair no longer matches it.
 */
export function cachedAccountSqlite(sqlite: SqliteAccess, check: AccountCheck): Account | undefined {
  const account = statements(sqlite).account.get(check.accountId) as Account | undefined;
  return accountMatches(check, account) ? account : undefined;
}

interface ExistingRow {
  readonly list_id: number | null;
  readonly id: number | null;
  readonly name: string;
  readonly format: string;
  readonly country_code: string;
  readonly phone: string;
  readonly fields: string;
  readonly opted_out: number;
}

/**
 * listOf and upsertSubscribers for one row on SQLite's prepared statements, inside
 * SqliteAccess.writeSync: NotFound naming `listParameter` (before anything is written) when the account
 * has no such list, else the same outcome, state and stored values as upsertChunk gives that row.
 */
export function upsertOneSqlite(
  sqlite: SqliteAccess,
  account: Account,
  listIdText: string | undefined,
  listParameter: string,
  row: SubscriberRow,
  options: UpsertOptions,
  now: number,
): UpsertOutcome | undefined {
  const run = statements(sqlite);
  const key = emailKey(row.email);
  const listIdGiven = idFromText(listIdText);
  const found = (
    listIdGiven === undefined
      ? undefined
      : run.existing.get(account.id, key, listIdGiven, account.id, account.id, key)
  ) as ExistingRow | undefined;
  if (found === undefined || found.list_id === null) throw notFound("mailing list", listParameter);
  const listId = found.list_id;
  const current = found.id === null ? undefined : { ...found, id: found.id };
  let id = current?.id;
  let outcome: UpsertOutcome["outcome"];
  if (found.opted_out === 1) {
    if (current === undefined && options.recordOptedOut) {
      const written = run.bare.get(account.id, row.email, key, now) as { id: number } | undefined;
      id = written?.id ?? (run.idByKey.get(account.id, key) as { id: number } | undefined)?.id;
    }
    return id === undefined ? undefined : { id, emailKey: key, outcome: "optedOut", state: undefined };
  }
  if (current === undefined) {
    const fields = newFieldsJson(row);
    const written = run.upsert.get(
      account.id,
      row.email,
      key,
      row.name ?? "",
      givenOr(row.format, "HTML"),
      row.countryCode ?? "",
      row.phone ?? "",
      fields,
      now,
    ) as { id: number };
    id = written.id;
    outcome = "inserted";
  } else if (options.update) {
    const { next, changed } = updatedSubscriber(current, row);
    if (changed) {
      id = (
        run.upsert.get(
          account.id,
          row.email,
          key,
          next.name,
          next.format,
          next.country_code,
          next.phone,
          next.fields,
          now,
        ) as { id: number }
      ).id;
    }
    outcome = changed ? "updated" : "unchanged";
  } else {
    outcome = "unchanged";
  }
  const subscriberId = id!;
  const state = options.state as MembershipState;
  run.membership.run(listId, subscriberId, account.id, state, now, now, state, now, "active", state);
  // Active asked: the membership written or kept is active. Pending asked: an active one stayed active.
  const after =
    state === "active"
      ? "active"
      : (run.membershipState.get(listId, subscriberId) as { state: MembershipState }).state;
  return { id: subscriberId, emailKey: key, outcome, state: after };
}

// ---- PostgreSQL's single-row path -------------------------------------------------------------------
//
// On PostgreSQL every statement is a round trip to the server, and a single insert through
// upsertSubscribers takes seven (BEGIN, the list, the existing subscriber, the opt-out, the subscriber, the
// membership, COMMIT) after the credentials read. The usual single insert, a new address on the account's
// list, is one statement here, the credentials check included: it writes the subscriber and its active
// membership only when the account still matches the check (password and name unchanged), has the fields
// given activated, the list is the account's, the address has not opted out and is new; otherwise it
// writes nothing and the caller takes the general path, which gives the answer (InvalidCredentials,
// FieldNotActivated, NotFound, opted out, an update) as before.

/** What insertNewPostgres did: the account row when it still matched the check, the id when it inserted. */
export interface PostgresInsert {
  readonly account: Account | undefined;
  readonly id: number | undefined;
}

/**
 * Inserts `row` as a new subscriber with an active membership of the list in one statement (atomic on its
 * own) after checking the account against `check` in the same statement; see above for when it writes
 * nothing (the caller then runs the general path).
 */
export async function insertNewPostgres(
  db: Kysely<Database>,
  check: AccountCheck,
  listIdText: string | undefined,
  row: SubscriberRow,
  now: number,
): Promise<PostgresInsert> {
  // An id that is no number cannot be a list: the statement still checks the account.
  const listId = idFromText(listIdText) ?? 0;
  const key = emailKey(row.email);
  const fields = newFieldsJson(row);
  let highestField = 0;
  for (const n of row.fields?.keys() ?? []) highestField = Math.max(highestField, n);
  const accountId = check.accountId;
  const result = await sql<{ account: Account | null; subscriber_id: number | null }>`
    with account as (${matchingAccountSql(check)}),
    list as (
      select id from mailing_lists
      where id = ${listId} and account_id = ${accountId}
        and exists (select 1 from account where dd_fields >= ${highestField})
    ),
    subscriber as (
      insert into subscribers (account_id, email, email_key, name, format, country_code, phone, fields, created_at)
      select ${accountId}, ${row.email}, ${key}, ${row.name ?? ""}, ${givenOr(row.format, "HTML")},
        ${row.countryCode ?? ""}, ${row.phone ?? ""}, ${fields}, ${now}
      where exists (select 1 from list)
        and not exists (select 1 from optouts where account_id = ${accountId} and email_key = ${key})
        and not exists (select 1 from subscribers where account_id = ${accountId} and email_key = ${key})
      -- A concurrent insert of the same address: nothing here, the general path reads it.
      on conflict (account_id, email_key) do nothing
      returning id
    ),
    membership as (
      insert into memberships (list_id, subscriber_id, account_id, state, created_at, changed_at)
      select list.id, subscriber.id, ${accountId}, 'active', ${now}, ${now} from list, subscriber
      returning subscriber_id
    )
    select (select row_to_json(account) from account) as account,
      (select subscriber_id from membership) as subscriber_id`.execute(db);
  const found = result.rows[0];
  return { account: found?.account ?? undefined, id: found?.subscriber_id ?? undefined };
}
