// Pause, resume and cancel of a sending on SQLite and PostgreSQL (admin CLI `sending pause|resume|cancel`,
// service/operations/mailing/sending-control.ts):
// - in the running service, delivering over SMTP on loopback: a scheduled sending paused sends nothing
//   and resumed sends everything; a sending paused mid-way queues nothing more, its waiting messages are
//   held (not delivered) until it resumes, and then every recipient has exactly one message; a sending
//   cancelled mid-way queues and delivers nothing more, its waiting recipients and messages cancelled;
//   wrong states and another account's sending are refused naming --id;
// - with a worker process killed (kill -9) after the pause or cancel committed and two workers (two
//   connections) going on after a resume: nothing is sent twice, nothing after the cancel.

import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { afterAll, beforeAll, expect, it } from "vitest";
import { type Store, openStore } from "../../service/db/database.js";
import type { Account } from "../../service/db/schema.js";
import { cancelSending, pauseSending } from "../../service/operations/mailing/sending-control.js";
import { sendingStatistics } from "../../service/operations/mailing/sending-stats.js";
import { sendNewsletter } from "../../service/operations/mailing/sendings.js";
import { SendingWorker } from "../../service/workers/sendings.js";
import { expectCountersMatchRecount } from "./support/counters.js";
import { describeEngines, freshDatabaseUrl } from "./support/engines.js";
import { addMembers, countRows, seedAccount, seedNewsletter, waitFor } from "./support/sendings.js";
import { type TestService, admin, startService } from "./support/service.js";
import { type TestSmtp, smtpUrl, startSmtp } from "./support/smtp.js";

const ROOT = new URL("../../", import.meta.url).pathname;
const CHILD = "test/service/fixtures/worker.ts";
/** Sendings made here are due then: the service's own worker (due now) leaves them to the test's. */
const LATER = Date.UTC(2099, 0, 1);

async function members(store: Store, accountId: number, name: string, n: number) {
  const list = await store.db
    .insertInto("mailing_lists")
    .values({ account_id: accountId, name, created_at: Date.now() })
    .returning("id")
    .executeTakeFirstOrThrow();
  await addMembers(
    store,
    accountId,
    list.id,
    Array.from({ length: n }, (_, i) => ({
      email: `${name}${i}@example.com`,
      state: "active" as const,
      dd3: "SE",
    })),
  );
  return list.id;
}

async function schedule(store: Store, account: Account, newsletterId: number, listId: number, at: number) {
  return sendNewsletter(
    store,
    account,
    {
      strFromEmail: "news@example.com",
      strNewsletterId: String(newsletterId),
      strMailingListId: String(listId),
    },
    at,
  );
}

/** The sending's outbox messages by state. */
async function mailStates(store: Store, sendingId: number): Promise<Record<string, number>> {
  const rows = await store.db
    .selectFrom("sending_recipients as r")
    .innerJoin("mail_outbox as m", "m.id", "r.mail_id")
    .select(["m.state", (eb) => eb.fn.countAll().as("n")])
    .where("r.sending_id", "=", sendingId)
    .groupBy("m.state")
    .execute();
  return Object.fromEntries(rows.map((r) => [r.state, Number(r.n)]));
}

const control = async (url: string, verb: string, id: number, account = "demo") => {
  const out = await admin(url, ["sending", verb, "--account", account, "--id", String(id), "--json"]);
  return {
    code: out.code,
    stderr: out.stderr.trim(),
    json: out.code === 0 ? JSON.parse(out.stdout) : undefined,
  };
};

