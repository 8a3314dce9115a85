// TRUSTED_PROXIES through the whole service, both engines: behind a balancer (127.0.0.9, trusted) callers
// are told apart by the address it forwards in X-Forwarded-For: the consent record, the request log line and
// the sign-in throttle's per-address lane use it; a forged hop left of it, or the header from a peer that is
// not trusted, changes nothing. Before TRUSTED_PROXIES every call behind the balancer was the balancer's:
// 24 different callers signing in at once were refused as one address.

import { afterAll, beforeAll, expect, it } from "vitest";
import { createClient } from "../../generated/client.js";
import { describeEngines } from "./support/engines.js";
import { type TestService, eventually, fetchFrom, startService } from "./support/service.js";

const BALANCER = "127.0.0.9";

/** fetchFrom(from) that also sends X-Forwarded-For. */
function forwarded(from: string, forwardedFor: string): typeof fetch {
  const inner = fetchFrom(from);
  return ((input: string | URL | Request, init: RequestInit = {}) =>
    inner(input, {
      ...init,
      headers: { ...(init.headers as Record<string, string>), "x-forwarded-for": forwardedFor },
    })) as typeof fetch;
}

describeEngines("TRUSTED_PROXIES", (engine) => {
  let svc: TestService;
  let listId: number;

  beforeAll(async () => {
    svc = await startService(engine, "proxies", { TRUSTED_PROXIES: `${BALANCER}, 10.0.0.0/8` });
    const accountId = await svc.createAccount("demo", "a-long-password");
    listId = await svc.createList(accountId, "News");
  }, 60_000);
  afterAll(async () => svc?.close());

  const client = (from: string, forwardedFor: string, username = "demo", password = "a-long-password") =>
    createClient({
      baseUrl: svc.url,
      username,
      password,
      binding: "httpPost",
      fetch: forwarded(from, forwardedFor),
    });

  /** A pending insert of `email` through `from` with the header; the consent record's address. */
  async function consentIp(from: string, forwardedFor: string, email: string): Promise<string | null> {
    await client(from, forwardedFor).InsertSubscriberWithDemDataPendingOption({
      strEmail: email,
      strName: "N",
      strMailingListID: String(listId),
      strPending: "true",
    });
    const row = await svc.app.store.db
      .selectFrom("consents as c")
      .innerJoin("subscribers as s", "s.id", "c.subscriber_id")
      .select("c.ip")
      .where("s.email", "=", email)
      .executeTakeFirstOrThrow();
    return row.ip;
  }

  it("records the forwarded caller behind the balancer, not a forged hop left of it", async () => {
    expect(await consentIp(BALANCER, "198.51.100.7", "a@example.com")).toBe("198.51.100.7");
    expect(await consentIp(BALANCER, "6.6.6.6, 198.51.100.8", "b@example.com")).toBe("198.51.100.8");
    // Through two of the operator's proxies (10.1.1.1 appended by the inner one).
    expect(await consentIp(BALANCER, "6.6.6.6, 198.51.100.9, 10.1.1.1", "c@example.com")).toBe(
      "198.51.100.9",
    );
  });

  it("ignores the header from a peer that is not a trusted proxy", async () => {
    expect(await consentIp("127.0.0.7", "198.51.100.10", "d@example.com")).toMatch(/127\.0\.0\.7$/);
  });

  it("keeps the balancer's address for a header that is not an address", async () => {
    expect(await consentIp(BALANCER, "unknown", "e@example.com")).toMatch(/127\.0\.0\.9$/);
  });

  it("logs the caller's address on the request's line", async () => {
    await client(BALANCER, "6.6.6.6, 198.51.100.11").GetTriggerIdForAccount({});
    await eventually(() => svc.logs.some((line) => line.ip === "198.51.100.11"));
    const line = svc.logs.find((l) => l.ip === "198.51.100.11");
    expect(line).toMatchObject({ operation: "GetTriggerIdForAccount", status: 200 });
    expect(svc.logs.some((l) => l.ip === "6.6.6.6")).toBe(false);
  });

  it("gives each forwarded caller its own sign-in lane; one caller's burst is still refused", async () => {
    const guess = (i: number, forwardedFor: string) =>
      client(BALANCER, forwardedFor, `nobody-${forwardedFor}-${i}`, `guess-${i}`)
        .GetTriggerIdForAccount({})
        .then(
          () => "OK",
          (error: { errorCode?: string; reason?: string }) => `${error.errorCode}: ${error.reason}`,
        );
    const atOnce = (answers: string[]) =>
      answers.filter((a) => /^TooManyAttempts: Too many sign-ins at once from this address/.test(a)).length;
    // 24 callers behind the balancer, one guess each at once: each is checked (before: 8 checked, 16 refused).
    const many = await Promise.all(Array.from({ length: 24 }, (_, i) => guess(i, `203.0.113.${i + 1}`)));
    expect(atOnce(many)).toBe(0);
    expect(many.filter((a) => a.startsWith("InvalidCredentials"))).toHaveLength(24);
    // One caller's 24 guesses at once: its own lane holds 8, the rest are refused at once.
    const one = await Promise.all(Array.from({ length: 24 }, (_, i) => guess(i, "203.0.113.200")));
    expect(atOnce(one)).toBeGreaterThanOrEqual(8);
  }, 60_000);
});
