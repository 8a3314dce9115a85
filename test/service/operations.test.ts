// The eight operations of issue 9 through the whole service (generated client → wire → service → store),
// on SQLite and PostgreSQL: credentials, account isolation, opt-out-all, double opt-in with the
// confirmation link, the CSV bulk insert's all-or-nothing rule, field updates, lists and the logs.

import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ServiceFaultError } from "../../generated/client.js";
import { operations } from "../../generated/model.js";
import { samples } from "../fixtures/samples.js";
import { BINDINGS, eventually, startService, type TestService, fault } from "./support/service.js";
import { describeEngines } from "./support/engines.js";
import { SPEC_OPERATIONS } from "../fixtures/spec-facts.js";

describeEngines("issue 9 operations", (engine) => {
  let svc: TestService;
  let alice: number;
  let bob: number;
  let aliceList: number;
  let aliceList2: number;
  let bobList: number;

  beforeAll(async () => {
    svc = await startService(engine, "operations");
    alice = await svc.createAccount("alice", "alice-secret-1");
    bob = await svc.createAccount("bob", "bob-secret-12");
    aliceList = await svc.createList(alice, "Alice news");
    aliceList2 = await svc.createList(alice, "Alice offers");
    bobList = await svc.createList(bob, "Bob news");
  }, 60_000);
  afterAll(async () => svc?.close());

  const count = async (table: "subscribers" | "memberships" | "mail_outbox" | "confirmations") =>
    Number(
      (
        await svc.app.store.db
          .selectFrom(table)
          .select((eb) => eb.fn.countAll().as("n"))
          .executeTakeFirstOrThrow()
      ).n,
    );

  it.each(BINDINGS)(
    "InsertSubscriberSid over %s creates the subscriber and an active membership, and is idempotent",
    async (binding) => {
      const client = svc.client("alice", "alice-secret-1", binding);
      const email = `Sid.${binding}@Example.com`;
      const id = await client.InsertSubscriberSid({
        strEmail: email,
        strName: "Sid",
        strMailingListID: String(aliceList),
      });
      expect(typeof id).toBe("bigint");
      const again = await client.InsertSubscriberSid({
        strEmail: email.toLowerCase(),
        strMailingListID: String(aliceList),
      });
      expect(again).toBe(id);
      const row = await svc.app.store.db
        .selectFrom("subscribers")
        .selectAll()
        .where("id", "=", Number(id))
        .executeTakeFirstOrThrow();
      expect(row).toMatchObject({ account_id: alice, email, name: "Sid", format: "HTML" });
      const membership = await svc.app.store.db
        .selectFrom("memberships")
        .selectAll()
        .where("subscriber_id", "=", Number(id))
        .execute();
      expect(membership.map((m) => [m.list_id, m.state])).toEqual([[aliceList, "active"]]);
    },
  );

  it.each(BINDINGS)(
    "wrong credentials over %s get InvalidCredentials, the same for an unknown user",
    async (binding) => {
      const wrong = await fault(
        svc
          .client("alice", "not-her-password", binding)
          .InsertSubscriberSid({ strEmail: "x@example.com", strMailingListID: String(aliceList) }),
      );
      const unknown = await fault(
        svc
          .client("nobody", "whatever-pass", binding)
          .InsertSubscriberSid({ strEmail: "x@example.com", strMailingListID: String(aliceList) }),
      );
      expect(wrong.errorCode).toBe("InvalidCredentials");
      expect(unknown.errorCode).toBe("InvalidCredentials");
      expect(unknown.message).toBe(wrong.message);
      expect(
        await svc.app.store.db
          .selectFrom("subscribers")
          .select("id")
          .where("email_key", "=", "x@example.com")
          .execute(),
      ).toEqual([]);
    },
  );

  it("another account's list, subscriber and ids answer NotFound, never data", async () => {
    const aliceClient = svc.client("alice", "alice-secret-1");
    const bobClient = svc.client("bob", "bob-secret-12");
    const subscriber = await aliceClient.InsertSubscriberSid({
      strEmail: "private@example.com",
      strMailingListID: String(aliceList),
    });
    const before = await count("subscribers");
    const refusals = await Promise.all([
      fault(
        bobClient.InsertSubscriberSid({ strEmail: "b@example.com", strMailingListID: String(aliceList) }),
      ),
      fault(
        bobClient.InsertSubscriberWithDemData({
          strEmail: "b@example.com",
          strMailingListID: String(aliceList),
        }),
      ),
      fault(
        bobClient.InsertSubscriberWithDemDataPendingOption({
          strEmail: "b@example.com",
          strMailingListID: String(aliceList),
          strPending: "true",
        }),
      ),
      fault(
        bobClient.InsertCsvSubscribersWithDemDataUpdateOption({
          strMailingListId: String(aliceList),
          strCsvData: "b@example.com,B,HTML",
        }),
      ),
      fault(
        bobClient.InsertCSVSubscribersWithDemDataFromFileToQueue({
          strMailingListID: String(aliceList),
          strCSVUrl: "http://127.0.0.1:9/x.csv",
        }),
      ),
      fault(
        bobClient.UpdateSubscriberData({
          strSubscriberId: String(subscriber),
          strDataField: "1",
          strDataValue: "x",
        }),
      ),
      fault(
        bobClient.UpdateSubscriberData({
          strEmail: "private@example.com",
          strDataField: "1",
          strDataValue: "x",
        }),
      ),
      fault(bobClient.UpdateMailingList({ strMailingListID: String(aliceList), strListName: "stolen" })),
      fault(bobClient.GetSubscriberMailingLists({ strSubscriberId: String(subscriber) })),
      fault(bobClient.GetSubscriberMailingLists({ strEmail: "private@example.com" })),
    ]);
    for (const refusal of refusals) expect(refusal.errorCode).toBe("NotFound");
    // The same answer as for an id that exists nowhere.
    const missing = await fault(
      bobClient.UpdateMailingList({ strMailingListID: "999999", strListName: "x" }),
    );
    expect(missing.message).toBe(refusals[7]!.message);
    expect(await count("subscribers")).toBe(before);
    const list = await svc.app.store.db
      .selectFrom("mailing_lists")
      .select("name")
      .where("id", "=", aliceList)
      .executeTakeFirstOrThrow();
    expect(list.name).toBe("Alice news");
  });

  it.each(BINDINGS)(
    "an import URL that is file:, ftp:, relative, loopback or private answers ImportUrlRefused over %s, one text for all",
    async (binding) => {
      const client = svc.client("alice", "alice-secret-1", binding);
      const urls = [
        "file:///etc/passwd",
        "ftp://files.example.test/a.csv",
        "files/list.csv",
        "http:\\\\files.example.test\\a.csv",
        "http://127.0.0.1:9/x.csv",
        "http://10.1.2.3/x.csv",
        "http://u:p@files.example.test/x",
      ];
      const refusals = await Promise.all(
        urls.map((url) =>
          fault(
            client.InsertCSVSubscribersWithDemDataFromFileToQueue({
              strMailingListID: String(aliceList),
              strCSVUrl: url,
            }),
          ),
        ),
      );
      for (const refusal of refusals) {
        expect(refusal.errorCode).toBe("ImportUrlRefused");
        expect(refusal.parameter).toBe("strCSVUrl");
      }
      // The same words whatever refused it: nothing about the host, its address or the rule.
      expect(new Set(refusals.map((r) => r.message)).size).toBe(1);
      expect(refusals[0]!.message).not.toMatch(/127\.0\.0\.1|10\.1\.2\.3|loopback|private|scheme/);
      expect(await svc.app.store.db.selectFrom("imports").select("id").execute()).toEqual([]);
    },
  );

  it("an opted-out address inserts nothing and changes no membership, but the id comes back", async () => {
    const client = svc.client("alice", "alice-secret-1");
    const id = await client.InsertSubscriberSid({
      strEmail: "gone@example.com",
      strMailingListID: String(aliceList),
    });
    await svc.app.store.db
      .insertInto("optouts")
      .values({ account_id: alice, email_key: "gone@example.com", created_at: Date.now() })
      .execute();
    const again = await client.InsertSubscriberWithDemData({
      strEmail: "GONE@example.com",
      strName: "Changed",
      strMailingListID: String(aliceList2),
    });
    expect(again).toBe(id);
    const row = await svc.app.store.db
      .selectFrom("subscribers")
      .select("name")
      .where("id", "=", Number(id))
      .executeTakeFirstOrThrow();
    expect(row.name).toBe("");
    const memberships = await svc.app.store.db
      .selectFrom("memberships")
      .select("list_id")
      .where("subscriber_id", "=", Number(id))
      .execute();
    expect(memberships.map((m) => m.list_id)).toEqual([aliceList]);
    // A new opted-out address gets a bare record and an id, and no membership.
    await svc.app.store.db
      .insertInto("optouts")
      .values({ account_id: alice, email_key: "never@example.com", created_at: Date.now() })
      .execute();
    const fresh = await client.InsertSubscriberSid({
      strEmail: "never@example.com",
      strMailingListID: String(aliceList),
    });
    expect(
      await svc.app.store.db
        .selectFrom("memberships")
        .select("list_id")
        .where("subscriber_id", "=", Number(fresh))
        .execute(),
    ).toEqual([]);
  });

  it("a DD field beyond the account's activated count is FieldNotActivated and writes nothing", async () => {
    const client = svc.client("alice", "alice-secret-1");
    const before = await count("subscribers");
    const refused = await fault(
      client.InsertSubscriberWithDemData({
        strEmail: "dd@example.com",
        strMailingListID: String(aliceList),
        strDatafields: "DD3;DD26",
        strDatavalues: "SE;x",
      }),
    );
    expect(refused.errorCode).toBe("FieldNotActivated");
    expect(refused.message).toContain("DD26");
    expect(await count("subscribers")).toBe(before);
    const id = await client.InsertSubscriberWithDemData({
      strEmail: "dd@example.com",
      strMailingListID: String(aliceList),
      strDatafields: "DD3|DD25",
      strDatavalues: "SE|last",
    });
    const row = await svc.app.store.db
      .selectFrom("subscribers")
      .select("fields")
      .where("id", "=", Number(id))
      .executeTakeFirstOrThrow();
    expect(JSON.parse(row.fields)).toEqual({ "3": "SE", "25": "last" });
  });

  it("a malformed e-mail is refused with InvalidFormat naming strEmail", async () => {
    const refused = await fault(
      svc
        .client("alice", "alice-secret-1")
        .InsertSubscriberSid({ strEmail: "not an address", strMailingListID: String(aliceList) }),
    );
    expect(refused.errorCode).toBe("InvalidFormat");
    expect(refused.parameter).toBe("strEmail");
  });

  /** A pending membership of a new address on Alice's list: its subscriber id, its state, its confirmation token. */
  async function pendingSubscriber(email: string) {
    const client = svc.client("alice", "alice-secret-1");
    const id = await client.InsertSubscriberWithDemDataPendingOption({
      strEmail: email,
      strName: "Pat",
      strMailingListID: String(aliceList),
      strPending: "true",
    });
    const state = async () =>
      (
        await svc.app.store.db
          .selectFrom("memberships")
          .select("state")
          .where("subscriber_id", "=", Number(id))
          .where("list_id", "=", aliceList)
          .executeTakeFirstOrThrow()
      ).state;
    await svc.app.outbox!.flush();
    const mail = await svc.app.store.db
      .selectFrom("mail_outbox")
      .selectAll()
      .where("to_address", "=", email)
      .executeTakeFirstOrThrow();
    expect(mail.state).toBe("sent");
    const eml = fs.readFileSync(path.join(svc.outboxDir, `${mail.id}.eml`), "utf8");
    const body = Buffer.from(eml.split("\r\n\r\n")[1]!.replace(/\r\n/g, ""), "base64").toString("utf8");
    const link = /http:\/\/127\.0\.0\.1:1\/confirm\/([A-Za-z0-9_-]{43})/.exec(body);
    expect(link).not.toBeNull();
    return { id, state, token: link![1]!, eml, body };
  }

  it("double opt-in: pending until the link in the outbox is confirmed by POST, once", async () => {
    const client = svc.client("alice", "alice-secret-1");
    const { id, state, token, eml, body } = await pendingSubscriber("pending@example.com");
    expect(await state()).toBe("pending");
    expect(await client.GetSubscriberMailingLists({ strSubscriberId: String(id) })).toMatchObject({
      rows: [],
    });
    expect(eml).toMatch(
      /^From: .*\r\nTo: "Pat" <pending@example.com>\r\nSubject: Please confirm your subscription to Alice news\r\n/,
    );
    expect(body.replace(/\s+/g, " ")).toContain("press the Confirm subscription button");
    const confirm = (t: string) => fetch(`${svc.url}/confirm/${t}`, { method: "POST" });
    // One character changed (to another one: a token ending in A must not be "forged" into itself).
    const forged = await confirm(`${token.slice(0, -1)}${token.endsWith("A") ? "B" : "A"}`);
    expect(forged.status).toBe(404);
    for (const junk of ["%E0%A4%A", "..%2F..%2Fetc", "x".repeat(5000), ""])
      expect((await confirm(junk)).status).toBe(404);
    expect(await state()).toBe("pending");
    const first = await confirm(token);
    expect(first.status).toBe(200);
    expect(await first.text()).toContain("confirmed");
    expect(await state()).toBe("active");
    expect((await confirm(token)).status).toBe(404);
    expect((await fetch(`${svc.url}/confirm/${token}`)).status).toBe(404); // used: the page is gone too
    // The token is a capability: request logs name the route, never the token.
    await eventually(() => svc.logs.filter((l) => l.path === "/confirm/{token}").length >= 8);
    expect(svc.logs.filter((l) => l.path === "/confirm/{token}").length).toBeGreaterThanOrEqual(8);
    expect(JSON.stringify(svc.logs)).not.toContain(token);
    const lists = await client.GetSubscriberMailingLists({ strEmail: "PENDING@example.com" });
    expect(lists).toMatchObject({
      rows: [
        {
          MailingListId: aliceList,
          MailingListName: "Alice news",
          SubscriberId: id,
          Email: "pending@example.com",
        },
      ],
    });
  });

  it("double opt-in: GET and HEAD of the link (mail scanners, previews) change nothing; the page's button POSTs", async () => {
    const { state, token } = await pendingSubscriber("scanned@example.com");
    const url = `${svc.url}/confirm/${token}`;
    for (let i = 0; i < 3; i++) {
      const head = await fetch(url, { method: "HEAD" });
      expect(head.status).toBe(200);
      const shown = await fetch(url);
      expect(shown.status).toBe(200);
      const html = await shown.text();
      expect(html).toContain(
        '<form method="post"><button type="submit">Confirm subscription</button></form>',
      );
      expect(html).not.toContain(token); // the form posts to its own URL: nothing of the request is in the page
      expect(shown.headers.get("cache-control")).toBe("no-store");
      expect(shown.headers.get("referrer-policy")).toBe("no-referrer");
      expect(shown.headers.get("content-security-policy")).toContain("default-src 'none'");
      expect(shown.headers.get("content-security-policy")).toContain("form-action 'self'");
      expect(shown.headers.get("x-content-type-options")).toBe("nosniff");
    }
    expect(await state()).toBe("pending");
    for (const method of ["PUT", "DELETE", "PATCH"]) {
      const refused = await fetch(url, { method });
      expect(refused.status, method).toBe(405);
      expect(refused.headers.get("allow")).toBe("GET, HEAD, POST");
    }
    expect(await state()).toBe("pending");
    // The browser's submit: an empty urlencoded form.
    const posted = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: "",
    });
    expect(posted.status).toBe(200);
    expect(posted.headers.get("referrer-policy")).toBe("no-referrer");
    expect(await state()).toBe("active");
  });

  it("double opt-in: a POST body over 64 KiB is answered 413 and confirms nothing", async () => {
    const { state, token } = await pendingSubscriber("large-body@example.com");
    const big = await fetch(`${svc.url}/confirm/${token}`, { method: "POST", body: "x".repeat(200_000) });
    expect(big.status).toBe(413);
    expect(await state()).toBe("pending");
  });

  it("strPending=false inserts active and queues no mail; an active member asked again for pending stays active", async () => {
    const client = svc.client("alice", "alice-secret-1");
    const mails = await count("mail_outbox");
    const id = await client.InsertSubscriberWithDemDataPendingOption({
      strEmail: "direct@example.com",
      strMailingListID: String(aliceList),
      strPending: "false",
    });
    await client.InsertSubscriberWithDemDataPendingOption({
      strEmail: "direct@example.com",
      strMailingListID: String(aliceList),
      strPending: "true",
    });
    expect(await count("mail_outbox")).toBe(mails);
    const row = await svc.app.store.db
      .selectFrom("memberships")
      .select("state")
      .where("subscriber_id", "=", Number(id))
      .executeTakeFirstOrThrow();
    expect(row.state).toBe("active");
  });

  describe("InsertCsvSubscribersWithDemDataUpdateOption", () => {
    it("is all or nothing: a bad line names the line and writes no row", async () => {
      const client = svc.client("alice", "alice-secret-1");
      const before = await count("subscribers");
      const refused = await fault(
        client.InsertCsvSubscribersWithDemDataUpdateOption({
          strMailingListId: String(aliceList),
          strCsvData: "c1@example.com,One,HTML\nc2@example.com,Two,Text\nc3-at-example.com,Three,HTML\n",
        }),
      );
      expect(refused.errorCode).toBe("InvalidCsv");
      expect(refused.message).toContain("line 3");
      expect(await count("subscribers")).toBe(before);
      const notActivated = await fault(
        client.InsertCsvSubscribersWithDemDataUpdateOption({
          strMailingListId: String(aliceList),
          strCsvData: `c1@example.com,One,HTML\nc2@example.com,Two,Text${",v".repeat(26)}`,
        }),
      );
      expect(notActivated.errorCode).toBe("FieldNotActivated");
      expect(notActivated.message).toContain("line 2");
      expect(await count("subscribers")).toBe(before);
    });

    it("refuses more than 100,000 rows in one call, naming the first row past the limit, and writes nothing", async () => {
      const client = svc.client("alice", "alice-secret-1");
      const before = await count("subscribers");
      let csv = "";
      for (let i = 0; i <= 100_000; i++) csv += `big${i}@example.com,B,HTML\n`;
      const refused = await fault(
        client.InsertCsvSubscribersWithDemDataUpdateOption({
          strMailingListId: String(aliceList),
          strCsvData: csv,
        }),
      );
      expect(refused.errorCode).toBe("InvalidCsv");
      expect(refused.message).toContain("line 100001");
      expect(refused.message).toContain("at most 100000 rows");
      expect(await count("subscribers")).toBe(before);
    });

    it("inserts quoted RFC 4180 rows, keeps fields without strUpdate, updates them with it, skips opted-out", async () => {
      const client = svc.client("alice", "alice-secret-1");
      await svc.app.store.db
        .insertInto("optouts")
        .values({ account_id: alice, email_key: "csv-out@example.com", created_at: Date.now() })
        .execute();
      const csv =
        'csv1@example.com,"Smith, Jo",HTML,SE\r\ncsv2@example.com,"Line\nBreak ""Q""",Text\ncsv-out@example.com,Out,HTML\n';
      expect(
        await client.InsertCsvSubscribersWithDemDataUpdateOption({
          strMailingListId: String(aliceList2),
          strCsvData: csv,
        }),
      ).toBe(2);
      const row = await svc.app.store.db
        .selectFrom("subscribers")
        .selectAll()
        .where("email_key", "=", "csv2@example.com")
        .executeTakeFirstOrThrow();
      expect(row.name).toBe('Line\nBreak "Q"');
      const kept = await client.InsertCsvSubscribersWithDemDataUpdateOption({
        strMailingListId: String(aliceList),
        strCsvData: "csv1@example.com,New Name,Text,NO",
        strUpdate: "false",
      });
      expect(kept).toBe(0);
      let one = await svc.app.store.db
        .selectFrom("subscribers")
        .selectAll()
        .where("email_key", "=", "csv1@example.com")
        .executeTakeFirstOrThrow();
      expect([one.name, one.format, JSON.parse(one.fields)]).toEqual(["Smith, Jo", "HTML", { "1": "SE" }]);
      const lists = await client.GetSubscriberMailingLists({ strEmail: "csv1@example.com" });
      expect(lists.rows.map((r) => r.MailingListId).sort()).toEqual([aliceList, aliceList2].sort());
      expect(
        await client.InsertCsvSubscribersWithDemDataUpdateOption({
          strMailingListId: String(aliceList),
          strCsvData: "csv1@example.com|New Name|Text||DK",
          strUpdate: "true",
        }),
      ).toBe(1);
      one = await svc.app.store.db
        .selectFrom("subscribers")
        .selectAll()
        .where("email_key", "=", "csv1@example.com")
        .executeTakeFirstOrThrow();
      expect([one.name, one.format, JSON.parse(one.fields)]).toEqual([
        "New Name",
        "Text",
        { "1": "SE", "2": "DK" },
      ]);
      expect(
        await svc.app.store.db
          .selectFrom("subscribers")
          .select("id")
          .where("email_key", "=", "csv-out@example.com")
          .execute(),
      ).toEqual([]);
    });
  });

  it("UpdateSubscriberData sets one field by id or by e-mail (the id wins) and returns 1", async () => {
    const client = svc.client("alice", "alice-secret-1");
    const a = await client.InsertSubscriberSid({
      strEmail: "upd-a@example.com",
      strMailingListID: String(aliceList),
    });
    await client.InsertSubscriberSid({ strEmail: "upd-b@example.com", strMailingListID: String(aliceList) });
    expect(
      await client.UpdateSubscriberData({
        strSubscriberId: String(a),
        strEmail: "upd-b@example.com",
        strDataField: "7",
        strDataValue: "seven",
      }),
    ).toBe(1);
    expect(
      await client.UpdateSubscriberData({
        strEmail: "UPD-B@example.com",
        strDataField: "7",
        strDataValue: "bee",
      }),
    ).toBe(1);
    const fields = async (email: string) =>
      JSON.parse(
        (
          await svc.app.store.db
            .selectFrom("subscribers")
            .select("fields")
            .where("email_key", "=", email)
            .executeTakeFirstOrThrow()
        ).fields,
      );
    expect(await fields("upd-a@example.com")).toEqual({ "7": "seven" });
    expect(await fields("upd-b@example.com")).toEqual({ "7": "bee" });
    expect(
      (
        await fault(
          client.UpdateSubscriberData({ strSubscriberId: "999999999", strDataField: "7", strDataValue: "x" }),
        )
      ).errorCode,
    ).toBe("NotFound");
    expect(
      (
        await fault(
          client.UpdateSubscriberData({ strSubscriberId: String(a), strDataField: "30", strDataValue: "x" }),
        )
      ).errorCode,
    ).toBe("FieldNotActivated");
  });

  it("UpdateMailingList changes what is given and keeps what is empty", async () => {
    const client = svc.client("bob", "bob-secret-12");
    expect(
      await client.UpdateMailingList({
        strMailingListID: String(bobList),
        strListName: "Bob weekly",
        strFromEmail: "bob@example.com",
      }),
    ).toBe(1);
    expect(
      await client.UpdateMailingList({
        strMailingListID: String(bobList),
        strListName: "",
        strDescription: "All the news",
      }),
    ).toBe(1);
    const list = await svc.app.store.db
      .selectFrom("mailing_lists")
      .selectAll()
      .where("id", "=", bobList)
      .executeTakeFirstOrThrow();
    expect(list).toMatchObject({
      name: "Bob weekly",
      from_email: "bob@example.com",
      description: "All the news",
      charset: "utf-8",
    });
    expect(
      (await fault(client.UpdateMailingList({ strMailingListID: String(bobList), strFromEmail: "nope" })))
        .errorCode,
    ).toBe("InvalidFormat");
  });

  it("every operation of the spec checks the credentials first and none answers NotImplemented", async () => {
    const names = Object.keys(operations) as (keyof typeof samples)[];
    expect([...names].sort()).toEqual([...SPEC_OPERATIONS].sort());
    for (const [index, name] of names.entries()) {
      const call = (username: string, password: string, from?: string) => {
        const method = svc.client(username, password, "soap11", from)[name] as (
          params: unknown,
        ) => Promise<unknown>;
        return method(samples[name].params);
      };
      // A user name and a source address of its own for each wrong pair, so that no delay (per name, per
      // source) answers instead.
      expect(
        (await fault(call(`nobody-${name}`, "wrong-password", `127.0.1.${index + 1}`))).errorCode,
        name,
      ).toBe("InvalidCredentials");
      // With the right pair the sample values may be refused (another account's ids, say), never as NotImplemented.
      const outcome = await call("bob", "bob-secret-12").then(
        () => "OK",
        (error: unknown) => (error instanceof ServiceFaultError ? error.errorCode : String(error)),
      );
      expect(outcome, name).not.toBe("NotImplemented");
      expect(outcome, name).not.toBe("InternalError");
    }
  });

  it("logs one JSON line per request with operation, binding, account and outcome, never a password", async () => {
    for (const binding of BINDINGS) {
      await svc
        .client("bob", "bob-secret-12", binding)
        .InsertSubscriberSid({ strEmail: "log@example.com", strMailingListID: String(bobList) });
      await fault(
        svc
          .client("bob", "bob-wrong-pass", binding)
          .InsertSubscriberSid({ strEmail: "log@example.com", strMailingListID: String(bobList) }),
      );
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
    for (const binding of BINDINGS) {
      const lines = svc.logs
        .filter((l) => l.operation === "InsertSubscriberSid" && l.binding === binding)
        .slice(-2);
      const path =
        binding === "soap11" || binding === "soap12"
          ? "/ExternalAPIService.asmx"
          : "/ExternalAPIService.asmx/InsertSubscriberSid";
      expect(lines[0]).toMatchObject({ account: bob, outcome: "OK", status: 200, path });
      expect(lines[1]).toMatchObject({ outcome: "InvalidCredentials", status: 500, path });
      expect(lines[1]!.account).toBeUndefined();
      expect(typeof lines[0]!.reqId).toBe("string");
      expect(typeof lines[0]!.durationMs).toBe("number");
    }
    const all = JSON.stringify(svc.logs);
    for (const secret of ["bob-secret-12", "alice-secret-1", "not-her-password", "bob-wrong-pass"])
      expect(all).not.toContain(secret);
  });

  it("keeps each request's log fields its own when calls run at once (the account, operation, outcome)", async () => {
    const before = svc.logs.length;
    // Bob over SOAP 1.1 and HTTP GET, Alice over SOAP 1.2 and HTTP POST, an unknown user on every binding
    // under a name and from a source of its own (no delay answers for another): 48 calls in flight together.
    const owner = { soap11: bob, httpGet: bob, soap12: alice, httpPost: alice } as const;
    const calls = Array.from({ length: 48 }, (_, i) => {
      const binding = BINDINGS[i % BINDINGS.length]!;
      if (i % 3 === 2)
        return fault(
          svc.client(`mallory-${i}`, "no-such-pass", binding, `127.0.2.${i}`).GetTriggerIdForAccount(),
        );
      const [user, pass] = owner[binding] === bob ? ["bob", "bob-secret-12"] : ["alice", "alice-secret-1"];
      return svc.client(user, pass, binding).GetTriggerIdForAccount();
    });
    await Promise.all(calls);
    // A line is written when its response closes, which can be just after the client has the answer.
    const ours = () => svc.logs.slice(before).filter((l) => l.operation === "GetTriggerIdForAccount");
    await eventually(() => ours().length >= 48);
    const lines = ours();
    expect(lines).toHaveLength(48);
    for (const line of lines) {
      const binding = line.binding as keyof typeof owner;
      if (line.outcome === "OK") expect(line.account, binding).toBe(owner[binding]);
      else {
        expect(line.outcome).toBe("InvalidCredentials");
        expect(line.account).toBeUndefined();
      }
    }
    expect(lines.filter((l) => l.outcome === "OK")).toHaveLength(32);
    expect(new Set(lines.map((l) => l.reqId)).size).toBe(48);
  });

  it("serves the WSDL with PUBLIC_URL as its address, and the help page", async () => {
    const wsdl = await (await fetch(`${svc.url}/ExternalAPIService.asmx?WSDL`)).text();
    expect(wsdl).toContain('<soap:address location="http://127.0.0.1:1/ExternalAPIService.asmx" />');
    const help = await fetch(`${svc.url}/ExternalAPIService.asmx`);
    expect(help.status).toBe(200);
    expect(await help.text()).toContain("InsertSubscriberSid");
  });

  it("serves /healthz with up or down only; /metrics is not on the public port without METRICS_TOKEN", async () => {
    const health = await fetch(`${svc.url}/healthz`);
    expect(health.status).toBe(200);
    expect(await health.text()).toBe('{"status":"ok"}\n'); // not the engine, not a version
    for (const method of ["GET", "HEAD"]) {
      const metrics = await fetch(`${svc.url}/metrics`, { method });
      expect(metrics.status, method).toBe(404);
      expect(await metrics.text()).not.toContain("eas_");
    }
  });
});
