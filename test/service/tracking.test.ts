// Tracking on SQLite and PostgreSQL: prepareTracking's rewrite per newsletter tracking mode (http(s)
// links tracked once per URL, the pixel only for `all`, mailto:/tel:/anchors/relative/unsubscribe links
// untouched), the routes through the whole service (a view per pixel load, a click that redirects to
// exactly the tracked URL, a conversion with its exact value for `roi` only), and the refusals: forged
// tokens, a token replayed for another subscriber or another sending's link, a link that does not
// exist, raw and protocol-relative URLs — all 404 with no redirect and nothing recorded. The href
// scanner is linear on 1 MB of hostile HTML.

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TRACKING_LIMITS, TrackingLimiter } from "../../service/http/tracking.js";
import type { Tracking } from "../../service/db/schema.js";
import { sameInputRatio, sameInputRatioAsync } from "../fixtures/growth.js";
import { describeEngines } from "./support/engines.js";
import { type TestService, eventually, startService } from "./support/service.js";
import { findAnchorHrefs } from "../../service/operations/mailing/tracking.js";
import { loadLinkKey } from "../../service/operations/mailing/tracking.js";
import { prepareTracking } from "../../service/operations/mailing/tracking.js";
import { signToken } from "../../service/operations/mailing/tracking.js";
import { verifyToken } from "../../service/operations/mailing/tracking.js";

const PUBLIC = "http://127.0.0.1:1";

const HTML = [
  "<html><body>",
  '<p><a href="https://shop.example/item?id=7&amp;ref=news">Item</a></p>',
  "<p><A class=x HREF='https://shop.example/item?id=7&amp;ref=news'>Again</A></p>",
  "<p><a href=http://plain.example/a>Unquoted</a></p>",
  '<p><a href="mailto:ann@example.com">Mail</a> <a href="tel:+46701234567">Call</a></p>',
  '<p><a href="#top">Top</a> <a href="/relative">Rel</a> <a href="javascript:alert(1)">JS</a></p>',
  `<p><a href="${PUBLIC}/u/abc.def">Unsubscribe</a></p>`,
  '<p><img src="https://img.example/logo.png"></p>',
  "</body></html>",
].join("\n");

describe("tokens", () => {
  const key = Buffer.alloc(32, 7);
  it("round-trips and refuses anything not signed exactly", () => {
    const token = signToken(key, { kind: "c", sendingId: 3, subscriberId: 9, linkId: 12 });
    expect(token).toMatch(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{22}$/);
    expect(verifyToken(key, token)).toEqual({ kind: "c", sendingId: 3, subscriberId: 9, linkId: 12 });
    expect(verifyToken(Buffer.alloc(32, 8), token)).toBeUndefined();
    for (let i = 0; i < token.length; i++) {
      if (token[i] === ".") continue;
      const forged = token.slice(0, i) + (token[i] === "A" ? "B" : "A") + token.slice(i + 1);
      expect(verifyToken(key, forged), forged).toBeUndefined();
    }
    for (const bad of [
      "",
      ".",
      "x",
      "a.b.c",
      `${token}.`,
      `${token}=`,
      `${token}x`,
      token.replace(".", "%2E"),
      "é.é",
      "x".repeat(10_000),
    ]) {
      expect(verifyToken(key, bad)).toBeUndefined();
    }
    expect(() => signToken(key, { kind: "o", sendingId: 1, subscriberId: 1, linkId: 1 })).toThrow();
    expect(() => signToken(key, { kind: "c", sendingId: 1, subscriberId: 1 })).toThrow();
  });

  it("finds hrefs in linear time on 1 MB of hostile HTML", () => {
    const hostile = (n: number) => [
      "<a ".repeat(n), // tags that never close
      "<a href=x ".repeat(n), // one tag, attribute soup, never closes
      `<a href="${"<a ".repeat(n)}`, // an unterminated quote
      "<a\thref='x'>".repeat(n), // many closed tags
      `<a ${"x=".repeat(n)}>`,
      `${"<".repeat(n)}a`,
      `${"<a =".repeat(n)}>`,
    ];
    // 100 scans of 10 KB against one of 1 MB (sameInputRatio): linear time is a ratio near 1 (1.9 at most
    // over 28 runs here) and quadratic near 100 (a quadratic scan measured 117).
    const small = hostile(2_500).map((s) => s.slice(0, 10_000));
    const large = hostile(250_000).map((s) => s.slice(0, 1_000_000));
    for (let k = 0; k < small.length; k++) {
      const ratio = sameInputRatio(
        () => findAnchorHrefs(small[k]!),
        () => findAnchorHrefs(large[k]!),
      );
      expect(ratio, `pattern ${k}`).toBeLessThan(10);
    }
  });
});

