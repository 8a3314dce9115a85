// The newsletter content table group (templates, modules, newsletters, newsletter_modules): an account's
// templates (HTML with {{holder:N}} holders; the admin CLI's `template create`), its reusable modules
// (`module create`), its newsletters (a template with a subject: InsertTemplateNewsletter) and the modules
// placed in a newsletter's holders, each with an optional filter (InsertActiveTemplateModule). What a call
// checks and how a newsletter renders is operations/mailing/newsletters.ts's; read also by SendNewsletter,
// the admin CLI's trigger noun and the console's newsletter pages. A placed module's filter is read with it
// (a join from the placements' rows into the filters group's table).

import type { Insertable, Selectable } from "kysely";
import type { Db } from "../db/database.js";
import type {
  FilterOperator,
  ModulesTable,
  NewsletterModulesTable,
  NewslettersTable,
  TemplatesTable,
} from "../db/schema.js";

type Newsletter = Selectable<NewslettersTable>;
type Template = Selectable<TemplatesTable>;
type Module = Selectable<ModulesTable>;

/** Adds a template; returns it. */
export async function insertTemplate(db: Db, row: Omit<Insertable<TemplatesTable>, "id">): Promise<Template> {
  return db.insertInto("templates").values(row).returningAll().executeTakeFirstOrThrow();
}

/** The account's templates by id (only the one of `id` when given). */
export async function accountTemplates(db: Db, accountId: number, id?: number): Promise<Template[]> {
  let query = db.selectFrom("templates").selectAll().where("account_id", "=", accountId).orderBy("id");
  if (id !== undefined) query = query.where("id", "=", id);
  return query.execute();
}

/** The template of that id (a newsletter's: it exists). */
export async function templateById(db: Db, id: number): Promise<Template> {
  return db.selectFrom("templates").selectAll().where("id", "=", id).executeTakeFirstOrThrow();
}

/** A template's HTML and text (a newsletter's: it exists), for its holders. */
export async function templateBodies(db: Db, id: number): Promise<Pick<Template, "html" | "text">> {
  return db.selectFrom("templates").select(["html", "text"]).where("id", "=", id).executeTakeFirstOrThrow();
}

/** The account's template of exactly that name. */
export async function templateByName(
  db: Db,
  accountId: number,
  name: string,
): Promise<Pick<Template, "id" | "subject"> | undefined> {
  return db
    .selectFrom("templates")
    .select(["id", "subject"])
    .where("account_id", "=", accountId)
    .where("name", "=", name)
    .executeTakeFirst();
}

/** The account's `limit` newest templates (the console's page). */
export async function templatePage(
  db: Db,
  accountId: number,
  limit: number,
): Promise<Pick<Template, "id" | "name" | "subject" | "created_at">[]> {
  return db
    .selectFrom("templates")
    .select(["id", "name", "subject", "created_at"])
    .where("account_id", "=", accountId)
    .orderBy("id", "desc")
    .limit(limit)
    .execute();
}

/** Adds a module; returns it. */
export async function insertModule(db: Db, row: Omit<Insertable<ModulesTable>, "id">): Promise<Module> {
  return db.insertInto("modules").values(row).returningAll().executeTakeFirstOrThrow();
}

/** The account's modules by id (only the one of `id` when given). */
export async function accountModules(db: Db, accountId: number, id?: number): Promise<Module[]> {
  let query = db.selectFrom("modules").selectAll().where("account_id", "=", accountId).orderBy("id");
  if (id !== undefined) query = query.where("id", "=", id);
  return query.execute();
}

/** The account's module of that id. */
export async function accountModule(
  db: Db,
  accountId: number,
  id: number,
): Promise<Pick<Module, "id" | "code"> | undefined> {
  return db
    .selectFrom("modules")
    .select(["id", "code"])
    .where("id", "=", id)
    .where("account_id", "=", accountId)
    .executeTakeFirst();
}

/** Adds a newsletter; returns its id. */
export async function insertNewsletter(
  db: Db,
  row: Omit<Insertable<NewslettersTable>, "id">,
): Promise<number> {
  const inserted = await db.insertInto("newsletters").values(row).returning("id").executeTakeFirstOrThrow();
  return inserted.id;
}

/** The account's newsletter of that id, its row locked for the transaction when `lock` (PostgreSQL). */
export async function accountNewsletter(
  db: Db,
  accountId: number,
  id: number,
  lock = false,
): Promise<Newsletter | undefined> {
  return db
    .selectFrom("newsletters")
    .selectAll()
    .where("id", "=", id)
    .where("account_id", "=", accountId)
    .$if(lock, (q) => q.forUpdate())
    .executeTakeFirst();
}

/** The id of the account's newsletter of that id, when it has one. */
export async function accountNewsletterId(
  db: Db,
  accountId: number,
  id: number,
): Promise<number | undefined> {
  const newsletter = await db
    .selectFrom("newsletters")
    .select("id")
    .where("id", "=", id)
    .where("account_id", "=", accountId)
    .executeTakeFirst();
  return newsletter?.id;
}

/** The account's newsletters with their templates' names, newest first, older than `before` when given. */
export async function newsletterPage(db: Db, accountId: number, limit: number, before: number | undefined) {
  return db
    .selectFrom("newsletters as n")
    .innerJoin("templates as t", "t.id", "n.template_id")
    .select(["n.id", "n.name", "n.subject", "n.tracking", "n.created_at", "t.name as template"])
    .where("n.account_id", "=", accountId)
    .$if(before !== undefined, (q) => q.where("n.id", "<", before!))
    .orderBy("n.id", "desc")
    .limit(limit)
    .execute();
}

/** A module placed in a newsletter, with its filter's rule (null columns: none). */
export interface PlacedModuleRow {
  readonly id: number;
  readonly code: string;
  readonly module_index: number;
  readonly holder_id: number;
  readonly field: string | null;
  readonly operator: FilterOperator | null;
  readonly value: string | null;
}

/** The modules placed in the newsletter by index then id, each with its filter's rule. */
export async function placedModules(db: Db, newsletterId: number): Promise<PlacedModuleRow[]> {
  return db
    .selectFrom("newsletter_modules as nm")
    .leftJoin("filters as f", "f.id", "nm.filter_id")
    .select(["nm.id", "nm.code", "nm.module_index", "nm.holder_id", "f.field", "f.operator", "f.value"])
    .where("nm.newsletter_id", "=", newsletterId)
    .orderBy("nm.module_index")
    .orderBy("nm.id")
    .execute();
}

/** The code of every module placed in the newsletter. */
export async function placedModuleCodes(db: Db, newsletterId: number): Promise<{ code: string }[]> {
  return db
    .selectFrom("newsletter_modules")
    .select("code")
    .where("newsletter_id", "=", newsletterId)
    .execute();
}

/** Places a module in a newsletter; returns the placement's id. */
export async function insertPlacedModule(
  db: Db,
  row: Omit<Insertable<NewsletterModulesTable>, "id">,
): Promise<number> {
  const inserted = await db
    .insertInto("newsletter_modules")
    .values(row)
    .returning("id")
    .executeTakeFirstOrThrow();
  return inserted.id;
}
