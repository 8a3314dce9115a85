// Template newsletters (docs/service-interface.md "Mailing list, newsletter and sending operations"):
// InsertTemplateNewsletter, InsertActiveTemplateModule, GetNewsletterFilters, and the pure pieces the
// sending worker renders with (evaluateFilter, renderNewsletter).
//
// - Templates, modules and filters are the admin CLI's (`template`, `module`, `filter`). Every name or id
//   a caller gives must be the calling account's; anything else is NotFound naming the parameter.
// - InsertTemplateNewsletter: strTemplateName is matched exactly (templates are unique by name per
//   account). The subject is strSubject, or the template's subject when strSubject is omitted or blank
//   (both blank is InvalidValue naming strSubject); strTracking defaults to all.
// - InsertActiveTemplateModule: strModuleCode omitted or empty copies the module's code (a copy: editing
//   the module later does not change newsletters made before); strModuleIndex and strHolderID default
//   to 0 (the generated rules refuse anything but a whole number from 0). The holder must be one of the
//   template's `{{holder:N}}` (HTML or text), else InvalidValue naming strHolderID, so a module never
//   silently goes nowhere. strFilterID, when given, must be the account's filter.
// - Lengths (limits.ts): strTemplateName, strNewsletterName and strSubject at most 255 characters,
//   strModuleCode at most 65,536, and a newsletter's placed modules, merged at their longest (each merge
//   tag counted 500 characters), at most 262,144 together (the newsletter row is locked FOR UPDATE on
//   PostgreSQL while that is checked); more is TooLong naming the parameter, with nothing written.
// - GetNewsletterFilters lists the distinct filters the newsletter's modules and sendings (SendNewsletter's
//   strFilterId) use, ordered by id.
// - Filters compare without SQL: the field's value (a missing DD field is "") against the filter's
//   value, case-insensitively for = != contains startsWith; empty/notEmpty look at the value with
//   surrounding white space removed.
// - Rendering fills each `{{holder:N}}` with its modules in (module_index, id) order, leaving out those
//   whose filter the recipient does not match (an unused holder becomes empty), then merges the tags
//   once (merge.ts): values by their context in the HTML (escaped; a URL attribute never gets a scheme
//   other than http, https or mailto from a value), raw in the text, one line in the subject. Text
//   holders get each module's HTML as plain text (htmlToText), one per line. A holder tag inside a
//   module's code is not filled again (it stays as written). A template whose text body is empty gets
//   the merged HTML as plain text (delivery/plain-text.ts: links kept as `text (href)`), so no mail, HTML
//   or Text format, has an empty text part.

import { ErrorCodes, clientError } from "../../../generated/server.js";
import type {
  InsertActiveTemplateModuleParams,
  InsertTemplateNewsletterParams,
  NewsletterFilterResult,
} from "../../../generated/types.js";
import type { Store, Db } from "../../db/database.js";
import type {
  Account,
  FilterOperator,
  FiltersTable,
  NewsletterModulesTable,
  NewslettersTable,
  Subscriber,
  TemplatesTable,
  Tracking,
} from "../../db/schema.js";
import type { Selectable } from "kysely";
import { notFound } from "../../common/errors.js";
import { newsletterFilters, optionalFilterId } from "../../tables/filters.js";
import {
  accountModule,
  accountNewsletter,
  insertNewsletter,
  insertPlacedModule,
  placedModuleCodes,
  placedModules,
  templateBodies,
  templateById,
  templateByName,
} from "../../tables/newsletters.js";
import { idFromText } from "../../common/input.js";
import {
  MAX_FIELD_VALUE,
  MAX_MODULE_CODE,
  MAX_NAME,
  MAX_NEWSLETTER_MODULES,
  MAX_SUBJECT,
  characterCount,
  checkLength,
} from "../../common/limits.js";
import { type MergeValues, mergeHtml, mergeTagCount, mergeTemplate } from "../../common/merge.js";
import { htmlToText } from "../../delivery/plain-text.js";

export type Template = Selectable<TemplatesTable>;
export type Newsletter = Selectable<NewslettersTable>;
export type Filter = Selectable<FiltersTable>;
export type NewsletterModule = Selectable<NewsletterModulesTable>;

/** What a filter needs to be evaluated. */
export type FilterRule = Pick<Filter, "field" | "operator" | "value">;

