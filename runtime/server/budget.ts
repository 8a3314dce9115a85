// A server-wide budget: request bytes held in memory and requests in progress. One upload may use up to
// maxBodyBytes, but twenty of them at once must not take the process down, so every buffered byte is
// reserved here as it arrives; when the budget is spent the request is refused (503) instead of buffered.
// A request holds only what has arrived, and takes its call slot once its body is in: a peer that announces
// a body and then sends nothing holds no memory and no call, only its connection, which BodyProgress cuts
// when the body stops arriving.
//
// What a large body announces (over LARGE_BODY_BYTES) is promised, not held: it is counted against the next
// large body, so twenty 64 MiB uploads at once get one accepted and the rest 503 at once, before their bodies
// are invited, as before. An ordinary call is admitted against the bytes actually held alone: no peer, idle
// or slow, can keep it out by announcing bodies it does not send.

/**
 * Room for one body at the default maxBodyBytes (64 MiB) and many ordinary ones, not two at the limit:
 * reading a 64 MiB body of dense references takes the event loop ~0.8 s, two in a row would keep
 * every other caller waiting over a second.
 */
export const DEFAULT_MAX_BUFFERED_BYTES: number = 96 * 1024 * 1024;
export const DEFAULT_MAX_CONCURRENT_CALLS = 256;
/**
 * Bodies announcing more than this are uploads: what they announce is promised against the next upload.
 * Calls up to it (SOAP and HTTP POST calls are a few KB) are admitted against the bytes held alone.
 */
export const LARGE_BODY_BYTES: number = 1024 * 1024;
/** The window over which a request body must keep arriving (BodyProgress). */
export const DEFAULT_BODY_TIMEOUT_MS = 10_000;
/** The least rate a body must keep up over each window: 10 KiB per 10 s at the defaults. */
export const DEFAULT_MIN_BODY_BYTES_PER_SECOND = 1024;

export class ServerBudget {
  readonly maxBytes: number;
  readonly maxCalls: number;
  private bytes = 0;
  private calls = 0;
  /** Bytes large bodies in flight announced and have not sent yet (RequestLease.promise). */
  promised = 0;

  constructor(maxBytes: number, maxCalls: number) {
    this.maxBytes = maxBytes;
    this.maxCalls = maxCalls;
  }

  /**
   * Whether a request announcing n body bytes could be taken now: a call slot free, and room for n bytes
   * beside those held (and, for a large body, beside those promised to the large bodies in flight). Takes
   * nothing: a request is refused at once when this says no, before its body is invited.
   */
  hasRoom(n: number): boolean {
    return (
      this.calls < this.maxCalls &&
      this.bytes + n + (n > LARGE_BODY_BYTES ? this.promised : 0) <= this.maxBytes
    );
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
 * One request's share of the budget: bytes reserved as its body arrives, a call slot once it is in
 * (enter), everything given back exactly once when the request is over (answered, refused or dropped).
 */
export class RequestLease {
  private readonly budget: ServerBudget;
  private held = 0;
  /** Announced and not yet arrived, of a large body. */
  private promisedLeft = 0;
  private announced = 0;
  private open = true;
  private entered = false;

  constructor(budget: ServerBudget) {
    this.budget = budget;
  }

  /** The body's announced length: promised against the next large body when it is a large one. */
  promise(announced: number): void {
    if (!this.open || announced <= LARGE_BODY_BYTES || this.announced > 0) return;
    this.announced = announced;
    this.promisedLeft = Math.max(0, announced - this.held);
    this.budget.promised += this.promisedLeft;
  }

  /** Grows the reservation to total bytes; false when the budget cannot give that much. */
  hold(total: number): boolean {
    if (!this.open) return false;
    if (total <= this.held) return true;
    if (!this.budget.reserve(total - this.held)) return false;
    this.held = total;
    if (this.promisedLeft > 0) {
      const left = Math.max(0, this.announced - total);
      this.budget.promised -= this.promisedLeft - left;
      this.promisedLeft = left;
    }
    return true;
  }

  /** Takes the request's call slot; false when maxCalls are in progress (or the lease has ended). */
  enter(): boolean {
    if (!this.open) return false;
    if (this.entered) return true;
    if (!this.budget.enter()) return false;
    this.entered = true;
    return true;
  }

  end(): void {
    if (!this.open) return;
    this.open = false;
    this.budget.release(this.held);
    this.held = 0;
    this.budget.promised -= this.promisedLeft;
    this.promisedLeft = 0;
    if (this.entered) this.budget.leave();
  }
}

/** A request whose body is arriving, as BodyProgress sees it. */
export interface BodyWatch {
  /** Body bytes received so far (the adapter keeps it current). */
  received: number;
  /** `received` at the last sweep that saw it; -1 before the first. */
  mark: number;
  prevBody: BodyWatch | null;
  nextBody: BodyWatch | null;
  watched: boolean;
  /** Called once when the body fell behind; the watch is off by then. */
  tooSlow(): void;
}

/**
 * The requests whose bodies are still arriving, swept every windowMs: each must have received at least
 * minBytes more since the sweep before (or have finished and left), else it is too slow and is cut. A body
 * that stops, or trickles under the rate, is cut between one and two windows after it fell behind; one
 * that keeps up is never cut, however long it is. One timer per server, running only while some body is
 * arriving; watching and unwatching link the request in place (no allocation, no timer per request).
 */
export class BodyProgress {
  readonly windowMs: number;
  readonly minBytes: number;
  private first: BodyWatch | null = null;
  private timer: ReturnType<typeof setInterval> | undefined = undefined;

  /** minBytesPerSecond 0 still cuts a body that stops altogether (at least one byte per window). */
  constructor(windowMs: number, minBytesPerSecond: number) {
    this.windowMs = windowMs;
    this.minBytes = Math.max(1, Math.ceil((minBytesPerSecond * windowMs) / 1000));
  }

  watch(w: BodyWatch): void {
    if (w.watched) return;
    w.watched = true;
    w.mark = -1;
    w.prevBody = null;
    w.nextBody = this.first;
    if (this.first !== null) this.first.prevBody = w;
    this.first = w;
    if (this.timer === undefined) {
      this.timer = setInterval(() => this.sweep(), this.windowMs);
      (this.timer as { unref?: () => void }).unref?.();
    }
  }

  unwatch(w: BodyWatch): void {
    if (!w.watched) return;
    w.watched = false;
    if (w.prevBody !== null) w.prevBody.nextBody = w.nextBody;
    else this.first = w.nextBody;
    if (w.nextBody !== null) w.nextBody.prevBody = w.prevBody;
    w.prevBody = w.nextBody = null;
  }

  /** Requests watched now (for tests). */
  get watching(): number {
    let n = 0;
    for (let w = this.first; w !== null; w = w.nextBody) n++;
    return n;
  }

  private sweep(): void {
    let slow: BodyWatch[] | undefined;
    for (let w = this.first; w !== null; w = w.nextBody) {
      if (w.mark >= 0 && w.received - w.mark < this.minBytes) (slow ??= []).push(w);
      else w.mark = w.received;
    }
    // Cut after the pass: cutting one may end others (their connection closes) and unlink them.
    if (slow !== undefined) {
      for (const w of slow) {
        if (!w.watched) continue;
        this.unwatch(w);
        w.tooSlow();
      }
    }
    if (this.first === null && this.timer !== undefined) {
      clearInterval(this.timer);
      this.timer = undefined;
    }
  }
}
