// `sms show|stop|start|stops`: one SMS with its delivery receipt, and the numbers opted out of every SMS by
// STOP (operations/transactional/sms-events.ts). `stop` is for a STOP that reached the operator another
// way (a call, a letter); `start` for a number whose owner asked to receive SMS again.

import { e164, SmsEventError, startNumber, stopNumber } from "../operations/transactional/sms-events.js";
import { smsAddress } from "../operations/transactional/sms.js";
import { accountSms, listStops } from "../tables/sms.js";
import { AdminError, type Noun, findAccount, verb, wholeNumber } from "./context.js";
import { record, table, timeJson, timeText } from "./format.js";

function number(text: string): string {
  try {
    return e164(text, "--number");
  } catch (error) {
    if (error instanceof SmsEventError) throw new AdminError(error.message);
    throw error;
  }
}

const show = verb({
  name: "show",
  describe: "Show one SMS of an account: recipient, state, cost, attempts and its delivery receipt",
  options: {
    account: { describe: "The account's user name", required: true },
    id: { describe: "The SMS's id (as SendSmsWithSenderName answered it)", required: true },
  },
  async run(ctx, o) {
    const id = wholeNumber(o.id, "--id", 1, Number.MAX_SAFE_INTEGER);
    const account = await findAccount(ctx, o.account);
    const { db } = await ctx.store();
    const sms = await accountSms(db, account.id, id);
    if (sms === undefined) throw new AdminError(`--id: ${account.username} has no SMS ${id}`);
    const fields = {
      id: sms.id,
      to: smsAddress(sms),
      sender: sms.sender_name,
      state: sms.state,
      segments: sms.segments,
      cost: sms.cost,
      attempts: sms.attempts,
      lastError: sms.last_error,
      createdAt: timeJson(sms.created_at),
      sentAt: sms.sent_at === null ? null : timeJson(sms.sent_at),
      receipt: sms.receipt_status,
      receiptDetail: sms.receipt_detail,
      receiptAt: sms.receipt_at === null ? null : timeJson(sms.receipt_at),
    };
    return {
      json: fields,
      text: record([
        ["id", sms.id],
        ["to", fields.to],
        ["sender", sms.sender_name],
        ["state", sms.state],
        ["segments", sms.segments],
        ["cost", sms.cost],
        ["attempts", sms.attempts],
        ["last error", sms.last_error],
        ["created", timeText(sms.created_at)],
        ["sent", sms.sent_at === null ? null : timeText(sms.sent_at)],
        ["receipt", sms.receipt_status],
        ["receipt detail", sms.receipt_detail],
        ["receipt at", sms.receipt_at === null ? null : timeText(sms.receipt_at)],
      ]),
    };
  },
});

const numberOption = {
  number: { describe: "The phone number in international form, as +46701234567", required: true },
} as const;

const stop = verb({
  name: "stop",
  describe: "Opt a number out of every SMS of the service, as its STOP would",
  options: numberOption,
  async run(ctx, o) {
    const digits = number(o.number);
    const outcome = await stopNumber(await ctx.store(), digits, "ADMIN", ctx.now());
    return {
      json: { number: `+${digits}`, stopped: true, stoppedWaiting: outcome.stoppedWaiting },
      text: `+${digits} gets no more SMS (${outcome.stoppedWaiting} waiting SMS stopped).\n`,
    };
  },
});

const start = verb({
  name: "start",
  describe: "Take a number off the STOP list (SMS stopped before stay stopped)",
  options: numberOption,
  async run(ctx, o) {
    const digits = number(o.number);
    if (!(await startNumber(await ctx.store(), digits)))
      throw new AdminError(`--number: +${digits} is not on the STOP list`);
    return {
      json: { number: `+${digits}`, stopped: false },
      text: `+${digits} may get SMS again.\n`,
    };
  },
});

const stops = verb({
  name: "stops",
  describe: "List the numbers that sent STOP, newest first",
  options: { limit: { describe: "Numbers shown at most", default: "100" } },
  async run(ctx, o) {
    const limit = wholeNumber(o.limit ?? "100", "--limit", 1, 100_000);
    const { db } = await ctx.store();
    const rows = await listStops(db, limit);
    return {
      json: rows.map((r) => ({ number: `+${r.number}`, keyword: r.keyword, at: timeJson(r.created_at) })),
      text: table(
        ["number", "keyword", "since"],
        rows.map((r) => [`+${r.number}`, r.keyword, timeText(r.created_at)]),
        "No number has sent STOP.",
      ),
    };
  },
});

export const smsNoun: Noun = {
  name: "sms",
  describe: "One SMS and its delivery receipt; the numbers opted out by STOP: show, stop, start, stops",
  verbs: [show, stop, start, stops],
};
