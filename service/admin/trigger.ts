// `trigger create | show`: an account's triggers (service/workers/triggers.ts): the newsletter --newsletter is mailed,
// from --from-email, to each subscriber who becomes active on --list after the trigger is made (inserted
// active, or confirming a pending subscription), once per subscriber. GetTriggerIdForAccount lists them;
// GetTriggerClicks/GetTriggerViews report their tracked clicks and views.

import { emailProblem } from "../common/input.js";
import { accountListName } from "../tables/lists.js";
import { accountNewsletterId } from "../tables/newsletters.js";
import { insertTrigger, triggersWithFired } from "../tables/triggers.js";
import { checkLine } from "./account.js";
import { AdminError, type Noun, findAccount, idOption, verb } from "./context.js";
import { table, timeJson, timeText } from "./format.js";

const create = verb({
  name: "create",
  describe: "Create a trigger: mail a newsletter to each subscriber who becomes active on a list from now on",
  options: {
    account: { describe: "User name of the account", required: true },
    name: { describe: "The trigger's name", required: true },
    list: { describe: "The mailing list's id", required: true },
    newsletter: { describe: "The newsletter's id (InsertTemplateNewsletter)", required: true },
    "from-email": { describe: "Sender address", required: true },
    "from-name": { describe: "Sender name", default: "" },
  },
  epilog:
    "Members already active when the trigger is made get nothing. Example: trigger create --account U --name Welcome --list 3 --newsletter 7 --from-email news@example.com",
  async run(ctx, o) {
    const name = checkLine(o.name, "--name");
    if (name === "") throw new AdminError("--name must not be empty");
    const fromEmail = checkLine(o["from-email"], "--from-email", 254);
    const problem = emailProblem(fromEmail);
    if (problem !== undefined) throw new AdminError(`--from-email ${problem}`);
    const fromName = checkLine(o["from-name"] ?? "", "--from-name");
    const listId = idOption(o.list, "--list");
    const newsletterId = idOption(o.newsletter, "--newsletter");
    const account = await findAccount(ctx, o.account);
    const { db } = await ctx.store();
    const list = await accountListName(db, account.id, listId);
    if (list === undefined) throw new AdminError(`--list: account ${account.username} has no list ${listId}`);
    const newsletter = await accountNewsletterId(db, account.id, newsletterId);
    if (newsletter === undefined)
      throw new AdminError(`--newsletter: account ${account.username} has no newsletter ${newsletterId}`);
    const row = await insertTrigger(db, {
      account_id: account.id,
      name,
      list_id: list.id,
      newsletter_id: newsletter,
      from_email: fromEmail,
      from_name: fromName,
      created_at: ctx.now(),
    });
    return {
      json: {
        id: row.id,
        name: row.name,
        list: row.list_id,
        newsletter: row.newsletter_id,
        fromEmail: row.from_email,
        fromName: row.from_name,
        createdAt: timeJson(row.created_at),
      },
      text: `Trigger ${row.id} "${row.name}" created in ${account.username}: newsletter ${row.newsletter_id} to each subscriber who becomes active on list ${list.id} (${list.name}) from now on.\n`,
    };
  },
});

const show = verb({
  name: "show",
  describe: "Show an account's triggers, with how many subscribers each has fired for",
  options: {
    account: { describe: "User name of the account", required: true },
  },
  async run(ctx, o) {
    const account = await findAccount(ctx, o.account);
    const { db } = await ctx.store();
    const rows = await triggersWithFired(db, account.id);
    return {
      json: rows.map((r) => ({
        id: r.id,
        name: r.name,
        list: r.list_id,
        newsletter: r.newsletter_id,
        fromEmail: r.from_email,
        createdAt: timeJson(r.created_at),
        fired: Number(r.fired ?? 0),
      })),
      text: table(
        ["id", "name", "list", "newsletter", "from", "created", "fired"],
        rows.map((r) => [
          r.id,
          r.name,
          r.list_id,
          r.newsletter_id,
          r.from_email,
          timeText(r.created_at),
          Number(r.fired ?? 0),
        ]),
        `Account ${account.username} has no triggers yet: npm run admin -- trigger create --account ${account.username} --name NAME --list L --newsletter N --from-email E`,
      ),
    };
  },
});

export const triggerNoun: Noun = {
  name: "trigger",
  describe: "Triggers (a newsletter to each subscriber who becomes active on a list): create, show",
  verbs: [create, show],
};
