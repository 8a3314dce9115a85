// kill -9 of the service while it writes the outbox folder, on both engines: the temporary
// `<id>.eml.<owner>.tmp` file the killed writer left is removed when the service starts again (it is older
// than the lease, so no live writer can own it), and every queued mail ends as exactly one `<id>.eml`.

import fs from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { expect, inject, it } from "vitest";
import { queueMail } from "../../service/delivery/mail.js";
import { openStore } from "../../service/db/database.js";
import { describeEngines, freshDatabaseUrl } from "./support/engines.js";
import { spawnService } from "./support/process.js";

const MAILS = 1500;
const LEASE_MS = 1000;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const temporaries = (dir: string) => fs.readdirSync(dir).filter((name) => name.endsWith(".tmp"));

describeEngines("outbox after kill -9", (engine) => {
  it("the temporary file a killed writer left is removed at the next start; every mail is delivered once", async () => {
    const url = await freshDatabaseUrl(engine, "outbox-kill");
    const outboxDir = fs.mkdtempSync(path.join(inject("testTmpRoot") ?? tmpdir(), "eas-outbox-kill-"));
    const store = await openStore(url);
    const ids: number[] = [];
    try {
      const account = await store.db
        .insertInto("accounts")
        .values({ username: "killed", password_hash: "x", created_at: Date.now() })
        .returning("id")
        .executeTakeFirstOrThrow();
      await store.write(async (trx) => {
        for (let i = 0; i < MAILS; i++) {
          const mail = {
            accountId: account.id,
            kind: "newsletter",
            from: { name: "", address: "news@example.com" },
            to: { name: "", address: `r${i}@example.com` },
            subject: `n${i}`,
            text: "Hello\n".repeat(200),
          };
          ids.push(await queueMail(trx, mail, Date.now(), "example.com"));
        }
      });
    } finally {
      await store.close();
    }
    const env = { DATABASE_URL: url, OUTBOX_DIR: outboxDir, JOB_LEASE_MS: String(LEASE_MS) };

    // kill the service while a temporary file is there (a rename can win the race: try a few times)
    let left: string[] = [];
    for (let round = 0; round < 8 && left.length === 0; round++) {
      const service = await spawnService(env);
      for (let i = 0; i < 5000 && temporaries(outboxDir).length === 0; i++) await sleep(1);
      await service.kill("SIGKILL");
      left = temporaries(outboxDir);
    }
    expect(left.length, "a kill -9 during a write leaves its temporary file").toBeGreaterThan(0);
    expect(left[0]).toMatch(/^\d+\.eml\.outbox-[0-9a-f-]{36}\.tmp$/);

    // once older than the lease, the next start removes it, and the delivery goes on
    await sleep(LEASE_MS + 200);
    const service = await spawnService(env);
    try {
      const check = await openStore(url);
      try {
        for (let i = 0; i < 600; i++) {
          const queued = await check.db
            .selectFrom("mail_outbox")
            .select("id")
            .where("state", "=", "queued")
            .limit(1)
            .execute();
          if (queued.length === 0) break;
          await sleep(100);
        }
        expect(
          await check.db.selectFrom("mail_outbox").select("id").where("state", "!=", "sent").execute(),
        ).toEqual([]);
      } finally {
        await check.close();
      }
      for (const name of left) expect(fs.existsSync(path.join(outboxDir, name)), name).toBe(false);
      expect(temporaries(outboxDir)).toEqual([]);
      const delivered = fs.readdirSync(outboxDir).filter((name) => name.endsWith(".eml"));
      expect(delivered.sort()).toEqual(ids.map((id) => `${id}.eml`).sort());
    } finally {
      await service.kill("SIGTERM");
    }
  }, 240_000);
});
