// Polite SMTP delivery through the whole service into a real SMTP server on loopback, on SQLite and
// PostgreSQL: messages go out over SMTP_POOL_SIZE pooled connections, reused across messages and in
// parallel, while MAIL_DOMAIN_CONCURRENCY holds each recipient domain to its share (the server counts
// connections and the messages it is answering at once, per domain); MAIL_DOMAIN_RATE sends a domain's
// backlog one interval apart, the rest waiting in the queue with no attempt counted; a 4xx answer is
// retried after a jittered wait (between half and all of the doubling schedule's, spread across
// messages) and then delivered, while a 5xx is dead at once. Plus the gate itself: the GCRA rate with its
// one-second burst, "busy" at the concurrency, and a bounded memory of domains.

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { queueMail } from "../../service/delivery/mail.js";
import { DomainGate } from "../../service/delivery/domain-gate.js";
import { retryDelay } from "../../service/workers/outbox.js";
import { describeEngines } from "./support/engines.js";
import { startService, type TestService } from "./support/service.js";
import { smtpUrl, startSmtp, type TestSmtp } from "./support/smtp.js";

const T0 = Date.UTC(2026, 10, 28, 6, 0, 0);

describeEngines("polite delivery", (engine) => {
  let clock = T0;

  async function service(smtp: TestSmtp, env: Record<string, string>) {
    const svc = await startService(
      engine,
      "polite",
      { SMTP_URL: smtpUrl(smtp.port), SMTP_ALLOW_PLAINTEXT_AUTH: "true", ...env },
      { now: () => clock },
    );
    const accountId = await svc.createAccount("polite", "polite-secret-1");
    return { svc, accountId };
  }

  /** Queues one message to each address (at `clock`); returns their ids in order. */
  async function queue(svc: TestService, accountId: number, to: readonly string[]): Promise<number[]> {
    const ids: number[] = [];
    await svc.app.store.write(async (trx) => {
      for (const address of to)
        ids.push(
          await queueMail(
            trx,
            {
              accountId,
              kind: "newsletter",
              from: { name: "News", address: "news@sender.example" },
              to: { name: "", address },
              subject: `to ${address}`,
              text: "hello",
            },
            clock,
            "sender.example",
          ),
        );
    });
    return ids;
  }
  const rows = (svc: TestService, ids: number[]) =>
    svc.app.store.db
      .selectFrom("mail_outbox")
      .select(["id", "state", "attempts", "next_attempt_at", "lease_owner", "last_error"])
      .where("id", "in", ids)
      .orderBy("id")
      .execute();

  describe("pooled connections and per-domain concurrency", () => {
    let smtp: TestSmtp;
    let svc: TestService;
    let accountId: number;
    beforeAll(async () => {
      smtp = await startSmtp({ holdMs: 150 });
      ({ svc, accountId } = await service(smtp, { SMTP_POOL_SIZE: "3", MAIL_DOMAIN_CONCURRENCY: "1" }));
    }, 60_000);
    afterAll(async () => {
      await svc?.close();
      await smtp?.close();
    });

    it("sends in parallel over at most 3 reused connections, one message at a time per domain", async () => {
      const to = [1, 2, 3, 4, 5, 6].flatMap((n) => [`a${n}@a.example`, `b${n}@B.example`, `c${n}@c.example`]);
      const ids = await queue(svc, accountId, to);
      clock = T0;
      await svc.app.outbox!.flush(clock);
      expect((await rows(svc, ids)).map((r) => r.state)).toEqual(ids.map(() => "sent"));
      expect(smtp.arrivals.length).toBe(18);
      // the pool: 18 messages over at most 3 connections, never more than 3 open
      expect(smtp.connections.total).toBeLessThanOrEqual(3);
      expect(smtp.connections.peak).toBeLessThanOrEqual(3);
      // in parallel (one at a time would be 1), each domain one at a time
      expect(smtp.peakInFlight()).toBeGreaterThanOrEqual(2);
      expect(smtp.peakInFlight()).toBeLessThanOrEqual(3);
      expect(Object.fromEntries(smtp.peakByDomain)).toEqual({
        "a.example": 1,
        "b.example": 1,
        "c.example": 1,
      });
    });
  });

  describe("per-domain rate, 4xx retried with jitter, 5xx dead", () => {
    let smtp: TestSmtp;
    let svc: TestService;
    let accountId: number;
    beforeAll(async () => {
      smtp = await startSmtp();
      ({ svc, accountId } = await service(smtp, { MAIL_DOMAIN_RATE: "60" }));
    }, 60_000);
    afterAll(async () => {
      await svc?.close();
      await smtp?.close();
    });

    it("sends a domain's backlog one second apart at 60 a minute, the waiting ones unattempted", async () => {
      clock = T0 + 3_600_000;
      const start = clock;
      const ids = await queue(svc, accountId, [
        "r1@slow.example",
        "r2@slow.example",
        "r3@slow.example",
        "s1@other.example",
      ]);
      const before = smtp.arrivals.length;
      await svc.app.outbox!.flush(start);
      let now = await rows(svc, ids);
      expect(now.map((r) => [r.state, r.attempts, r.lease_owner])).toEqual([
        ["sent", 1, null],
        ["queued", 0, null],
        ["queued", 0, null],
        ["sent", 1, null],
      ]);
      // the two waiting are due one interval apart, from when the rate allows the next
      expect(now[1]!.next_attempt_at).toBe(start + 1000);
      expect(now[2]!.next_attempt_at).toBe(start + 2000);
      expect(now[1]!.last_error).toBeNull();
      clock = start + 1000;
      await svc.app.outbox!.flush(clock);
      now = await rows(svc, ids);
      expect(now.map((r) => r.state)).toEqual(["sent", "sent", "queued", "sent"]);
      clock = start + 2000;
      await svc.app.outbox!.flush(clock);
      now = await rows(svc, ids);
      expect(now.map((r) => [r.state, r.attempts])).toEqual(ids.map(() => ["sent", 1]));
      const order = smtp.arrivals.slice(before).map((a) => a.to[0]);
      expect([...order.slice(0, 2)].sort()).toEqual(["r1@slow.example", "s1@other.example"]);
      expect(order.slice(2)).toEqual(["r2@slow.example", "r3@slow.example"]);
    });

    it("retries 4xx answers after jittered waits, then delivers; a 5xx answer is dead at once", async () => {
      clock = T0 + 7_200_000;
      const start = clock;
      const to = Array.from({ length: 20 }, (_, n) => `g${n}@grey${n}.example`);
      const ids = await queue(svc, accountId, to);
      smtp.refuseAllWith = 451;
      try {
        await svc.app.outbox!.flush(start);
      } finally {
        smtp.refuseAllWith = undefined;
      }
      const [hardId] = await queue(svc, accountId, ["gone@hard.example"]);
      smtp.plan.push(550);
      await svc.app.outbox!.flush(start);
      const [hard] = await rows(svc, [hardId!]);
      expect(hard).toMatchObject({ state: "dead", attempts: 1 });
      expect(hard!.last_error).toContain("550");
      const failed = await rows(svc, ids);
      const waits = failed.map((r) => r.next_attempt_at - start);
      for (const row of failed) expect(row).toMatchObject({ state: "queued", attempts: 1 });
      // the first retry's wait is 1 min jittered to 30-60 s, and the 20 are spread, not all at one time
      for (const wait of waits) {
        expect(wait).toBeGreaterThanOrEqual(30_000);
        expect(wait).toBeLessThanOrEqual(60_000);
      }
      expect(new Set(waits).size).toBeGreaterThan(10);
      expect(Math.max(...waits) - Math.min(...waits)).toBeGreaterThan(10_000);
      // the server takes them now (the plan is used up): each goes at its own retry, delivered once
      const before = smtp.arrivals.length;
      clock = start + Math.max(...waits);
      await svc.app.outbox!.flush(clock);
      const done = await rows(svc, ids);
      expect(done.map((r) => [r.state, r.attempts, r.last_error])).toEqual(done.map(() => ["sent", 2, null]));
      expect(
        smtp.arrivals
          .slice(before)
          .map((a) => a.to[0])
          .sort(),
      ).toEqual([...to].sort());
    });
  });
});

