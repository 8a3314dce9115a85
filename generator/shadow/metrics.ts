// The shadow proxy's metrics in Prometheus' text format (version 0.0.4): requests, mirrored, dropped,
// matched, diverged, explained and compared-host failures, per operation and binding, and gauges of what it
// holds. Written here rather than with prom-client: the published easgen package carries none of the
// reference service's dependencies (test/generator/package.test.ts), and counters in a Map are all this
// needs. Labels come from the spec's operations, the four bindings, "(other)" and fixed reasons, so their
// number is bounded whatever callers send.

export type DropReason = "queue" | "memory" | "large";
export type ShadowFailure = "refused" | "timeout" | "reset" | "protocol" | "large";

type Labels = Readonly<Record<string, string>>;

/** A counter family: one value per label set. */
export class Counter {
  readonly values = new Map<string, { labels: Labels; value: number }>();
  constructor(
    readonly name: string,
    readonly help: string,
    readonly labelNames: readonly string[],
  ) {}

  inc(labels: Labels, by = 1): void {
    let key = "";
    for (const name of this.labelNames) key += `${labels[name] ?? ""}\u0000`;
    const found = this.values.get(key);
    if (found) found.value += by;
    else this.values.set(key, { labels: { ...labels }, value: by });
  }

  /** The sum over the label sets that have every given label value. */
  sum(labels: Labels = {}): number {
    let total = 0;
    for (const { labels: own, value } of this.values.values()) {
      if (Object.entries(labels).every(([k, v]) => own[k] === v)) total += value;
    }
    return total;
  }
}

export interface ShadowMetrics {
  readonly requests: Counter;
  readonly mirrored: Counter;
  readonly dropped: Counter;
  readonly matched: Counter;
  readonly diverged: Counter;
  readonly explained: Counter;
  readonly failed: Counter;
  readonly primaryErrors: Counter;
  /** The exposition text. */
  text(): string;
}

export const METRICS_CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

function labelValue(value: string): string {
  return value.replace(/\\/g, "\\\\").replace(/\n/g, "\\n").replace(/"/g, '\\"');
}

export function createMetrics(gauges: {
  queued: () => number;
  inFlight: () => number;
  pendingBytes: () => number;
}): ShadowMetrics {
  const ob = ["operation", "binding"];
  const counters = {
    requests: new Counter("shadow_requests_total", "Requests answered by the answering host", ob),
    mirrored: new Counter("shadow_mirrored_total", "Requests sent to the compared host", ob),
    dropped: new Counter(
      "shadow_dropped_total",
      "Requests not compared: queue full, memory bound reached, or too large to compare",
      [...ob, "reason"],
    ),
    matched: new Counter("shadow_matched_total", "Comparisons where both answers are the same", ob),
    diverged: new Counter("shadow_diverged_total", "Comparisons where the answers differ", ob),
    explained: new Counter(
      "shadow_explained_total",
      "Comparisons that differ in a documented deliberate way",
      ob,
    ),
    failed: new Counter("shadow_compared_host_failures_total", "The compared host failed to answer", [
      ...ob,
      "reason",
    ]),
    primaryErrors: new Counter(
      "shadow_primary_errors_total",
      "The answering host failed to answer (the caller got 502 or 504)",
      ["reason"],
    ),
  };
  const gaugeList: [string, string, () => number][] = [
    ["shadow_queue_length", "Requests waiting to be sent to the compared host", gauges.queued],
    ["shadow_in_flight", "Requests in flight to the compared host", gauges.inFlight],
    ["shadow_pending_bytes", "Bytes held for comparisons (requests and answers)", gauges.pendingBytes],
  ];
  return {
    ...counters,
    text: () => {
      const out: string[] = [];
      for (const c of Object.values(counters)) {
        out.push(`# HELP ${c.name} ${c.help}`, `# TYPE ${c.name} counter`);
        for (const { labels, value } of c.values.values()) {
          const text = c.labelNames.map((n) => `${n}="${labelValue(labels[n] ?? "")}"`).join(",");
          out.push(`${c.name}{${text}} ${value}`);
        }
      }
      for (const [name, help, read] of gaugeList)
        out.push(`# HELP ${name} ${help}`, `# TYPE ${name} gauge`, `${name} ${read()}`);
      return `${out.join("\n")}\n`;
    },
  };
}
