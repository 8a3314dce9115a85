// `filter create | show`: an account's filters, one condition on a subscriber field (strFilterID of
// InsertActiveTemplateModule, strFilterId of SendNewsletter). Fields: Email, Name, Format, CountryCode,
// Phone, DD1..DD<activated>; operators = != contains startsWith (case-insensitive) and empty notEmpty
// (no value). Filters are evaluated in code (newsletters.ts evaluateFilter), never turned into SQL.

import { FILTER_OPERATORS, canonicalField, canonicalOperator } from "../operations/mailing/newsletters.js";
import type { FiltersTable } from "../db/schema.js";
import { accountFilters, insertFilter } from "../tables/filters.js";
import type { Selectable } from "kysely";
import { checkLine } from "./account.js";
import { AdminError, type Noun, findAccount, idOption, verb } from "./context.js";
import { record, table, timeJson, timeText } from "./format.js";

type Filter = Selectable<FiltersTable>;

function condition(f: Filter): string {
  return f.operator === "empty" || f.operator === "notEmpty"
    ? `${f.field} ${f.operator}`
    : `${f.field} ${f.operator} ${JSON.stringify(f.value)}`;
}

function filterJson(f: Filter) {
  return {
    id: f.id,
    name: f.name,
    field: f.field,
    operator: f.operator,
    value: f.value,
    createdAt: timeJson(f.created_at),
  };
}

function filterRecord(f: Filter): string {
  return record([
    ["id", f.id],
    ["name", f.name],
    ["condition", condition(f)],
    ["created", timeText(f.created_at)],
  ]);
}

const create = verb({
  name: "create",
  describe: "Create a filter (one condition on a subscriber field) in an account",
  options: {
    account: { describe: "User name of the account", required: true },
    name: { describe: "The filter's name", required: true },
    field: { describe: "Email, Name, Format, CountryCode, Phone or DD1..DD100 (any case)", required: true },
    operator: { describe: "How to compare", required: true, choices: FILTER_OPERATORS },
    value: { describe: "The value compared with (not with empty / notEmpty)" },
  },
  epilog:
    "= != contains startsWith compare case-insensitively; a missing DD value is empty. Example: " +
    "filter create --account U --name Sweden --field DD3 --operator = --value SE",
  async run(ctx, o) {
    const name = checkLine(o.name, "--name");
    if (name === "") throw new AdminError("--name must not be empty");
    const field = canonicalField(o.field);
    if (field === undefined)
      throw new AdminError(
        `--field must be Email, Name, Format, CountryCode, Phone or DD1..DD100, not "${o.field}"`,
      );
    const operator = canonicalOperator(o.operator);
    if (operator === undefined)
      throw new AdminError(`--operator must be one of ${FILTER_OPERATORS.join(" ")}, not "${o.operator}"`);
    const bare = operator === "empty" || operator === "notEmpty";
    if (bare && o.value !== undefined && o.value !== "")
      throw new AdminError(`--value: the ${operator} operator takes no value`);
    if (!bare && o.value === undefined)
      throw new AdminError(`--value is required with the ${operator} operator`);
    const value = bare ? "" : checkLine(o.value ?? "", "--value", 500);
    const account = await findAccount(ctx, o.account);
    if (field.startsWith("DD") && Number(field.slice(2)) > account.dd_fields) {
      throw new AdminError(
        `--field: ${field} is not activated on account ${account.username} (DD1 to DD${account.dd_fields} are)`,
      );
    }
    const { db } = await ctx.store();
    const filter = await insertFilter(db, {
      account_id: account.id,
      name,
      field,
      operator,
      value,
      created_at: ctx.now(),
    });
    return {
      json: filterJson(filter),
      text: `Filter ${filter.id} "${filter.name}" created in ${account.username} (strFilterID ${filter.id}).\n${filterRecord(filter)}`,
    };
  },
});

const show = verb({
  name: "show",
  describe: "Show an account's filters, or one",
  options: {
    account: { describe: "User name of the account", required: true },
    id: { describe: "One filter's id (default: every filter of the account)" },
  },
  epilog: "--json prints an object for --id, else an array.",
  async run(ctx, o) {
    const id = o.id === undefined ? undefined : idOption(o.id);
    const account = await findAccount(ctx, o.account);
    const { db } = await ctx.store();
    const filters = await accountFilters(db, account.id, id);
    if (id !== undefined) {
      const filter = filters[0];
      if (filter === undefined) throw new AdminError(`--id: account ${account.username} has no filter ${id}`);
      return { json: filterJson(filter), text: filterRecord(filter) };
    }
    return {
      json: filters.map(filterJson),
      text: table(
        ["id", "name", "condition", "created"],
        filters.map((f) => [f.id, f.name, condition(f), timeText(f.created_at)]),
        `Account ${account.username} has no filters yet: npm run admin -- filter create --account ${account.username} --name NAME --field DD3 --operator = --value SE`,
      ),
    };
  },
});

export const filterNoun: Noun = {
  name: "filter",
  describe: "Filters on subscriber fields (strFilterID of InsertActiveTemplateModule): create, show",
  verbs: [create, show],
};
