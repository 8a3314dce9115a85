// The length limits of stored text fields (service/common/limits.ts) on both engines, through the wire: each
// operation takes a value at its limit (counted in code points: emoji at the limit pass) and refuses one
// character more with TooLong naming the parameter (and the DD field), writing nothing; CSV rows get
// InvalidCsv naming the line and the queued file import counts such rows bad with their line; a 10 MiB
// name, DD value or SMS text is refused the same way, counting no more than it must.

import fs from "node:fs";
import { once } from "node:events";
import { type Server, createServer } from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  MAX_CHARSET,
  MAX_COUNTRY_CODE,
  MAX_DESCRIPTION,
  MAX_FIELD_VALUE,
  MAX_IDENTIFIER,
  MAX_MODULE_CODE,
  MAX_NAME,
  MAX_NEWSLETTER_MODULES,
  MAX_PHONE,
  MAX_SUBJECT,
  characterCount,
  checkLength,
  longerThan,
} from "../../service/common/limits.js";
import { describeEngines } from "./support/engines.js";
import { type TestService, admin, fault, post, startService } from "./support/service.js";

describe("length checks", () => {
  it("count code points, look at no more than twice the limit, and name a lower bound for a huge text with surrogates", () => {
    expect(characterCount("a😀e\u0301")).toBe(4);
    expect(characterCount("x".repeat(1000))).toBe(1000);
    expect(longerThan("😀".repeat(255), 255)).toBe(false);
    expect(longerThan(`${"😀".repeat(255)}a`, 255)).toBe(true);
    expect(longerThan("x".repeat(511), 255)).toBe(true);
    expect(longerThan(undefined, 0)).toBe(false);
    expect(() => checkLength("😀".repeat(3 << 20), 255, "strName")).toThrow(
      "strName must be at most 255 characters; it has at least 3145728.",
    );
    expect(() => checkLength("x".repeat(3 << 20), 255, "strName")).toThrow(
      "strName must be at most 255 characters; it has 3145728.",
    );
    expect(() => checkLength(`${"😀".repeat(300)}`, 255, "strName")).toThrow("it has 300.");
  });
});

/** `n` characters (code points) of which most are emoji (two UTF-16 units each). */
const chars = (n: number, unit = "😀") => unit.repeat(n);

