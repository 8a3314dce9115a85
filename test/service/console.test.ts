// The operator's console over HTTP (docs/console.md), on SQLite and PostgreSQL: sign-in with the API's
// credentials and throttle, the session cookie's attributes, server-side sessions (bounded per account,
// ended by expiry, sign-out and a password change), CSRF tokens and cross-site refusals on every POST, no
// open redirect, the security headers, bounded form bodies, escaping, and per-account isolation.

import { afterAll, beforeAll, expect, it } from "vitest";
import { readConfig } from "../../service/config.js";
import { isConsolePath } from "../../service/console/http.js";
import { MAX_SESSIONS } from "../../service/console/sessions.js";
import { recordConsent } from "../../service/tables/consents.js";
import { ConsoleClient } from "./support/console.js";
import { describeEngines } from "./support/engines.js";
import { type TestService, startService } from "./support/service.js";

const PASSWORD = "correct horse battery";

describeEngines("console", (engine) => {
  let service: TestService;
  let clock = Date.now();
  let alice: number;
  let bob: number;

  beforeAll(async () => {
    service = await startService(engine, "console", {}, { now: () => clock });
    alice = await service.createAccount("alice", PASSWORD);
    bob = await service.createAccount("bob", PASSWORD);
    const list = await service.createList(alice, "Alice's <b>list</b>");
    const db = service.app.store.db;
    const ids = await db
      .insertInto("subscribers")
      .values([
        {
          account_id: alice,
          email: "a1@example.com",
          email_key: "a1@example.com",
          name: "<img src=x onerror=alert(1)>",
          created_at: clock,
        },
        {
          account_id: alice,
          email: "a2@example.com",
          email_key: "a2@example.com",
          name: "Anna",
          created_at: clock,
        },
      ])
      .returning("id")
      .execute();
    await db
      .insertInto("memberships")
      .values(
        ids.map((r, i) => ({
          list_id: list,
          subscriber_id: r.id,
          account_id: alice,
          state: i === 0 ? "active" : "pending",
          created_at: clock,
          changed_at: clock,
        })),
      )
      .execute();
  });
  afterAll(async () => service?.close());

  it("sends a signed-out browser to the sign-in page, with the page it asked for as next", async () => {
    const client = new ConsoleClient(service.url);
    const answer = await client.get("/console/lists?x=1");
    expect(answer.status).toBe(303);
    expect(answer.headers.get("location")).toBe("/console/sign-in?next=%2Fconsole%2Flists%3Fx%3D1");
    const page = await client.get("/console/");
    expect(page.status).toBe(303);
    // Polls, charts' series and frames answer 401 rather than a sign-in page.
    for (const path of [
      "/console/imports/1/progress",
      "/console/sendings/1/series",
      "/console/newsletters/1/preview.html",
    ])
      expect((await client.get(path)).status, path).toBe(401);
  });

  it("signs in with the account's credentials; the cookie is HttpOnly, SameSite=Strict, Path=/console/", async () => {
    const client = new ConsoleClient(service.url);
    const form = await client.get("/console/sign-in");
    expect(form.status).toBe(200);
    expect(form.headers.get("content-security-policy")).toContain("script-src 'self'");
    expect(form.headers.get("content-security-policy")).not.toContain("unsafe-inline");
    expect(form.headers.get("x-frame-options")).toBe("DENY");
    expect(form.text).not.toMatch(/<script(?![^>]*\bsrc=)/);
    const wrong = await client.post("/console/sign-in", { username: "alice", password: "nope" });
    expect(wrong.status).toBe(401);
    expect(wrong.text).toContain("The user name or password is wrong.");
    expect(client.jar.has("eas_console")).toBe(false);
    const right = await client.post("/console/sign-in", { username: "alice", password: PASSWORD });
    expect(right.status).toBe(303);
    expect(right.headers.get("location")).toBe("/console/");
    const set = right.headers.getSetCookie().find((c) => c.startsWith("eas_console="))!;
    expect(set).toMatch(/; HttpOnly/);
    expect(set).toMatch(/; SameSite=Strict/);
    expect(set).toMatch(/; Path=\/console\//);
    expect(set).not.toMatch(/; Secure/);
    const dashboard = await client.get("/console/");
    expect(dashboard.status).toBe(200);
    expect(dashboard.text).toContain("Dashboard");
    // The token is kept only as a hash.
    const token = client.jar.get("eas_console")!;
    const rows = await service.app.store.db.selectFrom("console_sessions").select("token_hash").execute();
    expect(rows.some((r) => r.token_hash === token)).toBe(false);
    expect(rows.length).toBeGreaterThan(0);
  });

  it("never redirects off the console after sign-in", async () => {
    for (const next of [
      "//evil.example/",
      "https://evil.example/",
      "/\\evil.example",
      "/console/\\..\\x",
      "javascript:alert(1)",
      "/elsewhere",
    ]) {
      const client = new ConsoleClient(service.url);
      const answer = await client.signIn("alice", PASSWORD, next);
      expect(answer.status, next).toBe(303);
      expect(answer.headers.get("location"), next).toBe("/console/");
    }
    const client = new ConsoleClient(service.url);
    const answer = await client.signIn("alice", PASSWORD, "/console/lists?x=1");
    expect(answer.headers.get("location")).toBe("/console/lists?x=1");
    expect(isConsolePath("/console/../../x")).toBe(false);
    expect(isConsolePath("/console/%2e%2e/x")).toBe(false); // the URL parser reads %2e%2e as ..
  });

  it("refuses a sign-in without the form's nonce, or from another site", async () => {
    const bare = new ConsoleClient(service.url);
    const noNonce = await bare.post("/console/sign-in", {
      username: "alice",
      password: PASSWORD,
      _csrf: "x",
    });
    expect(noNonce.status).toBe(403);
    expect(bare.jar.has("eas_console")).toBe(false);
    const client = new ConsoleClient(service.url);
    await client.get("/console/sign-in");
    const cross = await client.post(
      "/console/sign-in",
      { username: "alice", password: PASSWORD },
      { "sec-fetch-site": "cross-site" },
    );
    expect(cross.status).toBe(403);
    expect(client.jar.has("eas_console")).toBe(false);
  });

  it("refuses a POST without the session's CSRF token, or from another site, changing nothing", async () => {
    const client = new ConsoleClient(service.url);
    await client.signIn("alice", PASSWORD);
    await client.get("/console/");
    const forged = await client.post("/console/sign-out", { _csrf: "forged" });
    expect(forged.status).toBe(403);
    const cross = await client.post("/console/sign-out", {}, { "sec-fetch-site": "cross-site" });
    expect(cross.status).toBe(403);
    expect((await client.get("/console/")).status).toBe(200);
    // Another session's token is not this one's.
    const other = new ConsoleClient(service.url);
    await other.signIn("alice", PASSWORD);
    await other.get("/console/");
    const swapped = await client.post("/console/sign-out", { _csrf: other.csrf! });
    expect(swapped.status).toBe(403);
    const out = await client.post("/console/sign-out", {});
    expect(out.status).toBe(303);
    expect(out.headers.get("location")).toBe("/console/sign-in");
    expect((await client.get("/console/")).status).toBe(303);
    // The old token is dead server-side too, not only forgotten by the browser.
    expect((await other.get("/console/")).status).toBe(200);
  });

  it("ends a session at its expiry and on a password change", async () => {
    const client = new ConsoleClient(service.url);
    await client.signIn("alice", PASSWORD);
    expect((await client.get("/console/")).status).toBe(200);
    const started = clock;
    clock += 12 * 3600_000 + 1;
    try {
      expect((await client.get("/console/")).status).toBe(303);
    } finally {
      clock = started;
    }
    await client.signIn("alice", PASSWORD);
    expect((await client.get("/console/")).status).toBe(200);
    const db = service.app.store.db;
    await db.updateTable("accounts").set({ password_version: 99 }).where("id", "=", alice).execute();
    try {
      expect((await client.get("/console/")).status).toBe(303);
    } finally {
      await db.updateTable("accounts").set({ password_version: 1 }).where("id", "=", alice).execute();
      service.app.auth.forget();
    }
  });

  it(`keeps at most ${MAX_SESSIONS} sessions per account: the oldest goes`, async () => {
    const first = new ConsoleClient(service.url);
    await first.signIn("bob", PASSWORD);
    expect((await first.get("/console/")).status).toBe(200);
    for (let i = 0; i < MAX_SESSIONS; i++) {
      clock += 1;
      await new ConsoleClient(service.url).signIn("bob", PASSWORD);
    }
    expect((await first.get("/console/")).status).toBe(303);
    const rows = await service.app.store.db
      .selectFrom("console_sessions")
      .select("token_hash")
      .where("account_id", "=", bob)
      .execute();
    expect(rows.length).toBe(MAX_SESSIONS);
  });

  it("shows each account only its own data, escaped", async () => {
    const a = new ConsoleClient(service.url);
    await a.signIn("alice", PASSWORD);
    const mine = await a.get("/console/");
    expect(mine.text).toMatch(/<span class="tile-value">2<\/span><span class="tile-label">Subscribers/);
    expect(mine.text).toMatch(
      /<span class="tile-value">1<\/span><span class="tile-label">Active memberships/,
    );
    const b = new ConsoleClient(service.url);
    await b.signIn("bob", PASSWORD);
    const theirs = await b.get("/console/");
    expect(theirs.text).toMatch(/<span class="tile-value">0<\/span><span class="tile-label">Subscribers/);
    expect(theirs.text).toContain('<span class="who">bob</span>');
  });

  it("lists the account's lists with members by state, escaped", async () => {
    const a = new ConsoleClient(service.url);
    await a.signIn("alice", PASSWORD);
    const page = await a.get("/console/lists");
    expect(page.status).toBe(200);
    expect(page.text).toContain("Alice&#39;s &lt;b&gt;list&lt;/b&gt;");
    const b = new ConsoleClient(service.url);
    await b.signIn("bob", PASSWORD);
    expect((await b.get("/console/lists")).text).not.toContain("Alice");
  });

  it("searches subscribers by address or name prefix, in keyset pages that miss and repeat nothing", async () => {
    const db = service.app.store.db;
    const many = Array.from({ length: 120 }, (_, i) => ({
      account_id: alice,
      email: `Page${String(i).padStart(3, "0")}@Example.com`,
      email_key: `page${String(i).padStart(3, "0")}@example.com`,
      name: i % 2 === 0 ? `Zoë Even ${i}` : `zoë odd ${i}`,
      created_at: clock,
    }));
    await db.insertInto("subscribers").values(many).execute();
    // Another account's subscriber with a matching address and name never shows.
    await db
      .insertInto("subscribers")
      .values({
        account_id: bob,
        email: "page999@example.com",
        email_key: "page999@example.com",
        name: "zoë bob",
        created_at: clock,
      })
      .execute();
    const a = new ConsoleClient(service.url);
    await a.signIn("alice", PASSWORD);
    const walk = async (query: string) => {
      const seen: string[] = [];
      let path: string | undefined = `/console/subscribers?${query}`;
      for (let pages = 0; path !== undefined && pages < 10; pages++) {
        const answer = await a.get(path);
        expect(answer.status).toBe(200);
        seen.push(
          ...[...answer.text.matchAll(/<a href="\/console\/subscribers\/\d+">([^<]+)<\/a>/g)].map(
            (m) => m[1]!,
          ),
        );
        const next = /<a rel="next" href="([^"]+)"/.exec(answer.text);
        path = next === null ? undefined : next[1]!.replaceAll("&amp;", "&");
      }
      return seen;
    };
    const byAddress = await walk("q=PAGE0&by=email");
    expect(byAddress.length).toBe(100);
    expect(new Set(byAddress).size).toBe(100);
    expect(byAddress[0]).toBe("Page000@Example.com");
    const byName = await walk(`q=${encodeURIComponent("zo")}&by=name`);
    expect(byName.length).toBe(120);
    expect(new Set(byName).size).toBe(120);
    const all = await walk("q=");
    expect(all.length).toBe(122);
    expect(all).not.toContain("page999@example.com");
    const none = await a.get("/console/subscribers?q=nobody");
    expect(none.text).toContain("No subscriber matches.");
  });

  it("shows a subscriber's page escaped, and another account's subscriber as missing", async () => {
    const db = service.app.store.db;
    const hostile = await db
      .selectFrom("subscribers")
      .select("id")
      .where("account_id", "=", alice)
      .where("email_key", "=", "a1@example.com")
      .executeTakeFirstOrThrow();
    const a = new ConsoleClient(service.url);
    await a.signIn("alice", PASSWORD);
    const mine = await a.get(`/console/subscribers/${hostile.id}`);
    expect(mine.status).toBe(200);
    expect(mine.text).toContain("&lt;img src=x onerror=alert(1)&gt;");
    expect(mine.text).not.toContain("<img src=x");
    expect(mine.text).toContain("Alice&#39;s &lt;b&gt;list&lt;/b&gt;");
    const b = new ConsoleClient(service.url);
    await b.signIn("bob", PASSWORD);
    const theirs = await b.get(`/console/subscribers/${hostile.id}`);
    expect(theirs.status).toBe(404);
    expect(theirs.text).not.toContain("a1@example.com");
    // Bob's forms carry Bob's token: acting on Alice's subscriber is still a 404 that changes nothing.
    const forged = await b.post(`/console/subscribers/${hostile.id}/opt-out`, {});
    expect(forged.status).toBe(404);
    const optouts = await db.selectFrom("optouts").selectAll().where("account_id", "=", alice).execute();
    expect(optouts).toEqual([]);
  });

  it("shows a subscriber's consent records, newest first and escaped, and no one else's", async () => {
    const db = service.app.store.db;
    const [a1, a2] = await Promise.all(
      ["a1@example.com", "a2@example.com"].map(async (key) =>
        db
          .selectFrom("subscribers")
          .select("id")
          .where("account_id", "=", alice)
          .where("email_key", "=", key)
          .executeTakeFirstOrThrow(),
      ),
    );
    const list = await db
      .selectFrom("mailing_lists")
      .select("id")
      .where("account_id", "=", alice)
      .executeTakeFirstOrThrow();
    const consent = (subscriberId: number, kind: "requested" | "confirmed", text: string, at: number) =>
      recordConsent(
        db,
        {
          accountId: alice,
          subscriberId,
          listId: list.id,
          kind,
          source: "InsertSubscriberWithDemDataPendingOption",
          ip: "192.0.2.7",
          userAgent: "<script>ua</script>",
          text,
        },
        at,
      );
    await consent(a1!.id, "requested", "Please confirm <b>now</b>", clock);
    await consent(a1!.id, "confirmed", "Confirm subscription", clock + 60_000);
    await consent(a2!.id, "requested", "Anna's own request", clock);
    const a = new ConsoleClient(service.url);
    await a.signIn("alice", PASSWORD);
    const page = await a.get(`/console/subscribers/${a1!.id}`);
    expect(page.status).toBe(200);
    const section = page.text.slice(page.text.indexOf("Consent records"));
    expect(section).toContain("InsertSubscriberWithDemDataPendingOption");
    expect(section).toContain("192.0.2.7");
    expect(section).toContain("&lt;script&gt;ua&lt;/script&gt;");
    expect(section).toContain("Please confirm &lt;b&gt;now&lt;/b&gt;");
    expect(section).toContain("Alice&#39;s &lt;b&gt;list&lt;/b&gt;");
    expect(section.indexOf("<td>confirmed</td>")).toBeGreaterThan(-1);
    expect(section.indexOf("<td>confirmed</td>")).toBeLessThan(section.indexOf("<td>requested</td>"));
    expect(page.text).not.toContain("<script>ua");
    expect(page.text).not.toContain("Anna&#39;s own request");
    const other = await a.get(`/console/subscribers/${a2!.id}`);
    expect(other.text).toContain("Anna&#39;s own request");
    expect(other.text).not.toContain("Please confirm");
  });

  it("opts a subscriber out of every list and back on, only with the session's CSRF token", async () => {
    const db = service.app.store.db;
    const target = await db
      .selectFrom("subscribers")
      .select("id")
      .where("account_id", "=", alice)
      .where("email_key", "=", "a1@example.com")
      .executeTakeFirstOrThrow();
    const a = new ConsoleClient(service.url);
    await a.signIn("alice", PASSWORD);
    await a.get(`/console/subscribers/${target.id}`);
    const forged = await a.post(`/console/subscribers/${target.id}/opt-out`, { _csrf: "x".repeat(43) });
    expect(forged.status).toBe(403);
    expect(await db.selectFrom("optouts").selectAll().where("account_id", "=", alice).execute()).toEqual([]);
    const done = await a.post(`/console/subscribers/${target.id}/opt-out`, {});
    expect(done.status).toBe(303);
    expect(done.headers.get("location")).toBe(`/console/subscribers/${target.id}`);
    const page = await a.get(`/console/subscribers/${target.id}`);
    expect(page.text).toContain("yes, since");
    expect(page.text).toContain("state-unsubscribed");
    const back = await a.post(`/console/subscribers/${target.id}/opt-in`, {});
    expect(back.status).toBe(303);
    expect(await db.selectFrom("optouts").selectAll().where("account_id", "=", alice).execute()).toEqual([]);
  });

  it("throttles failed sign-ins as the API does", async () => {
    const client = new ConsoleClient(service.url);
    await client.get("/console/sign-in");
    let last = 0;
    for (let i = 0; i < 12 && last !== 429; i++)
      last = (await client.post("/console/sign-in", { username: "nobody", password: `guess ${i}` })).status;
    expect(last).toBe(429);
    const refused = await client.post("/console/sign-in", { username: "nobody", password: "again" });
    expect(refused.status).toBe(429);
    expect(refused.text).toContain("Too many failed sign-ins");
  });

  it("bounds form bodies: too big, wrong type", async () => {
    const client = new ConsoleClient(service.url);
    await client.get("/console/sign-in");
    const big = await client.post("/console/sign-in", { username: "alice", password: "x".repeat(20_000) });
    expect(big.status).toBe(413);
    const res = await fetch(`${service.url}/console/sign-in`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: "{}",
    });
    expect(res.status).toBe(415);
    const bad = await fetch(`${service.url}/console/`, { method: "DELETE" });
    expect(bad.status).toBe(405);
  });

  it("serves its static files with the right types and nothing else", async () => {
    const css = await fetch(`${service.url}/console/static/console.css`);
    expect(css.headers.get("content-type")).toBe("text/css; charset=utf-8");
    const chart = await fetch(`${service.url}/console/static/uplot.js`);
    expect(chart.status).toBe(200);
    expect(await chart.text()).toContain("uPlot");
    for (const path of [
      "..%2findex.ts",
      "nope.js",
      "..%5Chtml.ts",
      "console.css%00",
      "toString",
      "__proto__",
    ])
      expect(
        (await fetch(`${service.url}/console/static/${path}`, { redirect: "manual" })).status,
        path,
      ).toBe(404);
  });
});

