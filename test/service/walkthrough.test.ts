// The first walk-through of docs/service.md, step by step, on both engines: the admin CLI makes an account
// and a list; curl-style HTTP calls insert a subscriber and bulk-insert a CSV; a queued import fetches a file
// from an allow-listed host; a pending subscriber is confirmed through the link in the outbox; the lists read
// back.

import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { describeEngines } from "./support/engines.js";
import { startService, type TestService, admin, post } from "./support/service.js";

const valueOf = (xml: string) => /<(?:long|int)[^>]*>(-?\d+)</.exec(xml)?.[1];

describeEngines("docs/service.md walk-through", (engine) => {
  let svc: TestService;
  let files: http.Server;
  let fileBase: string;

  beforeAll(async () => {
    files = http.createServer((req, res) => {
      if (req.url === "/subscribers.csv") {
        res.writeHead(200, { "content-type": "text/csv" });
        res.end(
          "file1@example.com;File One;HTML;SE\nfile2@example.com;File Two;Text\nnot-an-email;Bad;HTML\n",
        );
      } else {
        res.writeHead(404).end();
      }
    });
    await new Promise<void>((resolve) => files.listen(0, "127.0.0.1", resolve));
    fileBase = `http://127.0.0.1:${(files.address() as AddressInfo).port}`;
    svc = await startService(engine, "walkthrough", { IMPORT_ALLOW_HOSTS: "127.0.0.1" });
  }, 60_000);
  afterAll(async () => {
    await svc?.close();
    files?.close();
  });

  it("runs every step of the first walk-through in docs/service.md", { timeout: 120_000 }, async () => {
    const created = await admin(
      svc.databaseUrl,
      ["account", "create", "--username", "demo", "--json"],
      "a-long-password\n",
    );
    expect(created.code).toBe(0);
    expect(created.stdout + created.stderr).not.toContain("a-long-password");
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

    const get = await fetch(
      `${svc.url}/ExternalAPIService.asmx/InsertSubscriberSid?${new URLSearchParams({ ...creds, strEmail: "ann@example.com", strName: "Ann", strFormat: "HTML", strCountryCode: "", strPhoneNumber: "", strMailingListID: listId })}`,
    );
    expect(get.status).toBe(200);
    const annId = valueOf(await get.text());
    expect(annId).toMatch(/^\d+$/);

    const csv = await post(svc.url, "InsertCsvSubscribersWithDemDataUpdateOption", {
      ...creds,
      strMailingListId: listId,
      strUpdate: "false",
      strCsvData: 'bo@example.com,Bo,HTML,SE\ncy@example.com,"Cy, Jr",Text,NO',
    });
    expect(valueOf(csv.text)).toBe("2");

    const queued = await post(svc.url, "InsertCSVSubscribersWithDemDataFromFileToQueue", {
      ...creds,
      strMailingListID: listId,
      strCSVUrl: `${fileBase}/subscribers.csv`,
    });
    expect(queued.status).toBe(200);
    const importId = valueOf(queued.text)!;
    const watched = await admin(svc.databaseUrl, ["import", "watch", "--id", importId, "--timeout", "60"]);
    expect(watched.code).toBe(0);
    const shown = await admin(svc.databaseUrl, [
      "import",
      "show",
      "--account",
      "demo",
      "--id",
      importId,
      "--json",
    ]);
    expect(JSON.parse(shown.stdout)).toMatchObject({ state: "done", imported: 2, bad: 1 });

    const pending = await post(svc.url, "InsertSubscriberWithDemDataPendingOption", {
      ...creds,
      strMailingListID: listId,
      strEmail: "dee@example.com",
      strPending: "true",
      strName: "",
      strCountryCode: "",
      strPhoneNumber: "",
      strFormat: "HTML",
      strDatafields: "",
      strDatavalues: "",
    });
    expect(pending.status).toBe(200);
    await svc.app.outbox!.flush();
    const outbox = await admin(svc.databaseUrl, ["outbox", "show", "--json"]);
    const mail = (JSON.parse(outbox.stdout) as { id: number; to: string; state: string }[]).find((m) =>
      JSON.stringify(m).includes("dee@example.com"),
    );
    expect(mail).toBeDefined();
    const eml = fs.readFileSync(path.join(svc.outboxDir, `${mail!.id}.eml`), "utf8");
    const body = Buffer.from(eml.split("\r\n\r\n")[1]!.replace(/\r\n/g, ""), "base64").toString("utf8");
    const token = /\/confirm\/([A-Za-z0-9_-]+)/.exec(body)![1]!;
    const before = await fetch(
      `${svc.url}/ExternalAPIService.asmx/GetSubscriberMailingLists?${new URLSearchParams({ ...creds, strSubscriberId: "", strEmail: "dee@example.com" })}`,
    );
    expect(await before.text()).not.toContain("<MailingListId>");
    // Opening the link shows the page with the button and changes nothing; the button POSTs.
    expect((await fetch(`${svc.url}/confirm/${token}`)).status).toBe(200);
    const still = await fetch(
      `${svc.url}/ExternalAPIService.asmx/GetSubscriberMailingLists?${new URLSearchParams({ ...creds, strSubscriberId: "", strEmail: "dee@example.com" })}`,
    );
    expect(await still.text()).not.toContain("<MailingListId>");
    expect((await fetch(`${svc.url}/confirm/${token}`, { method: "POST" })).status).toBe(200);
    const after = await fetch(
      `${svc.url}/ExternalAPIService.asmx/GetSubscriberMailingLists?${new URLSearchParams({ ...creds, strSubscriberId: "", strEmail: "dee@example.com" })}`,
    );
    const lists = await after.text();
    expect(lists).toContain(`<MailingListId>${listId}</MailingListId>`);
    expect(lists).toContain("<MailingListName>Newsletter</MailingListName>");

    const shownList = await admin(svc.databaseUrl, [
      "list",
      "show",
      "--account",
      "demo",
      "--id",
      listId,
      "--json",
    ]);
    expect(JSON.parse(shownList.stdout)).toMatchObject({ members: { active: 6, pending: 0 } });
  });
});
