// The outbox writes the folder a batch at a time (drop-folder.ts writeDurably), on SQLite and PostgreSQL:
// - order, with the syncs held: every file of the batch is fdatasync'ed before any is renamed to its
//   final name, the folder is fsync'ed after the renames, and no message of the batch is marked sent
//   before that folder sync has finished;
// - kill -9 of the service while it delivers a backlog: every message the database counts as sent has
//   its `<id>.eml` complete on disk (the whole text, the headers the row kept), and after a restart
//   every message is delivered once.

import fs from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { simpleParser } from "mailparser";
import { expect, inject, it } from "vitest";
import type { FolderSyncs } from "../../service/delivery/drop-folder.js";
import { queueMail } from "../../service/delivery/mail.js";
import { OUTBOX_OWNER_PREFIX, folderTransport } from "../../service/delivery/mail-transport.js";
import { OutboxWorker, deliveredCopy } from "../../service/workers/outbox.js";
import { type Store, openStore } from "../../service/db/database.js";
import { describeEngines, freshDatabaseUrl } from "./support/engines.js";
import { spawnService } from "./support/process.js";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function tempDir(label: string): string {
  return fs.mkdtempSync(path.join(inject("testTmpRoot") ?? tmpdir(), `eas-${label}-`));
}

/** The text of mail `i`: long enough for several base64 lines, different for each mail. */
const textOf = (i: number) => `Hello reader ${i}.\n${"Some news of the week, line after line.\n".repeat(40)}`;

async function queueMails(store: Store, count: number): Promise<number[]> {
  const account = await store.db
    .insertInto("accounts")
    .values({ username: `batch${Date.now()}`, password_hash: "x", created_at: Date.now() })
    .returning("id")
    .executeTakeFirstOrThrow();
  return store.write(async (trx) => {
    const ids: number[] = [];
    for (let i = 0; i < count; i++) {
      const mail = {
        accountId: account.id,
        kind: "newsletter",
        from: { name: "News", address: "news@example.com" },
        to: { name: "", address: `r${i}@example.com` },
        subject: `mail ${i}`,
        text: textOf(i),
      };
      ids.push(await queueMail(trx, mail, Date.now(), "example.com"));
    }
    return ids;
  });
}

const sentIds = async (store: Store) =>
  (await store.db.selectFrom("mail_outbox").select("id").where("state", "=", "sent").execute()).map(
    (row) => row.id,
  );

/** A gate a held sync waits on; `reached` resolves when `count` syncs are waiting. */
function holdSyncs(count: number) {
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  let arrived = 0;
  let reached!: () => void;
  const all = new Promise<void>((resolve) => (reached = resolve));
  return {
    gate,
    release,
    reached: all,
    arrive() {
      if (++arrived === count) reached();
    },
  };
}

describeEngines("outbox batch, syncs held", (engine) => {
  it("syncs each file before its rename, the folder after every rename, and marks sent only after that", async () => {
    const store = await openStore(await freshDatabaseUrl(engine, "outbox-batch-held"));
    const dir = tempDir("outbox-held");
    try {
      const ids = await queueMails(store, 5);
      const events: string[] = [];
      const files = holdSyncs(ids.length);
      const folder = holdSyncs(1);
      const syncs: FolderSyncs = {
        async file(handle, name) {
          events.push(`file ${name}`);
          files.arrive();
          await files.gate;
          await handle.datasync();
        },
        async folder(handle) {
          events.push("folder");
          folder.arrive();
          await folder.gate;
          await handle.sync();
        },
      };
      const owner = `${OUTBOX_OWNER_PREFIX}00000000-0000-4000-8000-000000000000`;
      const worker = new OutboxWorker(store, {
        dir,
        transport: folderTransport(dir, owner, { syncs }),
        leaseMs: 60_000,
      });
      const flushed = worker.flush();
      const eml = () => fs.readdirSync(dir).filter((name) => name.endsWith(".eml"));

      await files.reached;
      expect(eml(), "no final name before the files' syncs end").toEqual([]);
      expect(await sentIds(store)).toEqual([]);
      files.release();

      await folder.reached;
      expect(eml().sort(), "every file renamed before the folder sync").toEqual(
        ids.map((id) => `${id}.eml`).sort(),
      );
      expect(await sentIds(store), "nothing marked sent while the folder sync is held").toEqual([]);
      expect(events.slice(0, ids.length).every((e) => e.startsWith("file "))).toBe(true);
      expect(events.slice(ids.length)).toEqual(["folder"]);
      folder.release();

      expect(await flushed).toBe(ids.length);
      expect((await sentIds(store)).sort()).toEqual([...ids].sort());
      await worker.stop();
    } finally {
      await store.close();
    }
  });
});

describeEngines("outbox batch after kill -9", (engine) => {
  it("every message counted sent is complete on disk at the kill; after a restart each is delivered once", async () => {
    const url = await freshDatabaseUrl(engine, "outbox-batch-kill");
    const dir = tempDir("outbox-batch-kill");
    const total = 3000;
    let ids: number[];
    const store = await openStore(url);
    try {
      ids = await queueMails(store, total);
      const env = { DATABASE_URL: url, OUTBOX_DIR: dir, JOB_LEASE_MS: "1000" };
      const textById = new Map(ids.map((id, i) => [id, textOf(i)]));
      let checkedSent = 0;
      let rounds = 0;
      // Kill the service as soon as it has marked messages sent, while more are being written: a few
      // rounds, each checking every message counted sent so far.
      for (; rounds < 6; rounds++) {
        const before = (await sentIds(store)).length;
        if (before === total) break;
        const service = await spawnService(env);
        for (let i = 0; i < 3000; i++) {
          if ((await sentIds(store)).length > before) break;
          await sleep(5);
        }
        await service.kill("SIGKILL");
        const rows = await store.db
          .selectFrom("mail_outbox")
          .select(["id", "message"])
          .where("state", "=", "sent")
          .execute();
        for (const row of rows) {
          const file = path.join(dir, `${row.id}.eml`);
          expect(fs.existsSync(file), `${row.id}.eml of a message counted sent`).toBe(true);
          const text = fs.readFileSync(file, "utf8");
          expect(deliveredCopy(text), `${row.id}.eml has the headers the row kept`).toBe(row.message);
          const parsed = await simpleParser(text);
          expect(parsed.text?.replace(/\r\n/g, "\n"), `${row.id}.eml is whole`).toBe(textById.get(row.id));
        }
        checkedSent = rows.length;
      }
      expect(checkedSent, "messages were counted sent before a kill").toBeGreaterThan(0);
      expect(rounds, "a kill came before the last message").toBeGreaterThan(0);

      // The rest goes once the service runs again; every message ends as exactly one file.
      const service = await spawnService(env);
      try {
        for (let i = 0; i < 1200 && (await sentIds(store)).length < total; i++) await sleep(100);
      } finally {
        await service.kill("SIGTERM");
      }
      expect((await sentIds(store)).length).toBe(total);
      const eml = fs.readdirSync(dir).filter((name) => name.endsWith(".eml"));
      expect(eml.sort()).toEqual(ids.map((id) => `${id}.eml`).sort());
    } finally {
      await store.close();
    }
  }, 300_000);
});
