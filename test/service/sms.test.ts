// SendSmsWithSenderName (issue 10): segment pricing, credits that queue instead of refusing, refills through
// the admin CLI that pay waiting SMS oldest first, exact decimals under 50 concurrent sends, and delivery
// to the outbox folder or an HTTP gateway. The calls go through the generated client and the running
// service, on SQLite and PostgreSQL.

import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { addDecimal, formatDecimal, parseDecimal } from "../../service/common/decimal.ts";
import {
  MAX_SEGMENTS,
  checkRecipient,
  priceSms,
  refill,
} from "../../service/operations/transactional/sms.ts";
import { SmsWorker } from "../../service/workers/sms-outbox.ts";
import { describeEngines } from "./support/engines.ts";
import { BINDINGS, fault, startService, type TestService, admin } from "./support/service.ts";

/** A SendSmsWithSenderName result, which the type allows to be null (a null record result): never null here. */
function present<T>(value: T | null): T {
  if (value === null) throw new Error("SendSmsWithSenderName answered a null result");
  return value;
}

describe("SMS pricing", () => {
  it.each([
    ["a".repeat(160), "GSM-7", 1],
    ["a".repeat(161), "GSM-7", 2],
    ["a".repeat(306), "GSM-7", 2],
    ["a".repeat(307), "GSM-7", 3],
    ["€".repeat(80), "GSM-7", 1],
    ["€".repeat(81), "GSM-7", 2],
    [`${"a".repeat(159)}^`, "GSM-7", 2],
    ["\f".repeat(80), "GSM-7", 1],
    // An extension character's two septets never straddle two parts: 306 septets, yet 3 parts.
    [`${"a".repeat(152)}€${"a".repeat(152)}`, "GSM-7", 3],
    ["@£$¥èéùìòÇ\nØø\rÅåΔ_ΦΓΛΩΠΨΣΘΞÆæßÉ ¤§¿¡ÄÖÑÜäöñüà{}[]~|\\", "GSM-7", 1],
    ["ж".repeat(70), "UCS-2", 1],
    ["ж".repeat(71), "UCS-2", 2],
    ["ж".repeat(134), "UCS-2", 2],
    ["ж".repeat(135), "UCS-2", 3],
    [`${"a".repeat(159)}ç`, "UCS-2", 3],
    ["😀".repeat(35), "UCS-2", 1],
    ["😀".repeat(36), "UCS-2", 2],
    // A surrogate pair never straddles two parts: 134 code units, yet 3 parts.
    [`${"ж".repeat(66)}😀${"ж".repeat(66)}`, "UCS-2", 3],
  ] as const)("%#: %j is %s in %i segment(s)", (text, encoding, segments) => {
    const pricing = priceSms(text);
    expect(pricing.encoding).toBe(encoding);
    expect(pricing.segments).toBe(segments);
  });

  it("counts extension characters as two septets and UCS-2 in UTF-16 code units", () => {
    expect(priceSms("a{b}").units).toBe(6);
    expect(priceSms("hi 😀").units).toBe(5);
  });

  it("checks the recipient: digits, spaces and dashes, E.164 length, a clear parameter", () => {
    expect(checkRecipient("+46", "070-123 45 67")).toEqual({ countryCode: "46", phoneNumber: "0701234567" });
    expect(checkRecipient("0044", "7700900123")).toEqual({ countryCode: "44", phoneNumber: "7700900123" });
    for (const [cc, number, parameter] of [
      ["", "0701234567", "strCountryCode"],
      ["4a", "0701234567", "strCountryCode"],
      ["1234", "0701234567", "strCountryCode"],
      ["46", "+46701234567", "strPhoneNumber"],
      ["46", "070 12x", "strPhoneNumber"],
      ["46", "123", "strPhoneNumber"],
      ["46", "1".repeat(14), "strPhoneNumber"],
    ] as const) {
      expect(() => checkRecipient(cc, number)).toThrow(
        expect.objectContaining({ code: "InvalidFormat", parameter }),
      );
    }
  });
});

