// How many password checks (scrypt, ~50 ms of a thread-pool thread and 16 MiB each) run at once, and
// whose turn is next. At most `concurrency` run; the rest wait in a bounded queue, one lane per source,
// served in turn (one source's flood waits behind its own attempts, not in front of everyone's); a source
// has at most one check running and `perSource` running or waiting. Lanes whose next attempt is a trusted
// pair (a source that signed in as that name before) are served first. A full lane or a full queue is
// refused at once rather than queued without bound.

export class GateFull extends Error {
  constructor(readonly reason: "source" | "queue") {
    super(reason === "source" ? "too many sign-ins at once from this source" : "too many sign-ins waiting");
  }
}

interface Waiter {
  readonly priority: boolean;
  readonly grant: () => void;
}

interface Lane {
  readonly source: string;
  running: boolean;
  readonly waiting: Waiter[];
}

export interface GateOptions {
  /** Checks running at once (default 2: the thread pool has 4 threads, and the log syncs need theirs). */
  readonly concurrency?: number;
  /** Checks waiting at most, over every source (default 64). */
  readonly queue?: number;
  /** Checks one source may have running or waiting (default 8). */
  readonly perSource?: number;
}

export class CheckGate {
  private readonly concurrency: number;
  private readonly queue: number;
  private readonly perSource: number;
  private readonly lanes = new Map<string, Lane>();
  /** Lanes with a waiter and nothing running, in turn order: trusted heads first. */
  private readonly ready: [Set<Lane>, Set<Lane>] = [new Set(), new Set()];
  private running = 0;
  private waiting = 0;

  constructor(options: GateOptions = {}) {
    this.concurrency = options.concurrency ?? 2;
    this.queue = options.queue ?? 64;
    this.perSource = options.perSource ?? 8;
  }

  /** Checks running and waiting now. */
  get load(): { running: number; waiting: number; lanes: number } {
    return { running: this.running, waiting: this.waiting, lanes: this.lanes.size };
  }

  /**
   * A turn for one check from `source`: its release (call it once, when the check is done) at once, or a
   * promise of it when the turn comes after others. Throws GateFull when the source's lane or the queue
   * is full.
   */
  acquire(source: string, priority: boolean): (() => void) | Promise<() => void> {
    let lane = this.lanes.get(source);
    if (lane !== undefined && (lane.running ? 1 : 0) + lane.waiting.length >= this.perSource)
      throw new GateFull("source");
    if (
      (lane === undefined || !lane.running) &&
      this.running < this.concurrency &&
      (lane === undefined || lane.waiting.length === 0)
    ) {
      lane ??= this.lane(source);
      this.start(lane);
      return this.releaser(lane);
    }
    if (this.waiting >= this.queue) throw new GateFull("queue");
    lane ??= this.lane(source);
    const owner = lane;
    return new Promise((resolve) => {
      owner.waiting.push({ priority, grant: () => resolve(this.releaser(owner)) });
      this.waiting++;
      if (!owner.running && owner.waiting.length === 1) this.ready[priority ? 0 : 1].add(owner);
      this.dispatch();
    });
  }

  private lane(source: string): Lane {
    const lane: Lane = { source, running: false, waiting: [] };
    this.lanes.set(source, lane);
    return lane;
  }

  private start(lane: Lane): void {
    lane.running = true;
    this.running++;
  }

  private releaser(lane: Lane): () => void {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      lane.running = false;
      this.running--;
      if (lane.waiting.length > 0) this.ready[lane.waiting[0]!.priority ? 0 : 1].add(lane);
      else this.lanes.delete(lane.source);
      this.dispatch();
    };
  }

  private dispatch(): void {
    while (this.running < this.concurrency) {
      const set = this.ready[0].size > 0 ? this.ready[0] : this.ready[1];
      const lane = set.values().next().value;
      if (lane === undefined) return;
      set.delete(lane);
      const waiter = lane.waiting.shift()!;
      this.waiting--;
      this.start(lane);
      waiter.grant();
    }
  }
}
