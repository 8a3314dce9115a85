// The server-wide budget: bytes are reserved as they arrive, a lease takes its call slot when its body is in,
// every lease gives back what it held exactly once however the request ends, and BodyProgress cuts a body
// that falls behind its window's quota.

import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import {
  BodyProgress,
  LARGE_BODY_BYTES,
  RequestLease,
  ServerBudget,
  type BodyWatch,
} from "../../generated/runtime/server/budget.js";

describe("ServerBudget and RequestLease", () => {
  it("refuses a reservation that would pass the byte budget and reserves nothing for it", () => {
    const budget = new ServerBudget(100, 10);
    const a = new RequestLease(budget);
    expect(a.hold(60)).toBe(true);
    const b = new RequestLease(budget);
    expect(b.hold(41)).toBe(false);
    expect(budget.usage).toEqual({ bytes: 60, calls: 0 });
    expect(b.hold(40)).toBe(true);
    expect(budget.usage.bytes).toBe(100);
  });

  it("grows a lease by the difference only", () => {
    const budget = new ServerBudget(100, 10);
    const lease = new RequestLease(budget);
    lease.hold(10);
    lease.hold(30);
    lease.hold(20); // smaller than held: nothing changes
    expect(budget.usage.bytes).toBe(30);
  });

  it("takes a call slot only on enter, once, and gives everything back once, even when ended twice", () => {
    const budget = new ServerBudget(100, 10);
    const a = new RequestLease(budget);
    const b = new RequestLease(budget);
    a.hold(50);
    b.hold(50);
    expect(budget.usage).toEqual({ bytes: 100, calls: 0 });
    expect([a.enter(), a.enter(), b.enter()]).toEqual([true, true, true]);
    expect(budget.usage).toEqual({ bytes: 100, calls: 2 });
    a.end();
    a.end();
    expect(budget.usage).toEqual({ bytes: 50, calls: 1 });
    expect(a.hold(10)).toBe(false);
    expect(a.enter()).toBe(false);
    b.end();
    expect(budget.usage).toEqual({ bytes: 0, calls: 0 });
  });

  it("a lease that never entered gives back its bytes and no call", () => {
    const budget = new ServerBudget(100, 1);
    const other = new RequestLease(budget);
    expect(other.enter()).toBe(true);
    const idle = new RequestLease(budget);
    idle.hold(30);
    expect(idle.enter()).toBe(false);
    idle.end();
    expect(budget.usage).toEqual({ bytes: 0, calls: 1 });
  });

  it("caps requests in progress, and hasRoom says so (and whether n bytes fit) without taking anything", () => {
    const budget = new ServerBudget(100, 2);
    expect([budget.enter(), budget.enter(), budget.enter()]).toEqual([true, true, false]);
    expect(budget.hasRoom(0)).toBe(false);
    budget.leave();
    expect([budget.hasRoom(100), budget.hasRoom(101)]).toEqual([true, false]);
    expect(budget.usage).toEqual({ bytes: 0, calls: 1 });
  });
});

describe("what a large body announces is promised, not held", () => {
  const MiB = 1024 * 1024;

  it("counts a large body's announced length against the next large body, never against an ordinary call", () => {
    expect(LARGE_BODY_BYTES).toBe(MiB);
    const budget = new ServerBudget(96 * MiB, 256);
    const upload = new RequestLease(budget);
    expect(budget.hasRoom(64 * MiB)).toBe(true);
    upload.promise(64 * MiB);
    expect(budget.usage.bytes).toBe(0);
    // Another upload of 64 MiB would not fit beside the promise: refused at once, as before.
    expect(budget.hasRoom(64 * MiB)).toBe(false);
    expect(budget.hasRoom(32 * MiB)).toBe(true);
    // An ordinary call is admitted against the bytes held alone, whatever is promised.
    const idle = new RequestLease(budget);
    idle.promise(32 * MiB);
    expect(budget.promised).toBe(96 * MiB);
    expect(budget.hasRoom(MiB)).toBe(true);
    expect(budget.hasRoom(MiB + 1)).toBe(false);
  });

  it("turns the promise into held bytes as they arrive, and gives back both once", () => {
    const budget = new ServerBudget(100 * MiB, 10);
    const lease = new RequestLease(budget);
    lease.promise(10 * MiB);
    lease.promise(50 * MiB); // once only
    expect(budget.promised).toBe(10 * MiB);
    expect(lease.hold(4 * MiB)).toBe(true);
    expect([budget.usage.bytes, budget.promised]).toEqual([4 * MiB, 6 * MiB]);
    expect(lease.hold(10 * MiB)).toBe(true);
    expect([budget.usage.bytes, budget.promised]).toEqual([10 * MiB, 0]);
    const half = new RequestLease(budget);
    half.promise(20 * MiB);
    half.hold(MiB);
    half.end();
    half.end();
    lease.end();
    expect([budget.usage.bytes, budget.promised]).toEqual([0, 0]);
  });

  it("does not promise an ordinary body's length", () => {
    const budget = new ServerBudget(10 * MiB, 10);
    new RequestLease(budget).promise(MiB);
    expect(budget.promised).toBe(0);
  });
});

describe("BodyProgress", () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  function watch(): BodyWatch & { slowAt: number[] } {
    const slowAt: number[] = [];
    return {
      received: 0,
      mark: -1,
      prevBody: null,
      nextBody: null,
      watched: false,
      slowAt,
      tooSlow: () => void slowAt.push(Date.now()),
    };
  }

  it("cuts a body that stops, within two windows; one that keeps up, never", () => {
    const progress = new BodyProgress(1000, 100); // 100 bytes per window
    const stalled = watch();
    const steady = watch();
    progress.watch(stalled);
    progress.watch(steady);
    const t0 = Date.now();
    for (let s = 0; s < 10; s++) {
      steady.received += 150;
      vi.advanceTimersByTime(500);
      steady.received += 150;
      vi.advanceTimersByTime(500);
    }
    expect(stalled.slowAt).toHaveLength(1);
    expect(stalled.slowAt[0]! - t0).toBeLessThanOrEqual(2000);
    expect(stalled.watched).toBe(false);
    expect(steady.slowAt).toEqual([]);
    expect(progress.watching).toBe(1);
  });

  it("cuts a body trickling under the rate, and one that stops after a fast start", () => {
    const progress = new BodyProgress(1000, 1000);
    const trickle = watch();
    const burst = watch();
    progress.watch(trickle);
    progress.watch(burst);
    burst.received = 10_000_000;
    for (let s = 0; s < 3; s++) {
      trickle.received += 999;
      vi.advanceTimersByTime(1000);
    }
    expect(trickle.slowAt).toHaveLength(1);
    expect(burst.slowAt).toHaveLength(1);
  });

  it("with a rate of 0 cuts only a body that stops altogether", () => {
    const progress = new BodyProgress(1000, 0);
    const w = watch();
    progress.watch(w);
    for (let s = 0; s < 5; s++) {
      w.received += 1;
      vi.advanceTimersByTime(1000);
    }
    expect(w.slowAt).toEqual([]);
    vi.advanceTimersByTime(2000);
    expect(w.slowAt).toHaveLength(1);
  });

  it("stops its timer when nothing is watched, and an unwatched body is never cut", () => {
    const progress = new BodyProgress(1000, 100);
    const w = watch();
    progress.watch(w);
    progress.unwatch(w);
    progress.unwatch(w);
    expect(vi.getTimerCount()).toBe(1);
    vi.advanceTimersByTime(5000);
    expect(w.slowAt).toEqual([]);
    expect(vi.getTimerCount()).toBe(0);
  });
});