describeEngines("tracking", (engine) => {
  let svc: TestService;
  let key: Buffer;
  let account: number;
  let list: number;
  let ann: number;
  let bob: number;
  let template: number;
  /** The service's clock is Date.now() + offset: the tests move it across tracking windows. */
  let offset = 0;

  beforeAll(async () => {
    svc = await startService(engine, "tracking", {}, { now: () => Date.now() + offset });
    key = await loadLinkKey(svc.app.store);
    account = await svc.createAccount("tracker", "secret-pass");
    list = await svc.createList(account, "News");
    const subscriber = async (email: string) =>
      (
        await svc.app.store.db
          .insertInto("subscribers")
          .values({ account_id: account, email, email_key: email.toLowerCase(), created_at: Date.now() })
          .returning("id")
          .executeTakeFirstOrThrow()
      ).id;
    ann = await subscriber("ann@example.com");
    bob = await subscriber("bob@example.com");
    template = (
      await svc.app.store.db
        .insertInto("templates")
        .values({ account_id: account, name: "T", html: HTML, created_at: Date.now() })
        .returning("id")
        .executeTakeFirstOrThrow()
    ).id;
  });
  afterAll(async () => svc?.close());

  const db = () => svc.app.store.db;

  async function sending(tracking: Tracking): Promise<number> {
    const newsletter = await db()
      .insertInto("newsletters")
      .values({
        account_id: account,
        template_id: template,
        name: `N-${tracking}`,
        subject: "S",
        tracking,
        created_at: Date.now(),
      })
      .returning("id")
      .executeTakeFirstOrThrow();
    const row = await db()
      .insertInto("sendings")
      .values({
        account_id: account,
        newsletter_id: newsletter.id,
        list_id: list,
        filter_id: null,
        from_email: "news@example.com",
        send_at: Date.now(),
        created_at: Date.now(),
      })
      .returning("id")
      .executeTakeFirstOrThrow();
    return row.id;
  }

  const prepare = (sendingId: number, subscriberId: number, tracking: Tracking, html = HTML) =>
    svc.app.store.write((trx) =>
      prepareTracking(trx, { accountId: account, sendingId, subscriberId, tracking }, html, PUBLIC, key),
    );

  const links = (sendingId: number) =>
    db().selectFrom("tracked_links").selectAll().where("sending_id", "=", sendingId).orderBy("id").execute();
  const events = (sendingId: number) =>
    db()
      .selectFrom("tracking_events")
      .selectAll()
      .where("sending_id", "=", sendingId)
      .orderBy("id")
      .execute();
  const get = (path: string) => fetch(`${svc.url}${path}`, { redirect: "manual" });
  const clickTokens = (html: string) => [...html.matchAll(/\/t\/c\/([A-Za-z0-9_.-]+)/g)].map((m) => m[1]!);

  it("rewrites http(s) links and adds the pixel per tracking mode", async () => {
    const none = await sending("no");
    expect(await prepare(none, ann, "no")).toBe(HTML);
    expect(await links(none)).toEqual([]);

    const all = await sending("all");
    const out = await prepare(all, ann, "all");
    const tracked = await links(all);
    expect(tracked.map((l) => l.url)).toEqual([
      "https://shop.example/item?id=7&ref=news",
      "http://plain.example/a",
    ]);
    const tokens = clickTokens(out);
    expect(tokens).toHaveLength(3);
    expect(tokens.map((t) => verifyToken(key, t)?.linkId)).toEqual([
      tracked[0]!.id,
      tracked[0]!.id,
      tracked[1]!.id,
    ]);
    expect(out).toContain(`<a href="${PUBLIC}/t/c/${tokens[0]}">Item</a>`);
    expect(out).toContain(`HREF='${PUBLIC}/t/c/${tokens[1]}'>Again`);
    expect(out).toContain(`<a href="${PUBLIC}/t/c/${tokens[2]}">Unquoted`);
    for (const kept of [
      'href="mailto:ann@example.com"',
      'href="tel:+46701234567"',
      'href="#top"',
      'href="/relative"',
      'href="javascript:alert(1)"',
      `href="${PUBLIC}/u/abc.def"`,
      'src="https://img.example/logo.png"',
    ]) {
      expect(out).toContain(kept);
    }
    expect(out).not.toContain("shop.example");
    const pixel =
      /<img src="http:\/\/127\.0\.0\.1:1\/t\/o\/([A-Za-z0-9_.-]+)" width="1" height="1" alt="">\n?<\/body>/.exec(
        out,
      );
    expect(pixel).not.toBeNull();
    expect(verifyToken(key, pixel![1]!)).toEqual({ kind: "o", sendingId: all, subscriberId: ann });

    // Another recipient of the same sending: same link rows, own tokens.
    const again = await prepare(all, bob, "all");
    expect(await links(all)).toEqual(tracked);
    expect(clickTokens(again).map((t) => verifyToken(key, t)?.subscriberId)).toEqual([bob, bob, bob]);

    const roi = await sending("roi");
    const roiOut = await prepare(roi, ann, "roi");
    expect(clickTokens(roiOut)).toHaveLength(3);
    expect(roiOut).not.toContain("/t/o/");
    expect(await prepare(roi, ann, "all", "<p><a href='https://x.example/'>x</a></p>")).toMatch(
      /<\/a><\/p><img src="[^"]+\/t\/o\/[^"]+" width="1" height="1" alt="">$/,
    );
  });

  it("records a view per pixel load and answers the GIF, also for invalid tokens", async () => {
    const s = await sending("all");
    const out = await prepare(s, ann, "all");
    const token = /\/t\/o\/([A-Za-z0-9_.-]+)"/.exec(out)![1]!;
    const res = await get(`/t/o/${token}`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("image/gif");
    expect(res.headers.get("cache-control")).toContain("no-store");
    const gif = Buffer.from(await res.arrayBuffer());
    expect(gif.subarray(0, 6).toString("latin1")).toBe("GIF89a");
    expect((await events(s)).map((e) => [e.kind, e.subscriber_id, e.link_id])).toEqual([["view", ann, null]]);

    for (const bad of [
      `${token.slice(0, -1)}${token.endsWith("A") ? "B" : "A"}`,
      "nonsense",
      signToken(Buffer.alloc(32), { kind: "o", sendingId: s, subscriberId: ann }),
    ]) {
      const r = await get(`/t/o/${bad}`);
      expect(r.status).toBe(200);
      expect(r.headers.get("content-type")).toBe("image/gif");
      await r.arrayBuffer();
    }
    expect(await events(s)).toHaveLength(1);
  });

  it("records a click and redirects to exactly the tracked URL", async () => {
    const s = await sending("all");
    const [token] = clickTokens(await prepare(s, bob, "all"));
    const head = await fetch(`${svc.url}/t/c/${token}`, { method: "HEAD", redirect: "manual" });
    expect(head.status).toBe(302); // link checkers' HEAD is answered but not counted
    expect(await events(s)).toEqual([]);
    const res = await get(`/t/c/${token}`);
    expect(res.status).toBe(302);
    expect(res.headers.get("location")).toBe("https://shop.example/item?id=7&ref=news");
    const recorded = await events(s);
    expect(recorded.map((e) => [e.kind, e.subscriber_id, e.link_id, e.account_id])).toEqual([
      ["click", bob, verifyToken(key, token!)!.linkId, account],
    ]);
    // A token counts views and clicks: request logs name the route, never the token.
    const redirects = () => svc.logs.filter((l) => l.path === "/t/c/{token}" && l.status === 302).length;
    await eventually(() => redirects() >= 2);
    expect(redirects()).toBeGreaterThanOrEqual(2);
    expect(JSON.stringify(svc.logs)).not.toContain(token!);
  });

  it("refuses forged, replayed, cross-sending and unknown-link tokens: 404, no redirect, nothing recorded", async () => {
    const s1 = await sending("all");
    const s2 = await sending("all");
    const [t1] = clickTokens(await prepare(s1, ann, "all"));
    const [t2] = clickTokens(await prepare(s2, ann, "all"));
    const own = verifyToken(key, t1!)!;
    const other = verifyToken(key, t2!)!;
    const [payload, mac] = t1!.split(".") as [string, string];
    const replayed = `${Buffer.from(`c.${s1}.${bob}.${own.linkId}`).toString("base64url")}.${mac}`; // Bob for Ann's MAC
    const attempts = [
      `${payload}.${mac[0] === "A" ? "B" : "A"}${mac.slice(1)}`, // one byte of the MAC changed
      `${Buffer.from(`c.${s1}.${ann}.${other.linkId}`).toString("base64url")}.${mac}`, // another link under Ann's MAC
      replayed,
      signToken(key, { kind: "c", sendingId: s1, subscriberId: ann, linkId: other.linkId! }), // validly signed, but s2's link
      signToken(key, { kind: "c", sendingId: s1, subscriberId: ann, linkId: 987_654_321 }), // no such link
      signToken(key, { kind: "o", sendingId: s1, subscriberId: ann }), // a pixel token is no click token
      "https://evil.example",
      "https:%2F%2Fevil.example",
      "%2F%2Fevil.example",
    ];
    const paths = [
      ...attempts.map((t) => `/t/c/${t}`),
      "/t/c/https://evil.example",
      "/t/c//evil.example",
      "/t/c/%2F%2Fevil",
      "/t/c/",
      "/t/c/x?url=https://evil.example",
    ];
    for (const path of paths) {
      const res = await get(path);
      expect(res.status, path).toBe(404);
      expect(res.headers.get("location"), path).toBeNull();
      await res.arrayBuffer();
    }
    expect(await events(s1)).toEqual([]);
    expect(await events(s2)).toEqual([]);
  });

  it("records a conversion with its exact value for roi sendings only", async () => {
    const roi = await sending("roi");
    const [token] = clickTokens(await prepare(roi, ann, "roi"));
    const linkId = verifyToken(key, token!)!.linkId;
    const ok = await get(`/t/v/${token}?value=12.50`);
    expect(ok.status).toBe(204);
    const zero = await get(`/t/v/${token}`);
    expect(zero.status).toBe(204);
    for (const bad of ["-1", "1e3", "abc", "0.1234567", "", "12.50&value=3"]) {
      const res = await get(`/t/v/${token}?value=${bad}`);
      expect(res.status, bad).toBe(400);
      await res.arrayBuffer();
    }
    expect((await events(roi)).map((e) => [e.kind, e.subscriber_id, e.link_id, e.value])).toEqual([
      ["conversion", ann, linkId, "12.5"],
      ["conversion", ann, linkId, "0"],
    ]);

    const all = await sending("all");
    const [allToken] = clickTokens(await prepare(all, ann, "all"));
    const notRoi = await get(`/t/v/${allToken}?value=1`);
    expect(notRoi.status).toBe(404);
    const forged = await get(`/t/v/${token!.slice(0, -2)}AA?value=1`);
    expect(forged.status).toBe(404);
    expect(await events(all)).toEqual([]);
    expect(await events(roi)).toHaveLength(2);
  });

  describe("bounds on what one token records", () => {
    const { windowMs } = TRACKING_LIMITS;
    const kinds = async (s: number) => (await events(s)).map((e) => e.kind);

    it("a pixel records one view per recipient per window and 50 in all; every load gets the GIF", async () => {
      const s = await sending("all");
      const pixel = (html: string) => /\/t\/o\/([A-Za-z0-9_.-]+)"/.exec(html)![1]!;
      const annPixel = pixel(await prepare(s, ann, "all"));
      const bobPixel = pixel(await prepare(s, bob, "all"));
      const load = async (token: string) => {
        const res = await get(`/t/o/${token}`);
        expect(res.status).toBe(200);
        expect(res.headers.get("content-type")).toBe("image/gif");
        expect(
          Buffer.from(await res.arrayBuffer())
            .subarray(0, 6)
            .toString("latin1"),
        ).toBe("GIF89a");
      };
      for (let i = 0; i < 30; i++) await load(annPixel);
      await load(bobPixel); // another recipient's own bound
      expect(await kinds(s)).toEqual(["view", "view"]);
      offset += windowMs - 1000; // still the same window
      await load(annPixel);
      expect(await events(s)).toHaveLength(2);
      offset += 1000; // the window has ended
      await load(annPixel);
      await load(annPixel);
      expect((await events(s)).filter((e) => e.subscriber_id === ann)).toHaveLength(2);
      for (let w = 0; w < TRACKING_LIMITS.view.total + 5; w++) {
        offset += windowMs;
        await load(annPixel);
      }
      expect((await events(s)).filter((e) => e.subscriber_id === ann)).toHaveLength(
        TRACKING_LIMITS.view.total,
      );
    });

    it("a link records one click per recipient per window and 20 in all; every follow is redirected", async () => {
      const s = await sending("all");
      const [first, , second] = clickTokens(await prepare(s, ann, "all"));
      const follow = async (token: string) => {
        const res = await get(`/t/c/${token}`);
        expect(res.status).toBe(302);
        expect(res.headers.get("location")).toMatch(/^https?:\/\/(shop|plain)\.example\//);
        await res.arrayBuffer();
      };
      for (let i = 0; i < 25; i++) await follow(first!);
      await follow(second!); // another link: its own bound
      expect((await events(s)).map((e) => [e.kind, e.link_id])).toEqual([
        ["click", verifyToken(key, first!)!.linkId],
        ["click", verifyToken(key, second!)!.linkId],
      ]);
      for (let w = 0; w < TRACKING_LIMITS.click.total + 5; w++) {
        offset += windowMs;
        await follow(first!);
        await follow(first!);
      }
      expect((await events(s)).filter((e) => e.link_id === verifyToken(key, first!)!.linkId)).toHaveLength(
        TRACKING_LIMITS.click.total,
      );
    });

    it("a conversion is at most 1,000,000,000 (400 above) and a click token records 10 in all, answered 204", async () => {
      const roi = await sending("roi");
      const [token] = clickTokens(await prepare(roi, ann, "roi"));
      for (const tooLarge of ["1000000000.000001", "1000000001", "9".repeat(24)]) {
        const res = await get(`/t/v/${token}?value=${tooLarge}`);
        expect(res.status, tooLarge).toBe(400);
        expect(await res.text()).toContain("at most 1000000000");
      }
      expect(await events(roi)).toEqual([]);
      for (let i = 0; i < 15; i++) {
        const res = await get(`/t/v/${token}?value=1000000000`);
        expect(res.status).toBe(204);
      }
      offset += 30 * windowMs; // the total holds for good
      expect((await get(`/t/v/${token}?value=1`)).status).toBe(204);
      const recorded = await events(roi);
      expect(recorded).toHaveLength(TRACKING_LIMITS.conversion.total);
      expect(new Set(recorded.map((e) => e.value))).toEqual(new Set(["1000000000"]));
    });

    it("holds across instances: concurrent admits from two limiters on one database count once per window", async () => {
      const s = await sending("all");
      const limiters = [new TrackingLimiter(), new TrackingLimiter()];
      const at = Date.now() + offset;
      const key = { kind: "click", sendingId: s, subscriberId: ann, linkId: 1 } as const;
      const admitted = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          svc.app.store.write((trx) => limiters[i % 2]!.admit(trx, key, at)),
        ),
      );
      expect(admitted.filter(Boolean)).toHaveLength(1);
      expect(limiters.every((l) => l.exhaustedAt(key, at))).toBe(true);
      expect(limiters[0]!.exhaustedAt(key, at + windowMs)).toBe(false);
      const later = await Promise.all(
        Array.from({ length: 6 }, (_, i) =>
          svc.app.store.write((trx) => limiters[i % 2]!.admit(trx, key, at + windowMs)),
        ),
      );
      expect(later.filter(Boolean)).toHaveLength(1);
    });

    it("keeps at most cacheEntries exhausted tokens in memory", async () => {
      const s = await sending("all");
      const limiter = new TrackingLimiter({ ...TRACKING_LIMITS, cacheEntries: 8 });
      const at = Date.now() + offset;
      for (let subscriber = 1; subscriber <= 40; subscriber++) {
        const key = { kind: "view", sendingId: s, subscriberId: subscriber, linkId: 0 } as const;
        expect(await svc.app.store.write((trx) => limiter.admit(trx, key, at))).toBe(true);
        expect(limiter.exhaustedAt(key, at)).toBe(true);
      }
      expect(limiter.cachedKeys).toBe(8);
      // A token dropped from the cache is still refused: by the database.
      const dropped = { kind: "view", sendingId: s, subscriberId: 1, linkId: 0 } as const;
      expect(limiter.exhaustedAt(dropped, at)).toBe(false);
      expect(await svc.app.store.write((trx) => limiter.admit(trx, dropped, at))).toBe(false);
    });
  });

  it("rewrites 1 MB of hostile HTML in linear time", async () => {
    const s = await sending("all");
    // Many closed tags whose hrefs are entity soup (decoded, parsed, refused), then one tag that never closes.
    const hostile = (n: number) =>
      `${'<a href="&#x1&amp;&#9&#">'.repeat(n / 50)}${"<a href=&#x ".repeat(n / 20)}`.slice(0, n);
    // 100 rewrites of 10 KB against one of 1 MB (sameInputRatioAsync): about the same time when linear
    // (less: the small side is 100 transactions), about 100 times when quadratic.
    const small = hostile(10_000);
    const large = hostile(1_000_000);
    const ratio = await sameInputRatioAsync(
      () =>
        svc.app.store.db
          .transaction()
          .execute((trx) =>
            prepareTracking(
              trx,
              { accountId: account, sendingId: s, subscriberId: ann, tracking: "all" },
              small,
              PUBLIC,
              key,
            ),
          ),
      () =>
        svc.app.store.db
          .transaction()
          .execute((trx) =>
            prepareTracking(
              trx,
              { accountId: account, sendingId: s, subscriberId: ann, tracking: "all" },
              large,
              PUBLIC,
              key,
            ),
          ),
    );
    expect(ratio).toBeLessThan(10);
  });
});
