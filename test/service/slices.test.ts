/**
 * service/common/slices.ts: the fair gate of the CSV bulk insert (at most `limit` at once, one per account,
 * accounts served in turn, a caller gone while waiting dropped) and the time slicer.
 */
import { setImmediate as nextTurn } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import { FairGate, TimeSlicer } from "../../service/common/slices.js";

/** A task that runs until released; records its start. */
function task(started: string[], name: string): { work: () => Promise<string>; release: () => void } {
  let release!: () => void;
  const done = new Promise<void>((resolve) => (release = resolve));
  return {
    work: async () => {
      started.push(name);
      await done;
      return name;
    },
    release: () => release(),
  };
}

async function turns(n: number): Promise<void> {
  for (let i = 0; i < n; i++) await nextTurn();
}

describe("FairGate", () => {
  it("runs at most `limit` at once and one per key; waiting keys are served in turn", async () => {
    const gate = new FairGate<string>(2);
    const started: string[] = [];
    // Account a queues five calls first, then b and c one each.
    const tasks = [..."aaaaa"].map((key, i) => ({ key, ...task(started, `${key}${i + 1}`) }));
    tasks.push({ key: "b", ...task(started, "b1") }, { key: "c", ...task(started, "c1") });
    const results = tasks.map((t) => gate.run(t.key, t.work));
    await turns(3);
    // a1 runs; a's other calls wait (one per key); b1 takes the second turn.
    expect(started).toEqual(["a1", "b1"]);
    expect(gate.queued).toBe(5);
    tasks.find((t) => t.key === "b")!.release();
    await turns(3);
    // b is done: c (waiting since the first round) goes before a's second call.
    expect(started).toEqual(["a1", "b1", "c1"]);
    tasks[0]!.release();
    await turns(3);
    expect(started).toEqual(["a1", "b1", "c1", "a2"]);
    for (const t of tasks) t.release();
    for (let i = 0; i < 6; i++) await turns(3);
    expect(await Promise.all(results)).toEqual(["a1", "a2", "a3", "a4", "a5", "b1", "c1"]);
    expect(started).toEqual(["a1", "b1", "c1", "a2", "a3", "a4", "a5"]);
    expect(gate.queued).toBe(0);
  });

  it("drops a caller whose signal aborts while it waits, and frees the turn of one that throws", async () => {
    const gate = new FairGate<string>(1);
    const started: string[] = [];
    const first = task(started, "first");
    const running = gate.run("a", first.work);
    const controller = new AbortController();
    const waiting = gate.run("b", async () => "never", controller.signal);
    controller.abort(new Error("the caller went away"));
    await expect(waiting).rejects.toThrow("the caller went away");
    expect(gate.queued).toBe(0);
    const failing = gate.run("c", async () => {
      throw new Error("boom");
    });
    first.release();
    expect(await running).toBe("first");
    await expect(failing).rejects.toThrow("boom");
    expect(await gate.run("d", async () => "after")).toBe("after");
    // An already aborted signal never waits.
    await expect(gate.run("e", async () => "x", AbortSignal.abort(new Error("gone")))).rejects.toThrow(
      "gone",
    );
  });
});

describe("TimeSlicer", () => {
  it("yields only once its budget is spent", async () => {
    let turned = false;
    setImmediate(() => (turned = true));
    await new TimeSlicer(60_000).pause(); // within the budget: no turn
    expect(turned).toBe(false);
    const slicer = new TimeSlicer(5);
    const until = performance.now() + 6;
    while (performance.now() < until) {
      // spend the budget
    }
    await slicer.pause();
    expect(turned).toBe(true);
  });
});
