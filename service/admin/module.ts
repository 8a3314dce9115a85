// `module create | show`: an account's newsletter modules, what InsertActiveTemplateModule's strModuleID
// names. A module is a piece of HTML with merge tags; a newsletter keeps its own copy of the code.

import type { ModulesTable } from "../db/schema.js";
import type { Selectable } from "kysely";
import { accountModules, insertModule } from "../tables/newsletters.js";
import { checkLine } from "./account.js";
import { AdminError, type Noun, findAccount, idOption, verb } from "./context.js";
import { record, table, timeJson, timeText } from "./format.js";
import { body } from "./project.js";

type Module = Selectable<ModulesTable>;

function moduleJson(m: Module) {
  return { id: m.id, name: m.name, code: m.code, createdAt: timeJson(m.created_at) };
}

function moduleRecord(m: Module): string {
  return record([
    ["id", m.id],
    ["name", m.name],
    ["created", timeText(m.created_at)],
    ["code", m.code],
  ]);
}

const create = verb({
  name: "create",
  describe: "Create a newsletter module (HTML with merge tags) in an account",
  options: {
    account: { describe: "User name of the account", required: true },
    name: { describe: "The module's name", required: true },
    "code-file": { describe: "File with the module's HTML (UTF-8)" },
    code: { describe: "The module's HTML inline (instead of --code-file)" },
  },
  epilog:
    "The module's id is strModuleID of InsertActiveTemplateModule; strModuleCode may replace the code in one newsletter.",
  async run(ctx, o) {
    const name = checkLine(o.name, "--name");
    if (name === "") throw new AdminError("--name must not be empty");
    const code = await body(o.code, o["code-file"], "code");
    if (code === undefined || code.trim() === "")
      throw new AdminError("the module's code is required: --code-file FILE or --code HTML");
    const account = await findAccount(ctx, o.account);
    const { db } = await ctx.store();
    const module = await insertModule(db, { account_id: account.id, name, code, created_at: ctx.now() });
    return {
      json: moduleJson(module),
      text: `Module ${module.id} "${module.name}" created in ${account.username} (strModuleID ${module.id}).\n${moduleRecord(module)}`,
    };
  },
});

const show = verb({
  name: "show",
  describe: "Show an account's newsletter modules, or one with its code",
  options: {
    account: { describe: "User name of the account", required: true },
    id: { describe: "One module's id (default: every module of the account)" },
  },
  epilog: "--json prints an object for --id, else an array.",
  async run(ctx, o) {
    const id = o.id === undefined ? undefined : idOption(o.id);
    const account = await findAccount(ctx, o.account);
    const { db } = await ctx.store();
    const modules = await accountModules(db, account.id, id);
    if (id !== undefined) {
      const module = modules[0];
      if (module === undefined) throw new AdminError(`--id: account ${account.username} has no module ${id}`);
      return { json: moduleJson(module), text: moduleRecord(module) };
    }
    return {
      json: modules.map(moduleJson),
      text: table(
        ["id", "name", "code", "created"],
        modules.map((m) => [m.id, m.name, m.code, timeText(m.created_at)]),
        `Account ${account.username} has no modules yet: npm run admin -- module create --account ${account.username} --name NAME --code-file FILE`,
      ),
    };
  },
});

export const moduleNoun: Noun = {
  name: "module",
  describe: "Newsletter modules (strModuleID of InsertActiveTemplateModule): create, show",
  verbs: [create, show],
};
