// `sending show --account U [--id N]`: an account's newsletter sendings (SendNewsletter's send queue ids)
// with their state and progress: recipients, mail queued (sent), recipients skipped (unsubscribed or
// opted out before their turn), and when each is due.
// `sending stats --account U --id N`: every count and rate of one sending and the clicks per link
// (service/operations/mailing/sending-stats.ts, which the console reads too).
// `sending pause|resume|cancel --account U --id N`: service/operations/mailing/sending-control.ts.

import type { Store } from "../db/database.js";
import { sendingSummaries } from "../tables/sendings.js";
import {
  SendingControlError,
  type SendingControlOutcome,
  cancelSending,
  pauseSending,
  resumeSending,
} from "../operations/mailing/sending-control.js";
import {
  type SendingStatistics,
  sendingLinkClicks,
  sendingStatistics,
} from "../operations/mailing/sending-stats.js";
import {
  AdminError,
  type AdminContext,
  type Noun,
  findAccount,
  idOption,
  verb,
  wholeNumber,
} from "./context.js";
import { type Cell, record, table, timeJson, timeText } from "./format.js";

/** A rate as a percentage with one decimal ("12.5%"), or "-" when it has no base. */
function percent(value: number | null): string {
  return value === null ? "-" : `${(value * 100).toFixed(1)}%`;
}

/** The sending's statistics, or an AdminError naming --id. */
async function statisticsOf(
  ctx: AdminContext,
  accountName: string,
  idText: string,
): Promise<{ accountId: number; stats: SendingStatistics }> {
  const account = await findAccount(ctx, accountName);
  const id = idOption(idText);
  const { db } = await ctx.store();
  const stats = await sendingStatistics(db, account.id, id);
  if (stats === undefined) throw new AdminError(`--id: ${account.username} has no sending ${id}`);
  return { accountId: account.id, stats };
}

/** The statistics as JSON: times as ISO 8601. */
function statisticsJson(s: SendingStatistics): Record<string, unknown> {
  return { ...s, sendAt: timeJson(s.sendAt), finishedAt: timeJson(s.finishedAt) };
}

/** The statistics as `key: value` lines (counts, then rates). */
function statisticsRecord(s: SendingStatistics): string {
  const fields: [string, Cell][] = [
    ["id", s.id],
    ["state", s.state],
    ["newsletter", `${s.newsletter.id} ${s.newsletter.name}`],
    ["list", `${s.list.id} ${s.list.name}`],
    ["from", s.fromEmail],
    ["send at", timeText(s.sendAt)],
    ["finished", timeText(s.finishedAt)],
    ["recipients", s.recipients],
    ["sent", s.sent],
    ["skipped", s.skipped],
    ["cancelled", s.cancelled],
    ["accepted", s.accepted],
    ["pending", s.pending],
    ["failed", s.failed],
    ["withdrawn", s.withdrawn],
    ["delivered", `${s.delivered} (${percent(s.rates.delivery)} of sent)`],
    [
      "bounced",
      `${s.bounced.total} (${percent(s.rates.bounce)}): hard ${s.bounced.hard} (${percent(s.rates.hardBounce)}), soft ${s.bounced.soft} (${percent(s.rates.softBounce)})`,
    ],
    ["complaints", `${s.complaints} (${percent(s.rates.complaint)} of delivered)`],
    ["opens", `${s.opens.unique} unique (${percent(s.rates.open)} of delivered), ${s.opens.total} in all`],
    [
      "clicks",
      `${s.clicks.unique} unique (${percent(s.rates.click)} of delivered), ${s.clicks.total} in all`,
    ],
    ["click-to-open", percent(s.rates.clickToOpen)],
    ["unsubscribes", `${s.unsubscribes} (${percent(s.rates.unsubscribe)} of delivered)`],
  ];
  return record(fields);
}

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
    const rows = await sendingSummaries(db, account.id, { id, limit });
    return {
      json: rows.map((r) => ({
        id: r.id,
        newsletter: r.newsletter_id,
        list: r.list_id,
        state: r.state,
        recipients: r.recipients,
        sent: r.sent,
        skipped: r.skipped,
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
          r.skipped,
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

const stats = verb({
  name: "stats",
  describe: "Show one sending's counts and rates, and the clicks of each tracked link",
  epilog:
    "Rates: delivery and bounce of the sent messages; complaint, open, click and unsubscribe of the delivered ones;\n" +
    "click-to-open is unique clicks of unique opens. --json prints them as fractions (0 to 1, null without a base).",
  options: {
    account: { describe: "The account's user name", required: true },
    id: { describe: "The sending (the send queue id)", required: true },
    links: { describe: "Links listed at most (most clicked first)", default: "100" },
  },
  async run(ctx, o) {
    const limit = wholeNumber(o.links ?? "100", "--links", 1, 10_000);
    const { accountId, stats: s } = await statisticsOf(ctx, o.account, o.id);
    const links = await sendingLinkClicks((await ctx.store()).db, accountId, s.id, limit);
    return {
      json: { ...statisticsJson(s), links },
      text: `${statisticsRecord(s)}\n${table(
        ["link", "unique clicks", "clicks", "url"],
        links.map((l) => [l.linkId, l.unique, l.total, l.url]),
        "No tracked links.",
      )}`,
    };
  },
});

/** A pause, resume or cancel verb: runs `change` on the account's sending and says what it did. */
function control(
  name: string,
  describe: string,
  change: (store: Store, accountId: number, id: number, now: number) => Promise<SendingControlOutcome>,
  said: (o: SendingControlOutcome) => string,
) {
  return verb({
    name,
    describe,
    options: {
      account: { describe: "The account's user name", required: true },
      id: { describe: "The sending (the send queue id)", required: true },
    },
    async run(ctx, o) {
      const account = await findAccount(ctx, o.account);
      const id = idOption(o.id);
      try {
        const outcome = await change(await ctx.store(), account.id, id, ctx.now());
        return { json: outcome, text: `${said(outcome)}\n` };
      } catch (error) {
        if (error instanceof SendingControlError) throw new AdminError(`--id: ${error.message}`);
        throw error;
      }
    },
  });
}

const pause = control(
  "pause",
  "Pause a scheduled or running sending: no worker queues more of its mail; its queued mail is held",
  (store, accountId, id) => pauseSending(store, accountId, id),
  (o) => `sending ${o.id} paused after ${o.sent} recipients; ${o.messages} queued messages held`,
);
const resume = control(
  "resume",
  "Resume a paused sending: the next worker goes on with the recipients still waiting",
  (store, accountId, id) => resumeSending(store, accountId, id),
  (o) => `sending ${o.id} resumed (${o.state}); ${o.messages} held messages queued again`,
);
const cancel = control(
  "cancel",
  "Cancel a scheduled, running or paused sending: nothing more of it is sent",
  cancelSending,
  (o) =>
    `sending ${o.id} cancelled; ${o.recipients} recipients not sent to, ${o.messages} messages withdrawn`,
);

export const sendingNoun: Noun = {
  name: "sending",
  describe: "Newsletter sendings: show, stats, pause, resume, cancel",
  verbs: [show, stats, pause, resume, cancel],
};
