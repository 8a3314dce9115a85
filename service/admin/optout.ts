// `optout add | remove | show`: an account's opt-out-all set (service/tables/optouts.ts).

import { addOptout, listOptouts, optoutKey, removeOptout } from "../tables/optouts.js";
import { emailProblem } from "../common/input.js";
import { AdminError, type Noun, findAccount, verb } from "./context.js";
import { table, timeJson, timeText } from "./format.js";

function checkEmail(text: string): string {
  const trimmed = text.trim();
  const problem = emailProblem(trimmed);
  if (problem !== undefined) throw new AdminError(`--email ${problem}`);
  return trimmed;
}

const options = {
  account: { describe: "User name of the account", required: true },
  email: { describe: "The e-mail address (compared case-insensitively)", required: true },
} as const;

const add = verb({
  name: "add",
  describe: "Put an address on the account's opt-out-all set: no list of the account mails it again",
  options,
  epilog:
    "Every membership of the address in the account becomes unsubscribed; its subscriber record is kept (or made),\n" +
    "so single inserts of it still return an id while changing nothing.",
  async run(ctx, o) {
    const email = checkEmail(o.email);
    const account = await findAccount(ctx, o.account);
    const { db } = await ctx.store();
    const outcome = await db.transaction().execute((trx) => addOptout(trx, account.id, email, ctx.now()));
    const was = outcome.added ? "is now" : "was already";
    return {
      json: { account: account.username, ...outcome },
      text:
        `${outcome.emailKey} ${was} on the opt-out list of ${account.username} (subscriber ${outcome.subscriberId}; ` +
        `${outcome.unsubscribed} membership${outcome.unsubscribed === 1 ? "" : "s"} unsubscribed now).\n`,
    };
  },
});

const remove = verb({
  name: "remove",
  describe: "Take an address off the account's opt-out-all set (its memberships stay unsubscribed)",
  options,
  async run(ctx, o) {
    const email = checkEmail(o.email);
    const account = await findAccount(ctx, o.account);
    const { db } = await ctx.store();
    if (!(await removeOptout(db, account.id, email))) {
      throw new AdminError(`--email: ${optoutKey(email)} is not on the opt-out list of ${account.username}`);
    }
    return {
      json: { account: account.username, emailKey: optoutKey(email), removed: true },
      text: `${optoutKey(email)} is off the opt-out list of ${account.username}; its memberships stay unsubscribed.\n`,
    };
  },
});

const show = verb({
  name: "show",
  describe: "Show the account's opt-out-all set",
  options: { account: options.account },
  async run(ctx, o) {
    const account = await findAccount(ctx, o.account);
    const { db } = await ctx.store();
    const optouts = await listOptouts(db, account.id);
    return {
      json: optouts.map((r) => ({ emailKey: r.emailKey, createdAt: timeJson(r.createdAt) })),
      text: table(
        ["email", "since"],
        optouts.map((r) => [r.emailKey, timeText(r.createdAt)]),
        `The opt-out list of ${account.username} is empty.`,
      ),
    };
  },
});

export const optoutNoun: Noun = {
  name: "optout",
  describe: "The opt-out-all set of an account: add, remove, show",
  verbs: [add, remove, show],
};
