// `credits add|show|price`: an account's SMS credits. `add` refills and, in the same transaction, pays the
// SMS waiting for credits oldest first while they fit (the service's worker then delivers them); `show`
// prints the balance, the price per segment, the SMS still waiting and the newest ledger rows; `price`
// sets the price per segment (SMS sent later cost segments × it; waiting ones keep the cost they had).

import { DecimalError, formatDecimal, parseDecimal } from "../common/decimal.js";
import { RefillError, refill } from "../operations/transactional/sms.js";
import { ledgerRows, setSmsPrice, smsCredits, waitingSummary } from "../tables/sms.js";
import { AdminError, type Noun, findAccount, verb, wholeNumber } from "./context.js";
import { record, table, timeJson, timeText } from "./format.js";

const add = verb({
  name: "add",
  describe: "Add SMS credits to an account, then pay its waiting SMS oldest first while they fit",
  options: {
    account: { describe: "The account's user name", required: true },
    amount: {
      describe: "Credits to add: a decimal number above 0 with at most 6 places, as 12.5",
      required: true,
    },
  },
  async run(ctx, o) {
    const account = await findAccount(ctx, o.account);
    const store = await ctx.store();
    let result;
    try {
      result = await refill(store, account.id, o.amount, ctx.now());
    } catch (error) {
      if (error instanceof RefillError) throw new AdminError(`--amount: ${error.message}`);
      throw error;
    }
    const paid =
      result.paid.length === 0
        ? "no waiting SMS paid"
        : `${result.paid.length} waiting SMS paid and queued (ids ${result.paid.join(", ")})`;
    return {
      json: {
        account: account.username,
        added: formatDecimal(parseDecimal(o.amount.trim())),
        balance: result.balance,
        paid: result.paid,
        stillWaiting: result.stillWaiting,
      },
      text: `Added ${formatDecimal(parseDecimal(o.amount.trim()))} credits to ${account.username}: ${paid}; balance ${result.balance}; ${result.stillWaiting} still waiting.\n`,
    };
  },
});

const show = verb({
  name: "show",
  describe: "Show an account's SMS credits, price, waiting SMS and newest ledger rows",
  options: {
    account: { describe: "The account's user name", required: true },
    limit: { describe: "Ledger rows shown at most (newest first)", default: "10" },
  },
  async run(ctx, o) {
    const limit = wholeNumber(o.limit ?? "10", "--limit", 1, 10_000);
    const account = await findAccount(ctx, o.account);
    const { db } = await ctx.store();
    const current = await smsCredits(db, account.id);
    const waiting = await waitingSummary(db, account.id);
    const ledger = await ledgerRows(db, account.id, limit);
    const waitingCount = Number(waiting.n);
    return {
      json: {
        account: account.username,
        credits: current.sms_credits,
        price: current.sms_price,
        waiting: waitingCount,
        oldestWaiting: waiting.oldest === null ? null : Number(waiting.oldest),
        ledger: ledger.map((l) => ({
          id: l.id,
          amount: l.amount,
          balance: l.balance,
          reason: l.reason,
          smsId: l.sms_id,
          at: timeJson(l.created_at),
        })),
      },
      text:
        record([
          ["account", account.username],
          ["credits", current.sms_credits],
          ["price per segment", current.sms_price],
          ["sms waiting", waitingCount],
        ]) +
        "\n" +
        table(
          ["id", "amount", "balance", "reason", "sms", "at"],
          ledger.map((l) => [l.id, l.amount, l.balance, l.reason, l.sms_id, timeText(l.created_at)]),
          "No credit changes yet.",
        ),
    };
  },
});

const price = verb({
  name: "price",
  describe: "Set an account's SMS price per segment (SMS sent from now on)",
  options: {
    account: { describe: "The account's user name", required: true },
    price: {
      describe: "Credits per segment: a decimal number from 0 with at most 6 places, as 0.5",
      required: true,
    },
  },
  async run(ctx, o) {
    let value: bigint;
    try {
      value = parseDecimal(o.price.trim(), "--price");
    } catch (error) {
      if (error instanceof DecimalError) throw new AdminError(error.message);
      throw error;
    }
    if (value < 0n) throw new AdminError(`--price must not be negative, not "${o.price}"`);
    const account = await findAccount(ctx, o.account);
    const { db } = await ctx.store();
    await setSmsPrice(db, account.id, formatDecimal(value));
    return {
      json: { account: account.username, price: formatDecimal(value) },
      text: `SMS price of ${account.username}: ${formatDecimal(value)} credits per segment.\n`,
    };
  },
});

export const creditsNoun: Noun = {
  name: "credits",
  describe: "SMS credits: add (refill, pays waiting SMS), show, price",
  verbs: [add, show, price],
};
