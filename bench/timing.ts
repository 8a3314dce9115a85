// In-process timing for the micro-benchmarks.

/**
 * µs per call of fn: a warm-up to let the JIT settle, then the best of 5 timed trials of about minMs/5 each
 * (the best is the trial least disturbed by other load on a shared machine). Calls run in batches of `batch`.
 */
export function timePerOp(fn: () => void, minMs: number, batch = 1000, warmup = 20 * batch): number {
  for (let i = 0; i < warmup; i++) fn();
  let best = Infinity;
  const trialNs = (minMs / 5) * 1e6;
  for (let trial = 0; trial < 5; trial++) {
    let ops = 0;
    const start = process.hrtime.bigint();
    let elapsed = 0;
    while (elapsed < trialNs) {
      for (let i = 0; i < batch; i++) fn();
      ops += batch;
      elapsed = Number(process.hrtime.bigint() - start);
    }
    best = Math.min(best, elapsed / 1000 / ops);
  }
  return best;
}
