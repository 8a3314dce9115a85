// The demographic fields (DD1..DDn) a subscriber operation is given: parsed and checked against the
// account's activated count before anything is written.

import { fieldNotActivated } from "../../common/errors.js";
import type { Account } from "../../db/schema.js";

/** strDatafields/strDatavalues (shape already checked by the generated rules) as DD number → value. */
export function demographicValues(
  fieldsText: string | undefined,
  valuesText: string | undefined,
): Map<number, string> {
  const fields = new Map<number, string>();
  if (fieldsText === undefined || fieldsText === "") return fields;
  const delimiter = fieldsText.includes("|") ? "|" : ";";
  const names = fieldsText.split(delimiter);
  const values = (valuesText ?? "").split(delimiter);
  names.forEach((name, i) => fields.set(Number(name.trim().slice(2)), values[i] ?? ""));
  return fields;
}

/** Refuses a DD field beyond the account's activated count, before anything is written. */
export function checkActivated(account: Account, fields: Iterable<number>, parameter: string): void {
  for (const n of fields) if (n > account.dd_fields) throw fieldNotActivated(n, account.dd_fields, parameter);
}
