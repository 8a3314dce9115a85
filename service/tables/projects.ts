// The transactional table group (projects, transactions): an account's projects (a subject and bodies
// merged per call; made by the admin CLI's `project create`) and the transactions InsertTransaction queued,
// each with the mail it queued and its idempotency key. What a call checks and renders is
// operations/transactional/transactions.ts's; the mail is queued through delivery/mail.ts, except in
// PostgreSQL's single statement (insertTransactionStatement), which writes the mail and the transaction
// together. Read by the admin CLI and the console's transactional page.

import { type Insertable, type Kysely, sql } from "kysely";
import type { Db, Store } from "../db/database.js";
import type { Account, Database, Project, ProjectsTable, TransactionsTable } from "../db/schema.js";
import { type AccountCheck, matchingAccountSql } from "./accounts.js";

/** Adds a project; returns it. */
export async function insertProject(db: Db, row: Omit<Insertable<ProjectsTable>, "id">): Promise<Project> {
  return db.insertInto("projects").values(row).returningAll().executeTakeFirstOrThrow();
}

/** The account's projects by id (only the one of `id` when given). */
export async function accountProjects(db: Db, accountId: number, id?: number): Promise<Project[]> {
  let query = db.selectFrom("projects").selectAll().where("account_id", "=", accountId).orderBy("id");
  if (id !== undefined) query = query.where("id", "=", id);
  return query.execute();
}

/** How many transactions each of the account's projects has (only the one of `projectId` when given). */
export async function transactionCounts(
  db: Db,
  accountId: number,
  projectId?: number,
): Promise<Map<number, number>> {
  let countQuery = db
    .selectFrom("transactions")
    .select((eb) => ["project_id", eb.fn.countAll().as("n")])
    .where("account_id", "=", accountId)
    .groupBy("project_id");
  if (projectId !== undefined) countQuery = countQuery.where("project_id", "=", projectId);
  return new Map((await countQuery.execute()).map((r) => [r.project_id, Number(r.n)]));
}

/** The account's `limit` newest projects (the console's page). */
export async function projectPage(
  db: Db,
  accountId: number,
  limit: number,
): Promise<Pick<Project, "id" | "name" | "subject" | "from_email" | "created_at">[]> {
  return db
    .selectFrom("projects")
    .select(["id", "name", "subject", "from_email", "created_at"])
    .where("account_id", "=", accountId)
    .orderBy("id", "desc")
    .limit(limit)
    .execute();
}

/** The account's transactions with their projects' names, newest first, older than `before` when given. */
export async function transactionPage(db: Db, accountId: number, limit: number, before: number | undefined) {
  return db
    .selectFrom("transactions as t")
    .innerJoin("projects as p", "p.id", "t.project_id")
    .select(["t.id", "t.identifier", "t.email", "t.send_at", "t.mail_id", "p.name as project"])
    .where("t.account_id", "=", accountId)
    .$if(before !== undefined, (q) => q.where("t.id", "<", before!))
    .orderBy("t.id", "desc")
    .limit(limit)
    .execute();
}

/** The account's project of that id, locked for the rest of the transaction on PostgreSQL. */
export async function lockedProject(
  trx: Db,
  engine: Store["engine"],
  accountId: number,
  id: number,
): Promise<Project | undefined> {
  return trx
    .selectFrom("projects")
    .selectAll()
    .where("id", "=", id)
    .where("account_id", "=", accountId)
    .$if(engine === "postgres", (q) => q.forUpdate())
    .executeTakeFirst();
}

/** The newest transaction of the project with that identifier made after `since`, if any. */
export async function transactionByIdentifier(
  trx: Db,
  projectId: number,
  identifier: string,
  since: number,
): Promise<number | undefined> {
  const earlier = await trx
    .selectFrom("transactions")
    .select("id")
    .where("project_id", "=", projectId)
    .where("identifier", "=", identifier)
    .where("created_at", ">", since)
    .orderBy("id", "desc")
    .limit(1)
    .executeTakeFirst();
  return earlier?.id;
}

/** Records a transaction; returns its id. */
export async function insertTransactionRow(
  trx: Db,
  row: Omit<Insertable<TransactionsTable>, "id">,
): Promise<number> {
  const inserted = await trx.insertInto("transactions").values(row).returning("id").executeTakeFirstOrThrow();
  return inserted.id;
}

/** A project's columns the mail is made of, fingerprinted by PostgreSQL as transactions.ts does in JS. */
const FINGERPRINT_SQL = sql`md5(${sql.join(
  ["subject", "text_body", "html_body", "from_name", "from_email"].map(
    (column) => sql`octet_length(p.${sql.ref(column)})::text || ':' || p.${sql.ref(column)}`,
  ),
  sql` || `,
)})`;

/** What a transaction rendered from cached settings was made of, for the statement to re-check. */
export interface CachedSource {
  readonly account: Pick<Account, "id" | "time_zone" | "from_name" | "from_email">;
  readonly projectId: number;
  /** The project's fingerprint (transactions.ts `fingerprint`). */
  readonly fingerprint: string;
}

/**
 * PostgreSQL's single statement for a transaction without an identifier: when the credentials still match
 * `check` and the project and account settings are still those the mail was rendered from, inserts the mail
 * (`mailRow`: mail_outbox's columns and values) and the transaction; else writes nothing. Returns the
 * matching account (none: stale credentials) and the transaction's id (none: nothing written).
 */
export async function insertTransactionStatement(
  db: Kysely<Database>,
  check: AccountCheck,
  source: CachedSource,
  mailRow: Readonly<Record<string, unknown>>,
  transaction: { email: string; sendAt: number; now: number },
): Promise<{ account: Account | null; id: number | null } | undefined> {
  const { account } = source;
  const columns = Object.keys(mailRow);
  const result = await sql<{ account: Account | null; id: number | null }>`
    with account as (${matchingAccountSql(check)}),
    source as (
      select 1 from account a join projects p on p.id = ${source.projectId} and p.account_id = a.id
      where a.time_zone = ${account.time_zone} and a.from_name = ${account.from_name}
        and a.from_email = ${account.from_email} and ${FINGERPRINT_SQL} = ${source.fingerprint}
    ),
    mail as (
      insert into mail_outbox (${sql.join(columns.map((column) => sql.ref(column)))})
      select ${sql.join(Object.values(mailRow))} from source
      returning id
    ),
    written as (
      insert into transactions (account_id, project_id, identifier, email, send_at, mail_id, created_at)
      select ${account.id}, ${source.projectId}, null, ${transaction.email}, ${transaction.sendAt}, mail.id, ${transaction.now} from mail
      returning id
    )
    select row_to_json(account) as account, (select id from written) as id
    from (select 1) one left join account on true`.execute(db);
  return result.rows[0];
}
