// The admin CLI (service/admin/cli.ts), run in-process through runAdmin with fake streams on both engines,
// and once as the real `node --import tsx service/admin/cli.ts` process.

import { execFile } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { Readable, Writable } from "node:stream";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { verifyPassword } from "../../service/auth/authenticator.ts";
import { upsertSubscribers } from "../../service/tables/subscriber-insert.ts";
import { runAdmin } from "../../service/admin/cli.ts";
import { type Store, openStore } from "../../service/db/database.ts";
import type { MembershipState } from "../../service/db/schema.ts";
import { describeEngines, freshDatabaseUrl } from "./support/engines.ts";

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

interface RunOptions {
  /** Standard input's text; undefined is an empty stream (nothing piped in). */
  stdin?: string;
  /** Make standard error look like a terminal. */
  ttyErr?: boolean;
  /** Called with standard error's text so far, after each write. */
  onStderr?: (text: string) => void;
}

function sink(onWrite?: (text: string) => void): Writable & { text: string } {
  const stream = new Writable({
    write(chunk: Buffer | string, _encoding, callback) {
      stream.text += chunk.toString();
      onWrite?.(stream.text);
      callback();
    },
  }) as Writable & { text: string };
  stream.text = "";
  return stream;
}

async function admin(url: string, argv: string[], options: RunOptions = {}): Promise<Run> {
  const stdout = sink();
  const stderr = sink(options.onStderr);
  if (options.ttyErr) (stderr as unknown as { isTTY: boolean }).isTTY = true;
  const stdin = Readable.from(options.stdin === undefined ? [] : [Buffer.from(options.stdin)]);
  const code = await runAdmin(argv, { stdin, stdout, stderr, env: { DATABASE_URL: url } });
  return { code, stdout: stdout.text, stderr: stderr.text };
}

/** Resolves once `check` holds, polling every 20 ms for at most `ms`. */
async function until(check: () => boolean, ms = 20_000): Promise<void> {
  for (let waited = 0; !check(); waited += 20) {
    if (waited >= ms) throw new Error("condition not met in time");
    await new Promise((r) => setTimeout(r, 20));
  }
}

