// kill -9 of the service during a CSV bulk insert leaves all rows or none, on both engines; the
// restarted service opens the same database and answers. SIGTERM drains: the call in flight is answered.

import { afterAll, beforeAll, expect, it } from "vitest";
import { createClient } from "../../generated/client.js";
import { hashPassword } from "../../service/auth/authenticator.js";
import { openStore } from "../../service/db/database.js";
import { describeEngines, freshDatabaseUrl } from "./support/engines.js";
import { spawnService } from "./support/process.js";

const ROWS = 20_000;

function csv(prefix: string): string {
  let text = "";
  for (let i = 0; i < ROWS; i++) text += `${prefix}${i}@example.com,Name ${i},HTML,SE,${i}\n`;
  return text;
}

describeEngines("crash safety", (engine) => {
  let url: string;
  const lists: number[] = [];

  beforeAll(async () => {
    url = await freshDatabaseUrl(engine, "crash");
    const store = await openStore(url);
    const account = await store.db
      .insertInto("accounts")
      .values({
        username: "crash",
        password_hash: await hashPassword("crash-password"),
        created_at: Date.now(),
      })
      .returning("id")
      .executeTakeFirstOrThrow();
    for (let i = 0; i < 4; i++) {
      const list = await store.db
        .insertInto("mailing_lists")
        .values({ account_id: account.id, name: `L${i}`, created_at: Date.now() })
        .returning("id")
        .executeTakeFirstOrThrow();
      lists.push(list.id);
    }
    await store.close();
  }, 60_000);

  afterAll(() => undefined);

  it("kill -9 during InsertCsvSubscribersWithDemDataUpdateOption leaves all rows or none, at several kill points", async () => {
    const outcomes: number[] = [];
    // Kill points spread over the call: before, during and after the write transaction.
    const delays = [150, 400, 900, 2000];
    for (let attempt = 0; attempt < delays.length; attempt++) {
      const service = await spawnService({ DATABASE_URL: url, SQLITE_SYNC: "FULL" });
      const client = createClient({
        baseUrl: service.url,
        username: "crash",
        password: "crash-password",
        binding: "soap11",
      });
      const call = client
        .InsertCsvSubscribersWithDemDataUpdateOption({
          strMailingListId: String(lists[attempt]),
          strCsvData: csv(`k${attempt}-`),
        })
        .then(
          (n) => n,
          () => -1,
        );
      await new Promise((resolve) => setTimeout(resolve, delays[attempt]));
      await service.kill("SIGKILL");
      const answered = await call;
      const store = await openStore(url);
      const members = Number(
        (
          await store.db
            .selectFrom("memberships")
            .select((eb) => eb.fn.countAll().as("n"))
            .where("list_id", "=", lists[attempt]!)
            .executeTakeFirstOrThrow()
        ).n,
      );
      const subscribers = Number(
        (
          await store.db
            .selectFrom("subscribers")
            .select((eb) => eb.fn.countAll().as("n"))
            .where("email_key", "like", `k${attempt}-%`)
            .executeTakeFirstOrThrow()
        ).n,
      );
      await store.close();
      expect([0, ROWS]).toContain(members);
      expect(subscribers).toBe(members);
      // An answered call was committed in full.
      if (answered === ROWS) expect(members).toBe(ROWS);
      outcomes.push(members);
    }
    // The restarted service opens the database after the kills and works.
    const service = await spawnService({ DATABASE_URL: url });
    try {
      const client = createClient({
        baseUrl: service.url,
        username: "crash",
        password: "crash-password",
        binding: "soap11",
      });
      expect(
        await client.InsertCsvSubscribersWithDemDataUpdateOption({
          strMailingListId: String(lists[0]),
          strCsvData: "after@example.com,After,Text",
        }),
      ).toBe(1);
    } finally {
      await service.kill("SIGTERM");
    }
    console.log(`crash safety on ${engine}: rows after each kill ${outcomes.join(", ")} (of ${ROWS})`);
  }, 240_000);

  it("SIGTERM lets the call in flight finish and exits 0", async () => {
    const service = await spawnService({ DATABASE_URL: url });
    const client = createClient({
      baseUrl: service.url,
      username: "crash",
      password: "crash-password",
      binding: "soap12",
    });
    const call = client.InsertCsvSubscribersWithDemDataUpdateOption({
      strMailingListId: String(lists[3]),
      strCsvData: csv("term-"),
    });
    await new Promise((resolve) => setTimeout(resolve, 100));
    const code = await service.kill("SIGTERM");
    expect(await call).toBe(ROWS);
    expect(code).toBe(0);
    expect(service.lines.some((l) => l.msg === "stopped")).toBe(true);
  }, 120_000);
});
