// PostgreSQL's API writes with credentials verified less than the cache TTL ago are one round trip: one
// statement checks the account (password version and name unchanged) and writes. Counted here at the
// driver (pg's Client.query, which every pooled query goes through), with the operation handlers called
// directly on a store of their own (no workers polling meanwhile). The answers and the faults are those
// of the general path: test/service/operations.test.ts, sms.test.ts and transactions.test.ts run the same
// calls through the service on both engines.

import pg from "pg";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { ServiceError } from "../../generated/server.js";
import type { CallContext, ExternalAPIService } from "../../generated/server.js";
import { Authenticator, hashPassword } from "../../service/auth/authenticator.js";
import { type Store, openStore } from "../../service/db/database.js";
import { formatDecimal, parseDecimal } from "../../service/common/decimal.js";
import { createService } from "../../service/operations/service.js";
import { refill } from "../../service/operations/transactional/sms.js";
import { startNumber, stopNumber } from "../../service/operations/transactional/sms-events.js";
import { STOPPED_ERROR } from "../../service/tables/sms.js";
import { engines, freshDatabaseUrl } from "./support/engines.js";

const postgres = engines().find((engine) => engine.name === "postgres")!;
const suffix = postgres.skip === undefined ? "" : ` (skipped: ${postgres.skip})`;

function context(username: string, password: string): CallContext {
  return {
    operation: "test",
    credentials: { username, password },
    soapHeaders: {},
    replyHeaders: {},
    binding: "soap11",
    requestId: "r1",
    remoteAddress: "127.0.0.1",
    logFields: {},
    signal: new AbortController().signal,
  } satisfies CallContext;
}

/** The queries `work` sends to PostgreSQL (every statement, BEGIN and COMMIT included). */
async function queriesOf<T>(work: () => T | Promise<T>): Promise<{ value: T; queries: string[] }> {
  const spy = vi.spyOn(pg.Client.prototype, "query");
  try {
    const value = await work();
    const queries = spy.mock.calls.map(([query]) =>
      typeof query === "string" ? query : (query as { text: string }).text,
    );
    return { value, queries };
  } finally {
    spy.mockRestore();
  }
}

async function faultOf(promise: unknown): Promise<ServiceError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof ServiceError) return error;
    throw error;
  }
  throw new Error("the call succeeded; a fault was expected");
}

