// `list create | show`: an account's mailing lists, with their members counted by state.

import type { MailingList } from "../db/schema.js";
import { accountLists, insertList } from "../tables/lists.js";
import { type MemberCounts as Counts, memberCounts } from "../tables/subscribers.js";
import { checkFromEmail, checkLine } from "./account.js";
import { AdminError, type Noun, findAccount, idOption, verb } from "./context.js";
import { record, table, timeJson, timeText } from "./format.js";

/** A charset name TextDecoder knows (utf-8, iso-8859-1, ...), lower-cased as given. */
function checkCharset(text: string): string {
  const name = text.trim().toLowerCase();
  try {
    new TextDecoder(name);
  } catch {
    throw new AdminError(`--charset must be a character set name such as utf-8 or iso-8859-1, not "${text}"`);
  }
  return name;
}

function listJson(list: MailingList, counts: Counts) {
  return {
    id: list.id,
    name: list.name,
    fromName: list.from_name,
    fromEmail: list.from_email,
    description: list.description,
    charset: list.charset,
    members: counts,
    createdAt: timeJson(list.created_at),
  };
}

function listRecord(list: MailingList, counts: Counts): string {
  return record([
    ["id", list.id],
    ["name", list.name],
    ["from name", list.from_name],
    ["from email", list.from_email],
    ["description", list.description],
    ["charset", list.charset],
    ["active", counts.active],
    ["pending", counts.pending],
    ["unsubscribed", counts.unsubscribed],
    ["created", timeText(list.created_at)],
  ]);
}

const none = (): Counts => ({ active: 0, pending: 0, unsubscribed: 0 });

const create = verb({
  name: "create",
  describe: "Create a mailing list in an account",
  options: {
    account: { describe: "User name of the account", required: true },
    name: { describe: "The list's name", required: true },
    "from-name": { describe: "Sender name of the list's mail (default: the account's)" },
    "from-email": { describe: "Sender address of the list's mail (default: the account's)" },
    description: { describe: "A description" },
    charset: { describe: "Character set of the list's mail", default: "utf-8" },
  },
  async run(ctx, o) {
    const name = checkLine(o.name, "--name");
    if (name === "") throw new AdminError("--name must not be empty");
    const values = {
      name,
      from_name: checkLine(o["from-name"] ?? "", "--from-name"),
      from_email: checkFromEmail(o["from-email"] ?? ""),
      description: checkLine(o.description ?? "", "--description", 2000),
      charset: checkCharset(o.charset ?? "utf-8"),
    };
    const account = await findAccount(ctx, o.account);
    const { db } = await ctx.store();
    const list = await insertList(db, { account_id: account.id, ...values, created_at: ctx.now() });
    return {
      json: listJson(list, none()),
      text: `Mailing list created in ${account.username}.\n${listRecord(list, none())}`,
    };
  },
});

const show = verb({
  name: "show",
  describe: "Show an account's mailing lists with their members by state (active, pending, unsubscribed)",
  options: {
    account: { describe: "User name of the account", required: true },
    id: { describe: "One list's id (default: every list of the account)" },
  },
  epilog: "--json prints an object for --id, else an array.",
  async run(ctx, o) {
    const id = o.id === undefined ? undefined : idOption(o.id);
    const account = await findAccount(ctx, o.account);
    const { db } = await ctx.store();
    const lists = await accountLists(db, account.id, id);
    const counts = await memberCounts(db, account.id, id);
    if (id !== undefined) {
      const list = lists[0];
      if (list === undefined)
        throw new AdminError(`--id: account ${account.username} has no mailing list ${id}`);
      const c = counts.get(list.id) ?? none();
      return { json: listJson(list, c), text: listRecord(list, c) };
    }
    return {
      json: lists.map((l) => listJson(l, counts.get(l.id) ?? none())),
      text: table(
        ["id", "name", "active", "pending", "unsubscribed", "from", "charset", "created"],
        lists.map((l) => {
          const c = counts.get(l.id) ?? none();
          const from = [l.from_name, l.from_email === "" ? "" : `<${l.from_email}>`]
            .filter((s) => s !== "")
            .join(" ");
          return [
            l.id,
            l.name,
            c.active,
            c.pending,
            c.unsubscribed,
            from || undefined,
            l.charset,
            timeText(l.created_at),
          ];
        }),
        `Account ${account.username} has no mailing lists yet: npm run admin -- list create --account ${account.username} --name NAME`,
      ),
    };
  },
});

export const listNoun: Noun = {
  name: "list",
  describe: "Mailing lists: create, show (with member counts)",
  verbs: [create, show],
};
