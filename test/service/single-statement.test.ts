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
import { createService } from "../../service/operations/service.js";
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
    signal: new AbortController().signal,
  } as CallContext;
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
});
