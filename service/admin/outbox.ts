// `outbox show`: the mail queue, newest first, with each message's attempts, next attempt and last error.
// `outbox retry`: dead messages queued again with a fresh count of attempts (queued ones: due now), named
// by id (`--id 4,7,9`) or by a filter (`--state dead [--account U]`); all of them or none.

import type { MailState } from "../db/schema.js";
import { AdminError, type Noun, findAccount, idOption, verb, wholeNumber } from "./context.js";
import { table, timeJson, timeText } from "./format.js";
import { stateIs } from "../workers/polling-worker.js";

const STATES: readonly MailState[] = ["queued", "sent", "dead"];
/** Ids one `retry --id` takes at most. */
const MAX_RETRY_IDS = 1000;
/** Ids a retry names in its text output (the JSON lists them all). */
const SHOWN_IDS = 20;

function checkState(text: string): MailState {
  const state = STATES.find((s) => s === text.trim().toLowerCase());
  if (state === undefined) throw new AdminError(`--state must be one of ${STATES.join(", ")}, not "${text}"`);
  return state;
}

/** `--id 4,7,9`: distinct ids in the order given, at most MAX_RETRY_IDS. */
function idList(text: string): number[] {
  const parts = text.split(",").map((p) => p.trim());
  if (parts.length > MAX_RETRY_IDS)
    throw new AdminError(`--id takes at most ${MAX_RETRY_IDS} ids; use --state (and --account) for more`);
  const ids: number[] = [];
  for (const part of parts) {
    if (part === "")
      throw new AdminError(`--id must be message ids separated by commas, like 4,7,9, not "${text}"`);
    const id = idOption(part);
    if (!ids.includes(id)) ids.push(id);
  }
  return ids;
}

function idsText(ids: readonly number[]): string {
  return ids.length <= SHOWN_IDS
    ? ids.join(", ")
    : `${ids.slice(0, SHOWN_IDS).join(", ")} and ${ids.length - SHOWN_IDS} more`;
}

const show = verb({
  name: "show",
  describe: "Show the newest messages of the mail outbox",
  options: {
    account: { describe: "Only this account's messages (user name)" },
    state: { describe: "Only messages in this state", choices: STATES },
    limit: { describe: "Messages shown at most", default: "20" },
  },
  epilog:
    "A queued message that failed shows when it is tried next and why it failed; temporary failures are retried " +
    "for MAIL_RETRY_MAX_AGE_MS after the first attempt (5 days by default), a permanent refusal is dead at once.",
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
        "mail_outbox.first_attempt_at",
        "mail_outbox.created_at",
        "mail_outbox.sent_at",
      ])
      .orderBy("mail_outbox.id", "desc")
      .limit(limit);
    if (account !== undefined) query = query.where("mail_outbox.account_id", "=", account.id);
    if (state !== undefined) query = query.where("mail_outbox.state", "=", state);
    const rows = await query.execute();
    const headers = [
      "id",
      ...(account === undefined ? ["account"] : []),
      "kind",
      "to",
      "subject",
      "state",
      "attempts",
      "created",
      "sent",
      "next attempt",
      "last error",
    ];
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
        firstAttemptAt: timeJson(r.first_attempt_at),
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
          r.state === "queued" ? timeText(r.next_attempt_at) : undefined,
          r.last_error,
        ]),
        `No ${what} in the outbox${account === undefined ? "" : ` of ${account.username}`}.`,
      ),
    };
  },
});

