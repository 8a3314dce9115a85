// A server-wide budget: request bytes held in memory and requests in progress. One upload may use up to
// maxBodyBytes, but twenty of them at once must not take the process down, so every buffered byte is
// reserved here first; when the budget is spent the request is refused at once (503) instead of buffered.

/**
 * Room for one body at the default maxBodyBytes (64 MiB) and many ordinary ones, not two at the limit:
 * reading a 64 MiB body of dense references takes the event loop ~0.8 s, two in a row would keep
 * every other caller waiting over a second.
 */
export const DEFAULT_MAX_BUFFERED_BYTES: number = 96 * 1024 * 1024;
export const DEFAULT_MAX_CONCURRENT_CALLS = 256;

export class ServerBudget {
  readonly maxBytes: number;
  readonly maxCalls: number;
  private bytes = 0;
  private calls = 0;

  constructor(maxBytes: number, maxCalls: number) {
    this.maxBytes = maxBytes;
    this.maxCalls = maxCalls;
  }

  /** Starts a request; false when maxCalls are already in progress. */
  enter(): boolean {
    if (this.calls >= this.maxCalls) return false;
    this.calls++;
    return true;
  }

  leave(): void {
    if (this.calls > 0) this.calls--;
  }

  /** Reserves n more buffered bytes; false (and nothing reserved) when that would pass maxBytes. */
  reserve(n: number): boolean {
    if (this.bytes + n > this.maxBytes) return false;
    this.bytes += n;
    return true;
  }

  release(n: number): void {
    this.bytes = Math.max(0, this.bytes - n);
  }

  /** Bytes and requests currently held (for tests and metrics). */
  get usage(): { readonly bytes: number; readonly calls: number } {
    return { bytes: this.bytes, calls: this.calls };
  }
}

/**
 * One request's share of the budget: reserves as its body arrives and gives everything back exactly once
 * when the request is over (answered, refused or dropped).
 */
export class RequestLease {
  private readonly budget: ServerBudget;
  private held = 0;
  private open = true;

  constructor(budget: ServerBudget) {
    this.budget = budget;
  }

  /** Grows the reservation to total bytes; false when the budget cannot give that much. */
  hold(total: number): boolean {
    if (!this.open) return false;
    if (total <= this.held) return true;
    if (!this.budget.reserve(total - this.held)) return false;
    this.held = total;
    return true;
  }

  end(): void {
    if (!this.open) return;
    this.open = false;
    this.budget.release(this.held);
    this.held = 0;
    this.budget.leave();
  }
}
