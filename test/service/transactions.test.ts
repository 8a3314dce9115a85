// InsertTransaction and InsertTransactionWithSplit through the whole service on SQLite and PostgreSQL:
// projects made with the admin CLI, merge tags in the delivered .eml (HTML-escaped in the HTML part),
// the Text format, the 500-character split and its DD25 limit, identifier idempotency (also concurrent,
// and the 24-hour window at the module level with an explicit clock), send times in the account's time
// zone (winter, summer, DST gap and overlap, past) with no delivery before the time, account isolation.

import fs from "node:fs";
import path from "node:path";
import { type ParsedMail, simpleParser } from "mailparser";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { escapeHtml, mergeTemplate } from "../../service/common/merge.js";
import {
  IDEMPOTENCY_WINDOW_MS,
  insertTransaction,
  splitFields,
} from "../../service/operations/transactional/transactions.js";
import { parseLocalMinute } from "../../service/common/zoned-time.js";
import { describeEngines } from "./support/engines.js";
import { startService, type TestService, fault, admin } from "./support/service.js";

describe("transactional helpers", () => {
  it("merges tags case-insensitively in one pass, unknown tags empty, with the encoder applied to values only", () => {
    const values = {
      name: "<b>Ann</b>",
      email: "a@example.com",
      fields: new Map([
        [1, "{{DD2}}"],
        [2, "two & more"],
      ]),
    };
    expect(
      mergeTemplate(
        "<p>{{Name}} {{ email }} {{dd1}} {{DD2}} {{DD3}} {{Nope}} {{not a tag}}</p>",
        values,
        escapeHtml,
      ),
    ).toBe("<p>&lt;b&gt;Ann&lt;/b&gt; a@example.com {{DD2}} two &amp; more   {{not a tag}}</p>");
    expect(mergeTemplate("{{NAME}}", values, (v) => v)).toBe("<b>Ann</b>");
    expect(escapeHtml(`<script>alert(1)</script>&"'`)).toBe(
      "&lt;script&gt;alert(1)&lt;/script&gt;&amp;&quot;&#39;",
    );
  });

  it("splits by code points into 500-character parts in the following fields", () => {
    const value = `${"x".repeat(499)}😀${"y".repeat(700)}`;
    const split = splitFields(
      new Map([
        [3, value],
        [1, "short"],
      ]),
    );
    expect([...split.keys()].sort((a, b) => a - b)).toEqual([1, 3, 4, 5]);
    expect(split.get(3)).toBe(`${"x".repeat(499)}😀`);
    expect(split.get(4)).toBe("y".repeat(500));
    expect(split.get(5)).toBe("y".repeat(200));
    expect(splitFields(new Map([[1, "z".repeat(500)]])).get(1)).toBe("z".repeat(500));
  });

  it("reads wall-clock times in the zone: winter and summer offsets, a gap moves forward, an overlap takes the earlier instant", () => {
    const at = (t: string, zone = "Europe/Stockholm") => new Date(parseLocalMinute(t, zone)).toISOString();
    expect(at("2030-01-15 09:30")).toBe("2030-01-15T08:30:00.000Z");
    expect(at("2030-07-15 09:30")).toBe("2030-07-15T07:30:00.000Z");
    expect(at("2030-03-31 02:30")).toBe("2030-03-31T01:30:00.000Z"); // does not exist: 03:30 summer time
    expect(at("2030-10-27 02:30")).toBe("2030-10-27T00:30:00.000Z"); // twice: the first (summer time)
    expect(at("2030-10-27 03:30")).toBe("2030-10-27T02:30:00.000Z");
    expect(at("2030-03-10 02:30", "America/New_York")).toBe("2030-03-10T07:30:00.000Z");
    expect(at("2030-11-03 01:30", "America/New_York")).toBe("2030-11-03T05:30:00.000Z");
    expect(at("2030-01-15 09:30", "Asia/Kolkata")).toBe("2030-01-15T04:00:00.000Z");
    expect(at("2030-01-15 09:30", "UTC")).toBe("2030-01-15T09:30:00.000Z");
  });
});

