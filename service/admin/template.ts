// `template create | show`: an account's newsletter templates, what InsertTemplateNewsletter's
// strTemplateName names (unique per account). HTML (and an optional text part) with merge tags
// ({{Name}}, {{Email}}, {{DD1}}..{{DD100}}, {{unsubscribe}}) and numbered module holders {{holder:N}}
// that InsertActiveTemplateModule's strHolderID fills.

import { templateHolders } from "../operations/mailing/newsletters.js";
import type { TemplatesTable } from "../db/schema.js";
import type { Selectable } from "kysely";
import { accountTemplates, insertTemplate } from "../tables/newsletters.js";
import { checkLine } from "./account.js";
import { AdminError, type Noun, findAccount, idOption, isUniqueViolation, verb } from "./context.js";
import { record, table, timeJson, timeText } from "./format.js";
import { body } from "./project.js";

type Template = Selectable<TemplatesTable>;

function templateJson(t: Template) {
  return {
    id: t.id,
    name: t.name,
    subject: t.subject,
    holders: templateHolders(t),
    html: t.html,
    text: t.text,
    createdAt: timeJson(t.created_at),
  };
}

function templateRecord(t: Template): string {
  const holders = templateHolders(t);
  return record([
    ["id", t.id],
    ["name", t.name],
    ["subject", t.subject],
    ["holders", holders.length === 0 ? "none" : holders.join(", ")],
    ["created", timeText(t.created_at)],
    ["html", t.html],
    ["text", t.text],
  ]);
}

const create = verb({
  name: "create",
  describe:
    "Create a newsletter template (HTML with merge tags and {{holder:N}} module holders) in an account",
  options: {
    account: { describe: "User name of the account", required: true },
    name: { describe: "The template's name (strTemplateName; unique in the account)", required: true },
    "html-file": { describe: "File with the HTML (UTF-8)" },
    html: { describe: "The HTML inline (instead of --html-file)" },
    "text-file": { describe: "File with the text part (UTF-8; default: none)" },
    text: { describe: "The text part inline (instead of --text-file)" },
    subject: {
      describe: "Default subject of newsletters made from it (InsertTemplateNewsletter's strSubject wins)",
    },
  },
  epilog:
    "Merge tags: {{Name}}, {{Email}}, {{DD1}}..{{DD100}}, {{unsubscribe}} (any case); values are HTML-escaped in the HTML. " +
    "Module holders: {{holder:0}}, {{holder:1}}, ... (strHolderID of InsertActiveTemplateModule).",
  async run(ctx, o) {
    const name = checkLine(o.name, "--name");
    if (name === "") throw new AdminError("--name must not be empty");
    const subject = checkLine(o.subject ?? "", "--subject", 998);
    const html = await body(o.html, o["html-file"], "html");
    if (html === undefined || html.trim() === "")
      throw new AdminError("an HTML body is required: --html-file FILE or --html HTML");
    const text = (await body(o.text, o["text-file"], "text")) ?? "";
    const account = await findAccount(ctx, o.account);
    const { db } = await ctx.store();
    let template: Template;
    try {
      template = await insertTemplate(db, {
        account_id: account.id,
        name,
        subject,
        html,
        text,
        created_at: ctx.now(),
      });
    } catch (error) {
      if (isUniqueViolation(error))
        throw new AdminError(`--name: account ${account.username} has a template named "${name}" already`);
      throw error;
    }
    return {
      json: templateJson(template),
      text: `Template ${template.id} "${template.name}" created in ${account.username}.\n${templateRecord(template)}`,
    };
  },
});

const show = verb({
  name: "show",
  describe: "Show an account's newsletter templates, or one with its HTML and text",
  options: {
    account: { describe: "User name of the account", required: true },
    id: { describe: "One template's id (default: every template of the account)" },
  },
  epilog: "--json prints an object for --id, else an array.",
  async run(ctx, o) {
    const id = o.id === undefined ? undefined : idOption(o.id);
    const account = await findAccount(ctx, o.account);
    const { db } = await ctx.store();
    const templates = await accountTemplates(db, account.id, id);
    if (id !== undefined) {
      const template = templates[0];
      if (template === undefined)
        throw new AdminError(`--id: account ${account.username} has no template ${id}`);
      return { json: templateJson(template), text: templateRecord(template) };
    }
    return {
      json: templates.map(templateJson),
      text: table(
        ["id", "name", "subject", "holders", "created"],
        templates.map((t) => [
          t.id,
          t.name,
          t.subject || undefined,
          templateHolders(t).join(",") || undefined,
          timeText(t.created_at),
        ]),
        `Account ${account.username} has no templates yet: npm run admin -- template create --account ${account.username} --name NAME --html-file FILE`,
      ),
    };
  },
});

export const templateNoun: Noun = {
  name: "template",
  describe: "Newsletter templates (strTemplateName of InsertTemplateNewsletter): create, show",
  verbs: [create, show],
};
