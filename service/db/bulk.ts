// Rows given by the caller as a table in SQL, for statements that change many rows at once by key (one
// UPDATE ... FROM for a batch instead of one UPDATE a row): `with v(a, b) as (values (..), (..)) update
// t set x = v.b from v where t.a = v.a`. Both engines run this form (SQLite since 3.33). Every value is a
// bound parameter with an explicit cast, so PostgreSQL knows its type (a bare parameter in VALUES would be
// text) and SQLite gives it the column's affinity.

import { type RawBuilder, sql } from "kysely";

/** The SQL type of a column of a values table. */
export type ValuesType = "bigint" | "text";

/** Rows of one values table at most (each value a parameter: 2 columns x 2,000 stays far below both limits). */
export const VALUES_CHUNK = 2_000;

/**
 * `name(col, ...) as (values (cast($1 as type), ...), ...)`, for the WITH clause of a statement. `rows`
 * must not be empty and each row has one value per column, in the columns' order.
 */
export function valuesTable(
  name: string,
  columns: readonly (readonly [string, ValuesType])[],
  rows: readonly (readonly (number | string | null)[])[],
): RawBuilder<unknown> {
  if (rows.length === 0) throw new Error(`valuesTable ${name}: no rows`);
  const head = sql`${sql.ref(name)}(${sql.join(columns.map(([column]) => sql.ref(column)))})`;
  const tuples = rows.map((row) => {
    if (row.length !== columns.length)
      throw new Error(`valuesTable ${name}: a row of ${row.length} values for ${columns.length} columns`);
    return sql`(${sql.join(row.map((value, k) => sql`cast(${value} as ${sql.raw(columns[k]![1])})`))})`;
  });
  return sql`${head} as (values ${sql.join(tuples)})`;
}