it("CONSOLE=false turns the console off; CONSOLE_SECURE_COOKIE and an https PUBLIC_URL make the cookie Secure", async () => {
  expect(readConfig({}).console).toMatchObject({
    enabled: true,
    secureCookie: false,
    sessionMs: 12 * 3600_000,
  });
  expect(readConfig({ CONSOLE: "false" }).console.enabled).toBe(false);
  expect(readConfig({ CONSOLE_SECURE_COOKIE: "true" }).console.secureCookie).toBe(true);
  expect(readConfig({ PUBLIC_URL: "https://news.example" }).console.secureCookie).toBe(true);
  expect(() => readConfig({ CONSOLE_SESSION_HOURS: "0" })).toThrow(/CONSOLE_SESSION_HOURS/);
  const off = await startService("sqlite", "console-off", { CONSOLE: "false" });
  try {
    expect((await fetch(`${off.url}/console/`)).status).toBe(404);
    expect((await fetch(`${off.url}/console/sign-in`, { method: "POST" })).status).toBe(405);
  } finally {
    await off.close();
  }
  const secure = await startService("sqlite", "console-secure", { CONSOLE_SECURE_COOKIE: "true" });
  try {
    const answer = await new ConsoleClient(secure.url).get("/console/sign-in");
    expect(answer.headers.getSetCookie()[0]).toMatch(/; Secure$/);
  } finally {
    await secure.close();
  }
});
