// `npm run fuzz -- --only outbox`: one account's bulk backlog against everyone else's mail, on the real
// service in its own process (real-service.ts) with the default folder delivery. 100,000 newsletter mails
// of one account are queued in the service's database (as a sending or a trigger queues them), and while
// the worker delivers them:
// - another account's transactional mail (InsertTransaction) and a third account's confirmation mail
//   (a pending insert) are queued through the API, and the time from the call's answer until each one's
//   `<id>.eml` is in the outbox folder is measured;
// - a fourth account queues 1,000 bulk mails of its own, and how many of the first account's go out while
//   those 1,000 do is counted, from the first batch carrying them (equal shares: about 1,000);
// an honest caller (GetTriggerIdForAccount) probes the API throughout.

import fs from "node:fs";
import type { Insertable } from "kysely";
import path from "node:path";
import { renderMessage } from "../../service/delivery/mail.js";
import { outboxPriority } from "../../service/delivery/mail.js";
import { openStore, type Store } from "../../service/db/database.js";
import type { MailOutboxTable } from "../../service/db/schema.js";
import type { Row } from "./report.js";
import {
  callHttpPost,
  describeProbes,
  probeDuring,
  type RealService,
  startRealService,
} from "./real-service.js";

export interface OutboxAttackOptions {
  /** Bulk mails queued for the first account (default 100,000). */
  readonly backlog?: number;
  /** How long to wait for the victims' mail before calling it not delivered (default 60 s). */
  readonly waitMs?: number;
}

const PASSWORD = "attack-password-1";
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Queues `count` newsletter mails of the account (each rendered as queueMail renders it), 500 a statement. */
async function queueBulk(store: Store, accountId: number, count: number, label: string): Promise<void> {
  const body = `Hello,\n\nthis is the weekly news with a lot of text in it.\n${"Lorem ipsum dolor sit amet. ".repeat(40)}\n`;
  for (let done = 0; done < count; done += 500) {
    const at = Date.now();
    const values: Insertable<MailOutboxTable>[] = [];
    for (let i = done; i < Math.min(count, done + 500); i++) {
      const to = { name: "", address: `${label}${i}@example.com` };
      const message = renderMessage(
        {
          accountId,
          kind: "newsletter",
          from: { name: "News", address: "news@example.com" },
          to,
          subject: `News ${i}`,
          text: body,
        },
        at,
        "example.com",
      );
      values.push({
        account_id: accountId,
        kind: "newsletter",
        priority: outboxPriority("newsletter"),
        to_address: to.address,
        subject: `News ${i}`,
        message,
        next_attempt_at: at,
        created_at: at,
      });
    }
    await store.write((trx) => trx.insertInto("mail_outbox").values(values).execute());
  }
}

/** Milliseconds until `file` exists (polled every 10 ms), or undefined after `waitMs`. */
async function untilWritten(file: string, since: number, waitMs: number): Promise<number | undefined> {
  while (performance.now() - since < waitMs) {
    if (fs.existsSync(file)) return performance.now() - since;
    await sleep(10);
  }
  return undefined;
}

