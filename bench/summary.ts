// What the load tools report, and the figures and text tables bench/run.ts and bench/service.ts make of it.
// No side effects and no process handling: bench/service-children.ts imports it too.

/** One load run as wrk or autocannon reports it. */
export interface LoadResult {
  readonly requests: number;
  readonly seconds: number;
  readonly rps: number;
  readonly p50ms: number;
  readonly p99ms: number;
  /** Socket errors, timeouts and non-2xx answers together. */
  readonly failures: number;
}

/** The part of autocannon's result (its `-j` JSON, or what its programmatic API resolves to) that is read here. */
export interface AutocannonResult {
  readonly duration: number;
  readonly requests: { total: number };
  readonly latency: { p50: number; p99: number };
  readonly errors: number;
  readonly timeouts: number;
  readonly non2xx: number;
}

/** An autocannon result as a LoadResult (its latencies are whole milliseconds). */
export function fromAutocannon(r: AutocannonResult): LoadResult {
  return {
    requests: r.requests.total,
    seconds: r.duration,
    rps: r.requests.total / r.duration,
    p50ms: r.latency.p50,
    p99ms: r.latency.p99,
    failures: r.errors + r.timeouts + r.non2xx,
  };
}

/** The median of a non-empty list (the mean of the middle two for an even count). */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/** A plain-text table: a header, a rule of dashes, the rows; columns two spaces apart, padded left where rightAligned. */
export function table(
  header: readonly string[],
  body: readonly (readonly string[])[],
  rightAligned: readonly boolean[],
): string {
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((r) => r[i].length)));
  const fmt = (cells: readonly string[]) =>
    cells
      .map((c, i) => (rightAligned[i] ? c.padStart(widths[i]) : c.padEnd(widths[i])))
      .join("  ")
      .trimEnd();
  return [fmt(header), widths.map((w) => "-".repeat(w)).join("  "), ...body.map(fmt)].join("\n");
}
