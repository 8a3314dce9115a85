// What the SMS gateway reports back (issue 25), over POST /sms/webhook of the running service, on SQLite and
// PostgreSQL: STOP opts a number out of every SMS (waiting ones stopped at once, a paid one stopped at
// delivery with its credits back, later ones answered and never charged), START takes it off again, delivery
// receipts are recorded on their SMS (a final status is not replaced by an older or passing one), and every
// refusal names what is wrong and changes nothing.

import { randomBytes } from "node:crypto";
import fs from "node:fs";
import http from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readConfig, ServiceConfigError } from "../../service/config.ts";
import { keywordOf } from "../../service/operations/transactional/sms-events.ts";
import { refill } from "../../service/operations/transactional/sms.ts";
import { SmsWorker } from "../../service/workers/sms-outbox.ts";
import { describeEngines } from "./support/engines.ts";
import { admin, startService, type TestService } from "./support/service.ts";

const TOKEN = randomBytes(24).toString("hex");

describe("SMS keywords and the webhook's configuration", () => {
  it("acts on the whole message as a keyword, any case, punctuation and spaces around ignored", () => {
    for (const text of ["STOP", " stop ", "Stop.", "unsubscribe", "STOPALL", "end!", "Quit", "cancel"])
      expect(keywordOf(text), text).toBe("stop");
    for (const text of ["START", "unstop", " Start "]) expect(keywordOf(text), text).toBe("start");
    for (const text of ["stop it", "please stop", "STOPP", "", "yes", "s t o p"])
      expect(keywordOf(text), text).toBeUndefined();
  });

  it("reads SMS_WEBHOOK_TOKEN as a hash, refuses a short one without echoing it", () => {
    expect(readConfig({}).smsWebhookTokenHash).toBeUndefined();
    expect(readConfig({ SMS_WEBHOOK_TOKEN: TOKEN }).smsWebhookTokenHash).toHaveLength(32);
    let error: unknown;
    try {
      readConfig({ SMS_WEBHOOK_TOKEN: "short-secret" });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ServiceConfigError);
    expect((error as Error).message).toMatch(/^SMS_WEBHOOK_TOKEN must be at least 32 characters/);
    expect((error as Error).message).not.toContain("short-secret");
  });
});

