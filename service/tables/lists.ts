// The mailing_lists table: an account's lists, their sender and charset. Made by the admin CLI (`list
// create`), changed by UpdateMailingList, found by id by the operations (listOf: NotFound naming the
// parameter), the admin CLI, the import worker and the console. Members are the subscribers group's
// (subscribers.ts); a query from another group's rows that names a list (an import's or a trigger's list)
// lives in that group's module.

import type { Insertable, Updateable } from "kysely";
import type { Db } from "../db/database.js";
import type { Account, MailingList, MailingListsTable } from "../db/schema.js";
import { notFound } from "../common/errors.js";
import { idFromText } from "../common/input.js";

/** The account's list named by the parameter's text; NotFound naming the parameter when there is none. */
export async function listOf(
  db: Db,
  account: Account,
  listIdText: string | undefined,
  parameter: string,
): Promise<MailingList> {
  const id = idFromText(listIdText);
  const list =
    id === undefined
      ? undefined
      : await db
          .selectFrom("mailing_lists")
          .selectAll()
          .where("id", "=", id)
          .where("account_id", "=", account.id)
          .executeTakeFirst();
  if (list === undefined) throw notFound("mailing list", parameter);
  return list;
}

/** Adds a list; returns it. */
export async function insertList(
  db: Db,
  row: Omit<Insertable<MailingListsTable>, "id">,
): Promise<MailingList> {
  return db.insertInto("mailing_lists").values(row).returningAll().executeTakeFirstOrThrow();
}

/** Changes a list's name, sender, description or charset. */
export async function updateList(
  db: Db,
  id: number,
  changes: Pick<
    Updateable<MailingListsTable>,
    "name" | "from_name" | "from_email" | "description" | "charset"
  >,
): Promise<void> {
  await db.updateTable("mailing_lists").set(changes).where("id", "=", id).execute();
}

/** The account's lists by id, or only the one of `id` when given. */
export async function accountLists(db: Db, accountId: number, id?: number): Promise<MailingList[]> {
  let query = db.selectFrom("mailing_lists").selectAll().where("account_id", "=", accountId).orderBy("id");
  if (id !== undefined) query = query.where("id", "=", id);
  return query.execute();
}

/** The account's list of that id, its id and name; undefined when the account has none of that id. */
export async function accountListName(
  db: Db,
  accountId: number,
  id: number,
): Promise<Pick<MailingList, "id" | "name"> | undefined> {
  return db
    .selectFrom("mailing_lists")
    .select(["id", "name"])
    .where("id", "=", id)
    .where("account_id", "=", accountId)
    .executeTakeFirst();
}

/** Whether the list exists (and, when `accountId` is given, is that account's). */
export async function listExists(db: Db, id: number, accountId?: number): Promise<boolean> {
  const list = await db
    .selectFrom("mailing_lists")
    .select("id")
    .where("id", "=", id)
    .$if(accountId !== undefined, (q) => q.where("account_id", "=", accountId!))
    .executeTakeFirst();
  return list !== undefined;
}

/** A list's name, by id alone; undefined when it is gone. */
export async function listName(db: Db, id: number): Promise<string | undefined> {
  const list = await db.selectFrom("mailing_lists").select("name").where("id", "=", id).executeTakeFirst();
  return list?.name;
}

/** A page of the account's lists by id, after `after` (the previous page's last id), at most `limit`. */
export async function listPage(
  db: Db,
  accountId: number,
  after: number | undefined,
  limit: number,
): Promise<Pick<MailingList, "id" | "name" | "description" | "from_email" | "created_at">[]> {
  return db
    .selectFrom("mailing_lists")
    .select(["id", "name", "description", "from_email", "created_at"])
    .where("account_id", "=", accountId)
    .$if(after !== undefined, (q) => q.where("id", ">", after!))
    .orderBy("id")
    .limit(limit)
    .execute();
}

/** The account's lists by name (then id), their ids and names, at most `limit` (a form's choices). */
export async function listChoices(
  db: Db,
  accountId: number,
  limit: number,
): Promise<Pick<MailingList, "id" | "name">[]> {
  return db
    .selectFrom("mailing_lists")
    .select(["id", "name"])
    .where("account_id", "=", accountId)
    .orderBy("name")
    .orderBy("id")
    .limit(limit)
    .execute();
}