/** A module placed in a newsletter, with its filter (if any) resolved. */
export interface PlacedModule {
  readonly id: number;
  readonly code: string;
  readonly module_index: number;
  readonly holder_id: number;
  readonly filter: FilterRule | null;
  /** The code as plain text (htmlToText, trimmed), when made once for many recipients (a sending). */
  readonly text?: string;
}

/** The recipient fields filters and merge tags read. */
export type Recipient = Pick<Subscriber, "email" | "name" | "format" | "country_code" | "phone" | "fields">;

export const FILTER_OPERATORS: readonly FilterOperator[] = [
  "=",
  "!=",
  "contains",
  "startsWith",
  "empty",
  "notEmpty",
];

const FIXED_FIELDS = ["Email", "Name", "Format", "CountryCode", "Phone"] as const;

/** A filter field name in its canonical spelling (Email, Name, Format, CountryCode, Phone, DD1..DD100), any case given; undefined when it is none. */
export function canonicalField(text: string): string | undefined {
  const trimmed = text.trim();
  const fixed = FIXED_FIELDS.find((f) => f.toLowerCase() === trimmed.toLowerCase());
  if (fixed !== undefined) return fixed;
  const dd = /^dd([1-9]\d?|100)$/i.exec(trimmed);
  return dd === null ? undefined : `DD${dd[1]}`;
}

/** The operator as stored (`startsWith`, `notEmpty`: any case given), or undefined. */
export function canonicalOperator(text: string): FilterOperator | undefined {
  const trimmed = text.trim().toLowerCase();
  return FILTER_OPERATORS.find((op) => op.toLowerCase() === trimmed);
}

/** The DD fields of a subscriber's JSON `fields`, as DD number → value. */
function subscriberFields(json: string): Map<number, string> {
  const out = new Map<number, string>();
  let parsed: unknown;
  try {
    parsed = JSON.parse(json);
  } catch {
    return out;
  }
  if (typeof parsed !== "object" || parsed === null) return out;
  for (const [k, v] of Object.entries(parsed))
    if (/^\d+$/.test(k) && typeof v === "string") out.set(Number(k), v);
  return out;
}

/** The recipient's value of a filter field ("" when missing or the field is unknown). */
function fieldValue(field: string, recipient: Recipient, fields: ReadonlyMap<number, string>): string {
  switch (canonicalField(field)) {
    case "Email":
      return recipient.email;
    case "Name":
      return recipient.name;
    case "Format":
      return recipient.format;
    case "CountryCode":
      return recipient.country_code;
    case "Phone":
      return recipient.phone;
    case undefined:
      return "";
    default:
      return fields.get(Number(field.trim().slice(2))) ?? "";
  }
}

/**
 * Whether the recipient matches the filter. Pure: no SQL is built from the filter's text. = != contains
 * startsWith compare case-insensitively (lower-cased both sides); empty/notEmpty ignore surrounding white
 * space; a missing DD field is ""; an unknown field or operator never matches.
 */
export function evaluateFilter(
  filter: FilterRule,
  recipient: Recipient,
  fields = subscriberFields(recipient.fields),
): boolean {
  if (canonicalField(filter.field) === undefined) return false;
  const actual = fieldValue(filter.field, recipient, fields);
  const a = actual.toLowerCase();
  const b = filter.value.toLowerCase();
  switch (filter.operator) {
    case "=":
      return a === b;
    case "!=":
      return a !== b;
    case "contains":
      return a.includes(b);
    case "startsWith":
      return a.startsWith(b);
    case "empty":
      return actual.trim() === "";
    case "notEmpty":
      return actual.trim() !== "";
    default:
      return false;
  }
}

const HOLDER_RE = /\{\{\s*holder\s*:\s*(\d{1,9})\s*\}\}/gi;

/** The holder numbers a template offers, in its HTML or text, ascending. */
export function templateHolders(template: Pick<Template, "html" | "text">): number[] {
  const found = new Set<number>();
  for (const part of [template.html, template.text])
    for (const m of part.matchAll(HOLDER_RE)) found.add(Number(m[1]));
  return [...found].sort((a, b) => a - b);
}

export interface RenderedNewsletter {
  readonly subject: string;
  readonly html: string;
  readonly text: string;
}