describeEngines("transactional e-mail", (engine) => {
  let svc: TestService;
  let alice: number;
  let project: number;
  let splitProject: number;
  let textOnly: number;
  let bobProject: number;
  let tmp: string;

  beforeAll(async () => {
    svc = await startService(engine, "transactions");
    alice = await svc.createAccount("alice", "alice-secret-1");
    const bob = await svc.createAccount("bob", "bob-secret-12");
    await svc.app.store.db
      .updateTable("accounts")
      .set({ time_zone: "Europe/Stockholm", from_email: "alice@example.com" })
      .where("id", "=", alice)
      .execute();
    tmp = fs.mkdtempSync(path.join(svc.outboxDir, "..", "eas-templates-"));
    fs.writeFileSync(
      path.join(tmp, "body.txt"),
      "Hello {{Name}} <{{Email}}>, order {{DD1}} costs {{DD2}}.{{Unknown}}\n",
    );
    fs.writeFileSync(
      path.join(tmp, "body.html"),
      '<p title="{{DD2}}">Hello <b>{{Name}}</b>, order {{dd1}} costs {{DD2}}.{{Unknown}}</p>',
    );
    const created = await admin(svc.databaseUrl, [
      "project",
      "create",
      "--account",
      "alice",
      "--name",
      "Orders",
      "--subject",
      "Order {{DD1}} for {{Name}}",
      "--text-file",
      path.join(tmp, "body.txt"),
      "--html-file",
      path.join(tmp, "body.html"),
      "--from-name",
      "Shop",
      "--from-email",
      "shop@example.com",
      "--json",
    ]);
    expect(created.stderr).toBe("");
    expect(created.code).toBe(0);
    project = (JSON.parse(created.stdout) as { id: number }).id;
    const split = await admin(svc.databaseUrl, [
      "project",
      "create",
      "--account",
      "alice",
      "--name",
      "Split",
      "--subject",
      "Split",
      "--text",
      "[{{DD1}}][{{DD2}}][{{DD3}}][{{DD4}}]",
      "--html",
      "<p>{{DD1}}|{{DD2}}|{{DD3}}</p>",
      "--json",
    ]);
    expect(split.code).toBe(0);
    splitProject = (JSON.parse(split.stdout) as { id: number }).id;
    textOnly = (
      await svc.app.store.db
        .insertInto("projects")
        .values({
          account_id: alice,
          name: "Plain",
          subject: "Plain {{Name}}",
          text_body: "Just text for {{Name}}",
          created_at: Date.now(),
        })
        .returning("id")
        .executeTakeFirstOrThrow()
    ).id;
    bobProject = (
      await svc.app.store.db
        .insertInto("projects")
        .values({
          account_id: bob,
          name: "Bob's",
          subject: "Bob",
          text_body: "Bob's secret",
          created_at: Date.now(),
        })
        .returning("id")
        .executeTakeFirstOrThrow()
    ).id;
  }, 60_000);
  afterAll(async () => {
    await svc?.close();
    if (tmp !== undefined) fs.rmSync(tmp, { recursive: true, force: true });
  });

  const alices = () => svc.client("alice", "alice-secret-1");

  const transaction = (id: number) =>
    svc.app.store.db.selectFrom("transactions").selectAll().where("id", "=", id).executeTakeFirstOrThrow();
  const mailRow = async (id: number) => {
    const t = await transaction(id);
    return svc.app.store.db
      .selectFrom("mail_outbox")
      .selectAll()
      .where("id", "=", t.mail_id!)
      .executeTakeFirstOrThrow();
  };
  /** Delivers what is due (at `at`, default now) and parses the transaction's .eml. */
  const delivered = async (id: number, at?: number): Promise<{ raw: string; mail: ParsedMail }> => {
    await svc.app.outbox!.flush(at);
    let row = await mailRow(id);
    // A background pass that began after flush's wait may hold the message mid-send: let it finish.
    for (let i = 0; i < 100 && row.state === "queued" && row.lease_owner !== null; i++) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      await svc.app.outbox!.flush(at);
      row = await mailRow(id);
    }
    expect(row.state).toBe("sent");
    const raw = fs.readFileSync(path.join(svc.outboxDir, `${row.id}.eml`), "utf8");
    return { raw, mail: await simpleParser(raw) };
  };
  const count = async (table: "transactions" | "mail_outbox") =>
    Number(
      (
        await svc.app.store.db
          .selectFrom(table)
          .select((eb) => eb.fn.countAll().as("n"))
          .executeTakeFirstOrThrow()
      ).n,
    );

  it("returns the transaction id and delivers the merged message as text and HTML", async () => {
    const id = await alices().InsertTransaction({
      strId: String(project),
      strEmail: " Ann@Example.com ",
      strName: "Ann",
      strDataFields: "DD1;DD2",
      strDataValues: "A-17;12.50 EUR",
    });
    expect(typeof id).toBe("number");
    expect(await transaction(id)).toMatchObject({
      account_id: alice,
      project_id: project,
      identifier: null,
      email: "Ann@Example.com",
    });
    const { raw, mail } = await delivered(id);
    expect(raw).toMatch(/^Content-Type: multipart\/alternative; boundary=/m);
    expect(mail.subject).toBe("Order A-17 for Ann");
    expect(mail.from?.value).toEqual([{ name: "Shop", address: "shop@example.com" }]);
    expect(mail.to && !Array.isArray(mail.to) ? mail.to.value : []).toEqual([
      { name: "Ann", address: "Ann@Example.com" },
    ]);
    expect(mail.text).toBe("Hello Ann <Ann@Example.com>, order A-17 costs 12.50 EUR.\n");
    expect(mail.html).toBe('<p title="12.50 EUR">Hello <b>Ann</b>, order A-17 costs 12.50 EUR.</p>');
  });

  it("escapes merge values in the HTML part (markup in a name cannot inject), raw in the text, one line in the subject", async () => {
    const name = `<script>alert(1)</script>&"'`;
    const id = await alices().InsertTransaction({
      strId: String(project),
      strEmail: "mallory@example.com",
      strName: name,
      strDataFields: "DD1|DD2",
      strDataValues: `x\r\nBcc: victim@example.com|"><img src=x onerror=alert(2)>{{DD1}}`,
    });
    const { raw, mail } = await delivered(id);
    const html = String(mail.html);
    expect(html).not.toMatch(/<script|<img/);
    expect(html).toContain("<b>&lt;script&gt;alert(1)&lt;/script&gt;&amp;&quot;&#39;</b>");
    expect(html).toContain('title="&quot;&gt;&lt;img src=x onerror=alert(2)&gt;{{DD1}}"');
    expect(mail.text).toContain(`Hello ${name} <mallory@example.com>`);
    expect(mail.text).toContain(`costs "><img src=x onerror=alert(2)>{{DD1}}.`);
    expect(mail.subject).toBe(`Order x Bcc: victim@example.com for ${name}`);
    expect(raw).not.toMatch(/^Bcc:/im);
    expect(mail.bcc).toBeUndefined();
  });

  it("strFormat Text sends only the text part; a project without HTML is text only too", async () => {
    const text = await alices().InsertTransaction({
      strId: String(project),
      strEmail: "t@example.com",
      strName: "Tia",
      strFormat: "Text",
      strDataFields: "DD1",
      strDataValues: "T-1",
    });
    const one = await delivered(text);
    expect(one.raw).toMatch(/^Content-Type: text\/plain; charset=utf-8\r$/m);
    expect(one.raw).not.toContain("multipart");
    expect(one.mail.html).toBe(false);
    expect(one.mail.text).toBe("Hello Tia <t@example.com>, order T-1 costs .\n");
    const plain = await alices().InsertTransaction({
      strId: String(textOnly),
      strEmail: "p@example.com",
      strName: "Pia",
    });
    const two = await delivered(plain);
    expect(two.mail.html).toBe(false);
    expect(two.mail.subject).toBe("Plain Pia");
    expect(two.mail.text).toBe("Just text for Pia");
  });

  it("WithSplit puts a 1,200-character value into DD1..DD3; without the split a field holds at most 500 characters", async () => {
    const value = `${"a".repeat(500)}${"b".repeat(500)}${"c".repeat(200)}`;
    const id = await alices().InsertTransactionWithSplit({
      strId: String(splitProject),
      strEmail: "s@example.com",
      strDataFields: "DD1",
      strDataValues: value,
    });
    const { mail } = await delivered(id);
    expect(mail.text).toBe(`[${"a".repeat(500)}][${"b".repeat(500)}][${"c".repeat(200)}][]`);
    expect(mail.html).toBe(`<p>${"a".repeat(500)}|${"b".repeat(500)}|${"c".repeat(200)}</p>`);
    const before = await count("transactions");
    const whole = await fault(
      alices().InsertTransaction({
        strId: String(splitProject),
        strEmail: "s@example.com",
        strDataFields: "DD1",
        strDataValues: value,
      }),
    );
    expect([whole.errorCode, whole.parameter, whole.reason]).toEqual([
      "TooLong",
      "strDataValues",
      "strDataValues: the value of DD1 must be at most 500 characters; it has 1200.",
    ]);
    expect(await count("transactions")).toBe(before);
    const full = await alices().InsertTransaction({
      strId: String(splitProject),
      strEmail: "s@example.com",
      strDataFields: "DD1",
      strDataValues: "😀".repeat(500),
    });
    expect((await delivered(full)).mail.text).toBe(`[${"😀".repeat(500)}][][][]`);
  });

  it("WithSplit refuses a value that would run past DD25 (TooManyFields) or onto a field also given, writing nothing", async () => {
    const before = await count("transactions");
    const refused = await fault(
      alices().InsertTransactionWithSplit({
        strId: String(splitProject),
        strEmail: "s@example.com",
        strDataFields: "DD24",
        strDataValues: "z".repeat(1001),
      }),
    );
    expect(refused.errorCode).toBe("TooManyFields");
    const overlap = await fault(
      alices().InsertTransactionWithSplit({
        strId: String(splitProject),
        strEmail: "s@example.com",
        strDataFields: "DD1;DD2",
        strDataValues: `${"z".repeat(501)};given`,
      }),
    );
    expect(overlap.errorCode).toBe("InvalidDemographicFields");
    const fits = await alices().InsertTransactionWithSplit({
      strId: String(splitProject),
      strEmail: "s@example.com",
      strDataFields: "DD24",
      strDataValues: "z".repeat(1000),
    });
    expect(typeof fits).toBe("number");
    expect(await count("transactions")).toBe(before + 1);
  });

  it("the same project and identifier return the same id and send once, also for concurrent calls; another identifier is new", async () => {
    const call = (identifier: string, email = "i@example.com") =>
      alices().InsertTransaction({
        strId: String(project),
        strIdentifier: identifier,
        strEmail: email,
        strName: "Ida",
        strDataFields: "DD1",
        strDataValues: identifier,
      });
    const mailsBefore = await count("mail_outbox");
    const first = await call("order-1");
    expect(await call("order-1", "other@example.com")).toBe(first);
    const [a, b, c] = await Promise.all([call("order-2"), call("order-2"), call("order-2")]);
    expect(b).toBe(a);
    expect(c).toBe(a);
    const other = await call("order-3");
    expect(new Set([first, a, other]).size).toBe(3);
    expect(await count("mail_outbox")).toBe(mailsBefore + 3);
    const rows = await svc.app.store.db
      .selectFrom("transactions")
      .select("identifier")
      .where("identifier", "in", ["order-1", "order-2", "order-3"])
      .execute();
    expect(rows.map((r) => r.identifier).sort()).toEqual(["order-1", "order-2", "order-3"]);
    // The same identifier in another project is another transaction.
    const elsewhere = await alices().InsertTransaction({
      strId: String(textOnly),
      strIdentifier: "order-1",
      strEmail: "i@example.com",
    });
    expect(elsewhere).not.toBe(first);
  });

  it("an identifier names the same transaction for 24 hours, then a new one (module level, explicit clock)", async () => {
    const account = await svc.app.store.db
      .selectFrom("accounts")
      .selectAll()
      .where("id", "=", alice)
      .executeTakeFirstOrThrow();
    const t0 = Date.UTC(2031, 0, 1, 12, 0);
    const at = async (now: number) =>
      (
        await insertTransaction(
          svc.app.store,
          account,
          { strId: String(project), strIdentifier: "window", strEmail: "w@example.com" },
          { split: false, now, domain: "example.com", mailFrom: "x@example.com" },
        )
      ).id;
    const first = await at(t0);
    expect(await at(t0 + IDEMPOTENCY_WINDOW_MS - 1)).toBe(first);
    const later = await at(t0 + IDEMPOTENCY_WINDOW_MS);
    expect(later).not.toBe(first);
    expect(await at(t0 + IDEMPOTENCY_WINDOW_MS + 60_000)).toBe(later);
  });

  it("schedules at strSendTime in the account's zone and delivers nothing before that time; a past time is now", async () => {
    const schedule = (strSendTime: string) =>
      alices().InsertTransaction({
        strId: String(textOnly),
        strEmail: "later@example.com",
        strName: "Lou",
        strSendTime,
      });
    const winter = await schedule("2030-01-15 09:30");
    const summer = await schedule("2030-07-15 09:30");
    const gap = await schedule("2030-03-31 02:30");
    const overlap = await schedule("2030-10-27 02:30");
    const expected: [number, number][] = [
      [winter, Date.UTC(2030, 0, 15, 8, 30)],
      [summer, Date.UTC(2030, 6, 15, 7, 30)],
      [gap, Date.UTC(2030, 2, 31, 1, 30)],
      [overlap, Date.UTC(2030, 9, 27, 0, 30)],
    ];
    for (const [id, at] of expected) {
      expect((await transaction(id)).send_at).toBe(at);
      expect((await mailRow(id)).next_attempt_at).toBe(at);
    }
    const before = Date.now();
    const past = await schedule("2020-01-01 00:00");
    const after = Date.now();
    const pastRow = await mailRow(past);
    expect(pastRow.next_attempt_at).toBeGreaterThanOrEqual(before);
    expect(pastRow.next_attempt_at).toBeLessThanOrEqual(after);

    const winterAt = Date.UTC(2030, 0, 15, 8, 30);
    await svc.app.outbox!.flush(winterAt - 60_000);
    expect((await mailRow(past)).state).toBe("sent");
    for (const [id] of expected) expect((await mailRow(id)).state).toBe("queued");
    const row = await mailRow(winter);
    expect(fs.existsSync(path.join(svc.outboxDir, `${row.id}.eml`))).toBe(false);
    const { mail } = await delivered(winter, winterAt);
    expect(mail.date?.getTime()).toBe(winterAt);
    expect((await mailRow(summer)).state).toBe("queued");
  });

  it("another account's project, an unknown id and a non-number answer NotFound; a bad address InvalidFormat", async () => {
    const before = await count("transactions");
    for (const strId of [String(bobProject), "999999", "abc", "-1"]) {
      const refused = await fault(alices().InsertTransaction({ strId, strEmail: "n@example.com" }));
      expect(refused.errorCode).toBe("NotFound");
      expect(refused.message).not.toContain("Bob");
      expect(
        (await fault(alices().InsertTransactionWithSplit({ strId, strEmail: "n@example.com" }))).errorCode,
      ).toBe("NotFound");
    }
    expect(
      (await fault(alices().InsertTransaction({ strId: String(project), strEmail: "not-an-address" })))
        .errorCode,
    ).toBe("InvalidFormat");
    expect(await count("transactions")).toBe(before);
  });

  it("wrong credentials get InvalidCredentials", async () => {
    const wrong = await fault(
      svc
        .client("alice", "not-her-password")
        .InsertTransaction({ strId: String(project), strEmail: "x@example.com" }),
    );
    expect(wrong.errorCode).toBe("InvalidCredentials");
    const split = await fault(
      svc
        .client("nobody", "whatever-pass")
        .InsertTransactionWithSplit({ strId: String(project), strEmail: "x@example.com" }),
    );
    expect(split.errorCode).toBe("InvalidCredentials");
  });

  it("project show lists the account's projects with their transaction counts, and one with its templates", async () => {
    const list = await admin(svc.databaseUrl, ["project", "show", "--account", "alice", "--json"]);
    expect(list.code).toBe(0);
    const projects = JSON.parse(list.stdout) as { id: number; name: string; transactions: number }[];
    expect(projects.map((p) => p.name)).toEqual(["Orders", "Split", "Plain"]);
    expect(projects[0]!.transactions).toBeGreaterThan(0);
    const one = await admin(svc.databaseUrl, [
      "project",
      "show",
      "--account",
      "alice",
      "--id",
      String(project),
    ]);
    expect(one.stdout).toContain("Hello {{Name}} <{{Email}}>");
    expect(one.stdout).toMatch(/from email:\s+shop@example.com/);
    const table = await admin(svc.databaseUrl, ["project", "show", "--account", "alice"]);
    expect(table.stdout).toMatch(/^ID\s+NAME\s+SUBJECT/);
    const missing = await admin(svc.databaseUrl, [
      "project",
      "show",
      "--account",
      "alice",
      "--id",
      String(bobProject),
    ]);
    expect(missing.code).toBe(1);
    const noText = await admin(svc.databaseUrl, [
      "project",
      "create",
      "--account",
      "alice",
      "--name",
      "X",
      "--subject",
      "S",
    ]);
    expect(noText.code).toBe(1);
    expect(noText.stderr).toContain("--text-file");
  });
});
