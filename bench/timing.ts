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

/** CPU µs per call: the best of 7 trials after a warm-up (CPU time, not wall time: the host is shared). */
export function cpuPerOp(fn: () => void, ms = 1000, batch = 100): number {
  for (let i = 0; i < 20 * batch; i++) fn();
  let best = Infinity;
  for (let trial = 0; trial < 7; trial++) {
    const start = process.cpuUsage();
    let ops = 0;
    let spent = 0;
    while (spent < (ms * 1000) / 7) {
      for (let i = 0; i < batch; i++) fn();
      ops += batch;
      const used = process.cpuUsage(start);
      spent = used.user + used.system;
    }
    best = Math.min(best, spent / ops);
  }
  return best;
}