/**
 * One recipient's newsletter: holders filled with the modules that apply to the recipient (in
 * module_index, then id order), then the merge tags replaced once (values by context in the HTML, see
 * merge.ts; raw in the text; line breaks removed in the subject). `tags` adds tags such as `unsubscribe`
 * (lower-case name → value). Pure.
 */
export function renderNewsletter(
  template: Pick<Template, "html" | "text">,
  newsletter: Pick<Newsletter, "subject">,
  modules: readonly PlacedModule[],
  recipient: Recipient,
  tags?: ReadonlyMap<string, string>,
): RenderedNewsletter {
  const fields = subscriberFields(recipient.fields);
  const byHolder = new Map<number, PlacedModule[]>();
  const ordered = [...modules].sort((x, y) => x.module_index - y.module_index || x.id - y.id);
  for (const m of ordered) {
    if (m.filter !== null && !evaluateFilter(m.filter, recipient, fields)) continue;
    const list = byHolder.get(m.holder_id) ?? [];
    list.push(m);
    byHolder.set(m.holder_id, list);
  }
  // One pass: a holder tag inside a module's code is not filled again.
  const fill = (part: string, asText: boolean) =>
    part.replace(HOLDER_RE, (_tag, n: string) =>
      (byHolder.get(Number(n)) ?? [])
        .map((m) => (asText ? (m.text ?? htmlToText(m.code).trim()) : m.code))
        .join(asText ? "\n" : ""),
    );
  const values: MergeValues = { name: recipient.name, email: recipient.email, fields, tags };
  const html = mergeHtml(fill(template.html, false), values);
  return {
    subject: mergeTemplate(newsletter.subject, values, (v) => v.replace(/[\r\n]+/g, " ")),
    html,
    // A template without a text body: the text part is the merged HTML as text (links kept).
    text:
      template.text.trim() === ""
        ? htmlToText(html)
        : mergeTemplate(fill(template.text, true), values, (v) => v),
  };
}

/** A newsletter with its template and placed modules (filters resolved): what a sending renders. */
export interface NewsletterContent {
  readonly newsletter: Newsletter;
  readonly template: Template;
  readonly modules: PlacedModule[];
}

/** Loads a newsletter of the account with everything renderNewsletter needs; undefined when it is not the account's. */
export async function loadNewsletterContent(
  db: Db,
  accountId: number,
  newsletterId: number,
): Promise<NewsletterContent | undefined> {
  const newsletter = await accountNewsletter(db, accountId, newsletterId);
  if (newsletter === undefined) return undefined;
  const template = await templateById(db, newsletter.template_id);
  const rows = await placedModules(db, newsletter.id);
  const modules = rows.map(
    (r): PlacedModule => ({
      id: r.id,
      code: r.code,
      module_index: r.module_index,
      holder_id: r.holder_id,
      filter:
        r.field === null || r.operator === null
          ? null
          : { field: r.field, operator: r.operator, value: r.value ?? "" },
      // made once here, not for each recipient: the text holders' conversion cost 50 µs a message
      text: htmlToText(r.code).trim(),
    }),
  );
  return { newsletter, template, modules };
}

async function newsletterOf(
  db: Db,
  account: Pick<Account, "id">,
  idText: string | undefined,
  parameter: string,
  lock = false,
): Promise<Newsletter> {
  const id = idFromText(idText);
  const found = id === undefined ? undefined : await accountNewsletter(db, account.id, id, lock);
  if (found === undefined) throw notFound("newsletter", parameter);
  return found;
}

/** A module's size merged at its longest: its characters plus MAX_FIELD_VALUE for each merge tag. */
function mergedSize(code: string): number {
  return characterCount(code) + mergeTagCount(code) * MAX_FIELD_VALUE;
}

function invalidValue(parameter: string, message: string) {
  return clientError(ErrorCodes.InvalidValue, message, { parameter });
}