describeEngines("admin CLI", (engine) => {
  let url: string;
  let store: Store;

  beforeAll(async () => {
    url = await freshDatabaseUrl(engine, "admin");
    store = await openStore(url);
  });
  afterAll(async () => {
    await store?.close();
  });

  async function createAccount(username: string, extra: string[] = []): Promise<number> {
    const run = await admin(url, ["account", "create", "--username", username, "--json", ...extra], {
      stdin: `password-of-${username}\n`,
    });
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    return (JSON.parse(run.stdout) as { id: number }).id;
  }

  async function createList(account: string, name: string): Promise<number> {
    const run = await admin(url, ["list", "create", "--account", account, "--name", name, "--json"]);
    expect(run.code, run.stderr).toBe(0);
    return (JSON.parse(run.stdout) as { id: number }).id;
  }

  async function subscriber(accountId: number, email: string): Promise<number> {
    const row = await store.db
      .insertInto("subscribers")
      .values({ account_id: accountId, email, email_key: email.toLowerCase(), created_at: 1_000 })
      .returning("id")
      .executeTakeFirstOrThrow();
    return row.id;
  }

  async function join(
    accountId: number,
    listId: number,
    subscriberId: number,
    state: MembershipState,
  ): Promise<void> {
    await store.db
      .insertInto("memberships")
      .values({
        list_id: listId,
        subscriber_id: subscriberId,
        account_id: accountId,
        state,
        created_at: 1_000,
        changed_at: 1_000,
      })
      .execute();
  }

  it("account create reads the password from stdin, stores a verifying hash and never prints the password", async () => {
    const password = "correct horse battery";
    const run = await admin(
      url,
      [
        "account",
        "create",
        "--username",
        "alice",
        "--dd-fields",
        "100",
        "--time-zone",
        "europe/stockholm",
        "--from-name",
        "Alice AB",
        "--from-email",
        "news@alice.example",
      ],
      { stdin: `${password}\nsecond line is ignored\n` },
    );
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^Account created\./);
    expect(run.stdout).toMatch(/username:\s+alice/);
    expect(run.stdout).toMatch(/time zone:\s+Europe\/Stockholm/);
    expect(run.stdout).toMatch(/dd fields:\s+100/);
    expect(run.stdout).not.toContain(password);
    expect(run.stdout).not.toContain("scrypt");

    const row = await store.db
      .selectFrom("accounts")
      .selectAll()
      .where("username", "=", "alice")
      .executeTakeFirstOrThrow();
    expect(row).toMatchObject({
      dd_fields: 100,
      time_zone: "Europe/Stockholm",
      from_name: "Alice AB",
      from_email: "news@alice.example",
      password_version: 1,
    });
    expect(row.password_hash).toMatch(/^scrypt\$/);
    expect(await verifyPassword(row.password_hash, password)).toBe(true);
    expect(await verifyPassword(row.password_hash, "second line is ignored")).toBe(false);

    const shown = await admin(url, ["account", "show", "--username", "alice", "--json"]);
    expect(shown.code).toBe(0);
    const json = JSON.parse(shown.stdout) as Record<string, unknown>;
    expect(json).toMatchObject({
      id: row.id,
      username: "alice",
      ddFields: 100,
      timeZone: "Europe/Stockholm",
      fromName: "Alice AB",
      fromEmail: "news@alice.example",
      smsCredits: "0",
      passwordVersion: 1,
    });
    expect(new Date(json.createdAt as string).getTime()).toBe(row.created_at);
    expect(shown.stdout).not.toContain("scrypt");
    expect(shown.stdout).not.toContain(password);
  });

  it("a CRLF line end is not part of the password; the defaults are 25 fields and UTC", async () => {
    const run = await admin(url, ["account", "create", "--username", "crlf", "--json"], {
      stdin: "windows-pass\r\n",
    });
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ username: "crlf", ddFields: 25, timeZone: "UTC" });
    const row = await store.db
      .selectFrom("accounts")
      .select("password_hash")
      .where("username", "=", "crlf")
      .executeTakeFirstOrThrow();
    expect(await verifyPassword(row.password_hash, "windows-pass")).toBe(true);
  });

  describe("refusals write nothing and say why", () => {
    const cases: { title: string; argv: string[]; stdin?: string; code: number; message: RegExp }[] = [
      {
        title: "no password on stdin",
        argv: ["account", "create", "--username", "nopass"],
        code: 1,
        message: /no password on standard input/,
      },
      {
        title: "an empty password",
        argv: ["account", "create", "--username", "empty"],
        stdin: "\n",
        code: 1,
        message: /password is empty/,
      },
      {
        title: "a short password",
        argv: ["account", "create", "--username", "short"],
        stdin: "1234567\n",
        code: 1,
        message: /too short: at least 8 characters, got 7/,
      },
      {
        title: "a taken user name",
        argv: ["account", "create", "--username", "alice"],
        stdin: "long enough pw\n",
        code: 1,
        message: /--username: an account named "alice" exists already/,
      },
      {
        title: "a taken user name in other case",
        argv: ["account", "create", "--username", "ALICE"],
        stdin: "long enough pw\n",
        code: 1,
        message: /"alice" exists already .*regardless of case/,
      },
      {
        title: "bad --dd-fields",
        argv: ["account", "create", "--username", "dd", "--dd-fields", "50"],
        stdin: "long enough pw\n",
        code: 1,
        message: /--dd-fields must be 25 or 100.*"50"/,
      },
      {
        title: "a bad time zone",
        argv: ["account", "create", "--username", "tz", "--time-zone", "Mars/Olympus_Mons"],
        stdin: "long enough pw\n",
        code: 1,
        message: /--time-zone must be an IANA time zone name.*"Mars\/Olympus_Mons"/,
      },
      {
        title: "an offset as time zone",
        argv: ["account", "create", "--username", "tz", "--time-zone", "+01:00"],
        stdin: "long enough pw\n",
        code: 1,
        message: /--time-zone must be an IANA/,
      },
      {
        title: "a bad --from-email",
        argv: ["account", "create", "--username", "fe", "--from-email", "not-an-address"],
        stdin: "long enough pw\n",
        code: 1,
        message: /--from-email is not an e-mail address/,
      },
      {
        title: "a user name with a space",
        argv: ["account", "create", "--username", "two words"],
        stdin: "long enough pw\n",
        code: 1,
        message: /--username must be 1 to 100 characters without spaces/,
      },
      {
        title: "an unknown account (set)",
        argv: ["account", "set", "--username", "nobody", "--dd-fields", "25"],
        code: 1,
        message: /--username: no account named "nobody"/,
      },
      {
        title: "an unknown account (set-password)",
        argv: ["account", "set-password", "--username", "nobody"],
        stdin: "long enough pw\n",
        code: 1,
        message: /--username: no account named "nobody"/,
      },
      {
        title: "an unknown account (list create)",
        argv: ["list", "create", "--account", "nobody", "--name", "x"],
        code: 1,
        message: /--account: no account named "nobody"/,
      },
      {
        title: "account set without a setting",
        argv: ["account", "set", "--username", "alice"],
        code: 1,
        message: /give at least one of --dd-fields/,
      },
      {
        title: "account set with a bad time zone",
        argv: ["account", "set", "--username", "alice", "--time-zone", "Nowhere"],
        code: 1,
        message: /--time-zone must be an IANA/,
      },
      {
        title: "a missing required option (usage)",
        argv: ["account", "create"],
        code: 2,
        message: /Missing required argument: username/,
      },
      {
        title: "an unknown verb (usage)",
        argv: ["account", "destroy"],
        code: 2,
        message: /unknown argument at position 2 \(values are not shown\)/,
      },
      {
        title: "no noun (usage)",
        argv: [],
        code: 2,
        message: /Name a noun: account \| list \| optout \| import \| outbox/,
      },
      {
        title: "an unknown option (usage)",
        argv: ["account", "show", "--colour"],
        code: 2,
        message: /unknown option --colour/,
      },
      {
        title: "an option without its value (usage)",
        argv: ["account", "show", "--username"],
        code: 2,
        message: /Not enough arguments following: username/,
      },
    ];
    for (const c of cases) {
      it(c.title, async () => {
        const before = await store.db
          .selectFrom("accounts")
          .select([
            "id",
            "username",
            "password_hash",
            "password_version",
            "dd_fields",
            "time_zone",
            "from_email",
          ])
          .orderBy("id")
          .execute();
        const run = await admin(url, c.argv, c.stdin === undefined ? {} : { stdin: c.stdin });
        expect(run.code).toBe(c.code);
        expect(run.stdout).toBe("");
        expect(run.stderr).toMatch(c.message);
        expect(run.stderr.trimEnd().split("\n")).toHaveLength(1);
        expect(run.stderr).toMatch(/^error: /);
        const after = await store.db
          .selectFrom("accounts")
          .select([
            "id",
            "username",
            "password_hash",
            "password_version",
            "dd_fields",
            "time_zone",
            "from_email",
          ])
          .orderBy("id")
          .execute();
        expect(after).toEqual(before);
        if (c.stdin !== undefined) expect(run.stderr).not.toContain(c.stdin.trim() || "\u0000");
      });
    }

    it("a password on the command line is refused without echoing it", async () => {
      for (const argv of [
        ["account", "create", "--username", "argv", "--password", "hunter2hunter2"],
        ["account", "create", "--username", "argv", "--password=hunter2hunter2"],
      ]) {
        const run = await admin(url, argv, { stdin: "long enough pw\n" });
        expect(run.code).toBe(2);
        expect(run.stdout).toBe("");
        expect(run.stderr).toMatch(
          /--password: passwords are read from standard input, never from the command line/,
        );
        expect(run.stderr).not.toContain("hunter2");
      }
      expect(
        await store.db.selectFrom("accounts").select("id").where("username", "=", "argv").executeTakeFirst(),
      ).toBeUndefined();
    });

    it("a bad --database names the option and hides a password in the URL", async () => {
      const bad = await admin(url, ["account", "show", "--database", "mysql://x"]);
      expect(bad.code).toBe(1);
      expect(bad.stderr).toMatch(/^error: --database: DATABASE_URL must start with sqlite: or postgres:\/\//);
      const unreachable = await admin(url, [
        "account",
        "show",
        "--database",
        "postgres://admin@127.0.0.1:1/none",
      ]);
      expect(unreachable.code).toBe(1);
      expect(unreachable.stdout).toBe("");
      expect(unreachable.stderr).toMatch(
        /--database postgres:\/\/admin@127\.0\.0\.1:1\/none could not be opened/,
      );
      const withPassword = await admin(url, [
        "account",
        "show",
        "--database",
        "postgres://admin:topsecret@127.0.0.1:1/none",
      ]);
      expect(withPassword.code).toBe(2);
      expect(withPassword.stderr).toMatch(
        /^error: --database: a database URL with a password is refused on the command line/,
      );
      expect(withPassword.stderr).not.toContain("topsecret");
    });
  });

  it("account set-password bumps password_version and replaces the hash", async () => {
    await createAccount("bob");
    const before = await store.db
      .selectFrom("accounts")
      .selectAll()
      .where("username", "=", "bob")
      .executeTakeFirstOrThrow();
    const run = await admin(url, ["account", "set-password", "--username", "bob", "--json"], {
      stdin: "a brand new password\n",
    });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).not.toContain("a brand new password");
    expect(JSON.parse(run.stdout)).toEqual({
      id: before.id,
      username: "bob",
      passwordVersion: before.password_version + 1,
    });
    const after = await store.db
      .selectFrom("accounts")
      .selectAll()
      .where("username", "=", "bob")
      .executeTakeFirstOrThrow();
    expect(after.password_version).toBe(before.password_version + 1);
    expect(await verifyPassword(after.password_hash, "a brand new password")).toBe(true);
    expect(await verifyPassword(after.password_hash, "password-of-bob")).toBe(false);

    const short = await admin(url, ["account", "set-password", "--username", "bob"], { stdin: "short\n" });
    expect(short.code).toBe(1);
    expect(short.stderr).toMatch(/too short/);
    const unchanged = await store.db
      .selectFrom("accounts")
      .selectAll()
      .where("username", "=", "bob")
      .executeTakeFirstOrThrow();
    expect(unchanged).toEqual(after);

    const text = await admin(url, ["account", "set-password", "--username", "bob"], {
      stdin: "yet another password\n",
    });
    expect(text.stdout).toBe(`Password changed for bob (password version ${before.password_version + 2}).\n`);
  });

  it("account set changes only the settings given; account show lists every account without hashes", async () => {
    await createAccount("carol");
    const run = await admin(url, [
      "account",
      "set",
      "--username",
      "carol",
      "--time-zone",
      "america/new_york",
      "--from-email",
      "hi@carol.example",
      "--json",
    ]);
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({
      username: "carol",
      timeZone: "America/New_York",
      fromEmail: "hi@carol.example",
      ddFields: 25,
      fromName: "",
    });
    const cleared = await admin(url, [
      "account",
      "set",
      "--username",
      "carol",
      "--from-email",
      "",
      "--dd-fields",
      "100",
      "--json",
    ]);
    expect(JSON.parse(cleared.stdout)).toMatchObject({
      timeZone: "America/New_York",
      fromEmail: "",
      ddFields: 100,
    });

    const all = await admin(url, ["account", "show", "--json"]);
    const accounts = JSON.parse(all.stdout) as Record<string, unknown>[];
    expect(accounts.map((a) => a.username)).toEqual(expect.arrayContaining(["alice", "bob", "carol"]));
    for (const a of accounts)
      expect(Object.keys(a).sort()).toEqual([
        "createdAt",
        "ddFields",
        "fromEmail",
        "fromName",
        "id",
        "passwordVersion",
        "smsCredits",
        "smsPrice",
        "timeZone",
        "username",
      ]);
    expect(all.stdout).not.toContain("scrypt");

    const table = await admin(url, ["account", "show"]);
    const lines = table.stdout.trimEnd().split("\n");
    expect(lines[0]).toMatch(
      /^ID\s+USERNAME\s+DD\s+TIME ZONE\s+FROM NAME\s+FROM EMAIL\s+SMS CREDITS\s+CREATED$/,
    );
    expect(lines.find((l) => /\bcarol\b/.test(l))).toMatch(/\bcarol\s+100\s+America\/New_York\b/);
    // Columns are aligned: every row starts its USERNAME cell where the header does.
    const at = lines[0]!.indexOf("USERNAME");
    for (const line of lines.slice(1)) expect(line[at - 1]).toBe(" ");
    expect(table.stdout).not.toContain("scrypt");
  });

  it("list create and list show, with members counted by state", async () => {
    const accountId = await createAccount("dora");
    const otherId = await createAccount("eve");
    const news = await admin(url, [
      "list",
      "create",
      "--account",
      "dora",
      "--name",
      "News",
      "--from-email",
      "news@dora.example",
      "--description",
      "Weekly",
      "--charset",
      "ISO-8859-1",
      "--json",
    ]);
    expect(news.code, news.stderr).toBe(0);
    const newsJson = JSON.parse(news.stdout) as Record<string, unknown>;
    expect(newsJson).toMatchObject({
      name: "News",
      fromEmail: "news@dora.example",
      description: "Weekly",
      charset: "iso-8859-1",
      members: { active: 0, pending: 0, unsubscribed: 0 },
    });
    const newsId = newsJson.id as number;
    const emptyId = await createList("dora", "Empty");
    const evesList = await createList("eve", "Eve's");

    const states: MembershipState[] = ["active", "active", "active", "pending", "pending", "unsubscribed"];
    for (const [i, state] of states.entries())
      await join(accountId, newsId, await subscriber(accountId, `m${i}@dora.example`), state);
    await join(otherId, evesList, await subscriber(otherId, "x@eve.example"), "active");

    const shown = await admin(url, ["list", "show", "--account", "dora", "--json"]);
    expect(shown.code, shown.stderr).toBe(0);
    const lists = JSON.parse(shown.stdout) as { id: number; name: string; members: Record<string, number> }[];
    expect(lists.map((l) => [l.id, l.name, l.members])).toEqual([
      [newsId, "News", { active: 3, pending: 2, unsubscribed: 1 }],
      [emptyId, "Empty", { active: 0, pending: 0, unsubscribed: 0 }],
    ]);

    const one = await admin(url, ["list", "show", "--account", "dora", "--id", String(newsId), "--json"]);
    expect(JSON.parse(one.stdout)).toMatchObject({
      id: newsId,
      members: { active: 3, pending: 2, unsubscribed: 1 },
    });

    const text = await admin(url, ["list", "show", "--account", "dora"]);
    expect(text.stdout.split("\n")[0]).toMatch(
      /^ID\s+NAME\s+ACTIVE\s+PENDING\s+UNSUBSCRIBED\s+FROM\s+CHARSET\s+CREATED$/,
    );
    expect(text.stdout).toMatch(
      new RegExp(`${newsId}\\s+News\\s+3\\s+2\\s+1\\s+<news@dora.example>\\s+iso-8859-1`),
    );

    // Another account's list is "not there", exactly like a missing one.
    const foreign = await admin(url, ["list", "show", "--account", "dora", "--id", String(evesList)]);
    expect(foreign).toEqual({
      code: 1,
      stdout: "",
      stderr: `error: --id: account dora has no mailing list ${evesList}\n`,
    });
    const badCharset = await admin(url, [
      "list",
      "create",
      "--account",
      "dora",
      "--name",
      "X",
      "--charset",
      "klingon-1",
    ]);
    expect(badCharset.code).toBe(1);
    expect(badCharset.stderr).toMatch(/--charset must be a character set name/);
    const badId = await admin(url, ["list", "show", "--account", "dora", "--id", "abc"]);
    expect(badId.code).toBe(1);
    expect(badId.stderr).toMatch(/--id must be a whole number/);
    expect(
      (await store.db.selectFrom("mailing_lists").select("id").where("account_id", "=", accountId).execute())
        .length,
    ).toBe(2);
  });

  it("optout add unsubscribes every membership in the account and keeps a subscriber record", async () => {
    const accountId = await createAccount("fred");
    const otherId = await createAccount("gina");
    const a = await createList("fred", "A");
    const b = await createList("fred", "B");
    const c = await createList("fred", "C");
    const g = await createList("gina", "G");
    const sub = await subscriber(accountId, "Pat@Example.com");
    await join(accountId, a, sub, "active");
    await join(accountId, b, sub, "pending");
    await join(accountId, c, sub, "unsubscribed");
    const other = await subscriber(accountId, "other@example.com");
    await join(accountId, a, other, "active");
    const elsewhere = await subscriber(otherId, "pat@example.com");
    await join(otherId, g, elsewhere, "active");

    const t0 = Date.now();
    const run = await admin(url, [
      "optout",
      "add",
      "--account",
      "fred",
      "--email",
      "  PAT@example.COM ",
      "--json",
    ]);
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual({
      account: "fred",
      emailKey: "pat@example.com",
      added: true,
      subscriberId: sub,
      unsubscribed: 2,
    });

    const memberships = await store.db
      .selectFrom("memberships")
      .selectAll()
      .where("subscriber_id", "in", [sub, other, elsewhere])
      .orderBy("list_id")
      .execute();
    const bySub = (id: number) => memberships.filter((m) => m.subscriber_id === id);
    expect(bySub(sub).map((m) => m.state)).toEqual(["unsubscribed", "unsubscribed", "unsubscribed"]);
    for (const m of bySub(sub).filter((m) => m.list_id !== c))
      expect(m.changed_at).toBeGreaterThanOrEqual(t0);
    expect(bySub(sub).find((m) => m.list_id === c)?.changed_at).toBe(1_000); // already unsubscribed: untouched
    expect(bySub(other).map((m) => m.state)).toEqual(["active"]);
    expect(bySub(elsewhere).map((m) => m.state)).toEqual(["active"]); // another account's subscriber
    const optouts = await store.db
      .selectFrom("optouts")
      .selectAll()
      .where("account_id", "in", [accountId, otherId])
      .execute();
    expect(optouts.map((o) => [o.account_id, o.email_key])).toEqual([[accountId, "pat@example.com"]]);
    expect(
      (
        await store.db
          .selectFrom("subscribers")
          .select(["id", "email"])
          .where("id", "=", sub)
          .executeTakeFirstOrThrow()
      ).email,
    ).toBe("Pat@Example.com");

    // Again: already on the set, nothing changes.
    const again = await admin(url, ["optout", "add", "--account", "fred", "--email", "pat@example.com"]);
    expect(again.stdout).toBe(
      "pat@example.com was already on the opt-out list of fred (subscriber " +
        sub +
        "; 0 memberships unsubscribed now).\n",
    );

    // An address with no subscriber yet gets a bare record, so a single insert can return its id.
    const fresh = await admin(url, [
      "optout",
      "add",
      "--account",
      "fred",
      "--email",
      "New.Person@Example.com",
      "--json",
    ]);
    const freshJson = JSON.parse(fresh.stdout) as {
      subscriberId: number;
      added: boolean;
      unsubscribed: number;
    };
    expect(freshJson).toMatchObject({ added: true, unsubscribed: 0 });
    const bare = await store.db
      .selectFrom("subscribers")
      .selectAll()
      .where("id", "=", freshJson.subscriberId)
      .executeTakeFirstOrThrow();
    expect(bare).toMatchObject({
      account_id: accountId,
      email: "New.Person@Example.com",
      email_key: "new.person@example.com",
      fields: "{}",
    });

    // The insert path sees the set: the address joins nothing and keeps its id.
    const account = await store.db
      .selectFrom("accounts")
      .selectAll()
      .where("id", "=", accountId)
      .executeTakeFirstOrThrow();
    const [outcome] = await store.db
      .transaction()
      .execute((trx) =>
        upsertSubscribers(
          trx,
          store.engine,
          account,
          a,
          [{ email: "new.person@EXAMPLE.com" }],
          { update: true, state: "active", recordOptedOut: true },
          Date.now(),
        ),
      );
    expect(outcome).toMatchObject({ id: freshJson.subscriberId, outcome: "optedOut", state: undefined });
    expect(
      await store.db
        .selectFrom("memberships")
        .select("list_id")
        .where("subscriber_id", "=", freshJson.subscriberId)
        .execute(),
    ).toEqual([]);

    const shown = await admin(url, ["optout", "show", "--account", "fred", "--json"]);
    expect((JSON.parse(shown.stdout) as { emailKey: string }[]).map((o) => o.emailKey)).toEqual([
      "new.person@example.com",
      "pat@example.com",
    ]);
    const table = await admin(url, ["optout", "show", "--account", "fred"]);
    expect(table.stdout).toMatch(
      /^EMAIL\s+SINCE\nnew\.person@example\.com\s+\d{4}-\d\d-\d\d \d\d:\d\d:\d\dZ\npat@example\.com/,
    );

    const removed = await admin(url, [
      "optout",
      "remove",
      "--account",
      "fred",
      "--email",
      "Pat@example.com",
      "--json",
    ]);
    expect(JSON.parse(removed.stdout)).toEqual({
      account: "fred",
      emailKey: "pat@example.com",
      removed: true,
    });
    const stillUnsubscribed = await store.db
      .selectFrom("memberships")
      .select("state")
      .where("subscriber_id", "=", sub)
      .execute();
    expect(stillUnsubscribed.every((m) => m.state === "unsubscribed")).toBe(true);
    const removeAgain = await admin(url, [
      "optout",
      "remove",
      "--account",
      "fred",
      "--email",
      "pat@example.com",
    ]);
    expect(removeAgain).toEqual({
      code: 1,
      stdout: "",
      stderr: "error: --email: pat@example.com is not on the opt-out list of fred\n",
    });

    const bad = await admin(url, ["optout", "add", "--account", "fred", "--email", "not an address"]);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/^error: --email is not an e-mail address/);
    expect(
      await store.db.selectFrom("optouts").select("email_key").where("account_id", "=", accountId).execute(),
    ).toHaveLength(1);
  });

  describe("imports", () => {
    let accountId: number;
    let listId: number;
    const insertImport = async (values: {
      state: "queued" | "fetching" | "importing" | "done" | "failed";
      account?: number;
      error?: string | null;
      firstErrors?: string;
    }) => {
      const row = await store.db
        .insertInto("imports")
        .values({
          account_id: values.account ?? accountId,
          list_id: listId,
          url: "https://files.example/subscribers.csv",
          state: values.state,
          lines_done: 1_500,
          rows_imported: 1_400,
          rows_skipped: 60,
          rows_bad: 40,
          first_errors: values.firstErrors ?? "[]",
          error: values.error ?? null,
          lease_owner: null,
          lease_until: null,
          created_at: Date.UTC(2024, 4, 1, 12, 0, 0),
          updated_at: Date.UTC(2024, 4, 1, 12, 5, 0),
          finished_at:
            values.state === "done" || values.state === "failed" ? Date.UTC(2024, 4, 1, 12, 6, 0) : null,
        })
        .returning("id")
        .executeTakeFirstOrThrow();
      return row.id;
    };
    const setState = (
      id: number,
      state: "importing" | "done" | "failed",
      extra: { rows_imported?: number; error?: string } = {},
    ) =>
      store.db
        .updateTable("imports")
        .set({ state, ...extra })
        .where("id", "=", id)
        .execute();

    beforeAll(async () => {
      accountId = await createAccount("ivan");
      listId = await createList("ivan", "Imported");
    });

    it("import show lists an account's imports and shows one with its first errors", async () => {
      const errors = JSON.stringify([
        { line: 12, error: "Email is not an e-mail address like name@example.com" },
        { line: 40, error: "bad\u001b[31m row" },
      ]);
      const id = await insertImport({ state: "done", firstErrors: errors });
      const other = await createAccount("judy");
      const foreign = await insertImport({ state: "queued", account: other });

      const one = await admin(url, ["import", "show", "--account", "ivan", "--id", String(id), "--json"]);
      expect(one.code, one.stderr).toBe(0);
      expect(JSON.parse(one.stdout)).toEqual({
        id,
        listId,
        state: "done",
        url: "https://files.example/subscribers.csv",
        linesDone: 1_500,
        imported: 1_400,
        skipped: 60,
        bad: 40,
        firstErrors: [
          { line: 12, error: "Email is not an e-mail address like name@example.com" },
          { line: 40, error: "bad\u001b[31m row" },
        ],
        error: null,
        attempts: 0,
        createdAt: "2024-05-01T12:00:00.000Z",
        updatedAt: "2024-05-01T12:05:00.000Z",
        finishedAt: "2024-05-01T12:06:00.000Z",
      });
      const text = await admin(url, ["import", "show", "--account", "ivan", "--id", String(id)]);
      expect(text.stdout).toMatch(/state:\s+done/);
      expect(text.stdout).toMatch(/imported:\s+1400/);
      expect(text.stdout).toContain(
        "first errors:\n  line 12: Email is not an e-mail address like name@example.com\n  line 40: bad\\x1b[31m row\n",
      );
      expect(text.stdout).not.toContain("\u001b");

      const all = await admin(url, ["import", "show", "--account", "ivan", "--json"]);
      expect((JSON.parse(all.stdout) as { id: number }[]).map((i) => i.id)).not.toContain(foreign);
      const table = await admin(url, ["import", "show", "--account", "ivan"]);
      expect(table.stdout.split("\n")[0]).toMatch(
        /^ID\s+LIST\s+STATE\s+LINES\s+IMPORTED\s+SKIPPED\s+BAD\s+CREATED\s+UPDATED\s+URL$/,
      );
      expect(table.stdout).toMatch(
        new RegExp(
          `${id}\\s+${listId}\\s+done\\s+1500\\s+1400\\s+60\\s+40\\s+2024-05-01 12:00:00Z\\s+2024-05-01 12:05:00Z\\s+https://files.example/subscribers.csv`,
        ),
      );

      const notMine = await admin(url, ["import", "show", "--account", "ivan", "--id", String(foreign)]);
      expect(notMine).toEqual({
        code: 1,
        stdout: "",
        stderr: `error: --id: account ivan has no import ${foreign}\n`,
      });
    });

    it("import watch prints one line per state change when stderr is not a terminal, and the final state", async () => {
      const id = await insertImport({ state: "queued" });
      let stderr = "";
      const watching = admin(url, ["import", "watch", "--id", String(id), "--json"], {
        onStderr: (t) => (stderr = t),
      });
      await until(() => stderr.includes("queued"));
      await setState(id, "importing", { rows_imported: 2_000 });
      await until(() => stderr.includes("importing"));
      await setState(id, "done", { rows_imported: 3_000 });
      const run = await watching;
      expect(run.code, run.stderr).toBe(0);
      const lines = run.stderr.trimEnd().split("\n");
      expect(lines.map((l) => l.split(/\s+/)[2])).toEqual(["queued", "importing", "done"]);
      expect(lines[2]).toMatch(
        new RegExp(
          `^import ${id}\\s+done\\s+lines 1,500\\s+imported 3,000\\s+skipped 60\\s+bad 40\\s+\\S+ rows/s`,
        ),
      );
      expect(JSON.parse(run.stdout)).toMatchObject({ id, state: "done", imported: 3_000 });
    });

    it("import watch redraws a progress line on a terminal, fails with the import and gives up after --timeout", async () => {
      const id = await insertImport({ state: "importing" });
      let stderr = "";
      const watching = admin(url, ["import", "watch", "--id", String(id)], {
        ttyErr: true,
        onStderr: (t) => (stderr = t),
      });
      await until(() => (stderr.match(/\r/g) ?? []).length >= 2);
      await setState(id, "failed", { error: "the download failed: HTTP 404" });
      const run = await watching;
      expect(run.code).toBe(1);
      expect(run.stdout).toBe("");
      expect(run.stderr).toMatch(/^\r\x1b\[2Kimport \d+ {2}importing {2}lines 1,500/);
      expect(run.stderr).toMatch(/rows\/s/);
      expect(run.stderr).toMatch(/\r\x1b\[2Kimport \d+ {2}failed .*\n/);
      expect(run.stderr.trimEnd().split("\n").at(-1)).toBe(
        `error: import ${id} failed: the download failed: HTTP 404`,
      );

      const stuck = await insertImport({ state: "queued" });
      const started = Date.now();
      const timedOut = await admin(url, ["import", "watch", "--id", String(stuck), "--timeout", "1"]);
      expect(Date.now() - started).toBeLessThan(20_000);
      expect(timedOut.code).toBe(1);
      expect(timedOut.stdout).toBe("");
      expect(timedOut.stderr).toMatch(
        new RegExp(`error: import ${stuck} is still queued after --timeout 1 s`),
      );

      const missing = await admin(url, ["import", "watch", "--id", "987654"]);
      expect(missing).toEqual({ code: 1, stdout: "", stderr: "error: --id: there is no import 987654\n" });
    });
  });

  it("outbox show lists messages newest first, by account and state", async () => {
    const kate = await createAccount("kate");
    const leo = await createAccount("leo");
    const mail = async (
      accountId: number,
      subject: string,
      state: "queued" | "sent" | "dead",
      sentAt: number | null,
    ) =>
      (
        await store.db
          .insertInto("mail_outbox")
          .values({
            account_id: accountId,
            kind: "confirmation",
            to_address: "reader@example.com",
            subject,
            message: "Subject: x\r\n\r\nbody\r\n",
            state,
            attempts: state === "dead" ? 5 : 1,
            next_attempt_at: Date.UTC(2024, 0, 2),
            lease_owner: null,
            lease_until: null,
            last_error: state === "dead" ? "550 no such user" : null,
            created_at: Date.UTC(2024, 0, 1, 8, 30),
            sent_at: sentAt,
          })
          .returning("id")
          .executeTakeFirstOrThrow()
      ).id;
    const first = await mail(kate, "Please confirm", "sent", Date.UTC(2024, 0, 1, 8, 31));
    const second = await mail(kate, "Evil\r\nBcc: x\u001b[2J", "dead", null);
    const third = await mail(leo, "Leo's", "queued", null);

    const run = await admin(url, ["outbox", "show", "--account", "kate", "--json"]);
    expect(run.code, run.stderr).toBe(0);
    const rows = JSON.parse(run.stdout) as Record<string, unknown>[];
    expect(rows.map((r) => r.id)).toEqual([second, first]);
    expect(rows[1]).toEqual({
      id: first,
      account: "kate",
      kind: "confirmation",
      to: "reader@example.com",
      subject: "Please confirm",
      state: "sent",
      attempts: 1,
      lastError: null,
      nextAttemptAt: null,
      firstAttemptAt: null,
      createdAt: "2024-01-01T08:30:00.000Z",
      sentAt: "2024-01-01T08:31:00.000Z",
    });
    expect(rows[0]).toMatchObject({
      state: "dead",
      attempts: 5,
      lastError: "550 no such user",
      subject: "Evil\r\nBcc: x\u001b[2J",
    });

    const dead = await admin(url, ["outbox", "show", "--state", "dead", "--json"]);
    expect((JSON.parse(dead.stdout) as { id: number }[]).map((r) => r.id)).toContain(second);
    expect((JSON.parse(dead.stdout) as { state: string }[]).every((r) => r.state === "dead")).toBe(true);
    const limited = await admin(url, ["outbox", "show", "--limit", "1", "--json"]);
    expect((JSON.parse(limited.stdout) as { id: number }[]).map((r) => r.id)).toEqual([third]);

    const table = await admin(url, ["outbox", "show", "--account", "kate"]);
    const lines = table.stdout.trimEnd().split("\n");
    expect(lines[0]).toMatch(
      /^ID\s+KIND\s+TO\s+SUBJECT\s+STATE\s+ATTEMPTS\s+CREATED\s+SENT\s+NEXT ATTEMPT\s+LAST ERROR$/,
    );
    expect(lines).toHaveLength(3);
    expect(lines[1]).toContain("Evil\\r\\nBcc: x\\x1b[2J");
    // a dead message shows why (no next attempt)
    expect(lines[1]).toMatch(/\sdead\s+5\s+2024-01-01 08:30:00Z\s+-\s+-\s+550 no such user$/);
    expect(lines[2]).toMatch(
      new RegExp(
        `^\\s*${first}\\s+confirmation\\s+reader@example.com\\s+Please confirm\\s+sent\\s+1\\s+2024-01-01 08:30:00Z\\s+2024-01-01 08:31:00Z\\s+-\\s+-$`,
      ),
    );
    const everyone = await admin(url, ["outbox", "show"]);
    expect(everyone.stdout.split("\n")[0]).toMatch(/^ID\s+ACCOUNT\s+KIND/);
    // a queued message shows when it is tried next
    expect(everyone.stdout).toMatch(
      new RegExp(
        `${third}\\s+leo\\s+confirmation.*queued\\s+1\\s+2024-01-01 08:30:00Z\\s+-\\s+2024-01-02 00:00:00Z\\s+-\\n`,
      ),
    );

    const badState = await admin(url, ["outbox", "show", "--state", "lost"]);
    expect(badState).toEqual({
      code: 1,
      stdout: "",
      stderr: 'error: --state must be one of queued, sent, dead, not "lost"\n',
    });
    const none = await admin(url, ["outbox", "show", "--account", "kate", "--state", "queued"]);
    expect(none.stdout).toBe("No queued messages in the outbox of kate.\n");
  });

  it("outbox retry takes several ids or a filter, all of them or none", async () => {
    const mia = await createAccount("mia");
    const ned = await createAccount("ned");
    const mail = async (accountId: number, state: "queued" | "sent" | "dead") =>
      (
        await store.db
          .insertInto("mail_outbox")
          .values({
            account_id: accountId,
            kind: "transactional",
            to_address: "reader@example.com",
            subject: `a ${state} one`,
            message: "Subject: x\r\n\r\nbody\r\n",
            state,
            attempts: state === "queued" ? 2 : 7,
            first_attempt_at: Date.UTC(2024, 0, 1),
            next_attempt_at: Date.UTC(2999, 0, 1),
            lease_owner: null,
            lease_until: null,
            last_error: state === "sent" ? null : "451 try later",
            created_at: Date.UTC(2024, 0, 1),
            sent_at: state === "sent" ? Date.UTC(2024, 0, 1) : null,
          })
          .returning("id")
          .executeTakeFirstOrThrow()
      ).id;
    const dead1 = await mail(mia, "dead");
    const dead2 = await mail(mia, "dead");
    const waiting = await mail(mia, "queued");
    const sent = await mail(mia, "sent");
    const nedDead = await mail(ned, "dead");
    const rows = async () =>
      Object.fromEntries(
        (
          await store.db
            .selectFrom("mail_outbox")
            .select(["id", "state", "attempts", "first_attempt_at", "next_attempt_at"])
            .where("account_id", "in", [mia, ned])
            .execute()
        ).map((r) => [r.id, r]),
      );
    const before = await rows();

    // refusals change nothing: an unknown id or a sent message among the ids refuses them all
    expect(await admin(url, ["outbox", "retry", "--id", `${dead1},987654,987655`])).toEqual({
      code: 1,
      stdout: "",
      stderr: "error: --id: there is no message 987654, 987655 in the outbox; nothing was retried\n",
    });
    expect(await admin(url, ["outbox", "retry", "--id", `${dead1},${sent}`])).toEqual({
      code: 1,
      stdout: "",
      stderr: `error: --id: message ${sent} was sent already; it is not sent twice, and nothing was retried\n`,
    });
    for (const [argv, message] of [
      [["--id", `${dead1},,${dead2}`], "--id must be message ids separated by commas"],
      [["--id", "seven"], "--id must be a whole number"],
      [["--id", String(dead1), "--state", "dead"], "give either --id, or --state"],
      [["--account", "mia"], "--account needs --state"],
      [[], "name the messages: --id 4,7,9, or --state dead"],
      [["--state", "sent"], "--state must be dead or queued"],
      [["--state", "dead", "--account", "nobody"], '--account: no account named "nobody"'],
    ] as const) {
      const run = await admin(url, ["outbox", "retry", ...argv]);
      expect(run.code, argv.join(" ")).toBe(1);
      expect(run.stdout).toBe("");
      expect(run.stderr).toContain(message);
    }
    expect(await rows()).toEqual(before);

    // several ids at once: dead ones start over, due now
    const t0 = Date.now();
    const both = await admin(url, ["outbox", "retry", "--id", ` ${dead1}, ${dead2},${dead1}`]);
    expect(both.code, both.stderr).toBe(0);
    expect(both.stdout).toBe(
      `2 messages are queued and due now (2 were dead, 0 waiting for their next attempt): ${dead1}, ${dead2}.\n`,
    );
    const after = await rows();
    for (const id of [dead1, dead2]) {
      expect(after[id]).toMatchObject({ state: "queued", attempts: 0, first_attempt_at: null });
      expect(after[id]!.next_attempt_at).toBeGreaterThanOrEqual(t0);
      expect(after[id]!.next_attempt_at).toBeLessThanOrEqual(Date.now());
    }
    expect(after[nedDead]).toEqual(before[nedDead]);

    // a filter: every dead message of one account
    const filtered = await admin(url, ["outbox", "retry", "--state", "dead", "--account", "ned", "--json"]);
    expect(filtered.code, filtered.stderr).toBe(0);
    expect(JSON.parse(filtered.stdout)).toEqual({
      retried: [nedDead],
      previous: [{ id: nedDead, state: "dead", attempts: 7, lastError: "451 try later" }],
    });
    expect((await rows())[nedDead]).toMatchObject({ state: "queued", attempts: 0 });
    expect(await admin(url, ["outbox", "retry", "--state", "dead", "--account", "ned"])).toEqual({
      code: 0,
      stdout: "No dead messages of ned in the outbox: nothing to retry.\n",
      stderr: "",
    });

    // a queued message waiting for its next attempt becomes due now and keeps its attempts
    const due = await admin(url, ["outbox", "retry", "--id", String(waiting)]);
    expect(due).toEqual({
      code: 0,
      stdout: `Message ${waiting} is queued and due now (was waiting for its next attempt).\n`,
      stderr: "",
    });
    expect((await rows())[waiting]).toMatchObject({
      state: "queued",
      attempts: 2,
      first_attempt_at: Date.UTC(2024, 0, 1),
    });
    expect((await rows())[waiting]!.next_attempt_at).toBeLessThanOrEqual(Date.now());
    expect((await rows())[sent]).toEqual(before[sent]);
  });

  it("--help works at every level and opens no database", async () => {
    const missing = "sqlite:/nonexistent-dir-for-admin-help/never.db";
    for (const [argv, wanted] of [
      [
        ["--help"],
        /admin <noun> <verb> \[options\][\s\S]*account[\s\S]*list[\s\S]*optout[\s\S]*import[\s\S]*outbox/,
      ],
      [["account", "--help"], /create[\s\S]*set-password[\s\S]*set[\s\S]*show/],
      [
        ["account", "create", "--help"],
        /--username[\s\S]*--dd-fields[\s\S]*--time-zone[\s\S]*standard input/,
      ],
      [["import", "watch", "--help"], /--timeout/],
    ] as const) {
      const run = await admin(missing, [...argv]);
      expect(run.code).toBe(0);
      expect(run.stderr).toBe("");
      expect(run.stdout).toMatch(wanted);
    }
  });
});