describeEngines("SendSmsWithSenderName", (engine) => {
  let svc: TestService;
  let alice: number;
  let bob: number;
  let carol: number;
  const credits = async (id: number) =>
    (
      await svc.app.store.db
        .selectFrom("accounts")
        .select("sms_credits")
        .where("id", "=", id)
        .executeTakeFirstOrThrow()
    ).sms_credits;
  const messages = (id: number) =>
    svc.app.store.db
      .selectFrom("sms_messages")
      .selectAll()
      .where("account_id", "=", id)
      .orderBy("id")
      .execute();
  const ledger = (id: number) =>
    svc.app.store.db
      .selectFrom("credit_ledger")
      .selectAll()
      .where("account_id", "=", id)
      .orderBy("id")
      .execute();

  /** The ledger's amounts sum to the balance, and no balance in it was ever negative. */
  async function checkLedger(id: number): Promise<void> {
    const rows = await ledger(id);
    let sum = "0";
    for (const row of rows) {
      sum = addDecimal(sum, row.amount);
      expect(row.balance).toBe(sum);
      expect(parseDecimal(row.balance) >= 0n).toBe(true);
    }
    expect(sum).toBe(await credits(id));
  }

  beforeAll(async () => {
    svc = await startService(engine, "sms");
    alice = await svc.createAccount("alice", "alice-secret-1");
    bob = await svc.createAccount("bob", "bob-secret-12");
    carol = await svc.createAccount("carol", "carol-secret-1");
  }, 60_000);
  afterAll(async () => svc?.close());

  it.each(BINDINGS)(
    "over %s: paid at once with enough credits; the result is the id, the cost and the credits left",
    async (binding) => {
      await refill(svc.app.store, bob, "10", Date.now());
      const before = await credits(bob);
      const client = svc.client("bob", "bob-secret-12", binding);
      const result = present(
        await client.SendSmsWithSenderName({
          senderName: "Bob Shop",
          strCountryCode: "46",
          strPhoneNumber: "070-123 45 67",
          strMessage: "ж".repeat(71),
        }),
      );
      expect(typeof result.Id).toBe("bigint");
      expect(result.CreditCost).toBe("2");
      expect(result.TotalCredits).toBe(addDecimal(before, "-2"));
      expect(await credits(bob)).toBe(result.TotalCredits);
      const row = await svc.app.store.db
        .selectFrom("sms_messages")
        .selectAll()
        .where("id", "=", Number(result.Id))
        .executeTakeFirstOrThrow();
      expect(row).toMatchObject({
        account_id: bob,
        state: "queued",
        encoding: "UCS-2",
        segments: 2,
        cost: "2",
        sender_name: "Bob Shop",
        country_code: "46",
        phone_number: "0701234567",
      });
      await checkLedger(bob);
    },
  );

  it("too few credits: stored waiting, not refused; later sends wait behind it; refills pay oldest first, stopping at the first that does not fit", async () => {
    const client = svc.client("alice", "alice-secret-1");
    const send = (text: string) =>
      client
        .SendSmsWithSenderName({
          senderName: "Alice",
          strCountryCode: "1",
          strPhoneNumber: "5550100",
          strMessage: text,
        })
        .then(present);
    const a = await send("a".repeat(200)); // 2 segments
    expect(a).toMatchObject({ CreditCost: "2", TotalCredits: "0" });
    await refill(svc.app.store, alice, "1", Date.now());
    const b = await send("short"); // 1 credit available, but a is older and waiting
    expect(b).toMatchObject({ CreditCost: "1", TotalCredits: "1" });
    expect((await messages(alice)).map((m) => m.state)).toEqual(["waiting", "waiting"]);
    const first = await admin(svc.databaseUrl, [
      "credits",
      "add",
      "--account",
      "alice",
      "--amount",
      "1.5",
      "--json",
    ]);
    expect(first.code).toBe(0);
    expect(JSON.parse(first.stdout)).toEqual({
      account: "alice",
      added: "1.5",
      balance: "0.5",
      paid: [Number(a.Id)],
      stillWaiting: 1,
    });
    const second = await admin(svc.databaseUrl, ["credits", "add", "--account", "alice", "--amount", "0.5"]);
    expect(second.stdout).toContain("1 waiting SMS paid and queued");
    expect((await messages(alice)).map((m) => m.state)).toEqual(["queued", "queued"]);
    expect(await credits(alice)).toBe("0");
    await checkLedger(alice);
    expect(await credits(bob)).not.toBe("0");
  });

  it("50 concurrent sends against credits for exactly 20: 20 paid, 30 waiting, credits exactly 0; refills pay the rest in order", async () => {
    const price = await admin(svc.databaseUrl, ["credits", "price", "--account", "carol", "--price", "0.1"]);
    expect(price.code).toBe(0);
    expect(
      (await admin(svc.databaseUrl, ["credits", "add", "--account", "carol", "--amount", "2"])).code,
    ).toBe(0);
    const bobBefore = await credits(bob);
    const client = svc.client("carol", "carol-secret-1");
    const results = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        client
          .SendSmsWithSenderName({
            senderName: "Carol",
            strCountryCode: "46",
            strPhoneNumber: `70100${String(i).padStart(4, "0")}`,
            strMessage: `message ${i}`,
          })
          .then(present),
      ),
    );
    expect(new Set(results.map((r) => r.Id)).size).toBe(50);
    for (const r of results) expect(r.CreditCost).toBe("0.1");
    expect(await credits(carol)).toBe("0");
    let rows = await messages(carol);
    const paid = rows.filter((m) => m.state !== "waiting");
    const waiting = rows.filter((m) => m.state === "waiting");
    expect(paid.length).toBe(20);
    expect(waiting.length).toBe(30);
    // Everything paid is older than everything waiting; the paid answers counted down 1.9 … 0, each once.
    expect(Math.max(...paid.map((m) => m.id))).toBeLessThan(Math.min(...waiting.map((m) => m.id)));
    const paidIds = new Set(paid.map((m) => BigInt(m.id)));
    const left = results
      .filter((r) => paidIds.has(r.Id))
      .map((r) => r.TotalCredits)
      .sort((x, y) => Number(parseDecimal(y) - parseDecimal(x)));
    expect(left).toEqual(
      Array.from({ length: 20 }, (_, i) => formatDecimal(1_900_000n - BigInt(i) * 100_000n)),
    );
    for (const r of results.filter((r) => !paidIds.has(r.Id))) expect(r.TotalCredits).toBe("0");
    await checkLedger(carol);

    const refill1 = await admin(svc.databaseUrl, [
      "credits",
      "add",
      "--account",
      "carol",
      "--amount",
      "2.55",
      "--json",
    ]);
    const out = JSON.parse(refill1.stdout) as { paid: number[]; balance: string; stillWaiting: number };
    expect(out.paid).toEqual(waiting.slice(0, 25).map((m) => m.id));
    expect(out).toMatchObject({ balance: "0.05", stillWaiting: 5 });
    const refill2 = await admin(svc.databaseUrl, [
      "credits",
      "add",
      "--account",
      "carol",
      "--amount",
      "0.45",
      "--json",
    ]);
    expect(JSON.parse(refill2.stdout)).toMatchObject({
      paid: waiting.slice(25).map((m) => m.id),
      balance: "0",
      stillWaiting: 0,
    });
    rows = await messages(carol);
    expect(rows.filter((m) => m.state === "waiting")).toEqual([]);
    // Paid in id order: the ledger's SMS payments follow the message ids.
    const payments = (await ledger(carol)).filter((l) => l.reason === "sms").map((l) => l.sms_id);
    expect(payments).toEqual(rows.map((m) => m.id));
    await checkLedger(carol);
    expect(await credits(bob)).toBe(bobBefore);

    const shown = await admin(svc.databaseUrl, [
      "credits",
      "show",
      "--account",
      "carol",
      "--json",
      "--limit",
      "3",
    ]);
    const show = JSON.parse(shown.stdout) as {
      credits: string;
      price: string;
      waiting: number;
      ledger: unknown[];
    };
    expect(show).toMatchObject({ credits: "0", price: "0.1", waiting: 0 });
    expect(show.ledger).toHaveLength(3);

    // Delivery: the service's worker writes every paid SMS as one JSON file to SMS_OUTBOX_DIR.
    const dir = svc.smsDir;
    for (let i = 0; i < 500 && !(await messages(carol)).every((m) => m.state === "sent"); i++)
      await new Promise((r) => setTimeout(r, 20));
    const files = fs.readdirSync(dir);
    for (const row of rows) {
      const doc = JSON.parse(fs.readFileSync(path.join(dir, `${row.id}.json`), "utf8")) as Record<
        string,
        unknown
      >;
      expect(doc).toMatchObject({
        id: row.id,
        from: "Carol",
        to: `+46${row.phone_number}`,
        text: row.message,
        encoding: "GSM-7",
        segments: 1,
      });
    }
    expect(files.filter((f) => f.endsWith(".tmp"))).toEqual([]);
    expect((await messages(carol)).every((m) => m.state === "sent" && m.sent_at !== null)).toBe(true);
  }, 60_000);

  it("the service's own worker writes a paid SMS to SMS_OUTBOX_DIR at once, and one paid by credits add soon after", async () => {
    const frank = await svc.createAccount("frank", "frank-secret-1");
    await refill(svc.app.store, frank, "1", Date.now());
    const client = svc.client("frank", "frank-secret-1");
    const params = {
      senderName: "Frank",
      strCountryCode: "33",
      strPhoneNumber: "612345678",
      strMessage: "Bonjour",
    };
    const paid = present(await client.SendSmsWithSenderName(params));
    const waiting = present(await client.SendSmsWithSenderName({ ...params, strMessage: "Encore" }));
    expect([paid.TotalCredits, waiting.TotalCredits]).toEqual(["0", "0"]);
    const file = (id: bigint) => path.join(svc.smsDir, `${id}.json`);
    const until = async (check: () => boolean) => {
      for (let i = 0; i < 500 && !check(); i++) await new Promise((r) => setTimeout(r, 20));
      expect(check()).toBe(true);
    };
    await until(() => fs.existsSync(file(paid.Id)));
    expect(JSON.parse(fs.readFileSync(file(paid.Id), "utf8"))).toMatchObject({
      from: "Frank",
      to: "+33612345678",
      text: "Bonjour",
    });
    expect(fs.existsSync(file(waiting.Id))).toBe(false);
    expect(
      (await admin(svc.databaseUrl, ["credits", "add", "--account", "frank", "--amount", "1"])).code,
    ).toBe(0);
    await until(() => fs.existsSync(file(waiting.Id)));
    expect(JSON.parse(fs.readFileSync(file(waiting.Id), "utf8"))).toMatchObject({ text: "Encore" });
  });

  it("refuses bad parameters before anything is stored, naming the parameter", async () => {
    const client = svc.client("bob", "bob-secret-12");
    const before = (await messages(bob)).length;
    const base = { senderName: "Bob", strCountryCode: "46", strPhoneNumber: "0701234567", strMessage: "hi" };
    const cases = [
      [{ ...base, strPhoneNumber: "07x" }, "InvalidFormat", "strPhoneNumber"],
      [{ ...base, strCountryCode: "abc" }, "InvalidFormat", "strCountryCode"],
      [{ ...base, senderName: "S".repeat(17) }, "TooLong", "senderName"],
      [{ ...base, strMessage: "a".repeat(153 * MAX_SEGMENTS + 1) }, "TooLong", "strMessage"],
      [{ ...base, strMessage: "" }, "RequiredParameter", "strMessage"],
    ] as const;
    for (const [params, code, parameter] of cases) {
      const refused = await fault(client.SendSmsWithSenderName(params));
      expect([refused.errorCode, refused.parameter]).toEqual([code, parameter]);
    }
    expect((await messages(bob)).length).toBe(before);
  });

  it("wrong credentials are InvalidCredentials and store nothing", async () => {
    const count = async () =>
      (await svc.app.store.db.selectFrom("sms_messages").select("id").execute()).length;
    const before = await count();
    const refused = await fault(
      svc.client("bob", "not-bobs-pass").SendSmsWithSenderName({
        senderName: "Bob",
        strCountryCode: "46",
        strPhoneNumber: "0701234567",
        strMessage: "hi",
      }),
    );
    expect(refused.errorCode).toBe("InvalidCredentials");
    expect(await count()).toBe(before);
  });

  it("credits add refuses a bad amount and an unknown account with nothing written", async () => {
    const before = (await ledger(bob)).length;
    for (const amount of ["0", "-1", "1e3", "0.0000001", "abc"]) {
      const run = await admin(svc.databaseUrl, ["credits", "add", "--account", "bob", "--amount", amount]);
      expect(run.code).toBe(1);
      expect(run.stdout).toBe("");
      expect(run.stderr).toMatch(/--amount/);
    }
    expect(
      (await admin(svc.databaseUrl, ["credits", "add", "--account", "nobody", "--amount", "1"])).code,
    ).toBe(1);
    expect((await ledger(bob)).length).toBe(before);
  });
});

