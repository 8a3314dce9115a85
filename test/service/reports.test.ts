// Reports on SQLite and PostgreSQL, read through the generated client: GetReportViewsByDateInterval
// (one row per view of the sending, oldest first; the interval in the account's time zone, both bounds
// inclusive to the whole second; the DD column named after ddField with its values and nulls) and
// GetRoiResults (per tracked URL by id, URLs without events included; conversion values summed exactly
// before the double). Another account's sending is NotFound naming strSendQueueId, rows carrying
// another account's id never show, and wrong credentials are refused. The last test drives the real
// tracking routes with signed tokens and reads what they recorded.

import { afterAll, beforeAll, expect, it } from "vitest";
import type { Tracking } from "../../service/db/schema.js";
import { describeEngines } from "./support/engines.js";
import { BINDINGS, type TestService, fault, startService } from "./support/service.js";
import { loadLinkKey } from "../../service/operations/mailing/tracking.js";
import { signToken } from "../../service/operations/mailing/tracking.js";

const at = (iso: string) => Date.parse(iso);

describeEngines("reports", (engine) => {
  let svc: TestService;
  let alice: number;
  let bob: number;
  let ann: number;
  let ben: number;
  let bobSub: number;
  let template: number;
  let list: number;

  beforeAll(async () => {
    svc = await startService(engine, "reports");
    alice = await svc.createAccount("alice", "alice-secret-1");
    bob = await svc.createAccount("bob", "bob-secret-123");
    // Europe/Stockholm is UTC+1 in January: local 10:00:00 is 09:00:00Z.
    await svc.app.store.db
      .updateTable("accounts")
      .set({ time_zone: "Europe/Stockholm" })
      .where("id", "=", alice)
      .execute();
    list = await svc.createList(alice, "News");
    const subscriber = async (account: number, email: string, name: string, fields: Record<string, string>) =>
      (
        await svc.app.store.db
          .insertInto("subscribers")
          .values({
            account_id: account,
            email,
            email_key: email.toLowerCase(),
            name,
            fields: JSON.stringify(fields),
            created_at: Date.now(),
          })
          .returning("id")
          .executeTakeFirstOrThrow()
      ).id;
    ann = await subscriber(alice, "Ann@example.com", "Ann <b>A</b>", { "3": "SE", "7": "" });
    ben = await subscriber(alice, "ben@example.com", "", { "4": "x" });
    bobSub = await subscriber(bob, "secret@example.com", "Bob's own", { "3": "BOB" });
    template = (
      await svc.app.store.db
        .insertInto("templates")
        .values({ account_id: alice, name: "T", html: "<p>x</p>", created_at: Date.now() })
        .returning("id")
        .executeTakeFirstOrThrow()
    ).id;
  });
  afterAll(async () => svc?.close());

  const db = () => svc.app.store.db;

  async function sending(tracking: Tracking = "all"): Promise<number> {
    const newsletter = await db()
      .insertInto("newsletters")
      .values({
        account_id: alice,
        template_id: template,
        name: `N-${tracking}`,
        subject: "S",
        tracking,
        created_at: Date.now(),
      })
      .returning("id")
      .executeTakeFirstOrThrow();
    return (
      await db()
        .insertInto("sendings")
        .values({
          account_id: alice,
          newsletter_id: newsletter.id,
          list_id: list,
          filter_id: null,
          from_email: "news@example.com",
          send_at: Date.now(),
          created_at: Date.now(),
        })
        .returning("id")
        .executeTakeFirstOrThrow()
    ).id;
  }

  async function event(
    sendingId: number,
    subscriberId: number,
    kind: "view" | "click" | "conversion",
    createdAt: number,
    extra: { link?: number; value?: string; account?: number } = {},
  ): Promise<void> {
    await db()
      .insertInto("tracking_events")
      .values({
        account_id: extra.account ?? alice,
        sending_id: sendingId,
        subscriber_id: subscriberId,
        kind,
        link_id: extra.link ?? null,
        value: extra.value ?? null,
        created_at: createdAt,
      })
      .execute();
  }

  const link = async (sendingId: number, url: string) =>
    (
      await db()
        .insertInto("tracked_links")
        .values({ account_id: alice, sending_id: sendingId, url })
        .returning("id")
        .executeTakeFirstOrThrow()
    ).id;

  it("lists the views in the interval oldest first, with the DD column named after ddField", async () => {
    const s = await sending();
    const other = await sending();
    // Inserted out of order; the report sorts by time.
    await event(s, ben, "view", at("2026-01-15T09:30:00.000Z"));
    await event(s, ann, "view", at("2026-01-15T09:00:00.000Z")); // local 10:00:00.000: the from bound
    await event(s, ann, "view", at("2026-01-15T09:59:59.999Z")); // local 10:59:59.999: inside the to second
    await event(s, ann, "view", at("2026-01-15T08:59:59.999Z")); // just before
    await event(s, ann, "view", at("2026-01-15T10:00:00.000Z")); // just after
    await event(s, ann, "click", at("2026-01-15T09:10:00.000Z"), {
      link: await link(s, "https://a.example/"),
    });
    await event(other, ann, "view", at("2026-01-15T09:20:00.000Z"));
    // A row carrying another account's id never shows, even on this sending.
    await event(s, bobSub, "view", at("2026-01-15T09:40:00.000Z"), { account: bob });

    const params = {
      strSendQueueId: String(s),
      datIntervalFrom: "2026-01-15T10:00:00",
      datIntervalTo: "2026-01-15T10:59:59",
      ddField: "DD3",
    };
    for (const binding of BINDINGS) {
      const result = await svc
        .client("alice", "alice-secret-1", binding)
        .GetReportViewsByDateInterval(params);
      expect(
        result.columns.map((c) => c.name),
        binding,
      ).toEqual(["SubscriberId", "Email", "Name", "ViewTime", "DD3"]);
      expect(
        result.rows.map((r) => ({
          ...r,
          ViewTime: r.ViewTime === null ? null : new Date(r.ViewTime).toISOString(),
        })),
        binding,
      ).toEqual([
        {
          SubscriberId: BigInt(ann),
          Email: "Ann@example.com",
          Name: "Ann <b>A</b>",
          ViewTime: "2026-01-15T09:00:00.000Z",
          FieldValue: "SE",
        },
        {
          SubscriberId: BigInt(ben),
          Email: "ben@example.com",
          Name: "",
          ViewTime: "2026-01-15T09:30:00.000Z",
          FieldValue: null,
        },
        {
          SubscriberId: BigInt(ann),
          Email: "Ann@example.com",
          Name: "Ann <b>A</b>",
          ViewTime: "2026-01-15T09:59:59.999Z",
          FieldValue: "SE",
        },
      ]);
      expect(
        result.rows.every((r) => r.ViewTime?.endsWith("Z")),
        binding,
      ).toBe(true);
    }

    const client = svc.client("alice", "alice-secret-1");
    // Another field, case as given: an empty value and a missing one are both null.
    const dd7 = await client.GetReportViewsByDateInterval({ ...params, ddField: "dd7" });
    expect(dd7.columns.map((c) => c.name)).toEqual(["SubscriberId", "Email", "Name", "ViewTime", "dd7"]);
    expect(dd7.rows.map((r) => r.FieldValue)).toEqual([null, null, null]);
    const dd4 = await client.GetReportViewsByDateInterval({ ...params, ddField: "DD4" });
    expect(dd4.rows.map((r) => r.FieldValue)).toEqual([null, "x", null]);
    // A one-second interval on the from bound; an interval with no views.
    const one = await client.GetReportViewsByDateInterval({
      ...params,
      datIntervalTo: "2026-01-15T10:00:00",
    });
    expect(one.rows.map((r) => r.ViewTime && new Date(r.ViewTime).toISOString())).toEqual([
      "2026-01-15T09:00:00.000Z",
    ]);
    const none = await client.GetReportViewsByDateInterval({
      ...params,
      datIntervalFrom: "2026-01-16T00:00:00",
      datIntervalTo: "2026-01-17T00:00:00",
    });
    expect(none.rows).toEqual([]);
    expect(none.columns.map((c) => c.name)).toContain("DD3");
  });

  it("refuses fields that are not DD1..DD100 or not activated, reversed intervals, other accounts' sendings and wrong credentials", async () => {
    const s = await sending();
    const params = {
      strSendQueueId: String(s),
      datIntervalFrom: "2026-01-15T10:00:00",
      datIntervalTo: "2026-01-15T10:59:59",
      ddField: "DD3",
    };
    const client = svc.client("alice", "alice-secret-1");
    expect(await fault(client.GetReportViewsByDateInterval({ ...params, ddField: "DD26" }))).toMatchObject({
      errorCode: "FieldNotActivated",
      parameter: "ddField",
    });
    for (const ddField of ["Country", "DD0", "DD101", "Email", "viewtime"]) {
      expect(await fault(client.GetReportViewsByDateInterval({ ...params, ddField })), ddField).toMatchObject(
        { errorCode: "InvalidName", parameter: "ddField" },
      );
    }
    expect(
      await fault(client.GetReportViewsByDateInterval({ ...params, datIntervalFrom: "2026-01-15T11:00:00" })),
    ).toMatchObject({ errorCode: "InvalidInterval" });

    const bobClient = svc.client("bob", "bob-secret-123", "soap12");
    for (const id of [String(s), "0", "abc", "999999"]) {
      expect(
        await fault(bobClient.GetReportViewsByDateInterval({ ...params, strSendQueueId: id })),
        id,
      ).toMatchObject({ errorCode: "NotFound", parameter: "strSendQueueId" });
      expect(await fault(bobClient.GetRoiResults({ strSendQueueId: id })), id).toMatchObject({
        errorCode: "NotFound",
        parameter: "strSendQueueId",
      });
    }
    const wrong = svc.client("alice", "wrong-password");
    expect(await fault(wrong.GetReportViewsByDateInterval(params))).toMatchObject({
      errorCode: "InvalidCredentials",
    });
    expect(await fault(wrong.GetRoiResults({ strSendQueueId: String(s) }))).toMatchObject({
      errorCode: "InvalidCredentials",
    });
  });

  it("gives ROI per URL by id: clicks, closures and exactly summed values; URLs without events too", async () => {
    const s = await sending("roi");
    const other = await sending("roi");
    const shop = await link(s, "https://shop.example/a");
    const blog = await link(s, "https://blog.example/");
    const quiet = await link(s, "https://quiet.example/");
    const elsewhere = await link(other, "https://shop.example/a");
    const t = Date.now();
    await event(s, ann, "click", t, { link: shop });
    await event(s, ben, "click", t, { link: shop });
    await event(s, ann, "click", t, { link: blog });
    await event(s, ann, "view", t);
    await event(s, ann, "conversion", t, { link: shop, value: "0.1" });
    await event(s, ben, "conversion", t, { link: shop, value: "0.2" });
    await event(s, ann, "conversion", t, { link: blog, value: "0" });
    await event(other, ann, "click", t, { link: elsewhere });
    await event(other, ann, "conversion", t, { link: elsewhere, value: "5" });
    // Rows carrying another account's id never count.
    await event(s, bobSub, "click", t, { link: shop, account: bob });
    await event(s, bobSub, "conversion", t, { link: shop, value: "1000", account: bob });
    // Many small values: a float sum would drift, the exact one does not.
    for (let i = 0; i < 10; i++) await event(s, ben, "conversion", t, { link: blog, value: "0.000001" });

    for (const binding of BINDINGS) {
      const roi = await svc
        .client("alice", "alice-secret-1", binding)
        .GetRoiResults({ strSendQueueId: String(s) });
      expect(roi, binding).toEqual([
        { Url: "https://shop.example/a", Clicks: 2, Closures: 2, Value: 0.3 },
        { Url: "https://blog.example/", Clicks: 1, Closures: 11, Value: 0.00001 },
        { Url: "https://quiet.example/", Clicks: 0, Closures: 0, Value: 0 },
      ]);
    }
    expect(0.1 + 0.2).not.toBe(0.3); // what the exact sum avoids
    expect([shop, blog, quiet]).toEqual([...[shop, blog, quiet]].sort((a, b) => a - b));
    const empty = await sending("roi");
    expect(
      await svc.client("alice", "alice-secret-1").GetRoiResults({ strSendQueueId: ` ${empty} ` }),
    ).toEqual([]);
  });

  it("reports what the tracking routes recorded from signed tokens", async () => {
    const key = await loadLinkKey(svc.app.store);
    const s = await sending("roi");
    const shop = await link(s, "https://shop.example/buy");
    const get = (path: string) => fetch(`${svc.url}${path}`, { redirect: "manual" });
    const before = Date.now();
    expect((await get(`/t/o/${signToken(key, { kind: "o", sendingId: s, subscriberId: ann })}`)).status).toBe(
      200,
    );
    const click = signToken(key, { kind: "c", sendingId: s, subscriberId: ann, linkId: shop });
    expect((await get(`/t/c/${click}`)).status).toBe(302);
    expect((await get(`/t/v/${click}?value=19.99`)).status).toBe(204);
    expect(
      (
        await get(
          `/t/v/${signToken(key, { kind: "v", sendingId: s, subscriberId: ben, linkId: shop })}?value=0.01`,
        )
      ).status,
    ).toBe(204);

    const client = svc.client("alice", "alice-secret-1", "httpPost");
    expect(await client.GetRoiResults({ strSendQueueId: String(s) })).toEqual([
      { Url: "https://shop.example/buy", Clicks: 1, Closures: 2, Value: 20 },
    ]);
    // The interval in Europe/Stockholm wall-clock time, a day either side of now.
    const local = (ms: number) =>
      new Intl.DateTimeFormat("sv-SE", {
        timeZone: "Europe/Stockholm",
        year: "numeric",
        month: "2-digit",
        day: "2-digit",
        hour: "2-digit",
        minute: "2-digit",
        second: "2-digit",
        hourCycle: "h23",
      })
        .format(ms)
        .replace(" ", "T");
    const views = await client.GetReportViewsByDateInterval({
      strSendQueueId: String(s),
      datIntervalFrom: local(before - 86_400_000),
      datIntervalTo: local(Date.now() + 86_400_000),
      ddField: "DD3",
    });
    expect(views.rows).toHaveLength(1);
    expect(views.rows[0]).toMatchObject({
      SubscriberId: BigInt(ann),
      Email: "Ann@example.com",
      FieldValue: "SE",
    });
    expect(Date.parse(views.rows[0]!.ViewTime!)).toBeGreaterThanOrEqual(Math.floor(before / 1000) * 1000);
  });
});