describe("the real admin entry", () => {
  it("node --import tsx service/admin/cli.ts account show --json reads DATABASE_URL", async () => {
    const url = await freshDatabaseUrl("sqlite", "admin-entry");
    const created = await admin(url, ["account", "create", "--username", "entry", "--json"], {
      stdin: "entry-password\n",
    });
    expect(created.code, created.stderr).toBe(0);
    const { stdout, stderr } = await promisify(execFile)(
      process.execPath,
      ["--import", "tsx", "service/admin/cli.ts", "account", "show", "--json"],
      {
        env: { ...process.env, DATABASE_URL: url },
        timeout: 60_000,
      },
    );
    expect(stderr).toBe("");
    const accounts = JSON.parse(stdout) as { username: string; id: number }[];
    expect(accounts).toEqual([
      expect.objectContaining({ username: "entry", id: (JSON.parse(created.stdout) as { id: number }).id }),
    ]);

    const failed = await promisify(execFile)(
      process.execPath,
      ["--import", "tsx", "service/admin/cli.ts", "account", "show", "--username", "ghost"],
      {
        env: { ...process.env, DATABASE_URL: url },
        timeout: 60_000,
      },
    ).then(
      () => undefined,
      (error: { code?: number; stdout?: string; stderr?: string }) => error,
    );
    expect(failed?.code).toBe(1);
    expect(failed?.stdout).toBe("");
    expect(failed?.stderr).toBe('error: --username: no account named "ghost"\n');
  }, 120_000);
});