describeEngines("field length limits", (engine) => {
  let svc: TestService;
  let alice: number;
  let list: number;
  let project: number;
  let module: number;
  let files: Server;
  let fileBase: string;
  const fileBodies = new Map<string, string>();
  const creds = { strUsername: "alice", strPassword: "alice-secret-1" };
  const client = () => svc.client("alice", "alice-secret-1");
  const count = async (
    table:
      | "subscribers"
      | "transactions"
      | "newsletters"
      | "newsletter_modules"
      | "sendings"
      | "mail_outbox"
      | "sms_messages",
  ) =>
    Number(
      (
        await svc.app.store.db
          .selectFrom(table)
          .select((eb) => eb.fn.countAll().as("n"))
          .executeTakeFirstOrThrow()
      ).n,
    );
  const ok = async (args: string[]) => {
    const r = await admin(svc.databaseUrl, [...args, "--json"]);
    expect(r.stderr).toBe("");
    return JSON.parse(r.stdout) as { id: number };
  };

  /** The call is refused TooLong naming `parameter`, and the table has as many rows as before. */
  async function refused(
    call: () => Promise<unknown>,
    parameter: string,
    table: Parameters<typeof count>[0],
    reason?: RegExp,
  ) {
    const before = await count(table);
    const error = await fault(call());
    expect([error.errorCode, error.parameter]).toEqual(["TooLong", parameter]);
    if (reason !== undefined) expect(error.reason).toMatch(reason);
    expect(await count(table)).toBe(before);
  }

  beforeAll(async () => {
    svc = await startService(engine, "field_limits", { IMPORT_ALLOW_HOSTS: "127.0.0.1" });
    alice = await svc.createAccount("alice", "alice-secret-1", { dd_fields: 100 });
    list = await svc.createList(alice, "News");
    const tmp = fs.mkdtempSync(path.join(svc.outboxDir, "..", "eas-limits-"));
    fs.writeFileSync(path.join(tmp, "body.txt"), "Hi {{Name}} {{DD1}}");
    project = (
      await ok([
        "project",
        "create",
        "--account",
        "alice",
        "--name",
        "P",
        "--subject",
        "S {{Name}}",
        "--text-file",
        path.join(tmp, "body.txt"),
      ])
    ).id;
    await ok([
      "template",
      "create",
      "--account",
      "alice",
      "--name",
      "T",
      "--html",
      "<p>{{holder:0}}</p>",
      "--subject",
      "Default",
    ]);
    module = (await ok(["module", "create", "--account", "alice", "--name", "M", "--code", "<p>m</p>"])).id;
    files = createServer((req, res) => {
      const body = fileBodies.get(req.url ?? "");
      if (body === undefined) res.writeHead(404).end();
      else res.writeHead(200, { "content-type": "text/csv" }).end(body);
    });
    files.listen(0, "127.0.0.1");
    await once(files, "listening");
    fileBase = `http://127.0.0.1:${(files.address() as AddressInfo).port}`;
  }, 60_000);
  afterAll(async () => {
    files?.close();
    await svc?.close();
  });

  it("single inserts take name, country code, phone and DD values at their limits and refuse one character more", async () => {
    const at = {
      strName: chars(MAX_NAME),
      strCountryCode: chars(MAX_COUNTRY_CODE, "4"),
      strPhoneNumber: chars(MAX_PHONE, "7"),
      strDatafields: "DD1;DD100",
      strDatavalues: `${chars(MAX_FIELD_VALUE)};${chars(MAX_FIELD_VALUE, "é")}`,
    };
    const id = await client().InsertSubscriberWithDemData({
      strMailingListID: String(list),
      strEmail: "full@example.com",
      ...at,
    });
    const row = await svc.app.store.db
      .selectFrom("subscribers")
      .selectAll()
      .where("id", "=", Number(id))
      .executeTakeFirstOrThrow();
    expect([row.name, row.country_code, row.phone]).toEqual([
      at.strName,
      at.strCountryCode,
      at.strPhoneNumber,
    ]);
    expect(JSON.parse(row.fields)).toEqual({
      "1": chars(MAX_FIELD_VALUE),
      "100": chars(MAX_FIELD_VALUE, "é"),
    });

    const base = { strMailingListID: String(list), strEmail: "over@example.com" };
    for (const [parameter, value] of [
      ["strName", chars(MAX_NAME + 1)],
      ["strCountryCode", chars(MAX_COUNTRY_CODE + 1, "4")],
      ["strPhoneNumber", chars(MAX_PHONE + 1, "7")],
    ] as const) {
      await refused(
        () => client().InsertSubscriberSid({ ...base, [parameter]: value }),
        parameter,
        "subscribers",
        new RegExp(`^${parameter} must be at most \\d+ characters; it has \\d+\\.$`),
      );
      await refused(
        () => client().InsertSubscriberWithDemData({ ...base, [parameter]: value }),
        parameter,
        "subscribers",
      );
      await refused(
        () =>
          client().InsertSubscriberWithDemDataPendingOption({
            ...base,
            strPending: "true",
            [parameter]: value,
          }),
        parameter,
        "subscribers",
      );
    }
    await refused(
      () =>
        client().InsertSubscriberWithDemData({
          ...base,
          strDatafields: "DD2|DD7",
          strDatavalues: `ok|${chars(MAX_FIELD_VALUE + 1)}`,
        }),
      "strDatavalues",
      "subscribers",
      /^strDatavalues: the value of DD7 must be at most 500 characters; it has 501\.$/,
    );
    await refused(
      () =>
        client().InsertSubscriberWithDemDataPendingOption({
          ...base,
          strPending: "true",
          strDatafields: "DD3",
          strDatavalues: chars(MAX_FIELD_VALUE + 1, "x"),
        }),
      "strDatavalues",
      "subscribers",
    );
    expect(await count("mail_outbox")).toBe(0); // no confirmation mail for a refused pending insert
  });

  it("refuses a 10 MiB name and a 10 MiB DD value over HTTP POST, writing nothing", async () => {
    const before = await count("subscribers");
    const huge = "n".repeat(10 * 1024 * 1024);
    const name = await post(svc.url, "InsertSubscriberSid", {
      ...creds,
      strMailingListID: String(list),
      strEmail: "huge@example.com",
      strName: huge,
      strFormat: "HTML",
      strCountryCode: "",
      strPhoneNumber: "",
    });
    expect(name.status).toBe(500);
    expect(name.text).toContain(`strName must be at most ${MAX_NAME} characters; it has ${huge.length}.`);
    const value = await post(svc.url, "InsertSubscriberWithDemData", {
      ...creds,
      strMailingListID: String(list),
      strEmail: "huge@example.com",
      strName: "",
      strCountryCode: "",
      strPhoneNumber: "",
      strFormat: "HTML",
      strDatafields: "DD1",
      strDatavalues: huge,
    });
    expect(value.status).toBe(500);
    expect(value.text).toContain("strDatavalues: the value of DD1 must be at most 500 characters");
    expect(await count("subscribers")).toBe(before);
  });

  it("CSV rows: a Name over 255 or a DD value over 500 characters is InvalidCsv naming the line, and no row is written", async () => {
    const before = await count("subscribers");
    const good = `a@example.com,${chars(MAX_NAME)},HTML,${chars(MAX_FIELD_VALUE)}`;
    for (const [bad, why] of [
      [
        `b@example.com,${"n".repeat(MAX_NAME + 1)},HTML`,
        `Name is longer than ${MAX_NAME} characters (it has ${MAX_NAME + 1})`,
      ],
      [
        `b@example.com,B,Text,,"${"v".repeat(MAX_FIELD_VALUE + 1)}"`,
        `DD2 is longer than ${MAX_FIELD_VALUE} characters (it has ${MAX_FIELD_VALUE + 1})`,
      ],
    ] as const) {
      const error = await fault(
        client().InsertCsvSubscribersWithDemDataUpdateOption({
          strMailingListId: String(list),
          strCsvData: `${good}\n\n${bad}`,
          strUpdate: "true",
        }),
      );
      expect([error.errorCode, error.parameter, error.reason]).toEqual([
        "InvalidCsv",
        "strCsvData",
        `strCsvData line 3: ${why}.`,
      ]);
    }
    expect(await count("subscribers")).toBe(before);
    expect(
      await client().InsertCsvSubscribersWithDemDataUpdateOption({
        strMailingListId: String(list),
        strCsvData: good,
        strUpdate: "true",
      }),
    ).toBe(1);
  });

  it("the queued file import counts such rows bad with their line and imports the others", async () => {
    fileBodies.set(
      "/limits.csv",
      [
        `i1@example.com;${chars(MAX_NAME)};HTML;${chars(MAX_FIELD_VALUE)}`,
        `i2@example.com;${"n".repeat(MAX_NAME + 1)};HTML`,
        `i3@example.com;C;Text;x;${"v".repeat(MAX_FIELD_VALUE + 1)}`,
        "i4@example.com;D;HTML",
      ].join("\n"),
    );
    const id = await client().InsertCSVSubscribersWithDemDataFromFileToQueue({
      strMailingListID: String(list),
      strCSVUrl: `${fileBase}/limits.csv`,
    });
    const watched = await admin(svc.databaseUrl, ["import", "watch", "--id", String(id), "--timeout", "60"]);
    expect(watched.code).toBe(0);
    const row = await svc.app.store.db
      .selectFrom("imports")
      .selectAll()
      .where("id", "=", Number(id))
      .executeTakeFirstOrThrow();
    expect([row.state, row.rows_imported, row.rows_bad]).toEqual(["done", 2, 2]);
    expect(JSON.parse(row.first_errors)).toEqual([
      { line: 2, error: `Name is longer than ${MAX_NAME} characters (it has ${MAX_NAME + 1})` },
      { line: 3, error: `DD2 is longer than ${MAX_FIELD_VALUE} characters (it has ${MAX_FIELD_VALUE + 1})` },
    ]);
  });

  it("UpdateSubscriberData and UpdateMailingList refuse values over their limits, changing nothing", async () => {
    expect(
      await client().UpdateSubscriberData({
        strEmail: "full@example.com",
        strDataField: "5",
        strDataValue: chars(MAX_FIELD_VALUE),
      }),
    ).toBe(1);
    const error = await fault(
      client().UpdateSubscriberData({
        strEmail: "full@example.com",
        strDataField: "5",
        strDataValue: chars(MAX_FIELD_VALUE + 1),
      }),
    );
    expect([error.errorCode, error.parameter]).toEqual(["TooLong", "strDataValue"]);
    const stored = await svc.app.store.db
      .selectFrom("subscribers")
      .select("fields")
      .where("email", "=", "full@example.com")
      .executeTakeFirstOrThrow();
    expect((JSON.parse(stored.fields) as Record<string, string>)["5"]).toBe(chars(MAX_FIELD_VALUE));

    const listRow = () =>
      svc.app.store.db
        .selectFrom("mailing_lists")
        .selectAll()
        .where("id", "=", list)
        .executeTakeFirstOrThrow();
    const was = await listRow();
    for (const [parameter, max] of [
      ["strListName", MAX_NAME],
      ["strFromName", MAX_NAME],
      ["strDescription", MAX_DESCRIPTION],
      ["strCharacterset", MAX_CHARSET],
    ] as const) {
      const e = await fault(
        client().UpdateMailingList({ strMailingListID: String(list), [parameter]: chars(max + 1, "x") }),
      );
      expect([e.errorCode, e.parameter]).toEqual(["TooLong", parameter]);
      expect(await listRow()).toEqual(was);
    }
    expect(
      await client().UpdateMailingList({
        strMailingListID: String(list),
        strListName: chars(MAX_NAME),
        strDescription: chars(MAX_DESCRIPTION),
        strCharacterset: chars(MAX_CHARSET, "u"),
      }),
    ).toBe(1);
  });

  it("newsletters: names and subject at most 255, a module's code at most 65,536, a newsletter's modules at most 262,144 merged", async () => {
    const base = { strTemplateName: "T", strNewsletterName: "N" };
    await refused(
      () => client().InsertTemplateNewsletter({ ...base, strNewsletterName: chars(MAX_NAME + 1) }),
      "strNewsletterName",
      "newsletters",
    );
    await refused(
      () => client().InsertTemplateNewsletter({ ...base, strSubject: chars(MAX_SUBJECT + 1) }),
      "strSubject",
      "newsletters",
    );
    await refused(
      () => client().InsertTemplateNewsletter({ ...base, strTemplateName: chars(MAX_NAME + 1) }),
      "strTemplateName",
      "newsletters",
    );
    const newsletter = await client().InsertTemplateNewsletter({
      strTemplateName: "T",
      strNewsletterName: chars(MAX_NAME),
      strSubject: chars(MAX_SUBJECT),
    });

    const place = (code: string) =>
      client().InsertActiveTemplateModule({
        strNewsletterID: String(newsletter),
        strModuleID: String(module),
        strModuleCode: code,
      });
    await refused(() => place("x".repeat(MAX_MODULE_CODE + 1)), "strModuleCode", "newsletter_modules");
    // Three modules of 65,536 characters (196,608), then one whose 130 merge tags count 500 each.
    for (let k = 0; k < 3; k++) await place("x".repeat(MAX_MODULE_CODE));
    const tags = "{{DD1}}".repeat(130);
    const merged = MAX_MODULE_CODE * 3 + tags.length + 130 * MAX_FIELD_VALUE;
    expect(merged).toBeGreaterThan(MAX_NEWSLETTER_MODULES);
    await refused(
      () => place(tags),
      "strModuleCode",
      "newsletter_modules",
      new RegExp(
        `modules ${merged} characters merged at their longest .*at most ${MAX_NEWSLETTER_MODULES}\\.$`,
      ),
    );
    const fits = "{{DD1}}".repeat(
      Math.floor((MAX_NEWSLETTER_MODULES - MAX_MODULE_CODE * 3) / (7 + MAX_FIELD_VALUE)),
    );
    expect(await place(fits)).toBeGreaterThan(0);
    const left = MAX_NEWSLETTER_MODULES - MAX_MODULE_CODE * 3 - (fits.length / 7) * (7 + MAX_FIELD_VALUE);
    await refused(() => place("y".repeat(left + 1)), "strModuleCode", "newsletter_modules");
    expect(await place(chars(left))).toBeGreaterThan(0); // exactly full
    await refused(() => place("y"), "strModuleCode", "newsletter_modules");
  });

  it("SendNewsletter refuses a sender name over 255 characters", async () => {
    const newsletter = await client().InsertTemplateNewsletter({
      strTemplateName: "T",
      strNewsletterName: "Send",
    });
    const base = {
      strFromEmail: "news@example.com",
      strNewsletterId: String(newsletter),
      strMailingListId: String(list),
      strSendDate: "2099-01-01",
    };
    await refused(
      () => client().SendNewsletter({ ...base, strFromName: chars(MAX_NAME + 1) }),
      "strFromName",
      "sendings",
    );
    expect(await client().SendNewsletter({ ...base, strFromName: chars(MAX_NAME) })).toBeGreaterThan(0);
  });

  it("InsertTransaction refuses a name, identifier or DD value over its limit; WithSplit takes a long value into following fields", async () => {
    const base = { strId: String(project), strEmail: "t@example.com" };
    await refused(
      () => client().InsertTransaction({ ...base, strName: chars(MAX_NAME + 1) }),
      "strName",
      "transactions",
    );
    await refused(
      () => client().InsertTransactionWithSplit({ ...base, strName: chars(MAX_NAME + 1) }),
      "strName",
      "transactions",
    );
    await refused(
      () => client().InsertTransaction({ ...base, strIdentifier: chars(MAX_IDENTIFIER + 1, "i") }),
      "strIdentifier",
      "transactions",
    );
    await refused(
      () =>
        client().InsertTransaction({
          ...base,
          strDataFields: "DD1;DD99",
          strDataValues: `a;${chars(MAX_FIELD_VALUE + 1)}`,
        }),
      "strDataValues",
      "transactions",
      /^strDataValues: the value of DD99 must be at most 500 characters; it has 501\.$/,
    );
    expect(
      await client().InsertTransaction({
        ...base,
        strName: chars(MAX_NAME),
        strIdentifier: chars(MAX_IDENTIFIER, "i"),
        strDataFields: "DD100",
        strDataValues: chars(MAX_FIELD_VALUE),
      }),
    ).toBeGreaterThan(0);
    expect(
      await client().InsertTransactionWithSplit({
        ...base,
        strDataFields: "DD1",
        strDataValues: chars(MAX_FIELD_VALUE * 25),
      }),
    ).toBeGreaterThan(0);
  });

  it("SendSmsWithSenderName refuses a 10 MiB text as TooLong, before pricing it", async () => {
    await refused(
      () =>
        client().SendSmsWithSenderName({
          senderName: "Shop",
          strCountryCode: "46",
          strPhoneNumber: "701234567",
          strMessage: "€".repeat(10 * 1024 * 1024),
        }),
      "strMessage",
      "sms_messages",
      /^strMessage is longer than 10 segments can carry/,
    );
  });
});
