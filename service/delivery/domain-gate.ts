// Polite delivery per recipient domain: at most `concurrency` messages in flight to one domain, and at
// most `perMinute` messages a minute to it (GCRA: a token bucket holding one second's worth, at least
// one). The limits hold per worker process; the outbox gives a message a domain cannot take now back to
// the queue for when it can, without counting an attempt (workers/outbox.ts).

export interface DomainLimits {
  /** Messages in flight to one recipient domain at once (0: no limit beyond the transport's own). */
  readonly concurrency: number;
  /** Messages a minute to one recipient domain (0: no limit). */
  readonly perMinute: number;
}

/** Domains whose rate state is kept at most; past it, the domains at rest (a full bucket) are forgotten. */
const MAX_DOMAINS = 10_000;

/** The recipient domain of an address, lower case ("" when it has no @). */
export function recipientDomain(address: string): string {
  const at = address.lastIndexOf("@");
  return at < 0 ? "" : address.slice(at + 1).toLowerCase();
}

export class DomainGate {
  private readonly inFlight = new Map<string, number>();
  /** Per domain, the theoretical arrival time of the next message (GCRA), epoch ms. */
  private readonly arrival = new Map<string, number>();
  private readonly interval: number;
  private readonly tolerance: number;

  constructor(private readonly limits: DomainLimits) {
    this.interval = limits.perMinute > 0 ? 60_000 / limits.perMinute : 0;
    this.tolerance = this.interval * Math.max(0, Math.ceil(limits.perMinute / 60) - 1);
  }

  /**
   * Takes a slot for one message to `domain` at `now`: true when it may go now (call release after);
   * "busy" when the domain has `concurrency` messages in flight (one ends soon: try again then); or the
   * time (epoch ms) from which the rate allows it, `queued` messages of the domain already waiting
   * before it (each put one interval later, so a backlog comes back spread out, not all at once).
   */
  take(domain: string, now: number, queued = 0): true | "busy" | number {
    const flying = this.inFlight.get(domain) ?? 0;
    if (this.limits.concurrency > 0 && flying >= this.limits.concurrency) return "busy";
    if (this.interval > 0) {
      const tat = Math.max(this.arrival.get(domain) ?? now, now);
      // (a microsecond's slack: the interval is a fraction, and sums of fractions drift)
      if (tat - this.tolerance > now + 0.001)
        return Math.ceil(tat - this.tolerance + queued * this.interval - 0.001);
      if (!this.arrival.has(domain) && this.arrival.size >= MAX_DOMAINS) this.forgetRested(now);
      this.arrival.set(domain, tat + this.interval);
    }
    this.inFlight.set(domain, flying + 1);
    return true;
  }

  release(domain: string): void {
    const flying = (this.inFlight.get(domain) ?? 1) - 1;
    if (flying <= 0) this.inFlight.delete(domain);
    else this.inFlight.set(domain, flying);
  }

  /** Drops the rate state of domains whose bucket is full again (nothing sent to them lately). */
  private forgetRested(now: number): void {
    for (const [domain, tat] of this.arrival) if (tat <= now) this.arrival.delete(domain);
    // still full of busy domains: forget the oldest (a map iterates in insertion order)
    for (const domain of this.arrival.keys()) {
      if (this.arrival.size < MAX_DOMAINS) break;
      this.arrival.delete(domain);
    }
  }
}