describe("the retry wait and the domain gate", () => {
  it("jitters each wait to between half and all of the doubling schedule's, never past the maximum", () => {
    const max = 30 * 60_000;
    expect([1, 2, 3, 6, 40].map((n) => retryDelay(n, max, 1))).toEqual([60_000, 120_000, 240_000, max, max]);
    expect([1, 2, 3, 6, 40].map((n) => retryDelay(n, max, 0))).toEqual([
      30_000,
      60_000,
      120_000,
      max / 2,
      max / 2,
    ]);
    expect(retryDelay(2, max, 0.5)).toBe(90_000);
  });

  it("lets a one-second burst through, then one an interval, and says when the next may go", () => {
    const gate = new DomainGate({ concurrency: 0, perMinute: 180 }); // 3 a second: a burst of 3
    const t = 1_000_000;
    for (let k = 0; k < 3; k++) {
      expect(gate.take("x.example", t)).toBe(true);
      gate.release("x.example");
    }
    expect(gate.take("x.example", t)).toBe(t + 334);
    expect(gate.take("x.example", t, 2)).toBe(t + 1000);
    expect(gate.take("y.example", t)).toBe(true);
    expect(gate.take("x.example", t + 334)).toBe(true);
  });

  it("answers busy at the concurrency until a release, and forgets idle domains past 10,000", () => {
    const gate = new DomainGate({ concurrency: 2, perMinute: 60 });
    const t = 5_000_000;
    expect(gate.take("z.example", t)).toBe(true);
    expect(gate.take("z.example", t + 1000)).toBe(true);
    expect(gate.take("z.example", t + 2000)).toBe("busy");
    gate.release("z.example");
    expect(gate.take("z.example", t + 2000)).toBe(true);
    for (let k = 0; k < 20_000; k++) {
      expect(gate.take(`d${k}.example`, t + k * 10_000)).toBe(true);
      gate.release(`d${k}.example`);
    }
    const state = (gate as unknown as { arrival: Map<string, number> }).arrival;
    expect(state.size).toBeLessThanOrEqual(10_000);
  });
});
