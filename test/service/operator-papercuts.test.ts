// The walk-through's papercuts (issue 25), each as a new user meets it: `list create --quiet` prints the id
// alone; a DATABASE_URL whose folder's parent is missing is refused (nothing made); the start warns when
// MAIL_FROM is unset; a second instance on a taken port fails before any worker takes a job; a comma-
// separated file queued for import fails at once, nothing imported.

import fs from "node:fs";
import { type Server, createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { Writable } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApp } from "../../service/app.js";
import { queueMail } from "../../service/delivery/mail.js";
import { readConfig } from "../../service/config.js";
import { describeEngines, freshDatabaseUrl } from "./support/engines.js";
import { type TestService, admin, startService } from "./support/service.js";

describe("DATABASE_URL on SQLite", () => {
  it("makes the file's own folder, but refuses a path whose parent folder is missing", async () => {
    const root = fs.mkdtempSync(path.join(tmpdir(), "eas-dburl-"));
    const missing = path.join(root, "nonexistent", "dir", "x.db");
    const config = readConfig({ DATABASE_URL: `sqlite:${missing}`, PORT: "0" });
    await expect(
      createApp(config, { logDestination: new Writable({ write: (_c, _e, d) => d() }) }),
    ).rejects.toThrow(`the folder ${path.join(root, "nonexistent")} does not exist`);
    expect(fs.readdirSync(root)).toEqual([]);
    const run = await admin(`sqlite:${missing}`, ["account", "show"]);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain("does not exist");
    expect(fs.readdirSync(root)).toEqual([]);
    // The default's shape (sqlite:data/service.db): the one missing folder is made.
    const made = await admin(`sqlite:${path.join(root, "data", "service.db")}`, ["account", "show"]);
    expect(made.code).toBe(0);
    expect(fs.readdirSync(root)).toEqual(["data"]);
    fs.rmSync(root, { recursive: true, force: true });
  });
});