describeEngines("sending pause, resume and cancel", (engine) => {
  let svc: TestService;
  let smtp: TestSmtp;
  let account: Account;
  let newsletterId: number;
  const arrivalsOf = (prefix: string) => smtp.arrivals.filter((a) => a.to[0]!.startsWith(prefix));
  /** A worker of the test's own, small batches, acting at LATER. */
  const worker = () =>
    new SendingWorker(svc.app.store, { publicUrl: "http://127.0.0.1:1", domain: "127.0.0.1", batchSize: 5 });

  beforeAll(async () => {
    smtp = await startSmtp();
    svc = await startService(engine, "sendctl", {
      SMTP_URL: smtpUrl(smtp.port),
      SMTP_ALLOW_PLAINTEXT_AUTH: "true",
      MAIL_FROM: "service@example.com",
    });
    const id = await svc.createAccount("demo", "a-long-password");
    account = await svc.app.store.db
      .selectFrom("accounts")
      .selectAll()
      .where("id", "=", id)
      .executeTakeFirstOrThrow();
    newsletterId = (await seedNewsletter(svc.app.store, id, "ctl")).newsletterId;
    await svc.createAccount("other", "a-long-password");
  }, 60_000);
  afterAll(async () => {
    await svc?.close();
    await smtp?.close();
  });

  it("a scheduled sending paused sends nothing; resumed, each recipient gets one message; wrong states refused", async () => {
    const { store } = svc.app;
    const list = await members(store, account.id, "sched", 12);
    const id = await schedule(store, account, newsletterId, list, LATER);
    const paused = await control(svc.databaseUrl, "pause", id);
    expect(paused.json).toEqual({ id, state: "paused", messages: 0, recipients: 0, sent: 0 });
    expect(await worker().flush(LATER)).toBe(0);
    expect((await control(svc.databaseUrl, "pause", id)).stderr).toBe(
      `error: --id: sending ${id} is paused: only a scheduled or running sending can be paused`,
    );
    expect((await control(svc.databaseUrl, "resume", id, "other")).stderr).toBe(
      `error: --id: there is no sending ${id}`,
    );
    const text = await admin(svc.databaseUrl, ["sending", "resume", "--account", "demo", "--id", String(id)]);
    expect(text.stdout).toBe(`sending ${id} resumed (scheduled); 0 held messages queued again\n`);
    expect((await control(svc.databaseUrl, "resume", id)).stderr).toBe(
      `error: --id: sending ${id} is scheduled: only a paused sending can be resumed`,
    );
    expect(await worker().flush(LATER)).toBe(12);
    await svc.app.outbox!.flush(LATER);
    const to = arrivalsOf("sched").map((a) => a.to[0]);
    expect(new Set(to).size).toBe(12);
    expect(to).toHaveLength(12);
    expect((await control(svc.databaseUrl, "cancel", id)).stderr).toBe(
      `error: --id: sending ${id} is done: only a scheduled, running or paused sending can be cancelled`,
    );
  });

  it("paused mid-way: nothing more queued, waiting messages held; resumed: every recipient exactly once", async () => {
    const { store } = svc.app;
    const n = 400;
    const list = await members(store, account.id, "mid", n);
    const id = await schedule(store, account, newsletterId, list, LATER);
    const running = worker().flush(LATER);
    await waitFor("a first batch", async () => (await countRows(store, id)).sent > 0, 30_000);
    const paused = { json: await pauseSending(store, account.id, id) };
    const atPause = paused.json.sent;
    await running;
    expect(atPause).toBeGreaterThan(0);
    expect(atPause).toBeLessThan(n);
    // The worker queued nothing after the pause committed.
    expect(await countRows(store, id)).toEqual({ sent: atPause, queued: n - atPause });
    // Its messages (due at LATER, so the service's outbox had not delivered them) are held.
    expect(paused.json.messages).toBe(atPause);
    await svc.app.outbox!.flush(LATER);
    expect(await mailStates(store, id)).toEqual({ held: atPause });
    expect(arrivalsOf("mid")).toHaveLength(0);

    const resumed = await control(svc.databaseUrl, "resume", id);
    expect(resumed.json).toMatchObject({ id, state: "sending", messages: atPause });
    expect(await worker().flush(LATER)).toBe(n - atPause);
    await svc.app.outbox!.flush(LATER);
    const to = arrivalsOf("mid").map((a) => a.to[0]);
    expect(to).toHaveLength(n);
    expect(new Set(to).size).toBe(n);
    expect(await countRows(store, id)).toEqual({ sent: n });
    // Held, queued again, delivered: the counters followed each change.
    expect((await expectCountersMatchRecount(store.db)).get(id)).toMatchObject({ sent: n, accepted: n });
  });

  it("cancelled mid-way: nothing more queued or delivered; the rest cancelled, as the statistics say", async () => {
    const { store } = svc.app;
    const n = 400;
    const list = await members(store, account.id, "cut", n);
    const id = await schedule(store, account, newsletterId, list, LATER);
    const running = worker().flush(LATER);
    await waitFor("a first batch", async () => (await countRows(store, id)).sent > 0, 30_000);
    const cancelled = { json: await cancelSending(store, account.id, id, Date.now()) };
    await running;
    const atCancel = cancelled.json.sent;
    expect(cancelled.json.recipients).toBe(n - atCancel);
    expect(await countRows(store, id)).toEqual({ sent: atCancel, cancelled: n - atCancel });
    expect(cancelled.json.messages).toBe(atCancel);
    await svc.app.outbox!.flush(LATER);
    expect(await worker().flush(LATER)).toBe(0);
    expect(await mailStates(store, id)).toEqual({ cancelled: atCancel });
    expect(arrivalsOf("cut")).toHaveLength(0);
    const stats = (await sendingStatistics(store.db, account.id, id))!;
    expect(stats).toMatchObject({
      state: "cancelled",
      sent: atCancel,
      cancelled: n - atCancel,
      withdrawn: atCancel,
      pending: 0,
    });
    await expectCountersMatchRecount(store.db);
    expect((await control(svc.databaseUrl, "resume", id)).stderr).toBe(
      `error: --id: sending ${id} is cancelled: only a paused sending can be resumed`,
    );
  });
});

