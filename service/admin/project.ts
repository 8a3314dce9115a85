// `project create | show`: an account's transactional projects, the templates InsertTransaction and
// InsertTransactionWithSplit send (strId is the project's id). Subject and bodies may hold the merge tags
// {{Name}}, {{Email}} and {{DD1}}..{{DD100}}; bodies are read from files (--text-file, --html-file) or
// given inline (--text, --html). Without an HTML body the project's mail is text only.

import { readFile } from "node:fs/promises";
import type { Project } from "../db/schema.js";
import { accountProjects, insertProject, transactionCounts } from "../tables/projects.js";
import { checkFromEmail, checkLine } from "./account.js";
import { AdminError, type Noun, findAccount, idOption, verb } from "./context.js";
import { record, table, timeJson, timeText } from "./format.js";

/** Largest template body accepted (characters). */
const MAX_BODY = 1_000_000;

/** A body given inline or as a file (not both); undefined when neither is given. */
export async function body(
  inline: string | undefined,
  file: string | undefined,
  option: string,
): Promise<string | undefined> {
  if (inline !== undefined && file !== undefined)
    throw new AdminError(`give --${option} or --${option}-file, not both`);
  let text = inline;
  if (file !== undefined) {
    try {
      text = await readFile(file, "utf8");
    } catch (error) {
      const code =
        typeof error === "object" && error !== null && "code" in error ? String(error.code) : "unreadable";
      throw new AdminError(`--${option}-file: cannot read ${file} (${code})`);
    }
  }
  if (text !== undefined && text.length > MAX_BODY)
    throw new AdminError(`--${option}: the template is longer than ${MAX_BODY} characters`);
  return text;
}

function projectJson(p: Project, transactions: number) {
  return {
    id: p.id,
    name: p.name,
    subject: p.subject,
    fromName: p.from_name,
    fromEmail: p.from_email,
    text: p.text_body,
    html: p.html_body,
    transactions,
    createdAt: timeJson(p.created_at),
  };
}

function projectRecord(p: Project, transactions: number): string {
  return record([
    ["id", p.id],
    ["name", p.name],
    ["subject", p.subject],
    ["from name", p.from_name],
    ["from email", p.from_email],
    ["format", p.html_body === "" ? "text only" : "text and HTML"],
    ["transactions", transactions],
    ["created", timeText(p.created_at)],
    ["text body", p.text_body],
    ["html body", p.html_body],
  ]);
}

const create = verb({
  name: "create",
  describe: "Create a transactional project (subject and body templates) in an account",
  options: {
    account: { describe: "User name of the account", required: true },
    name: { describe: "The project's name", required: true },
    subject: { describe: "Subject template (merge tags allowed)", required: true },
    "text-file": { describe: "File with the text body template (UTF-8)" },
    text: { describe: "The text body template inline (instead of --text-file)" },
    "html-file": { describe: "File with the HTML body template (UTF-8); without it the mail is text only" },
    html: { describe: "The HTML body template inline (instead of --html-file)" },
    "from-name": { describe: "Sender name (default: the account's)" },
    "from-email": { describe: "Sender address (default: the account's, else MAIL_FROM)" },
  },
  epilog:
    "Merge tags: {{Name}}, {{Email}}, {{DD1}}..{{DD100}} (any case); unknown tags become empty. Values are " +
    "HTML-escaped in the HTML body. The project's id is strId of InsertTransaction.",
  async run(ctx, o) {
    const name = checkLine(o.name, "--name");
    if (name === "") throw new AdminError("--name must not be empty");
    const subject = checkLine(o.subject, "--subject", 998);
    if (subject === "") throw new AdminError("--subject must not be empty");
    const text = await body(o.text, o["text-file"], "text");
    if (text === undefined || text.trim() === "")
      throw new AdminError("a text body is required: --text-file FILE or --text TEXT");
    const html = (await body(o.html, o["html-file"], "html")) ?? "";
    const values = {
      name,
      subject,
      text_body: text,
      html_body: html,
      from_name: checkLine(o["from-name"] ?? "", "--from-name"),
      from_email: checkFromEmail(o["from-email"] ?? ""),
    };
    const account = await findAccount(ctx, o.account);
    const { db } = await ctx.store();
    const project = await insertProject(db, { account_id: account.id, ...values, created_at: ctx.now() });
    return {
      json: projectJson(project, 0),
      text: `Transactional project ${project.id} created in ${account.username} (strId ${project.id}).\n${projectRecord(project, 0)}`,
    };
  },
});

const show = verb({
  name: "show",
  describe: "Show an account's transactional projects, or one with its templates",
  options: {
    account: { describe: "User name of the account", required: true },
    id: { describe: "One project's id (default: every project of the account)" },
  },
  epilog: "--json prints an object for --id, else an array.",
  async run(ctx, o) {
    const id = o.id === undefined ? undefined : idOption(o.id);
    const account = await findAccount(ctx, o.account);
    const { db } = await ctx.store();
    const projects = await accountProjects(db, account.id, id);
    const counts = await transactionCounts(db, account.id, id);
    if (id !== undefined) {
      const project = projects[0];
      if (project === undefined)
        throw new AdminError(`--id: account ${account.username} has no project ${id}`);
      const n = counts.get(project.id) ?? 0;
      return { json: projectJson(project, n), text: projectRecord(project, n) };
    }
    return {
      json: projects.map((p) => projectJson(p, counts.get(p.id) ?? 0)),
      text: table(
        ["id", "name", "subject", "format", "transactions", "from", "created"],
        projects.map((p) => {
          const from = [p.from_name, p.from_email === "" ? "" : `<${p.from_email}>`]
            .filter((s) => s !== "")
            .join(" ");
          return [
            p.id,
            p.name,
            p.subject,
            p.html_body === "" ? "text" : "text+html",
            counts.get(p.id) ?? 0,
            from || undefined,
            timeText(p.created_at),
          ];
        }),
        `Account ${account.username} has no transactional projects yet: npm run admin -- project create --account ${account.username} --name NAME --subject SUBJECT --text-file FILE`,
      ),
    };
  },
});

export const projectNoun: Noun = {
  name: "project",
  describe: "Transactional projects (strId of InsertTransaction): create, show",
  verbs: [create, show],
};
