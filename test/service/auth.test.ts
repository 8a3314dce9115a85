// Sign-in and credentials (docs/security.md "Sign-in and credentials"), on SQLite and PostgreSQL: credentials
// longer than any account's are refused before any work; growing delays per name, per source and per
// trusted pair, shared by every instance through the database; the owner's source (and its cached right
// pair) never kept out by other sources' failures; a bounded number of password checks at once, in turn per
// source; delayed unknown and known names indistinguishable.

import type { Kysely } from "kysely";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { type App, createApp } from "../../service/app.js";
import { Authenticator, MAX_PASSWORD, MAX_USERNAME, hashPassword } from "../../service/auth/authenticator.js";
import { CheckGate, GateFull } from "../../service/auth/gate.js";
import {
  DECAY_MS,
  FIRST_DELAY_MS,
  FREE_FAILURES,
  MAX_COUNT,
  TRUST_MS,
  delayAfter,
  sourceOf,
  waitMs,
} from "../../service/auth/throttle.js";
import { createClient } from "../../generated/client.js";
import { ServiceError } from "../../generated/server.js";
import { type Store, openStore } from "../../service/db/database.js";
import { readConfig } from "../../service/config.js";
import { describeEngines, freshDatabaseUrl } from "./support/engines.js";
import { type TestService, fault, fetchFrom, startService } from "./support/service.js";

const hashes = new Map<string, Promise<string>>();
async function addAccount(store: Store, username: string, password: string): Promise<number> {
  if (!hashes.has(password)) hashes.set(password, hashPassword(password));
  const row = await store.db
    .insertInto("accounts")
    .values({ username, password_hash: await hashes.get(password)!, created_at: 0 })
    .returning("id")
    .executeTakeFirstOrThrow();
  return row.id;
}

/** What a verify call ends in: "OK", or the error code and message. */
async function outcome(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
    return "OK";
  } catch (error) {
    if (error instanceof ServiceError) return `${error.code}: ${error.message}`;
    throw error;
  }
}

describe("sign-in throttle rules", () => {
  it("delays start after each kind's free failures, double, and stop growing at 1024 s", () => {
    expect([1, 10, 11, 12, 13, 20, 21, 22, 40].map((n) => delayAfter(n, "name"))).toEqual([
      0, 0, 1000, 2000, 4000, 512_000, 1_024_000, 1_024_000, 1_024_000,
    ]);
    expect(delayAfter(FREE_FAILURES.source, "source")).toBe(0);
    expect(delayAfter(FREE_FAILURES.source + 1, "source")).toBe(FIRST_DELAY_MS);
    expect(delayAfter(FREE_FAILURES.pair + 1, "pair")).toBe(FIRST_DELAY_MS);
    // Counts are capped far past the longest delay of every kind.
    for (const kind of ["pair", "name", "source"] as const)
      expect(delayAfter(MAX_COUNT, kind)).toBe(1_024_000);
  });

  it("a trusted pair waits only for its own delay; an untrusted one for the name's and the source's too", () => {
    const row = (blocked: number, trusted = 0) => ({
      key: "k",
      failures: 0,
      last_failure_at: 0,
      blocked_until: blocked,
      trusted_until: trusted,
      expires_at: 0,
    });
    expect(waitMs({ pair: undefined, name: row(5000), source: row(3000) }, 1000)).toBe(4000);
    expect(waitMs({ pair: row(0, 2000), name: row(5000), source: row(9000) }, 1000)).toBe(0);
    expect(waitMs({ pair: row(4000, 2000), name: row(5000), source: undefined }, 1000)).toBe(3000);
    // Trust that has ended counts for nothing.
    expect(waitMs({ pair: row(0, 1000), name: row(5000), source: undefined }, 1000)).toBe(4000);
  });

  it("a source is an IPv4 address, or an IPv6 address's /64", () => {
    expect(sourceOf("127.0.0.1")).toBe("127.0.0.1");
    expect(sourceOf("::ffff:192.0.2.7")).toBe("192.0.2.7");
    expect(sourceOf("2001:db8:1:2:3:4:5:6")).toBe("2001:db8:1:2::/64");
    expect(sourceOf("2001:db8:1:2::99")).toBe("2001:db8:1:2::/64");
    expect(sourceOf("2001:0db8:0001:0002:ffff::1")).toBe("2001:db8:1:2::/64");
    expect(sourceOf("2001:db8::1")).toBe("2001:db8:0:0::/64");
    expect(sourceOf("::1")).toBe("0:0:0:0::/64");
    expect(sourceOf("fe80::1%eth0")).toBe("fe80:0:0:0::/64");
    expect(sourceOf("::ffff:1.2.3.4:5")).toBe("::ffff:1.2.3.4:5");
    expect(sourceOf("")).toBe("unknown");
  });
});

