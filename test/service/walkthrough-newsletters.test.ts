// The second walk-through of docs/service.md, step by step, on both engines: the admin CLI makes an account,
// a list, a template and a module; curl-style HTTP calls add subscribers, create the newsletter with the
// module and send it; the recipient's .eml from the outbox is opened, its open pixel and tracked link
// fetched; the view and the click show in the reports. Then an SMS without credits waits, a refill pays it,
// and it goes out.

import fs from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { simpleParser } from "mailparser";
import { afterAll, beforeAll, expect, it } from "vitest";
import { describeEngines } from "./support/engines.js";
import { type TestService, admin, startService, post } from "./support/service.js";

/** PUBLIC_URL of the test harness: links in mail point there; the test swaps in the service's real address. */
const PUBLIC = "http://127.0.0.1:1";

const valueOf = (xml: string) => /<(?:long|int)[^>]*>(-?\d+)</.exec(xml)?.[1];

/** yyyy-MM-ddTHH:mm:ss of an instant in UTC (the account zone is at most a day away: the interval is wide). */
const stamp = (ms: number) => new Date(ms).toISOString().slice(0, 19);

describeEngines("docs/service.md walk-through: newsletters, tracking and SMS", (engine) => {
  let svc: TestService;
  let work: string;

  beforeAll(async () => {
    work = fs.mkdtempSync(path.join(tmpdir(), "eas-walk2-"));
    svc = await startService(engine, "walkthrough2");
  }, 60_000);
  afterAll(async () => {
    await svc?.close();
    if (work !== undefined) fs.rmSync(work, { recursive: true, force: true });
  });

  it("runs every step of the second walk-through in docs/service.md", { timeout: 120_000 }, async () => {
    // 1. Account, list, subscribers.
    expect(
      (
        await admin(
          svc.databaseUrl,
          ["account", "create", "--username", "demo", "--json"],
          "a-long-password\n",
        )
      ).code,
    ).toBe(0);
    const list = await admin(svc.databaseUrl, [
      "list",
      "create",
      "--account",
      "demo",
      "--name",
      "Newsletter",
      "--json",
    ]);
    expect(list.code).toBe(0);
    const listId = String((JSON.parse(list.stdout) as { id: number }).id);
    const creds = { strUsername: "demo", strPassword: "a-long-password" };
    for (const [email, name] of [
      ["ann@example.com", "Ann"],
      ["bo@example.com", "Bo"],
    ]) {
      const r = await post(svc.url, "InsertSubscriberSid", {
        ...creds,
        strEmail: email!,
        strName: name!,
        strFormat: "HTML",
        strCountryCode: "",
        strPhoneNumber: "",
        strMailingListID: listId,
      });
      expect(r.status).toBe(200);
      expect(valueOf(r.text)).toMatch(/^\d+$/);
    }

    // 2. Template and module (admin CLI), newsletter with the module (HTTP).
    const htmlFile = path.join(work, "welcome.html");
    fs.writeFileSync(
      htmlFile,
      '<p>Hello {{Name}}!</p>\n<p><a href="https://shop.example/">Visit the shop</a></p>\n{{holder:1}}\n<p><a href="{{unsubscribe}}">Unsubscribe</a></p>\n',
    );
    const template = await admin(svc.databaseUrl, [
      "template",
      "create",
      "--account",
      "demo",
      "--name",
      "Welcome",
      "--html-file",
      htmlFile,
      "--subject",
      "Hello {{Name}}",
      "--json",
    ]);
    expect(template.code, template.stderr).toBe(0);
    const mod = await admin(svc.databaseUrl, [
      "module",
      "create",
      "--account",
      "demo",
      "--name",
      "Offer",
      "--code",
      '<p><a href="https://shop.example/offer">This week\'s offer</a></p>',
      "--json",
    ]);
    expect(mod.code, mod.stderr).toBe(0);
    const moduleId = String((JSON.parse(mod.stdout) as { id: number }).id);
    const newsletter = await post(svc.url, "InsertTemplateNewsletter", {
      ...creds,
      strTemplateName: "Welcome",
      strNewsletterName: "Welcome 1",
      strSubject: "",
      strTracking: "all",
    });
    expect(newsletter.status, newsletter.text).toBe(200);
    const newsletterId = valueOf(newsletter.text)!;
    expect(newsletterId).toMatch(/^\d+$/);
    const placed = await post(svc.url, "InsertActiveTemplateModule", {
      ...creds,
      strNewsletterID: newsletterId,
      strModuleID: moduleId,
      strModuleCode: "",
      strModuleIndex: "0",
      strFilterID: "",
      strHolderID: "1",
    });
    expect(placed.status, placed.text).toBe(200);
    expect(valueOf(placed.text)).toMatch(/^\d+$/);

    // 3. Send it to the list and let the workers deliver.
    const sent = await post(svc.url, "SendNewsletter", {
      ...creds,
      strFromEmail: "news@example.com",
      strFromName: "The Shop",
      strNewsletterId: newsletterId,
      strMailingListId: listId,
      strSendDate: "",
      strSendTime: "",
      strFilterId: "",
    });
    expect(sent.status, sent.text).toBe(200);
    const sendQueueId = valueOf(sent.text)!;
    expect(sendQueueId).toMatch(/^\d+$/);
    await svc.app.sendings!.flush();
    await svc.app.outbox!.flush();
    const sending = await admin(svc.databaseUrl, [
      "sending",
      "show",
      "--account",
      "demo",
      "--id",
      sendQueueId,
      "--json",
    ]);
    expect(sending.code, sending.stderr).toBe(0);
    const shownSending = JSON.parse(sending.stdout) as unknown;
    expect(Array.isArray(shownSending) ? shownSending[0] : shownSending).toMatchObject({
      state: "done",
      recipients: 2,
      sent: 2,
    });

    // 4. Open Ann's .eml: the open pixel and the tracked link.
    const outbox = await admin(svc.databaseUrl, ["outbox", "show", "--account", "demo", "--json"]);
    const mails = JSON.parse(outbox.stdout) as { id: number; state: string }[];
    const mail = mails.find((m) => JSON.stringify(m).includes("ann@example.com"));
    expect(mail).toMatchObject({ state: "sent" });
    const eml = fs.readFileSync(path.join(svc.outboxDir, `${mail!.id}.eml`));
    expect(eml.toString("utf8")).toContain("\r\nList-Unsubscribe-Post: List-Unsubscribe=One-Click\r\n");
    const parsed = await simpleParser(eml);
    expect(parsed.subject).toBe("Hello Ann");
    const html = String(parsed.html);
    expect(html).toContain("Hello Ann!");
    expect(html).toContain("This week's offer");
    expect(html).not.toContain("https://shop.example/");
    const shopLink = new RegExp(`<a href="${PUBLIC}(/t/c/[A-Za-z0-9_.-]+)">Visit the shop`).exec(html)?.[1];
    const pixel = new RegExp(`${PUBLIC}(/t/o/[A-Za-z0-9_.-]+)`).exec(html)?.[1];
    expect(shopLink).toBeDefined();
    expect(pixel).toBeDefined();
    const gif = await fetch(`${svc.url}${pixel}`);
    expect(gif.status).toBe(200);
    expect(gif.headers.get("content-type")).toBe("image/gif");
    expect(
      Buffer.from(await gif.arrayBuffer())
        .subarray(0, 6)
        .toString("latin1"),
    ).toMatch(/^GIF8[79]a$/);
    const click = await fetch(`${svc.url}${shopLink}`, { redirect: "manual" });
    expect(click.status).toBe(302);
    expect(click.headers.get("location")).toBe("https://shop.example/");

    // 5. The reports: the view with DD1, the click per URL.
    const now = Date.now();
    const views = await fetch(
      `${svc.url}/ExternalAPIService.asmx/GetReportViewsByDateInterval?${new URLSearchParams({ ...creds, strSendQueueId: sendQueueId, datIntervalFrom: stamp(now - 86_400_000), datIntervalTo: stamp(now + 86_400_000), ddField: "DD1" })}`,
    );
    const viewsText = await views.text();
    expect(views.status, viewsText).toBe(200);
    expect(viewsText).toContain("ann@example.com");
    expect(viewsText).not.toContain("bo@example.com");
    expect(viewsText).toContain('<xs:element name="DD1"'); // the column; Ann has no DD1 value, so her row omits it
    expect(viewsText.match(/<Table /g)).toHaveLength(1);
    const roi = await post(svc.url, "GetRoiResults", { ...creds, strSendQueueId: sendQueueId });
    expect(roi.status, roi.text).toBe(200);
    const shopRow =
      /<RoiResult>(?:(?!<\/RoiResult>)[\s\S])*<Url>https:\/\/shop\.example\/<\/Url>(?:(?!<\/RoiResult>)[\s\S])*<\/RoiResult>/.exec(
        roi.text,
      )?.[0];
    expect(shopRow, roi.text).toBeDefined();
    expect(shopRow).toContain("<Clicks>1</Clicks>");
    expect(roi.text).toContain("<Url>https://shop.example/offer</Url>");
    const stats = await admin(svc.databaseUrl, [
      "sending",
      "stats",
      "--account",
      "demo",
      "--id",
      sendQueueId,
    ]);
    expect(stats.code, stats.stderr).toBe(0);
    expect(stats.stdout).toMatch(/^opens: +1 unique \(50\.0% of delivered\), 1 in all$/m);

    // 6. An SMS without credits waits; a refill pays it; the worker sends it.
    const sms = await post(svc.url, "SendSmsWithSenderName", {
      ...creds,
      senderName: "Shop",
      strCountryCode: "46",
      strPhoneNumber: "701234567",
      strMessage: "Your order has shipped",
    });
    expect(sms.status, sms.text).toBe(200);
    const smsId = /<Id>(\d+)<\/Id>/.exec(sms.text)?.[1];
    expect(smsId, sms.text).toBeDefined();
    expect(sms.text).toMatch(/<CreditCost>1<\/CreditCost>/);
    expect(sms.text).toMatch(/<TotalCredits>0<\/TotalCredits>/);
    const before = await admin(svc.databaseUrl, ["credits", "show", "--account", "demo", "--json"]);
    expect(JSON.parse(before.stdout)).toMatchObject({ waiting: 1 });
    await svc.app.sms!.flush();
    expect(fs.existsSync(path.join(svc.smsDir, `${smsId}.json`))).toBe(false);
    const refill = await admin(svc.databaseUrl, [
      "credits",
      "add",
      "--account",
      "demo",
      "--amount",
      "5",
      "--json",
    ]);
    expect(refill.code, refill.stderr).toBe(0);
    expect(JSON.parse(refill.stdout)).toMatchObject({ balance: "4", paid: [Number(smsId)], stillWaiting: 0 });
    await svc.app.sms!.flush();
    const delivered = JSON.parse(fs.readFileSync(path.join(svc.smsDir, `${smsId}.json`), "utf8")) as Record<
      string,
      unknown
    >;
    expect(delivered).toMatchObject({
      id: Number(smsId),
      from: "Shop",
      to: "+46701234567",
      text: "Your order has shipped",
    });
    const after = await admin(svc.databaseUrl, ["credits", "show", "--account", "demo", "--json"]);
    expect(JSON.parse(after.stdout)).toMatchObject({ waiting: 0 });
  });
});
