// kill -9 of the service while it delivers a backlog through SMTP (pooled connections into a real SMTP
// server on loopback, in the test's process so it outlives the kills), on SQLite and PostgreSQL: every
// message the database counts as sent had been accepted by the server (250 to its DATA) with its whole
// text, at every kill; after a restart every message arrives, and the database counts each sent once. A
// message the server accepted just before a kill, not yet marked sent, may arrive twice (at least once:
// workers/outbox.ts deliverPolitely); at most the messages of the batches under way.

import { simpleParser } from "mailparser";
import { expect, it } from "vitest";
import { queueMail } from "../../service/delivery/mail.js";
import { type Store, openStore } from "../../service/db/database.js";
import { deliveredCopy } from "../../service/workers/outbox.js";
import { describeEngines, freshDatabaseUrl } from "./support/engines.js";
import { spawnService } from "./support/process.js";
import { smtpUrl, startSmtp } from "./support/smtp.js";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The text of mail `i`: several base64 lines, different for each mail. */
const textOf = (i: number) => `Hello reader ${i}.\n${"Some news of the week, line after line.\n".repeat(30)}`;

async function queueMails(store: Store, count: number): Promise<Map<string, number>> {
  const account = await store.db
    .insertInto("accounts")
    .values({ username: `smtpkill${Date.now()}`, password_hash: "x", created_at: Date.now() })
    .returning("id")
    .executeTakeFirstOrThrow();
  const byAddress = new Map<string, number>();
  for (let start = 0; start < count; start += 500)
    await store.write(async (trx) => {
      for (let i = start; i < Math.min(count, start + 500); i++) {
        const address = `r${i}@example.com`;
        await queueMail(
          trx,
          {
            accountId: account.id,
            kind: "newsletter",
            from: { name: "News", address: "news@example.com" },
            to: { name: "", address },
            subject: `mail ${i}`,
            text: textOf(i),
          },
          Date.now(),
          "example.com",
        );
        byAddress.set(address, i);
      }
    });
  return byAddress;
}

const sentRows = (store: Store) =>
  store.db.selectFrom("mail_outbox").select(["to_address", "message"]).where("state", "=", "sent").execute();

describeEngines("SMTP delivery after kill -9", (engine) => {
  it("every message counted sent was accepted whole by the server at the kill; after a restart each arrives", async () => {
    const smtp = await startSmtp();
    const url = await freshDatabaseUrl(engine, "smtp-kill");
    const store = await openStore(url);
    const total = 2000;
    try {
      const byAddress = await queueMails(store, total);
      const env = {
        DATABASE_URL: url,
        SMTP_URL: smtpUrl(smtp.port),
        SMTP_ALLOW_PLAINTEXT_AUTH: "true",
        SMTP_POOL_SIZE: "4",
        JOB_LEASE_MS: "3000",
      };
      let checked = 0;
      let rounds = 0;
      for (; rounds < 6; rounds++) {
        const before = (await sentRows(store)).length;
        if (before === total) break;
        const service = await spawnService(env);
        for (let i = 0; i < 3000; i++) {
          if ((await sentRows(store)).length > before) break;
          await sleep(5);
        }
        await service.kill("SIGKILL");
        const arrived = new Map(smtp.arrivals.map((a) => [a.to[0]!, a.raw]));
        const rows = await sentRows(store);
        for (const row of rows) {
          const raw = arrived.get(row.to_address);
          expect(raw, `${row.to_address}: counted sent, accepted by the server`).toBeDefined();
          expect(deliveredCopy(raw!), `${row.to_address}: the headers the row kept`).toBe(row.message);
          const parsed = await simpleParser(raw!);
          expect(parsed.text?.replace(/\r\n/g, "\n"), `${row.to_address}: whole`).toBe(
            textOf(byAddress.get(row.to_address)!),
          );
        }
        checked = rows.length;
      }
      expect(checked, "messages were counted sent before a kill").toBeGreaterThan(0);
      expect(rounds, "a kill came before the last message").toBeGreaterThan(0);

      const service = await spawnService(env);
      try {
        for (let i = 0; i < 1200 && (await sentRows(store)).length < total; i++) await sleep(100);
      } finally {
        await service.kill("SIGTERM");
      }
      expect((await sentRows(store)).length).toBe(total);
      const arrivals = smtp.arrivals.map((a) => a.to[0]!);
      expect(new Set(arrivals).size, "every message arrived").toBe(total);
      // accepted before a kill and not yet marked: sent again after the lease (at most the batches under way)
      expect(arrivals.length - total).toBeLessThanOrEqual(rounds * 200);
    } finally {
      await store.close();
      await smtp.close();
    }
  }, 300_000);
});
