// The filters table: an account's subscriber filters (a field, an operator and a value), made by the admin
// CLI (`filter create`), named by newsletter modules and sendings; what a rule matches is decided by
// operations/mailing/newsletters.ts (evaluateFilter).

import type { Insertable, Selectable } from "kysely";
import type { Db } from "../db/database.js";
import type { Account, FiltersTable } from "../db/schema.js";
import { notFound } from "../common/errors.js";
import { idFromText } from "../common/input.js";
import { newsletterSendingFilterIds } from "./sendings.js";

type Filter = Selectable<FiltersTable>;

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

/** Adds a filter; returns it. */
export async function insertFilter(db: Db, row: Omit<Insertable<FiltersTable>, "id">): Promise<Filter> {
  return db.insertInto("filters").values(row).returningAll().executeTakeFirstOrThrow();
}

/** The account's filters by id, or only the one of `id` when given. */
export async function accountFilters(db: Db, accountId: number, id?: number): Promise<Filter[]> {
  let query = db.selectFrom("filters").selectAll().where("account_id", "=", accountId).orderBy("id");
  if (id !== undefined) query = query.where("id", "=", id);
  return query.execute();
}

/** A filter's rule, by id alone; undefined when it is gone. */
export async function filterRule(
  db: Db,
  id: number,
): Promise<Pick<Filter, "field" | "operator" | "value"> | undefined> {
  return db
    .selectFrom("filters")
    .select(["field", "operator", "value"])
    .where("id", "=", id)
    .executeTakeFirst();
}

/** The account's distinct filters that the newsletter's modules or its sendings use, by id. */
export async function newsletterFilters(
  db: Db,
  accountId: number,
  newsletterId: number,
): Promise<Pick<Filter, "id" | "name">[]> {
  return db
    .selectFrom("filters")
    .select(["id", "name"])
    .where("account_id", "=", accountId)
    .where((eb) =>
      eb.or([
        eb(
          "id",
          "in",
          eb
            .selectFrom("newsletter_modules")
            .select("filter_id")
            .where("newsletter_id", "=", newsletterId)
            .where("filter_id", "is not", null)
            .$narrowType<{ filter_id: number }>(),
        ),
        eb("id", "in", newsletterSendingFilterIds(db, newsletterId)),
      ]),
    )
    .orderBy("id")
    .execute();
}
