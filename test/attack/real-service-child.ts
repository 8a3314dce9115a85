// The reference service as an attack target (child-main.ts's "real-service" mode): the whole app
// (`createApp`, API and workers) on a fresh SQLite database in a temporary folder, with the accounts and
// lists the attack needs made directly in the store, as the admin CLI makes them. Its log lines are counted
// and the last few kept (bounded), so a long attack does not grow the child's memory through its logs.

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Writable } from "node:stream";
import { createApp } from "../../service/app.js";
import { hashPassword } from "../../service/auth/authenticator.js";
import { readConfig } from "../../service/config.js";

export interface RealServiceAccount {
  readonly username: string;
  readonly password: string;
  /** Mailing lists to make in the account, by name. */
  readonly lists?: readonly string[];
}

export interface RealServiceConfig {
  /** Environment variables over the defaults below (PORT, DATABASE_URL and the folders are set here). */
  readonly env?: Readonly<Record<string, string>>;
  readonly accounts?: readonly RealServiceAccount[];
}

export interface RealServiceInfo {
  /** The temporary folder holding service.db, outbox/ and sms/ (removed when the child exits). */
  readonly dataDir: string;
  readonly accounts: readonly {
    readonly username: string;
    readonly id: number;
    readonly lists: readonly number[];
  }[];
}

/** Log lines written so far and the last few of them (for stats). */
export const realServiceLogs = { lines: 0, tail: [] as string[] };

const TAIL_LINES = 20;

export async function startRealServiceInChild(
  config: RealServiceConfig,
): Promise<{ port: number; info: RealServiceInfo }> {
  const dataDir = mkdtempSync(join(tmpdir(), "eas-attack-"));
  process.once("exit", () => rmSync(dataDir, { recursive: true, force: true }));
  const logDestination = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString("utf8").split("\n")) {
        if (line === "") continue;
        realServiceLogs.lines++;
        realServiceLogs.tail.push(line.slice(0, 2000));
        if (realServiceLogs.tail.length > TAIL_LINES) realServiceLogs.tail.shift();
      }
      done();
    },
  });
  const app = await createApp(
    readConfig({
      LOG_LEVEL: "info",
      SQLITE_SYNC: "NORMAL",
      PUBLIC_URL: "http://127.0.0.1:1",
      SHUTDOWN_TIMEOUT_MS: "2000",
      ...config.env,
      PORT: "0",
      HOST: "127.0.0.1",
      DATABASE_URL: `sqlite:${join(dataDir, "service.db")}`,
      OUTBOX_DIR: join(dataDir, "outbox"),
      SMS_OUTBOX_DIR: join(dataDir, "sms"),
    }),
    { logDestination },
  );
  const accounts = [];
  for (const account of config.accounts ?? []) {
    const { id } = await app.store.db
      .insertInto("accounts")
      .values({
        username: account.username,
        password_hash: await hashPassword(account.password),
        created_at: Date.now(),
      })
      .returning("id")
      .executeTakeFirstOrThrow();
    const lists = [];
    for (const name of account.lists ?? []) {
      const row = await app.store.db
        .insertInto("mailing_lists")
        .values({ account_id: id, name, created_at: Date.now() })
        .returning("id")
        .executeTakeFirstOrThrow();
      lists.push(row.id);
    }
    accounts.push({ username: account.username, id, lists });
  }
  const { url } = await app.start();
  const port = Number(new URL(url!).port);
  return { port, info: { dataDir, accounts } };
}