describeEngines("SMS STOP and delivery receipts", (engine) => {
  let svc: TestService;
  let shop: number;
  let worker: SmsWorker;
  let smsDir: string;

  const hook = (body: string | unknown, headers: Record<string, string> = {}) =>
    fetch(`${svc.url}/sms/webhook`, {
      method: "POST",
      headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json", ...headers },
      body: typeof body === "string" ? body : JSON.stringify(body),
    });
  const send = async (phone: string, text = "Your order has shipped") => {
    const result = await svc.client("shop", "shop-secret-12").SendSmsWithSenderName({
      senderName: "Shop",
      strCountryCode: "46",
      strPhoneNumber: phone,
      strMessage: text,
    });
    if (result === null) throw new Error("no result");
    return result;
  };
  const row = (id: bigint | number) =>
    svc.app.store.db
      .selectFrom("sms_messages")
      .selectAll()
      .where("id", "=", Number(id))
      .executeTakeFirstOrThrow();
  const credits = async () =>
    (
      await svc.app.store.db
        .selectFrom("accounts")
        .select("sms_credits")
        .where("id", "=", shop)
        .executeTakeFirstOrThrow()
    ).sms_credits;

  beforeAll(async () => {
    svc = await startService(engine, "sms-events", { SMS_WEBHOOK_TOKEN: TOKEN, SMS_WEBHOOK_RATE: "30" });
    shop = await svc.createAccount("shop", "shop-secret-12");
    // Delivery only when a test says so.
    await svc.app.sms?.stop();
    smsDir = svc.smsDir;
    worker = new SmsWorker(svc.app.store, { dir: smsDir });
  }, 60_000);
  afterAll(async () => svc?.close());

  it("STOP: waiting SMS stopped, a paid one stopped at delivery with its credits back, later ones answered and never charged; START undoes it", async () => {
    await refill(svc.app.store, shop, "1", Date.now());
    // Given with the trunk 0; the gateway reports the sender without it.
    const paid = await send("070-111 22 33");
    const waiting = await send("0701112233");
    expect(paid).toMatchObject({ CreditCost: "1", TotalCredits: "0" });
    expect((await row(waiting.Id)).state).toBe("waiting");

    const stop = await hook({ type: "inbound", from: "+46 70 111 22 33", to: "+4600000", text: " Stop " });
    expect(stop.status).toBe(200);
    expect(await stop.json()).toEqual({ results: [{ action: "stopped" }] });
    expect(await row(waiting.Id)).toMatchObject({ state: "stopped", last_error: "the number sent STOP" });

    expect(await worker.flush()).toBe(0);
    expect(await row(paid.Id)).toMatchObject({ state: "stopped", sent_at: null });
    expect(await credits()).toBe("1");
    const refund = await svc.app.store.db
      .selectFrom("credit_ledger")
      .selectAll()
      .where("sms_id", "=", Number(paid.Id))
      .where("reason", "=", "refund")
      .execute();
    expect(refund).toHaveLength(1);

    const later = await send("701112233");
    expect(later).toMatchObject({ CreditCost: "0", TotalCredits: "1" });
    expect(await row(later.Id)).toMatchObject({ state: "stopped", cost: "0" });
    expect(fs.readdirSync(smsDir)).toEqual([]);

    const listed = await admin(svc.databaseUrl, ["sms", "stops", "--json"]);
    expect(listed.code).toBe(0);
    expect(JSON.parse(listed.stdout)).toEqual([
      expect.objectContaining({ number: "+46701112233", keyword: "STOP" }),
    ]);
    // The log says what was done, never the number.
    const logged = svc.logs.filter((l) => l.event === "sms.stopped");
    expect(logged).toHaveLength(1);
    expect(JSON.stringify(svc.logs)).not.toContain("1112233");

    const start = await hook({ type: "inbound", from: "+46701112233", text: "START" });
    expect(await start.json()).toEqual({ results: [{ action: "started" }] });
    const again = await send("0701112233");
    expect(again).toMatchObject({ CreditCost: "1", TotalCredits: "0" });
    expect(await worker.flush()).toBe(1);
    expect(fs.readdirSync(smsDir)).toEqual([`${again.Id}.json`]);
    // What was stopped stays stopped.
    expect((await row(waiting.Id)).state).toBe("stopped");

    // Any other text does nothing.
    const chat = await hook({ type: "inbound", from: "+46701112233", text: "thanks!" });
    expect(await chat.json()).toEqual({ results: [{ action: "none" }] });
  });

  it("the admin CLI stops and starts a number, and shows one SMS with its receipt", async () => {
    const stopped = await admin(svc.databaseUrl, ["sms", "stop", "--number", "+46 70 999 88 77"]);
    expect(stopped).toMatchObject({
      code: 0,
      stdout: "+46709998877 gets no more SMS (0 waiting SMS stopped).\n",
    });
    const refused = await send("709998877");
    expect(refused.CreditCost).toBe("0");
    const started = await admin(svc.databaseUrl, ["sms", "start", "--number", "+46709998877"]);
    expect(started.code).toBe(0);
    const twice = await admin(svc.databaseUrl, ["sms", "start", "--number", "+46709998877"]);
    expect(twice).toMatchObject({ code: 1 });
    expect(twice.stderr).toContain("--number: +46709998877 is not on the STOP list");
    const bad = await admin(svc.databaseUrl, ["sms", "stop", "--number", "0709998877"]);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain("--number must be a phone number in international form");
    const shown = await admin(svc.databaseUrl, [
      "sms",
      "show",
      "--account",
      "shop",
      "--id",
      String(refused.Id),
      "--json",
    ]);
    expect(JSON.parse(shown.stdout)).toMatchObject({ to: "+46709998877", state: "stopped", cost: "0" });
  });

  it("records delivery receipts; a final status is replaced only by a final one at least as new", async () => {
    await refill(svc.app.store, shop, "5", Date.now());
    const sms = await send("0702223344");
    expect(await worker.flush()).toBe(1);
    const receipt = async (status: string, at?: string) => {
      const answer = await hook({ type: "receipt", id: Number(sms.Id), status, ...(at ? { at } : {}) });
      expect(answer.status).toBe(200);
      return ((await answer.json()) as { results: { receipt: string }[] }).results[0]!.receipt;
    };
    expect(await receipt("sent", "2026-11-28T10:00:00Z")).toBe("recorded");
    expect(await receipt("DELIVERED", "2026-11-28T10:00:05Z")).toBe("recorded");
    expect(await row(sms.Id)).toMatchObject({
      receipt_status: "delivered",
      receipt_at: Date.parse("2026-11-28T10:00:05Z"),
    });
    expect(await receipt("sent", "2026-11-28T10:00:09Z")).toBe("kept");
    expect(await receipt("failed", "2026-11-28T10:00:01Z")).toBe("kept");
    expect(await receipt("expired", "2026-11-28T10:01:00Z")).toBe("recorded");
    expect((await row(sms.Id)).receipt_status).toBe("expired");

    // An id the service never handed to the gateway: unknown, nothing written.
    const waiting = await send("0702223355", "x");
    await svc.app.store.db
      .updateTable("sms_messages")
      .set({ state: "waiting" })
      .where("id", "=", Number(waiting.Id))
      .execute();
    const batch = await hook([
      { type: "receipt", id: 999_999_999, status: "delivered" },
      { type: "receipt", id: Number(waiting.Id), status: "delivered" },
    ]);
    expect(await batch.json()).toEqual({ results: [{ receipt: "unknown" }, { receipt: "unknown" }] });
    expect((await row(waiting.Id)).receipt_status).toBeNull();
  });

  it("refuses what it cannot take, naming the field or rule, and changes nothing", async () => {
    const before = await svc.app.store.db.selectFrom("sms_stops").selectAll().execute();
    const cases: [string | unknown, Record<string, string>, number, string][] = [
      [
        { type: "inbound", from: "+46701230000", text: "STOP" },
        { authorization: "Bearer wrong" },
        401,
        "SMS_WEBHOOK_TOKEN",
      ],
      [
        { type: "inbound", from: "+46701230000", text: "STOP" },
        { "content-type": "text/plain" },
        415,
        "application/json",
      ],
      ["{not json", {}, 400, "the body must be JSON"],
      [[], {}, 400, "1 to 100"],
      [{ type: "sms", from: "+46701230000" }, {}, 400, 'the event: type must be "inbound" or "receipt"'],
      [
        { type: "inbound", from: "0701230000", text: "STOP" },
        {},
        400,
        "the event: from must be a phone number",
      ],
      [{ type: "inbound", from: "+46701230000" }, {}, 400, "the event: text must be"],
      [{ type: "receipt", id: "17", status: "delivered" }, {}, 400, "the event: id must be"],
      [{ type: "receipt", id: 1, status: "read" }, {}, 400, "the event: status must be one of accepted"],
      [{ type: "receipt", id: 1, status: "sent", at: "yesterday" }, {}, 400, "the event: at must be"],
      // The first event is good, the second is not: neither is recorded.
      [
        [
          { type: "inbound", from: "+46701230000", text: "STOP" },
          { type: "inbound", from: "+1", text: "STOP" },
        ],
        {},
        400,
        "event 1: from must be",
      ],
      ["x".repeat(64 * 1024 + 1), {}, 413, "at most 65536 bytes"],
    ];
    for (const [body, headers, status, says] of cases) {
      const answer = await hook(body, headers);
      expect(answer.status, JSON.stringify(body).slice(0, 80)).toBe(status);
      expect(((await answer.json()) as { error: string }).error).toContain(says);
    }
    const get = await fetch(`${svc.url}/sms/webhook`, { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(get.status).toBe(405);
    expect(await svc.app.store.db.selectFrom("sms_stops").selectAll().execute()).toEqual(before);
  });

  it("answers 429 past SMS_WEBHOOK_RATE requests a minute from one address, others go on", async () => {
    const from = (localAddress: string) =>
      new Promise<number>((resolve, reject) => {
        const req = http.request(
          `${svc.url}/sms/webhook`,
          {
            method: "POST",
            localAddress,
            headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" },
          },
          (res) => {
            res.resume();
            res.on("end", () => resolve(res.statusCode ?? 0));
          },
        );
        req.on("error", reject);
        req.end(JSON.stringify({ type: "inbound", from: "+46701230001", text: "hello" }));
      });
    const statuses: number[] = [];
    for (let i = 0; i < 31; i++) statuses.push(await from("127.0.0.9"));
    expect(statuses.slice(0, 30).every((s) => s === 200)).toBe(true);
    expect(statuses[30]).toBe(429);
    expect(await from("127.0.0.10")).toBe(200);
  });
});