describe("password check gate", () => {
  it("runs at most `concurrency` checks, one per source, and serves waiting sources in turn, trusted first", async () => {
    const gate = new CheckGate({ concurrency: 2, queue: 10, perSource: 4 });
    const order: string[] = [];
    let peak = 0;
    // Each turn is noted and released a moment later.
    const take = (source: string, priority = false) =>
      Promise.resolve(gate.acquire(source, priority)).then((release) => {
        order.push(source);
        peak = Math.max(peak, gate.load.running);
        setImmediate(release);
      });
    const a = await gate.acquire("a", false);
    const b = await gate.acquire("b", false);
    order.push("a", "b");
    const waiting = [take("a"), take("a"), take("a"), take("b"), take("c"), take("t", true)];
    expect(gate.load).toEqual({ running: 2, waiting: 6, lanes: 4 });
    // A source's lane holds `perSource` at most: a fifth from "a" is refused at once.
    expect(() => gate.acquire("a", false)).toThrow(GateFull);
    a();
    b();
    await Promise.all(waiting);
    // The trusted lane first, then the lanes in turn; "a" never ran two at once, so its queue came last.
    expect(order).toEqual(["a", "b", "t", "c", "a", "b", "a", "a"]);
    expect(peak).toBe(2);
    for (let i = 0; i < 10 && gate.load.running > 0; i++)
      await new Promise((resolve) => setImmediate(resolve));
    expect(gate.load).toEqual({ running: 0, waiting: 0, lanes: 0 });
  });

  it("refuses at once when the queue is full, and forgets lanes with nothing running or waiting", async () => {
    const gate = new CheckGate({ concurrency: 1, queue: 2, perSource: 8 });
    const first = await gate.acquire("x", false);
    const second = gate.acquire("y", false) as Promise<() => void>;
    const third = gate.acquire("z", false) as Promise<() => void>;
    let full: unknown;
    try {
      gate.acquire("w", false);
    } catch (error) {
      full = error;
    }
    expect(full).toBeInstanceOf(GateFull);
    expect((full as GateFull).reason).toBe("queue");
    first();
    first();
    (await second)();
    (await third)();
    expect(gate.load).toEqual({ running: 0, waiting: 0, lanes: 0 });
  });
});

