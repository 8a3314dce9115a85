// Filters as the operations name them: an optional id, which when given must be the account's filter.

import type { Db } from "../db/database.js";
import type { Account } from "../db/schema.js";
import { notFound } from "../common/errors.js";
import { idFromText } from "../common/input.js";

/** The filter's id; null when the parameter is absent or blank; NotFound naming it when not the account's. */
export async function optionalFilterId(
  db: Db,
  account: Pick<Account, "id">,
  filterIdText: string | undefined,
  parameter: string,
): Promise<number | null> {
  if (filterIdText === undefined || filterIdText.trim() === "") return null;
  const id = idFromText(filterIdText);
  const filter =
    id === undefined
      ? undefined
      : await db
          .selectFrom("filters")
          .select("id")
          .where("id", "=", id)
          .where("account_id", "=", account.id)
          .executeTakeFirst();
  if (filter === undefined) throw notFound("filter", parameter);
  return filter.id;
}