describe.skipIf(postgres.skip !== undefined)(`single-statement writes on postgres${suffix}`, () => {
  let store: Store;
  let service: ExternalAPIService;
  let accountId: number;
  let listId: number;
  const call = context("shop", "secret");

  beforeAll(async () => {
    store = await openStore(await freshDatabaseUrl("postgres", "single_statement"));
    const auth = new Authenticator(store);
    service = createService({
      store,
      auth,
      config: { publicUrl: "http://127.0.0.1:1", mailFrom: "from@example.com" },
      imports: {
        enqueue: () => Promise.reject(new Error("no imports here")),
      },
    });
    accountId = (
      await store.db
        .insertInto("accounts")
        .values({ username: "shop", password_hash: await hashPassword("secret"), created_at: 1 })
        .returning("id")
        .executeTakeFirstOrThrow()
    ).id;
    listId = (
      await store.db
        .insertInto("mailing_lists")
        .values({ account_id: accountId, name: "news", created_at: 1 })
        .returning("id")
        .executeTakeFirstOrThrow()
    ).id;
    // The first call verifies the password (scrypt) and caches the pair.
    await service.InsertSubscriberSid(
      { strMailingListID: String(listId), strEmail: "first@example.com" },
      call,
    );
  });

  afterAll(async () => {
    await store?.close();
  });

  const subscribers = async () =>
    (await store.db.selectFrom("subscribers").select("email_key").orderBy("id").execute()).map(
      (row) => row.email_key,
    );

  it("InsertSubscriberWithDemData, a new address: one round trip", async () => {
    const { value, queries } = await queriesOf(() =>
      service.InsertSubscriberWithDemData(
        {
          strMailingListID: String(listId),
          strEmail: "Second@example.com",
          strDatafields: "DD3",
          strDatavalues: "x",
        },
        call,
      ),
    );
    expect(queries).toHaveLength(1);
    const row = await store.db
      .selectFrom("subscribers")
      .selectAll()
      .where("email_key", "=", "second@example.com")
      .executeTakeFirstOrThrow();
    expect(value).toBe(BigInt(row.id));
    expect(row.fields).toBe(JSON.stringify({ "3": "x" }));
  });

  it("the account checked in the statement: a changed password is InvalidCredentials, nothing written", async () => {
    const before = await subscribers();
    // As the admin CLI changes a password: a new hash, the version bumped.
    const setPassword = async (password: string) =>
      store.db
        .updateTable("accounts")
        .set((eb) => ({ password_version: eb("password_version", "+", 1) }))
        .set({ password_hash: await hashPassword(password) })
        .where("id", "=", accountId)
        .execute();
    await setPassword("changed");
    const error = await faultOf(
      service.InsertSubscriberSid({ strMailingListID: String(listId), strEmail: "third@example.com" }, call),
    );
    expect(error.code).toBe("InvalidCredentials");
    expect(await subscribers()).toEqual(before);
    await setPassword("secret");
  });

  it("a field beyond the account's, a list not its own, a bad address: the general path's faults", async () => {
    // A fresh pair cached again (the test above made the cached one stale).
    await service.InsertSubscriberSid(
      { strMailingListID: String(listId), strEmail: "fourth@example.com" },
      call,
    );
    const before = await subscribers();
    const field = await faultOf(
      service.InsertSubscriberWithDemData(
        {
          strMailingListID: String(listId),
          strEmail: "fifth@example.com",
          strDatafields: "DD26",
          strDatavalues: "x",
        },
        call,
      ),
    );
    expect([field.code, field.parameter]).toEqual(["FieldNotActivated", "strDatafields"]);
    const list = await faultOf(
      service.InsertSubscriberSid(
        { strMailingListID: String(listId + 100), strEmail: "fifth@example.com" },
        call,
      ),
    );
    expect([list.code, list.parameter]).toEqual(["NotFound", "strMailingListID"]);
    const address = await faultOf(
      service.InsertSubscriberSid({ strMailingListID: String(listId), strEmail: "not an address" }, call),
    );
    expect([address.code, address.parameter]).toEqual(["InvalidFormat", "strEmail"]);
    // A bad address with wrong credentials: the credentials' fault first, as on the general path.
    const both = await faultOf(
      service.InsertSubscriberSid(
        { strMailingListID: String(listId), strEmail: "not an address" },
        context("shop", "wrong"),
      ),
    );
    expect(both.code).toBe("InvalidCredentials");
    expect(await subscribers()).toEqual(before);
  });

  const setCredits = (credits: string, price: string) =>
    store.db
      .updateTable("accounts")
      .set({ sms_credits: credits, sms_price: price })
      .where("id", "=", accountId)
      .execute();
  const sms = (message: string, phone = "701234567") =>
    service.SendSmsWithSenderName(
      { senderName: "Shop", strCountryCode: "46", strPhoneNumber: phone, strMessage: message },
      call,
    );
  const credits = async () =>
    store.db
      .selectFrom("accounts")
      .select(["sms_credits", "sms_waiting"])
      .where("id", "=", accountId)
      .executeTakeFirstOrThrow();

  it("SendSmsWithSenderName, paid at once: one round trip, the decimals as formatDecimal writes them", async () => {
    await setCredits("1.5", "0.333333");
    // 161 GSM-7 characters: 2 segments.
    const { value, queries } = await queriesOf(() => sms("x".repeat(161)));
    expect(queries).toHaveLength(1);
    const price = parseDecimal("0.333333") * 2n;
    const left = parseDecimal("1.5") - price;
    expect(value).toMatchObject({ CreditCost: formatDecimal(price), TotalCredits: formatDecimal(left) });
    expect(await credits()).toEqual({ sms_credits: formatDecimal(left), sms_waiting: 0 });
    const ledger = await store.db
      .selectFrom("credit_ledger")
      .select(["amount", "balance", "reason", "sms_id"])
      .orderBy("id", "desc")
      .executeTakeFirstOrThrow();
    expect(ledger).toEqual({
      amount: formatDecimal(-price),
      balance: formatDecimal(left),
      reason: "sms",
      sms_id: Number(value!.Id),
    });
  });

  it("SendSmsWithSenderName without the credits: stored waiting, the next waits behind it, a refill pays both", async () => {
    await setCredits("0.5", "0.4");
    const first = await sms("x".repeat(161)); // 0.8: more than the credits
    expect(first).toMatchObject({ CreditCost: "0.8", TotalCredits: "0.5" });
    const { value: second, queries } = await queriesOf(() => sms("short")); // 0.4 fits, but one waits
    expect(queries).toHaveLength(1);
    expect(second).toMatchObject({ CreditCost: "0.4", TotalCredits: "0.5" });
    expect(await credits()).toEqual({ sms_credits: "0.5", sms_waiting: 2 });
    const states = await store.db
      .selectFrom("sms_messages")
      .select("state")
      .where("id", "in", [Number(first!.Id), Number(second!.Id)])
      .orderBy("id")
      .execute();
    expect(states.map((row) => row.state)).toEqual(["waiting", "waiting"]);
    const refilled = await refill(store, accountId, "1", 2);
    expect(refilled).toEqual({
      balance: "0.3",
      paid: [Number(first!.Id), Number(second!.Id)],
      stillWaiting: 0,
    });
    expect(await credits()).toEqual({ sms_credits: "0.3", sms_waiting: 0 });
  });

  it("SendSmsWithSenderName: 40 at once against credits for 15 pay exactly 15, the rest wait, oldest first", async () => {
    await setCredits("1.5", "0.1");
    const answers = await Promise.all(Array.from({ length: 40 }, (_, i) => sms(`message ${i}`)));
    const rows = await store.db
      .selectFrom("sms_messages")
      .select(["id", "state"])
      .where(
        "id",
        "in",
        answers.map((a) => Number(a!.Id)),
      )
      .orderBy("id")
      .execute();
    const states = rows.map((row) => row.state);
    // Paid first, then waiting: none paid after one that waits (oldest first).
    expect(states).toEqual([...Array(15).fill("queued"), ...Array(25).fill("waiting")]);
    expect(await credits()).toEqual({ sms_credits: "0", sms_waiting: 25 });
  });

  it("SendSmsWithSenderName to a number that sent STOP: kept stopped at no cost; STOP takes waiting ones off the count", async () => {
    await setCredits("0.1", "0.4");
    const { sms_waiting: before } = await credits();
    const waiting = await sms("to be stopped", "0709999999"); // 0.4: more than the credits, waits
    expect(await credits()).toEqual({ sms_credits: "0.1", sms_waiting: before + 1 });
    const outcome = await stopNumber(store, "46709999999", "STOP", 3);
    expect(outcome.stoppedWaiting).toBe(1);
    expect(await credits()).toEqual({ sms_credits: "0.1", sms_waiting: before });
    const { value, queries } = await queriesOf(() => sms("after STOP", "0709999999"));
    expect(queries).toHaveLength(1);
    expect(value).toMatchObject({ CreditCost: "0", TotalCredits: "0.1" });
    const rows = await store.db
      .selectFrom("sms_messages")
      .select(["state", "last_error"])
      .where("id", "in", [Number(waiting!.Id), Number(value!.Id)])
      .orderBy("id")
      .execute();
    expect(rows).toEqual([
      { state: "stopped", last_error: STOPPED_ERROR },
      { state: "stopped", last_error: STOPPED_ERROR },
    ]);
    expect(await credits()).toEqual({ sms_credits: "0.1", sms_waiting: before });
    await startNumber(store, "46709999999");
  });

  describe("InsertTransaction", () => {
    let projectId: number;
    beforeAll(async () => {
      projectId = (
        await store.db
          .insertInto("projects")
          .values({
            account_id: accountId,
            name: "receipts",
            subject: "Receipt for {{Name}}",
            text_body: "Hello {{Name}}, DD2 is {{DD2}}.",
            html_body: "<p>Hello {{Name}}</p>",
            created_at: 1,
          })
          .returning("id")
          .executeTakeFirstOrThrow()
      ).id;
    });
    const send = (name: string, extra: { strIdentifier?: string } = {}) =>
      service.InsertTransaction(
        {
          strId: String(projectId),
          strEmail: `${name}@example.com`,
          strName: name,
          strDataFields: "DD2",
          strDataValues: "two",
          ...extra,
        },
        call,
      );
    /** The queued mail of a transaction: its row, and its message's headers without the random ones. */
    const mailOf = async (transactionId: number) => {
      const row = await store.db
        .selectFrom("transactions")
        .innerJoin("mail_outbox", "mail_outbox.id", "transactions.mail_id")
        .select(["mail_outbox.message", "mail_outbox.subject", "mail_outbox.to_address", "mail_outbox.kind"])
        .select([
          "mail_outbox.priority",
          "mail_outbox.state",
          "transactions.email",
          "transactions.identifier",
        ])
        .where("transactions.id", "=", transactionId)
        .executeTakeFirstOrThrow();
      const headers = row.message
        .split("\r\n\r\n")[0]!
        .split("\r\n")
        .filter((line) => /^(From|To|Subject|Content-Type): /.test(line))
        .map((line) => line.replace(/boundary="[^"]*"/, "boundary"));
      return { ...row, message: headers };
    };

    it("a cached project and pair: one round trip, the same mail as the general path", async () => {
      const first = await send("ann"); // the general path; the project is cached from now on
      const { value, queries } = await queriesOf(() => send("bob"));
      expect(queries).toHaveLength(1);
      const general = await mailOf(first);
      const single = await mailOf(value as number);
      expect(single).toEqual({
        ...general,
        message: general.message.map((line) => line.replaceAll("ann", "bob")),
        to_address: "bob@example.com",
        email: "bob@example.com",
        subject: "Receipt for bob",
      });
    });

    it("a project or account setting changed since it was cached: the mail is made from the new one", async () => {
      await store.db
        .updateTable("projects")
        .set({ subject: "New {{Name}}" })
        .where("id", "=", projectId)
        .execute();
      expect((await mailOf((await send("cy")) as number)).subject).toBe("New cy");
      await store.db
        .updateTable("accounts")
        .set({ from_name: "The Shop" })
        .where("id", "=", accountId)
        .execute();
      const mail = await mailOf((await send("di")) as number);
      expect(mail.message).toContain('From: "The Shop" <from@example.com>');
      // Cached again: one round trip.
      const { queries } = await queriesOf(() => send("ed"));
      expect(queries).toHaveLength(1);
    });

    it("an identifier takes the general path, which locks the project: one transaction for two calls", async () => {
      const [a, b] = await Promise.all([
        send("fay", { strIdentifier: "k1" }),
        send("fay", { strIdentifier: "k1" }),
      ]);
      expect(a).toBe(b);
      expect((await mailOf(a as number)).identifier).toBe("k1");
    });

    it("a project not the account's, a bad address: the general path's faults, nothing written", async () => {
      const count = async () =>
        Number(
          (
            await store.db
              .selectFrom("transactions")
              .select((eb) => eb.fn.countAll().as("n"))
              .executeTakeFirstOrThrow()
          ).n,
        );
      const before = await count();
      const missing = await faultOf(
        service.InsertTransaction({ strId: String(projectId + 100), strEmail: "x@example.com" }, call),
      );
      expect([missing.code, missing.parameter]).toEqual(["NotFound", "strId"]);
      const address = await faultOf(
        service.InsertTransaction({ strId: String(projectId), strEmail: "nope" }, call),
      );
      expect([address.code, address.parameter]).toEqual(["InvalidFormat", "strEmail"]);
      expect(await count()).toBe(before);
    });
  });
});
