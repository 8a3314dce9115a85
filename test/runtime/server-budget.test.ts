// The server-wide budget: bytes are reserved before they are buffered, and every lease gives back what
// it held exactly once, however the request ends.

import { describe, expect, it } from "vitest";
import { RequestLease, ServerBudget } from "../../generated/runtime/server-budget.js";

describe("ServerBudget and RequestLease", () => {
  it("refuses a reservation that would pass the byte budget and reserves nothing for it", () => {
    const budget = new ServerBudget(100, 10);
    expect(budget.enter()).toBe(true);
    const a = new RequestLease(budget);
    expect(a.hold(60)).toBe(true);
    expect(budget.enter()).toBe(true);
    const b = new RequestLease(budget);
    expect(b.hold(41)).toBe(false);
    expect(budget.usage).toEqual({ bytes: 60, calls: 2 });
    expect(b.hold(40)).toBe(true);
    expect(budget.usage.bytes).toBe(100);
  });

  it("grows a lease by the difference only", () => {
    const budget = new ServerBudget(100, 10);
    budget.enter();
    const lease = new RequestLease(budget);
    lease.hold(10);
    lease.hold(30);
    lease.hold(20); // smaller than held: nothing changes
    expect(budget.usage.bytes).toBe(30);
  });

  it("gives everything back once, even when ended twice", () => {
    const budget = new ServerBudget(100, 10);
    budget.enter();
    budget.enter();
    const a = new RequestLease(budget);
    const b = new RequestLease(budget);
    a.hold(50);
    b.hold(50);
    a.end();
    a.end();
    expect(budget.usage).toEqual({ bytes: 50, calls: 1 });
    expect(a.hold(10)).toBe(false);
    b.end();
    expect(budget.usage).toEqual({ bytes: 0, calls: 0 });
  });

  it("caps requests in progress", () => {
    const budget = new ServerBudget(100, 2);
    expect([budget.enter(), budget.enter(), budget.enter()]).toEqual([true, true, false]);
    budget.leave();
    expect(budget.enter()).toBe(true);
  });
});