describeEngines("sign-in with a clock of the test's own", (engine) => {
  let store: Store;
  let clock = 1_000_000_000_000;
  const now = () => clock;
  beforeAll(async () => {
    store = await openStore(await freshDatabaseUrl(engine, "auth-clock"));
    await addAccount(store, "dave", "dave-password-1");
    await addAccount(store, "erin", "erin-password-1");
  }, 60_000);
  afterAll(async () => store?.close());
  afterEach(async () => {
    await store.db.deleteFrom("auth_throttle").execute();
  });

  it("refuses a user name or password longer than any account's before any work, naming the parameter", async () => {
    const auth = new Authenticator(store, { now });
    for (const [username, password, parameter] of [
      ["d".repeat(MAX_USERNAME + 1), "whatever-1", "strUsername"],
      ["x".repeat(1 << 20), "p", "strUsername"],
      ["dave", "p".repeat(MAX_PASSWORD + 1), "strPassword"],
      ["dave", "p".repeat(16 << 20), "strPassword"],
      // Counted in characters: 100 emoji are 200 UTF-16 units and still a possible name.
      ["\u{1F600}".repeat(MAX_USERNAME + 1), "p", "strUsername"],
    ] as const) {
      let refused: unknown;
      try {
        await auth.verify(username, password, "127.0.0.1");
      } catch (error) {
        refused = error;
      }
      expect(refused).toBeInstanceOf(ServiceError);
      expect((refused as ServiceError).code).toBe("TooLong");
      expect((refused as ServiceError).parameter).toBe(parameter);
      expect(() => auth.cached(username, password, "127.0.0.1")).toThrow(ServiceError);
    }
    expect(auth.stats).toMatchObject({ checks: 0, tooLong: 10 });
    expect(await store.db.selectFrom("auth_throttle").selectAll().execute()).toEqual([]);
    // At the limits themselves: an ordinary failed sign-in.
    expect(
      await outcome(auth.verify("\u{1F600}".repeat(MAX_USERNAME), "p".repeat(MAX_PASSWORD), "127.0.0.1")),
    ).toMatch(/^InvalidCredentials/);
  });

  it("delays a name after 10 failures by 1 s, doubling to 1024 s, without a check during a delay", async () => {
    const auth = new Authenticator(store, { now });
    const start = clock;
    const seen: string[] = [];
    for (let i = 1; i <= 10; i++) seen.push(await outcome(auth.verify("dave", `wrong-${i}`, `127.0.2.${i}`)));
    expect(seen).toEqual(Array(10).fill("InvalidCredentials: The user name or password is wrong."));
    for (let delay = 1; delay <= 1024; delay *= 2) {
      // The failure that set this delay; now every attempt from an untrusted source is refused unchecked.
      const before = auth.stats.checks;
      expect(await outcome(auth.verify("dave", "wrong-again", "127.0.2.99"))).toMatch(/^InvalidCredentials/);
      expect(await outcome(auth.verify("dave", "dave-password-1", "127.0.3.1"))).toBe(
        `TooManyAttempts: Too many failed sign-ins; try again in ${delay === 1 ? "1 second" : `${delay} seconds`}.`,
      );
      expect(await outcome(auth.verify("DAVE", "x", "127.0.3.2"))).toMatch(/^TooManyAttempts/);
      expect(auth.stats.checks).toBe(before + 1);
      clock += delay * 1000;
    }
    // At the longest delay it stays.
    expect(await outcome(auth.verify("dave", "wrong-again", "127.0.2.99"))).toMatch(/^InvalidCredentials/);
    expect(await outcome(auth.verify("dave", "x", "127.0.3.1"))).toMatch(/in 1024 seconds\.$/);
    // The right password from an untrusted source waits like any other attempt, then gets in.
    clock += 1024 * 1000;
    expect(await outcome(auth.verify("dave", "dave-password-1", "127.0.3.1"))).toBe("OK");
    expect(clock - start).toBeGreaterThan(0);
  });

  it("forgets one failure an hour: a name quiet for long enough has its free failures back", async () => {
    const auth = new Authenticator(store, { now });
    for (let i = 0; i < 10; i++) await outcome(auth.verify("erin", `wrong-${i}`, `127.0.4.${i}`));
    expect(await outcome(auth.verify("erin", "wrong", "127.0.4.50"))).toMatch(/^InvalidCredentials/);
    expect(await outcome(auth.verify("erin", "wrong", "127.0.4.51"))).toMatch(
      /^TooManyAttempts: .* 1 second\./,
    );
    // 3 hours later the count is 11 - 3 = 8: two more failures are free, the third delays again.
    clock += 3 * DECAY_MS;
    for (let i = 0; i < 2; i++)
      expect(await outcome(auth.verify("erin", "wrong", `127.0.4.${60 + i}`))).toMatch(/^InvalidCredentials/);
    expect(await outcome(auth.verify("erin", "wrong", "127.0.4.70"))).toMatch(/^InvalidCredentials/);
    expect(await outcome(auth.verify("erin", "wrong", "127.0.4.71"))).toMatch(
      /^TooManyAttempts: .* 1 second\./,
    );
  });

  it("a delayed unknown name and a delayed known name get the same answer after the same work", async () => {
    const auth = new Authenticator(store, { now });
    const answers: Record<string, string[]> = { dave: [], ghost: [] };
    const checks: Record<string, number[]> = { dave: [], ghost: [] };
    for (let i = 0; i < 14; i++) {
      for (const name of ["dave", "ghost"]) {
        const before = auth.stats.checks;
        answers[name]!.push(await outcome(auth.verify(name, `guess-${i}`, `127.0.5.${i}`)));
        checks[name]!.push(auth.stats.checks - before);
      }
      clock += 500;
    }
    expect(answers.ghost).toEqual(answers.dave);
    expect(checks.ghost).toEqual(checks.dave);
    // Both were delayed, unchecked, from the 12th attempt on (the 11th failure set 1 s, refused at +0.5 s).
    expect(answers.dave!.filter((a) => a.startsWith("TooManyAttempts")).length).toBeGreaterThan(0);
    expect(checks.dave!.slice(11).some((n) => n === 0)).toBe(true);
    // And their rows are alike: nothing in the table says which name exists.
    const row = async (name: string) => {
      const key = (await auth.throttleStore.keys(name, "-")).name;
      return store.db
        .selectFrom("auth_throttle")
        .select(["failures", "last_failure_at", "blocked_until", "trusted_until", "expires_at"])
        .where("key", "=", key)
        .executeTakeFirstOrThrow();
    };
    expect(await row("ghost")).toEqual(await row("dave"));
    expect((await row("dave")).failures).toBe(12);
  });

  it("a source that signed in as a name is not kept out by other sources' failures, but a right pair elsewhere is no oracle", async () => {
    const auth = new Authenticator(store, { now });
    expect(await outcome(auth.verify("dave", "dave-password-1", "127.0.6.1"))).toBe("OK");
    for (let i = 0; i < 30; i++) await outcome(auth.verify("dave", `wrong-${i}`, `127.0.7.${i}`));
    expect(await outcome(auth.verify("dave", "wrong", "127.0.7.200"))).toMatch(/^TooManyAttempts/);
    // The owner's pair is cached for its own source only: another source with the right password during
    // the delay is refused like every guess (the cache answers no one but the source that proved the pair).
    expect(await outcome(auth.verify("dave", "dave-password-1", "127.0.7.201"))).toMatch(/^TooManyAttempts/);
    // The owner's source gets in from the cache, and after the cache is gone, by its trusted pair: checked.
    expect(await outcome(auth.verify("dave", "dave-password-1", "127.0.6.1"))).toBe("OK");
    auth.forget();
    const before = auth.stats.checks;
    expect(await outcome(auth.verify("dave", "dave-password-1", "127.0.6.1"))).toBe("OK");
    expect(auth.stats.checks).toBe(before + 1);
    // A fresh instance (no cache, no memory) on the same database: the same.
    const other = new Authenticator(store, { now });
    expect(await outcome(other.verify("dave", "dave-password-1", "127.0.6.1"))).toBe("OK");
    expect(await outcome(other.verify("dave", "dave-password-1", "127.0.6.2"))).toMatch(/^TooManyAttempts/);
    // The trust lasts 30 days from the last sign-in.
    clock += TRUST_MS + 1;
    for (let i = 0; i < 11; i++) await outcome(other.verify("dave", `wrong-${i}`, `127.0.8.${i}`));
    expect(await outcome(other.verify("dave", "dave-password-1", "127.0.6.1"))).toMatch(/^TooManyAttempts/);
  });

  it("a trusted pair has delays of its own after 5 failures, and its right password clears them", async () => {
    const auth = new Authenticator(store, { now });
    expect(await outcome(auth.verify("erin", "erin-password-1", "127.0.9.1"))).toBe("OK");
    for (let i = 0; i < 5; i++)
      expect(await outcome(auth.verify("erin", `wrong-${i}`, "127.0.9.1"))).toMatch(/^InvalidCredentials/);
    expect(await outcome(auth.verify("erin", "wrong-5", "127.0.9.1"))).toMatch(/^InvalidCredentials/);
    auth.forget();
    expect(await outcome(auth.verify("erin", "erin-password-1", "127.0.9.1"))).toMatch(
      /^TooManyAttempts: .* 1 second\./,
    );
    clock += 1000;
    expect(await outcome(auth.verify("erin", "erin-password-1", "127.0.9.1"))).toBe("OK");
    for (let i = 0; i < 5; i++)
      expect(await outcome(auth.verify("erin", `wrong-${i}`, "127.0.9.1"))).toMatch(/^InvalidCredentials/);
  });

  it("a source failing for many names is delayed after 20, except for the names it signed in as", async () => {
    const auth = new Authenticator(store, { now });
    expect(await outcome(auth.verify("erin", "erin-password-1", "127.0.10.1"))).toBe("OK");
    for (let i = 0; i < 21; i++)
      expect(await outcome(auth.verify(`spray-${i}`, "password1", "127.0.10.1"))).toMatch(
        /^InvalidCredentials/,
      );
    expect(await outcome(auth.verify("spray-99", "password1", "127.0.10.1"))).toMatch(/^TooManyAttempts/);
    expect(await outcome(auth.verify("dave", "dave-password-1", "127.0.10.1"))).toMatch(/^TooManyAttempts/);
    auth.forget();
    expect(await outcome(auth.verify("erin", "erin-password-1", "127.0.10.1"))).toBe("OK");
    // Another source is not affected.
    expect(await outcome(auth.verify("spray-99", "password1", "127.0.10.2"))).toMatch(/^InvalidCredentials/);
  });

  it("an attacker trying one name every 30 s for a day from 50 sources gets about a hundred checks", async () => {
    const auth = new Authenticator(store, { now });
    const start = clock;
    let attempts = 0;
    for (let t = 0; t < 24 * 3600; t += 30) {
      await outcome(auth.verify("dave", `guess-${t}`, `127.0.11.${(t / 30) % 50}`));
      attempts++;
      clock += 30_000;
    }
    // 10 free, 10 while the delay doubles to 1024 s (17 min), then one per 1024 s (+ up to 30 s): ~ 10 + 10 + 80.
    expect(attempts).toBe(2880);
    expect(auth.stats.checks).toBeGreaterThan(85);
    expect(auth.stats.checks).toBeLessThan(110);
    expect(clock - start).toBe(24 * 3600 * 1000);
  }, 120_000);

  it("keys are fixed-size keyed hashes, and expired rows are pruned by later writes", async () => {
    const auth = new Authenticator(store, { now });
    for (let i = 0; i < 6; i++) await outcome(auth.verify(`mallory-secret-name-${i}`, "x", "127.0.12.1"));
    const rows = await store.db.selectFrom("auth_throttle").selectAll().execute();
    expect(rows).toHaveLength(7);
    const text = JSON.stringify(rows);
    expect(text).not.toContain("mallory");
    expect(text).not.toContain("127.0.");
    expect(new Set(rows.map((r) => r.key.length))).toEqual(new Set([23]));
    // A day and a half later the names' counts (1 each) have decayed long ago: every write prunes up to 4.
    clock += 36 * 3600_000;
    await outcome(auth.verify("fresh-1", "x", "127.0.12.2"));
    await outcome(auth.verify("fresh-2", "x", "127.0.12.2"));
    const left = await store.db.selectFrom("auth_throttle").select("key").execute();
    // 7 old (6 names + 1 source, its count 6 h) - 8 pruned at most + 3 new (2 names, 1 source).
    expect(left.length).toBeLessThanOrEqual(3 + 7 - 6);
    clock += 12 * 3600_000;
    await outcome(auth.verify("fresh-3", "x", "127.0.12.3"));
    await outcome(auth.verify("fresh-4", "x", "127.0.12.3"));
    const after = await store.db.selectFrom("auth_throttle").select(["key", "expires_at"]).execute();
    expect(after.every((r) => r.expires_at > clock - 12 * 3600_000)).toBe(true);
  });

  it("the same pair from the same source at once is checked once; a source has one check running at a time", async () => {
    const auth = new Authenticator(store, { now, concurrency: 2, perSource: 4 });
    const same = await Promise.all(
      Array.from({ length: 6 }, () => outcome(auth.verify("erin", "erin-password-1", "127.0.13.1"))),
    );
    expect(same).toEqual(Array(6).fill("OK"));
    expect(auth.stats.checks).toBe(1);
    // 12 different guesses at once from one source: 4 are checked (one lane), 8 refused at once.
    const guesses = await Promise.all(
      Array.from({ length: 12 }, (_, i) => outcome(auth.verify("dave", `guess-${i}`, "127.0.13.2"))),
    );
    expect(guesses.filter((g) => g.startsWith("InvalidCredentials"))).toHaveLength(4);
    expect(
      guesses.filter(
        (g) => g === "TooManyAttempts: Too many sign-ins at once from this address; try again in 1 second.",
      ),
    ).toHaveLength(8);
    expect(auth.stats.busy).toBe(8);
  });
});