/** InsertTemplateNewsletter: creates the newsletter and returns its id (the ActiveTemplateID). */
export async function insertTemplateNewsletter(
  store: Store,
  account: Pick<Account, "id">,
  params: InsertTemplateNewsletterParams,
  now: number,
): Promise<number> {
  checkLength(params.strTemplateName, MAX_NAME, "strTemplateName");
  checkLength(params.strNewsletterName, MAX_NAME, "strNewsletterName");
  checkLength(params.strSubject, MAX_SUBJECT, "strSubject");
  const name = params.strNewsletterName.trim();
  if (name === "") throw invalidValue("strNewsletterName", "strNewsletterName must not be empty.");
  const tracking: Tracking =
    params.strTracking === undefined || (params.strTracking as string) === "" ? "all" : params.strTracking;
  return store.write(async (trx) => {
    const template = await templateByName(trx, account.id, params.strTemplateName);
    if (template === undefined) throw notFound("template", "strTemplateName");
    const given = (params.strSubject ?? "").replace(/[\r\n]+/g, " ").trim();
    const subject = given === "" ? template.subject : given;
    if (subject.trim() === "")
      throw invalidValue("strSubject", "strSubject is required: the template has no subject of its own.");
    return insertNewsletter(trx, {
      account_id: account.id,
      template_id: template.id,
      name,
      subject,
      tracking,
      created_at: now,
    });
  });
}

/** A whole number from 0 given as text (the generated rules checked the shape already); 0 when omitted or empty. */
function indexParam(text: string | undefined, parameter: string): number {
  if (text === undefined || text.trim() === "") return 0;
  const trimmed = text.trim();
  const n = /^\d{1,10}$/.test(trimmed) ? Number(trimmed) : Number.NaN;
  if (!(n >= 0 && n <= 2147483647))
    throw invalidValue(parameter, `${parameter} must be a whole number from 0 to 2147483647.`);
  return n;
}

/** InsertActiveTemplateModule: places a module in a holder of the newsletter; returns the placement's id. */
export async function insertActiveTemplateModule(
  store: Store,
  account: Pick<Account, "id">,
  params: InsertActiveTemplateModuleParams,
  now: number,
): Promise<number> {
  const moduleIndex = indexParam(params.strModuleIndex, "strModuleIndex");
  const holderId = indexParam(params.strHolderID, "strHolderID");
  checkLength(params.strModuleCode, MAX_MODULE_CODE, "strModuleCode");
  return store.write(async (trx) => {
    // Locked on PostgreSQL, so two placements at once cannot both pass the modules' size check.
    const newsletter = await newsletterOf(
      trx,
      account,
      params.strNewsletterID,
      "strNewsletterID",
      store.engine === "postgres",
    );
    const moduleId = idFromText(params.strModuleID);
    const module = moduleId === undefined ? undefined : await accountModule(trx, account.id, moduleId);
    if (module === undefined) throw notFound("module", "strModuleID");
    const filterId = await optionalFilterId(trx, account, params.strFilterID, "strFilterID");
    const template = await templateBodies(trx, newsletter.template_id);
    const holders = templateHolders(template);
    if (!holders.includes(holderId)) {
      const offered = holders.length === 0 ? "it has none" : `it has ${holders.join(", ")}`;
      throw invalidValue(
        "strHolderID",
        `strHolderID ${holderId} is not a holder of the newsletter's template ({{holder:N}}; ${offered}).`,
      );
    }
    const code =
      params.strModuleCode === undefined || params.strModuleCode === "" ? module.code : params.strModuleCode;
    const placed = await placedModuleCodes(trx, newsletter.id);
    const total = placed.reduce((sum, m) => sum + mergedSize(m.code), mergedSize(code));
    if (total > MAX_NEWSLETTER_MODULES) {
      throw clientError(
        ErrorCodes.TooLong,
        `strModuleCode would make the newsletter's modules ${total} characters merged at their longest (each merge tag counted ${MAX_FIELD_VALUE}); at most ${MAX_NEWSLETTER_MODULES}.`,
        { parameter: "strModuleCode" },
      );
    }
    return insertPlacedModule(trx, {
      account_id: account.id,
      newsletter_id: newsletter.id,
      module_id: module.id,
      code,
      module_index: moduleIndex,
      holder_id: holderId,
      filter_id: filterId,
      created_at: now,
    });
  });
}

/** GetNewsletterFilters: the distinct filters the newsletter's modules and sendings use, by id. */
export async function getNewsletterFilters(
  db: Db,
  account: Pick<Account, "id">,
  newsletterId: number,
): Promise<NewsletterFilterResult[]> {
  await newsletterOf(db, account, String(newsletterId), "intNewsletterId");
  const rows = await newsletterFilters(db, account.id, newsletterId);
  return rows.map((r): NewsletterFilterResult => ({ Id: r.id, Name: r.name }));
}
