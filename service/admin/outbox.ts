// `outbox show`: the mail queue (confirmations now; newsletters and transactions with issue 10).
// `outbox retry --id N`: a dead message queued again with a fresh count of attempts (a queued one: due now).

import type { MailState } from "../db/schema.js";
import { AdminError, type Noun, findAccount, idOption, verb, wholeNumber } from "./context.js";
import { table, timeJson, timeText } from "./format.js";

const STATES: readonly MailState[] = ["queued", "sent", "dead"];

function checkState(text: string): MailState {
  const state = STATES.find((s) => s === text.trim().toLowerCase());
  if (state === undefined) throw new AdminError(`--state must be one of ${STATES.join(", ")}, not "${text}"`);
  return state;
}

const show = verb({
  name: "show",
  describe: "Show the newest messages of the mail outbox",
  options: {
    account: { describe: "Only this account's messages (user name)" },
    state: { describe: "Only messages in this state", choices: STATES },
    limit: { describe: "Messages shown at most", default: "20" },
  },
  async run(ctx, o) {
    const state = o.state === undefined ? undefined : checkState(o.state);
    const limit = wholeNumber(o.limit ?? "20", "--limit", 1, 10_000);
    const account = o.account === undefined ? undefined : await findAccount(ctx, o.account);
    const { db } = await ctx.store();
    let query = db
      .selectFrom("mail_outbox")
      .leftJoin("accounts", "accounts.id", "mail_outbox.account_id")
      .select([
        "mail_outbox.id",
        "mail_outbox.account_id",
        "accounts.username",
        "mail_outbox.kind",
        "mail_outbox.to_address",
        "mail_outbox.subject",
        "mail_outbox.state",
        "mail_outbox.attempts",
        "mail_outbox.last_error",
        "mail_outbox.next_attempt_at",
        "mail_outbox.created_at",
        "mail_outbox.sent_at",
      ])
      .orderBy("mail_outbox.id", "desc")
      .limit(limit);
    if (account !== undefined) query = query.where("mail_outbox.account_id", "=", account.id);
    if (state !== undefined) query = query.where("mail_outbox.state", "=", state);
    const rows = await query.execute();
    const headers = ["id", ...(account === undefined ? ["account"] : []), "kind", "to", "subject", "state", "attempts", "created", "sent"];
    const what = [state, "messages"].filter((s) => s !== undefined).join(" ");
    return {
      json: rows.map((r) => ({
        id: r.id,
        account: r.username,
        kind: r.kind,
        to: r.to_address,
        subject: r.subject,
        state: r.state,
        attempts: r.attempts,
        lastError: r.last_error,
        nextAttemptAt: r.state === "queued" ? timeJson(r.next_attempt_at) : null,
        createdAt: timeJson(r.created_at),
        sentAt: timeJson(r.sent_at),
      })),
      text: table(
        headers,
        rows.map((r) => [
          r.id,
          ...(account === undefined ? [r.username ?? `#${r.account_id}`] : []),
          r.kind,
          r.to_address,
          r.subject,
          r.state,
          r.attempts,
          timeText(r.created_at),
          timeText(r.sent_at),
        ]),
        `No ${what} in the outbox${account === undefined ? "" : ` of ${account.username}`}.`,
      ),
    };
  },
});

const retry = verb({
  name: "retry",
  describe: "Queue a dead message again (attempts start over), or make a queued one due now",
  options: {
    id: { describe: "The message's id (outbox show)", required: true },
  },
  epilog: "A running worker picks it up at its next poll (within a second). A sent message is refused.",
  async run(ctx, o) {
    const id = idOption(o.id);
    const { db } = await ctx.store();
    const row = await db.selectFrom("mail_outbox").select(["id", "state", "attempts", "last_error"]).where("id", "=", id).executeTakeFirst();
    if (row === undefined) throw new AdminError(`--id: there is no message ${id} in the outbox`);
    if (row.state === "sent") throw new AdminError(`--id: message ${id} was sent already; it is not sent twice`);
    const updated = await db
      .updateTable("mail_outbox")
      .set({ state: "queued", next_attempt_at: ctx.now(), ...(row.state === "dead" ? { attempts: 0 } : {}) })
      .where("id", "=", id)
      .where("state", "=", row.state)
      .executeTakeFirst();
    if (Number(updated.numUpdatedRows) !== 1) throw new AdminError(`--id: message ${id} changed while being retried; look again with outbox show`);
    const was = row.state === "dead" ? `was dead after ${row.attempts} attempt${row.attempts === 1 ? "" : "s"}${row.last_error === null ? "" : `: ${row.last_error}`}` : "was waiting for its next attempt";
    return {
      json: { id, state: "queued", previousState: row.state, previousAttempts: row.attempts, lastError: row.last_error },
      text: `Message ${id} is queued and due now (${was}).\n`,
    };
  },
});

export const outboxNoun: Noun = {
  name: "outbox",
  describe: "The mail outbox: show, retry",
  verbs: [show, retry],
};