async function sentCount(store: Store, accountId: number): Promise<number> {
  const row = await store.db
    .selectFrom("mail_outbox")
    .select((eb) => eb.fn.countAll<number>().as("n"))
    .where("account_id", "=", accountId)
    .where("state", "=", "sent")
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export async function outboxSection(rows: Row[], options: OutboxAttackOptions = {}): Promise<void> {
  const backlog = options.backlog ?? 100_000;
  const waitMs = options.waitMs ?? 60_000;
  const service: RealService = await startRealService({
    accounts: [
      { username: "bulk", password: PASSWORD },
      { username: "shop", password: PASSWORD },
      { username: "club", password: PASSWORD, lists: ["Members"] },
      { username: "second", password: PASSWORD },
    ],
  });
  const store = await openStore(`sqlite:${path.join(service.info.dataDir, "service.db")}`, {
    sqliteSync: "NORMAL",
  });
  try {
    const [bulk, shop, club, second] = service.info.accounts;
    const outboxDir = path.join(service.info.dataDir, "outbox");
    const project = await store.db
      .insertInto("projects")
      .values({
        account_id: shop!.id,
        name: "Receipts",
        subject: "Your receipt",
        text_body: "Thank you {{Name}}.\n",
        created_at: Date.now(),
      })
      .returning("id")
      .executeTakeFirstOrThrow();
    const queuing = performance.now();
    await queueBulk(store, bulk!.id, backlog, "reader");
    const queuedMs = performance.now() - queuing;
    await sleep(1000);
    const probe = () =>
      callHttpPost(service.port, "GetTriggerIdForAccount", { strUsername: "shop", strPassword: PASSWORD });
    // signed in once before: the probe then measures the service, not the first scrypt of the password
    await probe();

    // 1. another account's transactional and confirmation mail behind the backlog
    const victims = async () => {
      const started = performance.now();
      // HTTP POST names every parameter, as ASMX wants
      const none = { strName: "", strFormat: "HTML", strDataFields: "", strDataValues: "" };
      const transaction = await callHttpPost(service.port, "InsertTransaction", {
        strUsername: "shop",
        strPassword: PASSWORD,
        strId: String(project.id),
        strIdentifier: "",
        strEmail: "buyer@example.com",
        strSendTime: "",
        ...none,
      });
      const confirmation = await callHttpPost(service.port, "InsertSubscriberWithDemDataPendingOption", {
        strUsername: "club",
        strPassword: PASSWORD,
        strMailingListID: String(club!.lists[0]),
        strEmail: "joiner@example.com",
        strName: "",
        strCountryCode: "",
        strPhoneNumber: "",
        strFormat: "HTML",
        strDatafields: "",
        strDatavalues: "",
        strPending: "true",
      });
      const answered = performance.now();
      const receipt = await store.db
        .selectFrom("mail_outbox")
        .select("id")
        .where("account_id", "=", shop!.id)
        .executeTakeFirst();
      const confirm = await store.db
        .selectFrom("mail_outbox")
        .select("id")
        .where("account_id", "=", club!.id)
        .executeTakeFirst();
      const [receiptMs, confirmMs] = await Promise.all([
        receipt === undefined
          ? undefined
          : untilWritten(path.join(outboxDir, `${receipt.id}.eml`), answered, waitMs),
        confirm === undefined
          ? undefined
          : untilWritten(path.join(outboxDir, `${confirm.id}.eml`), answered, waitMs),
      ]);
      const bulkSent = await sentCount(store, bulk!.id);
      return {
        statuses: [transaction, confirmation].map((a) => (a.kind === "answer" ? a.status : a.detail)),
        callsMs: answered - started,
        receiptMs,
        confirmMs,
        bulkSent,
      };
    };
    const first = await probeDuring(victims(), probe);
    const { receiptMs, confirmMs } = first.result;
    const ms = (value: number | undefined) =>
      value === undefined ? `not in ${waitMs / 1000} s` : `${Math.round(value)} ms`;
    rows.push({
      attack: `outbox: ${backlog.toLocaleString("en")} bulk mails of one account queued (${(queuedMs / 1000).toFixed(1)} s), then another account's transactional and a third's confirmation mail`,
      requests: 2,
      outcome: `answered ${first.result.statuses.join(", ")} in ${Math.round(first.result.callsMs)} ms; ${first.result.bulkSent.toLocaleString("en")} bulk mails out by then`,
      measured: `transactional .eml ${ms(receiptMs)}, confirmation .eml ${ms(confirmMs)} after the answers; ${describeProbes(first.probes)}`,
      target: "each written within 5 s; probe answered within 1 s",
      pass:
        receiptMs !== undefined &&
        receiptMs <= 5000 &&
        confirmMs !== undefined &&
        confirmMs <= 5000 &&
        first.probes.failed === 0 &&
        first.probes.maxMs <= 1000,
      details: first.probes.examples,
    });

    // 2. a second bulk account behind the same backlog gets an equal share
    const SECOND = 1000;
    const share = async () => {
      await queueBulk(store, second!.id, SECOND, "member");
      const started = performance.now();
      // The first account's share is counted from the first batch that carries the second's mail: batches
      // claimed before the second's mail was queued (up to two of 200 with the folder) are not shares.
      let before: number | undefined;
      let done = 0;
      while (performance.now() - started < waitMs && (done = await sentCount(store, second!.id)) < SECOND) {
        if (done > 0 && before === undefined) before = await sentCount(store, bulk!.id);
        await sleep(50);
      }
      return {
        done,
        firstMeanwhile: (await sentCount(store, bulk!.id)) - (before ?? 0),
        ms: performance.now() - started,
      };
    };
    const shared = await probeDuring(share(), probe);
    const { done, firstMeanwhile } = shared.result;
    rows.push({
      attack: `outbox: a second account queues ${SECOND.toLocaleString("en")} bulk mails behind the first's backlog`,
      requests: 0,
      outcome: `${done.toLocaleString("en")} of them out in ${(shared.result.ms / 1000).toFixed(1)} s`,
      measured: `the first account's mails out meanwhile: ${firstMeanwhile.toLocaleString("en")}; ${describeProbes(shared.probes)}`,
      target: `all out, the first's meanwhile at most ${(SECOND * 1.2).toLocaleString("en")} (equal shares); probe within 1 s`,
      pass:
        done >= SECOND &&
        firstMeanwhile <= SECOND * 1.2 &&
        shared.probes.failed === 0 &&
        shared.probes.maxMs <= 1000,
      details: shared.probes.examples,
    });
  } finally {
    await store.close();
    await service.child.stop();
  }
}
