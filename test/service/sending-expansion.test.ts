// A sending's recipients are listed a page at a time (workers/sendings.ts expand), on SQLite and
// PostgreSQL: a worker process killed (kill -9) while it lists them leaves the sending `expanding` with
// the pages it committed, and the next claim goes on from its highest recipient, so every member gets
// exactly one message; a sending paused while its recipients were being listed resumes as `scheduled`
// (it must be listed to its end, not sent to the part listed) and then every member gets one message.

import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { expect, it } from "vitest";
import { type Store, openStore } from "../../service/db/database.js";
import type { Account } from "../../service/db/schema.js";
import { pauseSending, resumeSending } from "../../service/operations/mailing/sending-control.js";
import { sendNewsletter } from "../../service/operations/mailing/sendings.js";
import { addRecipients, markExpanding } from "../../service/tables/sendings.js";
import { SendingWorker } from "../../service/workers/sendings.js";
import { describeEngines, freshDatabaseUrl } from "./support/engines.js";
import { addMembers, countRows, seedAccount, seedNewsletter, waitFor } from "./support/sendings.js";

const ROOT = new URL("../../", import.meta.url).pathname;
const CHILD = "test/service/fixtures/worker.ts";

/** An account with a list of `n` active members and a sending of a newsletter to it. */
async function bigSending(store: Store, label: string, n: number) {
  const account: Account = await seedAccount(store, label);
  const list = await store.db
    .insertInto("mailing_lists")
    .values({ account_id: account.id, name: label, created_at: Date.now() })
    .returning("id")
    .executeTakeFirstOrThrow();
  await addMembers(
    store,
    account.id,
    list.id,
    Array.from({ length: n }, (_, i) => ({
      email: `${label}${i}@example.com`,
      state: "active" as const,
      dd3: "SE",
    })),
  );
  const { newsletterId } = await seedNewsletter(store, account.id, label);
  const id = await sendNewsletter(
    store,
    account,
    {
      strFromEmail: "news@example.com",
      strNewsletterId: String(newsletterId),
      strMailingListId: String(list.id),
    },
    Date.now(),
  );
  return { account, listId: list.id, id };
}

/** One newsletter message per member, each to a different address. */
async function oneMessageEach(store: Store, accountId: number, n: number): Promise<void> {
  const mail = await store.db
    .selectFrom("mail_outbox")
    .select((eb) => [
      eb.fn.countAll<number>().as("n"),
      eb.fn.count<number>("to_address").distinct().as("distinct"),
    ])
    .where("account_id", "=", accountId)
    .where("kind", "=", "newsletter")
    .executeTakeFirstOrThrow();
  expect({ n: Number(mail.n), distinct: Number(mail.distinct) }).toEqual({ n, distinct: n });
}

const sendingRow = (store: Store, id: number) =>
  store.db.selectFrom("sendings").selectAll().where("id", "=", id).executeTakeFirstOrThrow();

const recipientRows = async (store: Store, id: number) =>
  Number(
    (
      await store.db
        .selectFrom("sending_recipients")
        .select((eb) => eb.fn.countAll<number>().as("n"))
        .where("sending_id", "=", id)
        .executeTakeFirstOrThrow()
    ).n,
  );

describeEngines("sending expansion by pages", (engine) => {
  it("kill -9 while the recipients are listed: the next claim goes on from the last page; one message each", async () => {
    const url = await freshDatabaseUrl(engine, "expandkill");
    const store = await openStore(url);
    try {
      const n = 6000;
      const { account, id } = await bigSending(store, "ek", n);
      const options = {
        publicUrl: "http://127.0.0.1:1",
        domain: "127.0.0.1",
        expandPage: 100,
        leaseMs: 1500,
        pollMs: 20,
        workerId: "child",
      };
      const child: ChildProcess = spawn(
        process.execPath,
        ["--import", "tsx", CHILD, "sending", url, JSON.stringify(options)],
        { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"] },
      );
      let stderr = "";
      child.stderr?.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
      const exited = once(child, "exit");
      try {
        await waitFor(
          "the child to list recipients",
          async () => (await recipientRows(store, id)) > 0,
          60_000,
        );
      } catch (error) {
        child.kill("SIGKILL");
        throw new Error(`${String(error)}; child stderr: ${stderr.slice(-2000)}`);
      }
      child.kill("SIGKILL");
      await exited;
      const killed = await sendingRow(store, id);
      const listed = await recipientRows(store, id);
      expect(killed).toMatchObject({ state: "expanding", recipients: 0, sent: 0, lease_owner: "child" });
      expect(listed % 100, "whole pages only").toBe(0);
      expect(listed).toBeLessThan(n);

      const logs: Record<string, unknown>[] = [];
      const worker = new SendingWorker(store, {
        publicUrl: "http://127.0.0.1:1",
        domain: "127.0.0.1",
        expandPage: 1000,
        leaseMs: 30_000,
        log: (e) => logs.push(e),
      });
      for (let i = 0; i < 400 && (await sendingRow(store, id)).state !== "done"; i++) {
        await worker.flush(Date.now() + 60_000);
        await new Promise((r) => setTimeout(r, 25));
      }
      expect(logs.find((e) => e.event === "sending.claimed")).toMatchObject({
        sending: id,
        state: "expanding",
      });
      expect(await sendingRow(store, id)).toMatchObject({ state: "done", recipients: n, sent: n });
      expect(await countRows(store, id)).toEqual({ sent: n });
      await oneMessageEach(store, account.id, n);
    } finally {
      await store.close();
    }
  }, 180_000);

  it("a sending paused while its recipients were listed resumes as scheduled and then reaches every member once", async () => {
    const store = await openStore(await freshDatabaseUrl(engine, "expandpause"));
    try {
      const n = 50;
      const { account, id } = await bigSending(store, "ep", n);
      const members = await store.db
        .selectFrom("memberships")
        .select("subscriber_id")
        .where("account_id", "=", account.id)
        .orderBy("subscriber_id")
        .execute();
      // A worker listed the first 20 and was paused before the next page.
      await store.write(async (trx) => {
        await markExpanding(trx, id);
        await addRecipients(
          trx,
          { id, accountId: account.id },
          members.slice(0, 20).map((m) => m.subscriber_id),
          Date.now(),
        );
      });
      expect(await pauseSending(store, account.id, id)).toMatchObject({ state: "paused" });
      expect(await resumeSending(store, account.id, id)).toMatchObject({ state: "scheduled" });
      const worker = new SendingWorker(store, {
        publicUrl: "http://127.0.0.1:1",
        domain: "127.0.0.1",
        expandPage: 7,
        batchSize: 9,
      });
      await worker.flush();
      expect(await sendingRow(store, id)).toMatchObject({ state: "done", recipients: n, sent: n });
      expect(await countRows(store, id)).toEqual({ sent: n });
      await oneMessageEach(store, account.id, n);
    } finally {
      await store.close();
    }
  }, 60_000);
});