describe("LOG_FORMAT", () => {
  /** The start's log lines of an app on a fresh SQLite database, written to a stream (a terminal or not). */
  const startLines = async (env: Record<string, string>, tty: boolean): Promise<string> => {
    let text = "";
    const sink = Object.assign(
      new Writable({
        write(chunk: Buffer, _e, done) {
          text += chunk.toString("utf8");
          done();
        },
      }),
      tty ? { isTTY: true } : {},
    );
    const app = await createApp(
      readConfig({ DATABASE_URL: await freshDatabaseUrl("sqlite", "logformat"), PORT: "0", ...env }),
      { logDestination: sink },
    );
    await app.start();
    await app.close();
    return text;
  };

  it("json lines by default off a terminal; human-readable lines on one or with LOG_FORMAT=pretty", async () => {
    const json = await startLines({}, false);
    expect(
      json
        .split("\n")
        .filter((l) => l !== "")
        .every((l) => l.startsWith("{")),
    ).toBe(true);
    const pretty = await startLines({ LOG_FORMAT: "pretty" }, false);
    expect(pretty).toMatch(/^\[\d\d:\d\d:\d\d\.\d{3}\] WARN: MAIL_FROM is not set/m);
    expect(pretty).not.toMatch(/^\{/m);
    const tty = await startLines({}, true);
    expect(tty).toContain("MAIL_FROM is not set");
    expect(tty).not.toMatch(/^\{/m);
    expect(() => readConfig({ LOG_FORMAT: "xml" })).toThrow("LOG_FORMAT must be json, pretty or auto");
  });
});

describeEngines("walk-through papercuts", (engine) => {
  let svc: TestService;
  let files: Server;
  let filesBase: string;

  beforeAll(async () => {
    files = createServer((req, res) => {
      res.writeHead(200, { "content-type": "text/csv" });
      res.end(
        req.url === "/comma.csv"
          ? "ann@example.com,Ann,HTML\nbo@example.com,Bo,Text\n"
          : "ann@example.com;Ann;HTML\nbo@example.com;Bo, Jr.;Text\n",
      );
    });
    files.listen(0, "127.0.0.1");
    await new Promise((resolve) => files.once("listening", resolve));
    filesBase = `http://127.0.0.1:${(files.address() as AddressInfo).port}`;
    svc = await startService(engine, "papercuts", { IMPORT_ALLOW_HOSTS: "127.0.0.1" });
  }, 60_000);
  afterAll(async () => {
    await svc?.close();
    files?.close();
  });

  it("`list create --quiet` prints the new list's id alone", async () => {
    await svc.createAccount("demo", "a-long-password");
    const run = await admin(svc.databaseUrl, [
      "list",
      "create",
      "--account",
      "demo",
      "--name",
      "News",
      "--quiet",
    ]);
    expect(run.stderr).toBe("");
    const id = (
      await svc.app.store.db
        .selectFrom("mailing_lists")
        .select("id")
        .where("name", "=", "News")
        .executeTakeFirstOrThrow()
    ).id;
    expect(run.stdout).toBe(`${id}\n`);
    const both = await admin(svc.databaseUrl, ["list", "show", "--account", "demo", "--json", "--quiet"]);
    expect(both.code).toBe(2);
  });

  it("warns at start when MAIL_FROM is unset, naming the address it makes up", () => {
    const warning = svc.logs.find((l) => String(l.msg).startsWith("MAIL_FROM is not set"));
    expect(warning).toMatchObject({ level: 40, mailFrom: "no-reply@127.0.0.1" });
  });

  it("a comma-separated file queued for import fails at once, nothing imported; a semicolon file imports", async () => {
    const account = (await svc.app.store.db.selectFrom("accounts").select("id").executeTakeFirstOrThrow()).id;
    const list = await svc.createList(account, "Imports");
    const client = svc.client("demo", "a-long-password");
    const comma = await client.InsertCSVSubscribersWithDemDataFromFileToQueue({
      strMailingListID: String(list),
      strCSVUrl: `${filesBase}/comma.csv`,
    });
    const semi = await client.InsertCSVSubscribersWithDemDataFromFileToQueue({
      strMailingListID: String(list),
      strCSVUrl: `${filesBase}/semi.csv`,
    });
    const row = (id: number) =>
      svc.app.store.db.selectFrom("imports").selectAll().where("id", "=", id).executeTakeFirstOrThrow();
    for (let i = 0; i < 300; i++) {
      const states = [(await row(comma)).state, (await row(semi)).state];
      if (states.every((s) => s === "done" || s === "failed")) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const failed = await row(comma);
    expect(failed).toMatchObject({ state: "failed", rows_imported: 0, rows_bad: 0, attempts: 1 });
    expect(failed.error).toContain("comma-separated");
    expect(await row(semi)).toMatchObject({ state: "done", rows_imported: 2, rows_bad: 0 });
  });

  it("a second instance on a taken port fails before its workers take any job", async () => {
    const databaseUrl = await freshDatabaseUrl(engine, "papercuts_port");
    const outboxDir = fs.mkdtempSync(path.join(tmpdir(), "eas-port-outbox-"));
    const port = new URL(svc.url).port;
    const config = readConfig({
      DATABASE_URL: databaseUrl,
      PORT: port,
      OUTBOX_DIR: outboxDir,
      MAIL_FROM: "a@b.example",
    });
    const app = await createApp(config, { logDestination: new Writable({ write: (_c, _e, d) => d() }) });
    const account = await app.store.db
      .insertInto("accounts")
      .values({ username: "port", password_hash: "x", created_at: Date.now() })
      .returning("id")
      .executeTakeFirstOrThrow();
    await app.store.write((trx) =>
      queueMail(
        trx,
        {
          accountId: account.id,
          kind: "confirmation",
          from: { name: "", address: "a@b.example" },
          to: { name: "", address: "c@d.example" },
          subject: "waiting",
          text: "waiting",
        },
        Date.now(),
        "b.example",
      ),
    );
    await expect(app.start()).rejects.toThrow(/EADDRINUSE/);
    // Workers started before the failed listen would deliver the due mail within this second.
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const mail = await app.store.db.selectFrom("mail_outbox").select(["state", "attempts"]).execute();
    await app.close();
    expect(mail).toEqual([{ state: "queued", attempts: 0 }]);
    expect(fs.readdirSync(outboxDir)).toEqual([]);
  });
});
