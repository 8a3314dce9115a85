// Defects a mail operator found end to end (issue 25), on SQLite and PostgreSQL through the whole service:
// a template without a text body still gives every mail a text part (HTML and Text subscribers), made from
// the HTML with its links; GetNewsletterFilters names the filters sendings use; the unsubscribe-from-all
// link puts the address on the opt-out-all set so no list of the account mails it again; a file:// import
// URL is ImportUrlRefused on the wire.

import fs from "node:fs";
import path from "node:path";
import { type ParsedMail, simpleParser } from "mailparser";
import { afterAll, beforeAll, expect, it } from "vitest";
import { describeEngines } from "./support/engines.js";
import { type TestService, admin, fault, startService } from "./support/service.js";

/** The README's own template: HTML only, no text body. */
const WELCOME = `<p>Hello {{Name}}!</p>
<p><a href="https://shop.example/">Visit the shop</a></p>
{{holder:1}}
<p><a href="{{unsubscribe}}">Unsubscribe</a> or <a href="{{unsubscribe_all}}">unsubscribe from everything</a></p>
`;

describeEngines("operator defects", (engine) => {
  let svc: TestService;
  let account: number;
  let news: number;
  let offers: number;
  let newsletter: number;
  let filter: number;
  const creds = () => svc.client("demo", "a-long-password", "httpPost");

  /** Every .eml in the outbox, parsed, by recipient address. */
  const mails = async (): Promise<Map<string, ParsedMail[]>> => {
    const out = new Map<string, ParsedMail[]>();
    for (const name of fs.readdirSync(svc.outboxDir).sort()) {
      if (!name.endsWith(".eml")) continue;
      const mail = await simpleParser(fs.readFileSync(path.join(svc.outboxDir, name)));
      const to = Array.isArray(mail.to) ? mail.to[0] : mail.to;
      const address = to?.value[0]?.address ?? "";
      out.set(address, [...(out.get(address) ?? []), mail]);
    }
    return out;
  };
  const deliver = async () => {
    await svc.app.sendings!.flush();
    await svc.app.outbox!.flush();
  };
  /** The public links in mail point at PUBLIC_URL (http://127.0.0.1:1): the service's real address instead. */
  const local = (link: string) => link.replace("http://127.0.0.1:1", svc.url);

  beforeAll(async () => {
    svc = await startService(engine, "operator_defects");
    account = await svc.createAccount("demo", "a-long-password");
    news = await svc.createList(account, "News");
    offers = await svc.createList(account, "Offers");
    const work = fs.mkdtempSync(path.join(svc.outboxDir, "..", "eas-defects-"));
    fs.writeFileSync(path.join(work, "welcome.html"), WELCOME);
    const made = async (args: string[]) => {
      const r = await admin(svc.databaseUrl, [...args, "--json"]);
      expect(r.stderr).toBe("");
      return (JSON.parse(r.stdout) as { id: number }).id;
    };
    await made([
      "template",
      "create",
      "--account",
      "demo",
      "--name",
      "Welcome",
      "--html-file",
      path.join(work, "welcome.html"),
      "--subject",
      "Hello {{Name}}",
    ]);
    const module = await made([
      "module",
      "create",
      "--account",
      "demo",
      "--name",
      "Offer",
      "--code",
      `<p><a href="https://shop.example/offer">This week's offer</a></p>`,
    ]);
    filter = await made([
      "filter",
      "create",
      "--account",
      "demo",
      "--name",
      "Everyone",
      "--field",
      "Email",
      "--operator",
      "notEmpty",
    ]);
    newsletter = await creds().InsertTemplateNewsletter({
      strTemplateName: "Welcome",
      strNewsletterName: "Welcome 1",
      strTracking: "no",
    });
    await creds().InsertActiveTemplateModule({
      strNewsletterID: String(newsletter),
      strModuleID: String(module),
      strHolderID: "1",
    });
    for (const [email, name, format] of [
      ["ann@example.com", "Ann", "HTML"],
      ["tom@example.com", "Tom", "Text"],
    ] as const) {
      for (const list of [news, offers])
        await creds().InsertSubscriberSid({
          strEmail: email,
          strName: name,
          strFormat: format,
          strMailingListID: String(list),
        });
    }
  }, 60_000);
  afterAll(async () => {
    await svc?.close();
  });

  it("a template without a text body: HTML and Text subscribers both get the text, links kept", async () => {
    await creds().SendNewsletter({
      strFromEmail: "news@example.com",
      strNewsletterId: String(newsletter),
      strMailingListId: String(news),
      strFilterId: String(filter),
    });
    await deliver();
    const all = await mails();
    const ann = all.get("ann@example.com")!;
    const tom = all.get("tom@example.com")!;
    expect([ann.length, tom.length]).toEqual([1, 1]);
    // HTML subscriber: multipart/alternative, the text part the HTML's text.
    expect(ann[0]!.html).toContain("<p>Hello Ann!</p>");
    const annText = ann[0]!.text ?? "";
    expect(annText).toContain("Hello Ann!");
    expect(annText).toContain("Visit the shop (https://shop.example/)");
    expect(annText).toContain("This week's offer (https://shop.example/offer)");
    expect(annText).toMatch(/Unsubscribe \(http:\/\/127\.0\.0\.1:1\/u\/[0-9.]+[A-Za-z0-9_-]{43}\)/);
    // Text subscriber: text/plain only, with a body.
    expect(tom[0]!.html).toBe(false);
    const tomText = tom[0]!.text ?? "";
    expect(tomText).toContain("Hello Tom!");
    expect(tomText).toContain("This week's offer (https://shop.example/offer)");
    expect(tomText).toMatch(/unsubscribe from everything \(http:\/\/127\.0\.0\.1:1\/u\/\S+\/all\)/);
  });

  it("GetNewsletterFilters names the filter a sending of the newsletter uses", async () => {
    const filters = await creds().GetNewsletterFilters({ intNewsletterId: newsletter });
    expect(filters.map((f) => [f?.Id, f?.Name])).toEqual([[filter, "Everyone"]]);
  });

  it("the unsubscribe-from-all link puts the address on the opt-out-all set: no list mails it again", async () => {
    const tom = (await mails()).get("tom@example.com")![0]!;
    const link = /\((http:\/\/127\.0\.0\.1:1\/u\/\S+\/all)\)/.exec(tom.text ?? "")![1]!;
    // The one-click page offers the same as a second button.
    const plain = link.replace(/\/all$/, "");
    const pageText = await (await fetch(local(plain))).text();
    expect(pageText).toContain(`action="${plain.split("/u/")[1]}/all"`);
    expect((await fetch(local(link))).status).toBe(200); // GET changes nothing
    expect(
      await svc.app.store.db.selectFrom("optouts").selectAll().where("account_id", "=", account).execute(),
    ).toEqual([]);
    // A changed MAC, and the same MAC spelled otherwise (the last character's unused bits flipped: a
    // base64url decoder reads both as the same bytes), are both refused.
    const B64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    const mac = /\.([A-Za-z0-9_-]{43})\/all$/.exec(link)![1]!;
    const flip = (c: string, bit: number) => B64[B64.indexOf(c) ^ bit]!;
    const changed = `${flip(mac[0]!, 1)}${mac.slice(1)}`;
    const respelled = `${mac.slice(0, -1)}${flip(mac.at(-1)!, 1)}`;
    for (const other of [changed, respelled]) {
      const bad = await fetch(local(link.replace(mac, other)), { method: "POST" });
      expect(bad.status, other).toBe(404);
    }
    const posted = await fetch(local(link), { method: "POST" });
    expect(posted.status).toBe(200);
    expect(await posted.text()).toContain("every mailing list");
    expect((await fetch(local(link), { method: "POST" })).status).toBe(200); // again: nothing changes
    const optouts = await svc.app.store.db
      .selectFrom("optouts")
      .select("email_key")
      .where("account_id", "=", account)
      .execute();
    expect(optouts).toEqual([{ email_key: "tom@example.com" }]);
    const states = await svc.app.store.db
      .selectFrom("memberships as m")
      .innerJoin("subscribers as s", "s.id", "m.subscriber_id")
      .select(["s.email", "m.list_id", "m.state"])
      .orderBy("s.email")
      .orderBy("m.list_id")
      .execute();
    expect(states).toEqual([
      { email: "ann@example.com", list_id: news, state: "active" },
      { email: "ann@example.com", list_id: offers, state: "active" },
      { email: "tom@example.com", list_id: news, state: "unsubscribed" },
      { email: "tom@example.com", list_id: offers, state: "unsubscribed" },
    ]);
    // A sending to the other list reaches Ann only.
    await creds().SendNewsletter({
      strFromEmail: "news@example.com",
      strNewsletterId: String(newsletter),
      strMailingListId: String(offers),
    });
    await deliver();
    const all = await mails();
    expect([all.get("ann@example.com")!.length, all.get("tom@example.com")!.length]).toEqual([2, 1]);
  });

  it("a file:// import URL is ImportUrlRefused on the wire, as the error table says", async () => {
    for (const binding of ["soap11", "httpPost"] as const) {
      const error = await fault(
        svc.client("demo", "a-long-password", binding).InsertCSVSubscribersWithDemDataFromFileToQueue({
          strMailingListID: String(news),
          strCSVUrl: "file:///etc/passwd",
        }),
      );
      expect([error.errorCode, error.parameter], binding).toEqual(["ImportUrlRefused", "strCSVUrl"]);
    }
    expect(await svc.app.store.db.selectFrom("imports").selectAll().execute()).toEqual([]);
  });
});