describe("admin CLI command line: a secret in argv is never echoed (the real process)", () => {
  const SECRET = "hunter2secret";
  const cases: { argv: string[]; message: RegExp }[] = [
    {
      argv: ["--database", `postgres://admin:${SECRET}@127.0.0.1:1/db`, "account", "show"],
      message:
        /^error: --database: a database URL with a password is refused on the command line.*DATABASE_URL environment variable.*PGPASSWORD/,
    },
    {
      argv: ["account", "show", `--database=postgresql://admin:${SECRET}@db.internal/db`],
      message: /^error: --database: a database URL with a password is refused/,
    },
    {
      argv: ["account", "show", "--database", `postgres://admin@db.internal/db?password=${SECRET}`],
      message: /^error: --database: a database URL with a password is refused/,
    },
    {
      argv: ["list", "create", "--account", "a", "--name", `postgres://admin:${SECRET}@h/db`],
      message: /^error: --name \(argument 6\): a database URL with a password is refused/,
    },
    {
      argv: ["account", "show", SECRET],
      message: /^error: unknown argument at position 3 \(values are not shown\)/,
    },
    {
      argv: [SECRET],
      message:
        /^error: unknown argument at position 1 \(values are not shown\); name a noun: account \| list/,
    },
    { argv: ["account", SECRET], message: /^error: unknown argument at position 2 / },
    {
      argv: ["account", "show", "--bogus", SECRET],
      message: /^error: unknown option --bogus \(values are not shown\)/,
    },
    {
      argv: ["account", "show", `--bogus=${SECRET}`],
      message: /^error: unknown option --bogus \(values are not shown\)/,
    },
    { argv: ["account", "show", `--${SECRET}!`], message: /^error: an unknown option at position 3 / },
    {
      argv: ["account", "create", "--username", "x", "--password", SECRET],
      message: /^error: --password: passwords are read from standard input/,
    },
  ];

  it("refuses each with exit code 2, one line on stderr naming the position or option, the secret nowhere", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "eas-admin-argv-"));
    try {
      const runs = await Promise.all(
        cases.map((c) =>
          promisify(execFile)(process.execPath, ["--import", "tsx", "service/admin/cli.ts", ...c.argv], {
            env: { ...process.env, DATABASE_URL: `sqlite:${path.join(dir, "admin.db")}` },
            timeout: 60_000,
          }).then(
            () => ({ code: 0, stdout: "", stderr: "the command succeeded" }),
            (error: { code?: number; stdout?: string; stderr?: string }) => ({
              code: error.code,
              stdout: error.stdout ?? "",
              stderr: error.stderr ?? "",
            }),
          ),
        ),
      );
      runs.forEach((run, k) => {
        const what = cases[k]!.argv.join(" ");
        expect(run.code, what).toBe(2);
        expect(run.stdout, what).toBe("");
        expect(run.stderr, what).toMatch(cases[k]!.message);
        expect(run.stderr.trimEnd().split("\n"), what).toHaveLength(1);
        expect(run.stderr + run.stdout, what).not.toContain(SECRET);
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);
});
