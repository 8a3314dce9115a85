// The mail the service makes from hostile subscriber and caller data, on both engines, through the whole
// service: a tracked newsletter sending, a trigger's mail and a transactional mail, each with merge tags in
// links (href, src, action, `java{{DD2}}`, a tracked https link with a value in its query) and in the
// subject and names. Every produced .eml is read back: no line over 998 octets, From/To/Subject lines at
// most 78, no URL attribute whose URL a browser reads as anything but http, https or mailto, the tracked
// links registered are the merged http(s) URLs and a click redirects to one of them, and safe values
// still make working links.

import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { MAX_FIELD_VALUE, MAX_NAME } from "../../service/common/limits.js";
import { type MailCheck, checkMail } from "../fixtures/mail-checks.js";
import { describeEngines } from "./support/engines.js";
import { type TestService, admin, startService } from "./support/service.js";

const TEMPLATE_HTML =
  '<html><body><p>Hi {{Name}}</p>{{holder:0}}<a href="{{DD1}}">one</a> <a href=\'java{{DD2}}\'>two</a> <img src={{DD3}} alt=""> ' +
  '<a href="https://shop.example/p?id={{DD4}}">shop</a> <td background="{{DD3}}"></td> <a href="{{unsubscribe}}">stop</a></body></html>';
const MODULE =
  '<p><a HREF = "{{DD1}}">module</a></p><form action="{{DD2}}"><button formaction={{DD3}}>go</button></form>';
const PROJECT_HTML =
  '<p>Order for {{Name}}</p><a href="{{DD1}}">track</a> <a href="java{{DD2}}">x</a> <img src="{{DD3}}"> <a href="https://shop.example/o/{{DD4}}">order</a>';

/** Hostile values: each a field's full length at most, so the insert is accepted. */
const NAME_START = `😀 =?UTF-8?B?QQ==?= \r\nBcc: evil@example.com ${"ü".repeat(100)} `;
const HOSTILE_NAME = NAME_START + "x".repeat(MAX_NAME - Array.from(NAME_START).length);
const HOSTILE = [
  "javascript:alert(1)",
  "script:alert(document.cookie)",
  "data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==",
  `"><script>alert(1)</script>${"y".repeat(400)}`,
];
const OBFUSCATED = [
  " \u0001java\tscript:alert(1)",
  "Script:alert(1)",
  "vbscript:msgbox(1)",
  "&#106;avascript:alert(1)",
];
const SAFE = ["https://ok.example/a?b=1&c=2", "", "https://ok.example/img.png", "A-17"];

