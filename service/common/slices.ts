// Long work that shares the event loop: time slices, and a fair turn per account for work of which only a
// few may run at once (the CSV bulk insert).

import { setImmediate as nextTurn } from "node:timers/promises";

/** Milliseconds of work between two turns of the event loop (a slice). */
const SLICE_MS = 10;

/** Yields to the event loop once the current slice has run SLICE_MS (or `budgetMs`). */
export class TimeSlicer {
  private started = performance.now();

  constructor(private readonly budgetMs = SLICE_MS) {}

  /** Resolves at once within the slice; else after a turn of the event loop, starting the next slice. */
  async pause(): Promise<void> {
    if (performance.now() - this.started < this.budgetMs) return;
    await nextTurn();
    this.started = performance.now();
  }
}

/**
 * At most `limit` holders at once and one per key (an account), the next turn going to the key that has
 * waited since the earliest round: waiting keys are served in turn, each its oldest caller first, so one
 * key's many callers never hold the others back by more than one turn each.
 */
export class FairGate<K> {
  private running = 0;
  private readonly busy = new Set<K>();
  /** Waiting callers by key, keys in the order they are to be served. */
  private readonly waiting = new Map<K, (() => void)[]>();

  constructor(private readonly limit: number) {}

  /** Runs `work` in its turn; rejects with the signal's reason when it aborts while waiting. */
  async run<T>(key: K, work: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    await this.enter(key, signal);
    try {
      return await work();
    } finally {
      this.running--;
      this.busy.delete(key);
      this.next();
    }
  }

  /** Callers waiting for a turn (tests and metrics). */
  get queued(): number {
    let n = 0;
    for (const callers of this.waiting.values()) n += callers.length;
    return n;
  }

  private enter(key: K, signal: AbortSignal | undefined): Promise<void> {
    signal?.throwIfAborted();
    if (this.running < this.limit && !this.busy.has(key) && !this.waiting.has(key)) {
      this.take(key);
      return Promise.resolve();
    }
    return new Promise<void>((resolve, reject) => {
      const callers = this.waiting.get(key) ?? [];
      const turn = (): void => {
        signal?.removeEventListener("abort", onAbort);
        resolve();
      };
      const onAbort = (): void => {
        const list = this.waiting.get(key);
        const at = list?.indexOf(turn) ?? -1;
        if (list !== undefined && at >= 0) {
          list.splice(at, 1);
          if (list.length === 0) this.waiting.delete(key);
        }
        reject(signal?.reason);
      };
      callers.push(turn);
      this.waiting.set(key, callers);
      signal?.addEventListener("abort", onAbort, { once: true });
    });
  }

  private take(key: K): void {
    this.running++;
    this.busy.add(key);
  }

  /** Gives free turns to the first waiting keys not running now; a key served goes to the end of the round. */
  private next(): void {
    for (const [key, callers] of this.waiting) {
      if (this.running >= this.limit) return;
      if (this.busy.has(key)) continue;
      const turn = callers.shift()!;
      this.waiting.delete(key);
      if (callers.length > 0) this.waiting.set(key, callers);
      this.take(key);
      turn();
    }
  }
}