describeEngines("sending control with kill -9 and two workers", (engine) => {
  let url: string;
  let store: Store;
  let account: Account;
  let newsletterId: number;

  beforeAll(async () => {
    url = await freshDatabaseUrl(engine, "sendctlkill");
    store = await openStore(url);
    account = await seedAccount(store, "demo");
    newsletterId = (await seedNewsletter(store, account.id, "k")).newsletterId;
  }, 60_000);
  afterAll(async () => {
    await store?.close();
  });

  /** A worker process on the database, killed with -9 once `change` (pause or cancel) has committed. */
  const killedAfter = async (id: number, verb: "pause" | "cancel") => {
    const options = {
      publicUrl: "http://127.0.0.1:1",
      domain: "127.0.0.1",
      batchSize: 20,
      leaseMs: 1500,
      pollMs: 20,
    };
    const child: ChildProcess = spawn(
      process.execPath,
      ["--import", "tsx", CHILD, "sending", url, JSON.stringify(options)],
      {
        cwd: ROOT,
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    let stderr = "";
    child.stderr?.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    const exited = once(child, "exit");
    try {
      await waitFor("the child to send", async () => (await countRows(store, id)).sent > 0, 60_000);
      const changed = {
        json:
          verb === "pause"
            ? await pauseSending(store, account.id, id)
            : await cancelSending(store, account.id, id, Date.now()),
      };
      // The child goes on polling; it writes nothing more of this sending.
      await waitFor("the child to notice", async () => stderr.includes('"sending.lease_lost"'), 30_000);
      await new Promise((r) => setTimeout(r, 200));
      expect((await countRows(store, id)).sent).toBe(changed.json.sent);
      return changed.json;
    } finally {
      child.kill("SIGKILL");
      await exited;
    }
  };

  /** Two workers on two connections finishing whatever is due; what each queued. */
  const twoWorkers = async (): Promise<[number, number]> => {
    const other = await openStore(url);
    try {
      const common = { publicUrl: "http://127.0.0.1:1", domain: "127.0.0.1", batchSize: 25 };
      const a = new SendingWorker(store, { ...common, workerId: "a" });
      const b = new SendingWorker(other, { ...common, workerId: "b" });
      return await Promise.all([a.flush(), b.flush()]);
    } finally {
      await other.close();
    }
  };

  it("paused, the worker killed, resumed, two workers: each recipient exactly one message", async () => {
    const n = 6000;
    const list = await members(store, account.id, "kp", n);
    const id = await schedule(store, account, newsletterId, list, Date.now());
    const paused = await killedAfter(id, "pause");
    expect(paused.sent).toBeLessThan(n);
    expect(await twoWorkers()).toEqual([0, 0]); // paused: nobody claims it
    expect((await control(url, "resume", id)).json).toMatchObject({ state: "sending", sent: paused.sent });
    const [x, y] = await twoWorkers();
    expect(x + y).toBe(n - paused.sent);
    expect(await countRows(store, id)).toEqual({ sent: n });
    const mail = await store.db
      .selectFrom("sending_recipients as r")
      .innerJoin("mail_outbox as m", "m.id", "r.mail_id")
      .select((eb) => [eb.fn.countAll().as("n"), eb.fn.count("m.to_address").distinct().as("distinct")])
      .where("r.sending_id", "=", id)
      .executeTakeFirstOrThrow();
    expect({ n: Number(mail.n), distinct: Number(mail.distinct) }).toEqual({ n, distinct: n });
    const all = await store.db
      .selectFrom("mail_outbox")
      .select((eb) => eb.fn.countAll().as("n"))
      .where("to_address", "like", "kp%")
      .executeTakeFirstOrThrow();
    expect(Number(all.n)).toBe(n);
    // Two workers at once, one killed: the counters still equal a recount.
    expect((await expectCountersMatchRecount(store.db)).get(id)).toMatchObject({ sent: n, pending: n });
  }, 180_000);

  it("cancelled, the worker killed, two workers: nothing more is queued", async () => {
    const n = 6000;
    const list = await members(store, account.id, "kc", n);
    const id = await schedule(store, account, newsletterId, list, Date.now());
    const cancelled = await killedAfter(id, "cancel");
    expect(cancelled.recipients).toBe(n - cancelled.sent);
    expect(await twoWorkers()).toEqual([0, 0]);
    expect(await countRows(store, id)).toEqual({ sent: cancelled.sent, cancelled: n - cancelled.sent });
    const all = await store.db
      .selectFrom("mail_outbox")
      .select((eb) => eb.fn.countAll().as("n"))
      .where("to_address", "like", "kc%")
      .executeTakeFirstOrThrow();
    expect(Number(all.n)).toBe(cancelled.sent);
    expect((await expectCountersMatchRecount(store.db)).get(id)).toMatchObject({
      cancelled: n - cancelled.sent,
    });
  }, 180_000);
});
