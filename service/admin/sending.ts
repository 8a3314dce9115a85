// `sending show --account U [--id N]`: an account's newsletter sendings (SendNewsletter's send queue ids)
// with their state and progress: recipients, mail queued (sent), recipients skipped (unsubscribed or
// opted out before their turn), and when each is due.

import { type Noun, findAccount, idOption, verb, wholeNumber } from "./context.js";
import { table, timeJson, timeText } from "./format.js";

const show = verb({
  name: "show",
  describe: "Show an account's newsletter sendings (newest first) or one of them",
  options: {
    account: { describe: "The account's user name", required: true },
    id: { describe: "Only this sending (the send queue id)" },
    limit: { describe: "Sendings shown at most", default: "20" },
  },
  async run(ctx, o) {
    const account = await findAccount(ctx, o.account);
    const limit = wholeNumber(o.limit ?? "20", "--limit", 1, 10_000);
    const id = o.id === undefined ? undefined : idOption(o.id);
    const { db } = await ctx.store();
    let query = db
      .selectFrom("sendings as s")
      .select((eb) => [
        "s.id",
        "s.newsletter_id",
        "s.list_id",
        "s.state",
        "s.recipients",
        "s.sent",
        "s.send_at",
        "s.finished_at",
        eb
          .selectFrom("sending_recipients as r")
          .select((e) => e.fn.countAll<number>().as("n"))
          .whereRef("r.sending_id", "=", "s.id")
          .where("r.state", "=", "skipped")
          .as("skipped"),
      ])
      .where("s.account_id", "=", account.id)
      .orderBy("s.id", "desc")
      .limit(limit);
    if (id !== undefined) query = query.where("s.id", "=", id);
    const rows = await query.execute();
    return {
      json: rows.map((r) => ({
        id: r.id,
        newsletter: r.newsletter_id,
        list: r.list_id,
        state: r.state,
        recipients: r.recipients,
        sent: r.sent,
        skipped: Number(r.skipped ?? 0),
        sendAt: timeJson(r.send_at),
        finishedAt: timeJson(r.finished_at),
      })),
      text: table(
        ["id", "newsletter", "list", "state", "recipients", "sent", "skipped", "send at", "finished"],
        rows.map((r) => [
          r.id,
          r.newsletter_id,
          r.list_id,
          r.state,
          r.recipients,
          r.sent,
          Number(r.skipped ?? 0),
          timeText(r.send_at),
          timeText(r.finished_at),
        ]),
        id === undefined
          ? `${account.username} has no sendings.`
          : `${account.username} has no sending ${id}.`,
      ),
    };
  },
});

export const sendingNoun: Noun = {
  name: "sending",
  describe: "Newsletter sendings: show",
  verbs: [show],
};