describeEngines("mail content from hostile data", (engine) => {
  let svc: TestService;
  let list: number;
  let newsletter: number;
  let project: number;
  // HTTP POST carries the control characters XML cannot.
  const creds = () => svc.client("alice", "alice-secret-1", "httpPost");
  const mails = () => {
    const out = new Map<string, string>();
    for (const name of fs.readdirSync(svc.outboxDir))
      if (name.endsWith(".eml")) out.set(name, fs.readFileSync(path.join(svc.outboxDir, name), "utf8"));
    return out;
  };
  const deliverAll = async () => {
    await svc.app.triggerWorker?.flush();
    await svc.app.sendings!.flush();
    await svc.app.outbox!.flush();
  };
  const insert = (email: string, name: string, dd: readonly string[]) =>
    creds().InsertSubscriberWithDemData({
      strMailingListID: String(list),
      strEmail: email,
      strName: name,
      strDatafields: "DD1|DD2|DD3|DD4|DD5",
      strDatavalues: [...dd, "z".repeat(MAX_FIELD_VALUE)].join("|"),
    });
  /** The checked mail sent to `address` (the To line names it). */
  const mailTo = async (address: string): Promise<MailCheck> => {
    const found = [...mails().values()].filter((eml) => eml.includes(`<${address}>`));
    expect(found, address).toHaveLength(1);
    return checkMail(found[0]!);
  };
  const expectClean = (mail: MailCheck) => {
    expect(mail.longestLine).toBeLessThanOrEqual(998);
    expect(mail.longestDataLine).toBeLessThanOrEqual(78);
    expect(mail.badUrls).toEqual([]);
    expect(mail.html).not.toMatch(/<script/i);
  };

  beforeAll(async () => {
    svc = await startService(engine, "mail_content");
    await svc.createAccount("alice", "alice-secret-1");
    list = await svc.createList(
      (await svc.app.store.db.selectFrom("accounts").select("id").executeTakeFirstOrThrow()).id,
      "News",
    );
    const tmp = fs.mkdtempSync(path.join(svc.outboxDir, "..", "eas-content-"));
    fs.writeFileSync(path.join(tmp, "t.html"), TEMPLATE_HTML);
    fs.writeFileSync(path.join(tmp, "p.html"), PROJECT_HTML);
    const made = async (args: string[]) => {
      const r = await admin(svc.databaseUrl, [...args, "--json"]);
      expect(r.stderr).toBe("");
      return (JSON.parse(r.stdout) as { id: number }).id;
    };
    await made([
      "template",
      "create",
      "--account",
      "alice",
      "--name",
      "T",
      "--html-file",
      path.join(tmp, "t.html"),
      "--text",
      "Hi {{Name}} {{DD1}}\n{{holder:0}}",
      "--subject",
      "{{Name}}: {{DD5}}",
    ]);
    const module = await made([
      "module",
      "create",
      "--account",
      "alice",
      "--name",
      "M",
      "--code",
      "<p>m</p>",
    ]);
    project = await made([
      "project",
      "create",
      "--account",
      "alice",
      "--name",
      "P",
      "--subject",
      "Order {{DD4}} for {{Name}}",
      "--text",
      "{{DD1}}",
      "--html-file",
      path.join(tmp, "p.html"),
      "--from-name",
      "Shop ünïcödé ".repeat(10),
    ]);
    newsletter = await creds().InsertTemplateNewsletter({
      strTemplateName: "T",
      strNewsletterName: "N",
      strTracking: "all",
    });
    await creds().InsertActiveTemplateModule({
      strNewsletterID: String(newsletter),
      strModuleID: String(module),
      strModuleCode: MODULE,
      strHolderID: "0",
    });
  }, 60_000);
  afterAll(async () => {
    await svc?.close();
  });

  it("a tracked newsletter: no active URL from subscriber data, headers folded, tracked links are the merged http(s) URLs", async () => {
    await insert("hostile@example.com", HOSTILE_NAME, HOSTILE);
    await insert("obfuscated@example.com", "Olle", OBFUSCATED);
    await insert("safe@example.com", "Sara", SAFE);
    const sending = await creds().SendNewsletter({
      strFromEmail: "news@example.com",
      strFromName: `${"N\u00e9ws ".repeat(40)}=?`,
      strNewsletterId: String(newsletter),
      strMailingListId: String(list),
    });
    await deliverAll();
    for (const address of ["hostile@example.com", "obfuscated@example.com"]) {
      const mail = await mailTo(address);
      expectClean(mail);
      expect(mail.html).toContain(">one</a>");
      expect(mail.html).not.toMatch(/javascript|vbscript|data:text/i);
    }
    const hostile = await mailTo("hostile@example.com");
    expect(hostile.subject).toBe(`${HOSTILE_NAME.replace(/[\r\n]+/g, " ")}: ${"z".repeat(MAX_FIELD_VALUE)}`);
    const safe = await mailTo("safe@example.com");
    expectClean(safe);
    // Every link of the safe subscriber is tracked (its own URL registered); the hostile ones registered
    // only http(s) URLs, the shop link with the value in its query.
    const links = await svc.app.store.db
      .selectFrom("tracked_links")
      .select(["id", "url"])
      .where("sending_id", "=", Number(sending))
      .execute();
    const urls = links.map((l) => l.url);
    expect(urls).toContain("https://ok.example/a?b=1&c=2");
    expect(urls.every((u) => /^https?:\/\//.test(u))).toBe(true);
    expect(urls.some((u) => u.startsWith("https://shop.example/p?id=%22%3E%3Cscript%3E"))).toBe(true);
    const tracked = /href="http:\/\/127\.0\.0\.1:1(\/t\/c\/[^"]+)">one<\/a>/.exec(safe.html);
    expect(tracked).not.toBeNull();
    const click = await fetch(`${svc.url}${tracked![1]}`, { redirect: "manual" });
    expect([click.status, click.headers.get("location")]).toEqual([302, "https://ok.example/a?b=1&c=2"]);
  });

  it("a trigger's mail to a subscriber with hostile data is as clean", async () => {
    const made = await admin(svc.databaseUrl, [
      "trigger",
      "create",
      "--account",
      "alice",
      "--name",
      "W",
      "--list",
      String(list),
      "--newsletter",
      String(newsletter),
      "--from-email",
      "w@example.com",
      "--from-name",
      "Wëlcome ".repeat(20),
      "--json",
    ]);
    expect(made.stderr).toBe("");
    expect(made.code).toBe(0);
    await new Promise((resolve) => setTimeout(resolve, 5));
    await insert("triggered@example.com", HOSTILE_NAME, OBFUSCATED);
    await deliverAll();
    await deliverAll();
    const mail = await mailTo("triggered@example.com");
    expectClean(mail);
    expect(mail.html).not.toMatch(/script:|vbscript/i);
  });

  it("a transactional mail with hostile name and data fields is as clean, and safe values still link", async () => {
    const hostile = await creds().InsertTransaction({
      strId: String(project),
      strEmail: "tx-hostile@example.com",
      strName: HOSTILE_NAME,
      strDataFields: "DD1|DD2|DD3|DD4",
      strDataValues: HOSTILE.join("|"),
    });
    const obfuscated = await creds().InsertTransactionWithSplit({
      strId: String(project),
      strEmail: "tx-obf@example.com",
      strName: "Olle",
      strDataFields: "DD1|DD2|DD3|DD4",
      strDataValues: OBFUSCATED.join("|"),
    });
    const safe = await creds().InsertTransaction({
      strId: String(project),
      strEmail: "tx-safe@example.com",
      strName: "Sara",
      strDataFields: "DD1;DD3;DD4",
      strDataValues: "https://ok.example/t;https://ok.example/i.png;A 17",
    });
    expect([hostile, obfuscated, safe].every((id) => id > 0)).toBe(true);
    await svc.app.outbox!.flush();
    for (const address of ["tx-hostile@example.com", "tx-obf@example.com"]) {
      const mail = await mailTo(address);
      expectClean(mail);
      expect(mail.html).not.toMatch(/javascript|vbscript|data:text/i);
    }
    const ok = await mailTo("tx-safe@example.com");
    expectClean(ok);
    expect(ok.html).toContain('<a href="https://ok.example/t">track</a>');
    expect(ok.html).toContain('<img src="https://ok.example/i.png">');
    expect(ok.html).toContain('<a href="https://shop.example/o/A 17">order</a>');
  });
});