describeEngines("SMS delivery", (engine) => {
  let svc: TestService;
  let dave: number;
  let gateway: http.Server;
  let gatewayUrl: string;
  const posts: { key: string | undefined; body: Record<string, unknown> }[] = [];
  let answers: number[] = [];

  beforeAll(async () => {
    svc = await startService(engine, "sms_delivery");
    // These tests drive their own workers: the service's is stopped so it takes nothing.
    await svc.app.sms?.stop();
    dave = await svc.createAccount("dave", "dave-secret-12");
    await refill(svc.app.store, dave, "100", Date.now());
    gateway = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (c: Buffer) => chunks.push(c));
      req.on("end", () => {
        posts.push({
          key: req.headers["idempotency-key"] as string | undefined,
          body: JSON.parse(Buffer.concat(chunks).toString("utf8")) as Record<string, unknown>,
        });
        res.writeHead(answers.shift() ?? 200).end();
      });
    });
    await new Promise<void>((resolve) => gateway.listen(0, "127.0.0.1", resolve));
    gatewayUrl = `http://127.0.0.1:${(gateway.address() as AddressInfo).port}/sms`;
  }, 60_000);
  afterAll(async () => {
    await svc?.close();
    await new Promise((resolve) => gateway?.close(resolve));
  });

  const send = (text: string) =>
    svc
      .client("dave", "dave-secret-12")
      .SendSmsWithSenderName({
        senderName: "Dave",
        strCountryCode: "44",
        strPhoneNumber: "7700 900123",
        strMessage: text,
      })
      .then(present);
  const credits = async () =>
    (
      await svc.app.store.db
        .selectFrom("accounts")
        .select("sms_credits")
        .where("id", "=", dave)
        .executeTakeFirstOrThrow()
    ).sms_credits;
  const state = async (id: bigint) =>
    svc.app.store.db
      .selectFrom("sms_messages")
      .selectAll()
      .where("id", "=", Number(id))
      .executeTakeFirstOrThrow();

  it("a retry after a crash rewrites the same file, never a second one", async () => {
    const sms = await send("crash test");
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "eas-sms-"));
    // A worker that claimed the SMS and died (lease held); a half-written file of its attempt is there.
    let clock = Date.now();
    const crashed = new SmsWorker(svc.app.store, { dir, leaseMs: 1000, now: () => clock });
    await (crashed as unknown as { claim(n: number): Promise<unknown[]> }).claim(50);
    fs.writeFileSync(path.join(dir, `${sms.Id}.json`), "{ half");
    const other = new SmsWorker(svc.app.store, { dir, now: () => clock });
    expect(await other.flush()).toBe(0); // leased by the crashed worker
    clock += 1001;
    expect(await other.flush()).toBe(1);
    expect(fs.readdirSync(dir)).toEqual([`${sms.Id}.json`]);
    expect(JSON.parse(fs.readFileSync(path.join(dir, `${sms.Id}.json`), "utf8"))).toMatchObject({
      id: Number(sms.Id),
      to: "+447700900123",
      text: "crash test",
    });
    expect((await state(sms.Id)).state).toBe("sent");
  });

  it("SMS_URL: POSTs JSON with an idempotency key, retries 5xx with backoff, a 4xx is dead at once, dead after 5 attempts", async () => {
    let clock = Date.now();
    const worker = new SmsWorker(svc.app.store, { dir: "unused", url: gatewayUrl, now: () => clock });
    const first = await send("via gateway");
    clock = Date.now();
    answers = [503, 502];
    expect(await worker.flush()).toBe(0);
    expect(await worker.flush()).toBe(0); // backing off: not due yet
    clock += 2_001;
    expect(await worker.flush()).toBe(0);
    clock += 4_001;
    expect(await worker.flush()).toBe(1);
    const mine = posts.filter((p) => p.body.id === Number(first.Id));
    expect(mine).toHaveLength(3);
    expect(new Set(mine.map((p) => p.key))).toEqual(new Set([`sms-${first.Id}`]));
    expect(mine[0]!.body).toMatchObject({
      from: "Dave",
      to: "+447700900123",
      text: "via gateway",
      encoding: "GSM-7",
      segments: 1,
    });
    expect(await state(first.Id)).toMatchObject({ state: "sent", attempts: 3 });

    const refused = await send("refused");
    answers = [400];
    await worker.flush();
    expect(await state(refused.Id)).toMatchObject({
      state: "dead",
      attempts: 1,
      last_error: "the SMS gateway answered HTTP 400",
    });
    // A dead SMS gives its credits back, with a ledger row.
    expect(await credits()).toBe(addDecimal(refused.TotalCredits, refused.CreditCost));
    const refund = await svc.app.store.db
      .selectFrom("credit_ledger")
      .selectAll()
      .where("sms_id", "=", Number(refused.Id))
      .orderBy("id")
      .execute();
    expect(refund.map((l) => [l.reason, l.amount])).toEqual([
      ["sms", "-1"],
      ["refund", "1"],
    ]);

    const failing = await send("always failing");
    answers = [500, 500, 500, 500, 500];
    for (let i = 0; i < 5; i++) {
      await worker.flush();
      clock += 3600_001;
    }
    expect(await state(failing.Id)).toMatchObject({ state: "dead", attempts: 5 });
    expect(await credits()).toBe(addDecimal(failing.TotalCredits, failing.CreditCost));
    expect(posts.filter((p) => p.body.id === Number(failing.Id))).toHaveLength(5);
  });

  it("a refund of a dead SMS pays the waiting one behind it, which is then delivered", async () => {
    const eve = await svc.createAccount("eve", "eve-secret-123");
    await refill(svc.app.store, eve, "1", Date.now());
    const client = svc.client("eve", "eve-secret-123");
    const params = {
      senderName: "Eve",
      strCountryCode: "49",
      strPhoneNumber: "15123456789",
      strMessage: "one",
    };
    const a = present(await client.SendSmsWithSenderName(params));
    const b = present(await client.SendSmsWithSenderName({ ...params, strMessage: "two" }));
    expect([a.TotalCredits, b.TotalCredits]).toEqual(["0", "0"]);
    expect((await state(b.Id)).state).toBe("waiting");
    const worker = new SmsWorker(svc.app.store, { dir: "unused", url: gatewayUrl });
    answers = [404, 200];
    expect(await worker.flush()).toBe(1);
    expect((await state(a.Id)).state).toBe("dead");
    expect((await state(b.Id)).state).toBe("sent");
    const rows = await svc.app.store.db
      .selectFrom("credit_ledger")
      .select(["reason", "amount", "balance", "sms_id"])
      .where("account_id", "=", eve)
      .orderBy("id")
      .execute();
    expect(rows).toEqual([
      { reason: "refill", amount: "1", balance: "1", sms_id: null },
      { reason: "sms", amount: "-1", balance: "0", sms_id: Number(a.Id) },
      { reason: "refund", amount: "1", balance: "1", sms_id: Number(a.Id) },
      { reason: "sms", amount: "-1", balance: "0", sms_id: Number(b.Id) },
    ]);
  });
});
