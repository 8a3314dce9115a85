// Mailing lists as the operations find them: by id, within the account.

import type { Db } from "../db/database.js";
import type { Account, MailingList } from "../db/schema.js";
import { notFound } from "../common/errors.js";
import { idFromText } from "../common/input.js";

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
