// A pause that arrives while the outbox worker has a sending's messages claimed, on SQLite and PostgreSQL:
// the message whose delivery is under way is sent once (and stays sent after the resume), or, when that
// delivery fails, stays held with the sending (a failed attempt must not queue a paused sending's message
// again) and goes once after the resume; the message claimed in the same batch but not yet started is
// not sent while paused and goes once after the resume. Never lost, never doubled. The transport is a
// test's own, whose send waits until the test lets it finish.

import { afterAll, beforeAll, expect, it } from "vitest";
import { type Store, openStore } from "../../service/db/database.js";
import type { MailTransport, OutgoingMail } from "../../service/delivery/mail-transport.js";
import type { Account } from "../../service/db/schema.js";
import { pauseSending, resumeSending } from "../../service/operations/mailing/sending-control.js";
import { sendNewsletter } from "../../service/operations/mailing/sendings.js";
import { OutboxWorker } from "../../service/workers/outbox.js";
import { SendingWorker } from "../../service/workers/sendings.js";
import { describeEngines, freshDatabaseUrl } from "./support/engines.js";
import { addMembers, seedAccount, seedNewsletter } from "./support/sendings.js";

const LEASE = 30_000;

/** A transport whose sends wait for the test: `started` resolves when a send begins, `finish` ends it. */
function heldTransport() {
  const delivered: string[] = [];
  let begin: (mail: OutgoingMail) => void = () => {};
  let end: (error?: Error) => void = () => {};
  const transport: MailTransport = {
    description: "test",
    sendTimeoutMs: 0,
    async send(mail) {
      const finished = new Promise<Error | undefined>((resolve) => {
        end = resolve;
      });
      begin(mail);
      const error = await finished;
      if (error !== undefined) throw error;
      delivered.push(mail.to_address);
    },
    async close() {},
  };
  return {
    transport,
    delivered,
    /** Resolves with the next message whose send begins. */
    started: () => new Promise<OutgoingMail>((resolve) => (begin = resolve)),
    /** Ends the send in progress: delivered, or failed with `error`. */
    finish: (error?: Error) => end(error),
  };
}

describeEngines("a pause while the outbox holds claimed messages", (engine) => {
  let store: Store;
  let account: Account;
  let newsletterId: number;
  let serial = 0;

  beforeAll(async () => {
    store = await openStore(await freshDatabaseUrl(engine, "pauseclaimed"));
    account = await seedAccount(store, "demo");
    newsletterId = (await seedNewsletter(store, account.id, "p")).newsletterId;
  }, 60_000);
  afterAll(async () => {
    await store?.close();
  });

  /**
   * A sending to three new members whose worker stopped after queuing the first two in the outbox (so
   * the sending is still running); returns its id, the two queued addresses and the third.
   */
  async function queuedSending(): Promise<{ id: number; addresses: string[]; third: string }> {
    const name = `pc${++serial}`;
    const list = await store.db
      .insertInto("mailing_lists")
      .values({ account_id: account.id, name, created_at: Date.now() })
      .returning("id")
      .executeTakeFirstOrThrow();
    const addresses = [`${name}a@example.com`, `${name}b@example.com`, `${name}c@example.com`];
    await addMembers(
      store,
      account.id,
      list.id,
      addresses.map((email) => ({ email, state: "active" as const, dd3: "SE" })),
    );
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
    const worker: SendingWorker = new SendingWorker(store, {
      publicUrl: "http://127.0.0.1:1",
      domain: "127.0.0.1",
      workerId: `s${serial}`,
      batchSize: 2,
      leaseMs: 1000,
      onMailQueued: () => void worker.stop(),
    });
    await worker.flush();
    return { id, addresses: addresses.slice(0, 2), third: addresses[2]! };
  }

  const states = async (addresses: string[]) =>
    Object.fromEntries(
      (
        await store.db
          .selectFrom("mail_outbox")
          .select(["to_address", "state"])
          .where("to_address", "in", addresses)
          .execute()
      ).map((r) => [r.to_address, r.state]),
    );

  for (const outcome of ["delivered", "failed"] as const) {
    it(`the message in flight ${outcome === "delivered" ? "is sent once" : "fails and stays held"}; the claimed one waits; after the resume each goes once`, async () => {
      const { id, addresses, third } = await queuedSending();
      const held = heldTransport();
      const outbox = new OutboxWorker(store, {
        dir: "/nonexistent",
        transport: held.transport,
        leaseMs: LEASE,
        random: () => 1,
      });
      const t0 = Date.now();
      const started = held.started();
      // one lane: both messages are claimed in one batch, the first is sent, the second waits its turn
      const flushing = outbox.flush(t0);
      const first = await started;
      const second = addresses.find((a) => a !== first.to_address)!;
      const claimed = await store.db
        .selectFrom("mail_outbox")
        .select(["to_address", "lease_owner"])
        .where("to_address", "in", addresses)
        .execute();
      expect(claimed.every((r) => r.lease_owner !== null)).toBe(true);
      // the pause commits while the first is being sent and the second is claimed
      const paused = await pauseSending(store, account.id, id);
      expect(paused).toMatchObject({ state: "paused", messages: 2 });
      held.finish(outcome === "delivered" ? undefined : new Error("451 4.7.1 try again later"));
      await flushing;
      expect(await states(addresses)).toEqual({
        [first.to_address]: outcome === "delivered" ? "sent" : "held",
        [second]: "held",
      });
      expect(held.delivered).toEqual(outcome === "delivered" ? [first.to_address] : []);
      // nothing more goes while paused, even past the lease and the retry
      const later = t0 + LEASE + 3_600_000;
      await outbox.flush(later);
      expect(held.delivered).toHaveLength(outcome === "delivered" ? 1 : 0);
      // resumed: the sending queues the third; what is not sent goes once; the sent one stays sent
      await resumeSending(store, account.id, id);
      await new SendingWorker(store, {
        publicUrl: "http://127.0.0.1:1",
        domain: "127.0.0.1",
        workerId: `r${serial}`,
      }).flush(later);
      const rest = outcome === "delivered" ? [second, third] : [...addresses, third];
      const done = (async () => {
        for (let k = 0; k < rest.length; k++) {
          await held.started();
          setImmediate(() => held.finish());
        }
      })();
      await outbox.flush(later + 1);
      await done;
      const all = [...addresses, third];
      expect([...held.delivered].sort()).toEqual([...all].sort());
      expect(await states(all)).toEqual(Object.fromEntries(all.map((a) => [a, "sent"])));
      await outbox.flush(later + 7_200_000);
      expect(held.delivered).toHaveLength(3);
      await outbox.stop();
    });
  }
});