describeEngines("migration 0007_auth_throttle", (engine) => {
  it("is applied to a database that has later migrations already (numbers are handed out ahead)", async () => {
    const url = await freshDatabaseUrl(engine, "auth-migration");
    const first = await openStore(url);
    // As a database migrated before 0007 existed, with 0010 applied.
    await first.db.schema.dropTable("auth_throttle").execute();
    await first.db.deleteFrom("secrets").where("name", "=", "auth_key").execute();
    await (first.db as unknown as Kysely<{ kysely_migration: { name: string } }>)
      .deleteFrom("kysely_migration")
      .where("name", "=", "0007_auth_throttle")
      .execute();
    await first.close();
    const again = await openStore(url);
    try {
      expect(await again.db.selectFrom("auth_throttle").select("key").execute()).toEqual([]);
      expect(
        await again.db.selectFrom("secrets").select("name").where("name", "=", "auth_key").execute(),
      ).toHaveLength(1);
    } finally {
      await again.close();
    }
  });
});

describeEngines("sign-in through the service", (engine) => {
  let svc: TestService;
  let second: App | undefined;
  beforeAll(async () => {
    svc = await startService(engine, "auth");
    for (const [name, password] of [
      ["owner", "owner-password-1"],
      ["other", "other-password-1"],
      ["frank", "frank-password-1"],
    ] as const) {
      const id = await svc.createAccount(name, password);
      await svc.createList(id, `${name} list`);
    }
  }, 60_000);
  afterAll(async () => {
    await second?.close();
    await svc?.close();
  });

  const trigger = (username: string, password: string, from?: string) =>
    svc.client(username, password, "soap11", from).GetTriggerIdForAccount({});

  it("answers an over-long user name or password TooLong naming the parameter, with nothing kept", async () => {
    const before = process.memoryUsage().heapUsed;
    const refusals = [];
    for (let i = 0; i < 8; i++) refusals.push(await fault(trigger(`${i}${"n".repeat(1 << 20)}`, "p")));
    refusals.push(await fault(trigger("owner", "p".repeat(1 << 20))));
    expect(refusals.map((r) => r.errorCode)).toEqual([...Array(8).fill("TooLong"), "TooLong"]);
    expect(refusals[0]!.message).toContain("strUsername must be at most 100 characters");
    expect(refusals[8]!.message).toContain("strPassword must be at most 1024 characters");
    expect(await svc.app.store.db.selectFrom("auth_throttle").select("key").execute()).toEqual([]);
    expect(svc.app.auth.stats.checks).toBe(0);
    expect(process.memoryUsage().heapUsed - before).toBeLessThan(64 << 20);
  });

  it("the owner's right password gets in while other sources flood wrong passwords for the name", async () => {
    expect(await trigger("owner", "owner-password-1", "127.0.20.1")).toBeDefined();
    const flood = Promise.all(
      Array.from({ length: 8 }, async (_, s) => {
        const codes: string[] = [];
        for (let i = 0; i < 6; i++)
          codes.push(
            (await fault(trigger("owner", `wrong-${s}-${i}`, `127.0.21.${s + 1}`))).errorCode ?? "none",
          );
        return codes;
      }),
    );
    // During the flood, from the cache and (with the cache gone) from its trusted pair: never refused.
    const during: string[] = [];
    for (let i = 0; i < 4; i++) {
      if (i % 2 === 1) svc.app.auth.forget();
      during.push(
        await trigger("owner", "owner-password-1", "127.0.20.1").then(
          () => "OK",
          (e: { errorCode?: string }) => e.errorCode ?? String(e),
        ),
      );
    }
    const codes = (await flood).flat();
    // After the flood, the name delayed: from the cache, then (the cache gone) through the trusted pair.
    for (let i = 0; i < 2; i++) {
      if (i === 1) svc.app.auth.forget();
      during.push(
        await trigger("owner", "owner-password-1", "127.0.20.1").then(
          () => "OK",
          (e: { errorCode?: string }) => e.errorCode ?? String(e),
        ),
      );
    }
    expect(during).toEqual(["OK", "OK", "OK", "OK", "OK", "OK"]);
    // 48 wrong passwords: 10 free, then the name is delayed (1 s, 2 s, ...) for every source that never
    // signed in as it.
    expect(codes.filter((c) => c === "InvalidCredentials").length).toBeLessThanOrEqual(14);
    expect(codes.filter((c) => c === "TooManyAttempts").length).toBeGreaterThanOrEqual(34);
    // Another source, even with the right password, waits for the name's delay.
    expect((await fault(trigger("owner", "owner-password-1", "127.0.20.2"))).errorCode).toBe(
      "TooManyAttempts",
    );
  });

  it("a burst of guesses at once from one source gets one check at a time, eight in line at most", async () => {
    const faults = await Promise.all(
      Array.from({ length: 24 }, (_, i) => fault(trigger(`burst-${i}`, `guess-${i}`, "127.0.23.1"))),
    );
    const checked = faults.filter((f) => f.errorCode === "InvalidCredentials").length;
    const atOnce = faults.filter(
      (f) => f.errorCode === "TooManyAttempts" && f.message.includes("at once from this address"),
    ).length;
    expect(checked + atOnce).toBe(24);
    expect(atOnce).toBeGreaterThanOrEqual(8);
    expect(checked).toBeLessThanOrEqual(16);
  });

  it("two instances on one database share the delays", async () => {
    second = await createApp(
      readConfig({
        PORT: "0",
        DATABASE_URL: svc.databaseUrl,
        LOG_LEVEL: "silent",
        PUBLIC_URL: "http://127.0.0.1:1",
        SQLITE_SYNC: "NORMAL",
      }),
      {},
    );
    const { url } = await second.start();
    const clientOf = (base: string, i: number) =>
      createClient({
        baseUrl: base,
        username: "frank",
        password: `wrong-${i}`,
        binding: "soap11",
        fetch: fetchFrom(`127.0.22.${i + 1}`),
      });
    const codes: string[] = [];
    for (let i = 0; i < 12; i++)
      codes.push(
        (await fault(clientOf(i % 2 === 0 ? svc.url : url!, i).GetTriggerIdForAccount({}))).errorCode ??
          "none",
      );
    expect(codes.slice(0, 10)).toEqual(Array(10).fill("InvalidCredentials"));
    // The 11th failure (on either instance) set a delay both see.
    expect(codes[10]).toBe("InvalidCredentials");
    expect(codes[11]).toBe("TooManyAttempts");
    expect((await fault(clientOf(svc.url, 40).GetTriggerIdForAccount({}))).errorCode).toBe("TooManyAttempts");
  });
});