const retry = verb({
  name: "retry",
  describe: "Queue dead messages again (attempts start over), or make queued ones due now",
  options: {
    id: { describe: "The messages' ids, separated by commas (outbox show): 4 or 4,7,9" },
    state: { describe: "Instead of --id: every message in this state", choices: ["dead", "queued"] },
    account: { describe: "With --state: only this account's messages (user name)" },
  },
  epilog:
    "Either --id, or --state with an optional --account. All the messages are retried or none: an id that does not " +
    "exist or a message already sent refuses the whole command. A running worker picks them up at its next poll " +
    "(within a second).",
  async run(ctx, o) {
    if (o.id !== undefined && (o.state !== undefined || o.account !== undefined)) {
      throw new AdminError(
        "--id names the messages itself: give either --id, or --state with an optional --account",
      );
    }
    if (o.id === undefined && o.state === undefined) {
      throw new AdminError(
        o.account === undefined
          ? "name the messages: --id 4,7,9, or --state dead [--account U]"
          : "--account needs --state (dead or queued)",
      );
    }
    const ids = o.id === undefined ? undefined : idList(o.id);
    const state = o.state === undefined ? undefined : checkState(o.state);
    if (state === "sent")
      throw new AdminError("--state must be dead or queued: a sent message is not sent twice");
    const account = o.account === undefined ? undefined : await findAccount(ctx, o.account);
    const store = await ctx.store();
    const now = ctx.now();
    const done = await store.write(async (trx) => {
      let query = trx
        .selectFrom("mail_outbox")
        .select(["id", "state", "attempts", "last_error"])
        .orderBy("id");
      if (ids !== undefined) query = query.where("id", "in", ids);
      if (state !== undefined) query = query.where("state", "=", state);
      if (account !== undefined) query = query.where("account_id", "=", account.id);
      const rows = await query.execute();
      if (ids !== undefined) {
        const missing = ids.filter((id) => !rows.some((r) => r.id === id));
        if (missing.length > 0)
          throw new AdminError(
            `--id: there is no message ${idsText(missing)} in the outbox; nothing was retried`,
          );
        const sent = rows.filter((r) => r.state === "sent").map((r) => r.id);
        if (sent.length > 0)
          throw new AdminError(
            `--id: message ${idsText(sent)} was sent already; it is not sent twice, and nothing was retried`,
          );
      }
      const dead = rows.filter((r) => r.state === "dead").map((r) => r.id);
      const queued = rows.filter((r) => r.state === "queued").map((r) => r.id);
      for (const [group, from] of [
        [dead, "dead"],
        [queued, "queued"],
      ] as const) {
        for (let i = 0; i < group.length; i += 500) {
          const slice = group.slice(i, i + 500);
          const updated = await trx
            .updateTable("mail_outbox")
            .set({
              state: "queued",
              next_attempt_at: now,
              ...(from === "dead" ? { attempts: 0, first_attempt_at: null } : {}),
            })
            .where("id", "in", slice)
            .where(stateIs(from))
            .executeTakeFirst();
          if (Number(updated.numUpdatedRows) !== slice.length) {
            throw new AdminError(
              "messages changed while being retried (a worker delivered one meanwhile); nothing was retried; look again with outbox show",
            );
          }
        }
      }
      return rows;
    });
    const retried = done.map((r) => r.id);
    if (retried.length === 0) {
      const what = `${state} messages${account === undefined ? "" : ` of ${account.username}`}`;
      return { json: { retried: [], previous: [] }, text: `No ${what} in the outbox: nothing to retry.\n` };
    }
    const one = done.length === 1 ? done[0]! : undefined;
    const was =
      one === undefined
        ? `${done.filter((r) => r.state === "dead").length} were dead, ${done.filter((r) => r.state === "queued").length} waiting for their next attempt`
        : one.state === "dead"
          ? `was dead after ${one.attempts} attempt${one.attempts === 1 ? "" : "s"}${one.last_error === null ? "" : `: ${one.last_error}`}`
          : "was waiting for its next attempt";
    return {
      json: {
        retried,
        previous: done.map((r) => ({
          id: r.id,
          state: r.state,
          attempts: r.attempts,
          lastError: r.last_error,
        })),
      },
      text:
        one === undefined
          ? `${retried.length} messages are queued and due now (${was}): ${idsText(retried)}.\n`
          : `Message ${one.id} is queued and due now (${was}).\n`,
    };
  },
});

export const outboxNoun: Noun = {
  name: "outbox",
  describe: "The mail outbox: show, retry",
  verbs: [show, retry],
};
