// The load flags bench/run.ts and bench/service.ts both take, and what they mean.

/** parseArgs options shared by both scripts: --duration --warmup --connections --rounds --threads --tool --only. */
export const LOAD_FLAGS = {
  duration: { type: "string", default: "5" },
  warmup: { type: "string", default: "2" },
  connections: { type: "string", default: "32" },
  rounds: { type: "string", default: "3" },
  threads: { type: "string", default: "1" },
  tool: { type: "string" },
  only: { type: "string" },
} as const;

/** The number in a `--name` flag's text; throws unless it is finite and above zero. */
export function positive(name: string, text: string): number {
  const n = Number(text);
  if (!Number.isFinite(n) || n <= 0) throw new Error(`--${name} must be a positive number, got ${text}`);
  return n;
}

/** The load flags' values. */
export interface LoadSettings {
  /** Seconds of load per row. */
  readonly duration: number;
  /** Seconds of warm-up load per row (2 unless --warmup is a number >= 0). */
  readonly warmup: number;
  readonly connections: number;
  readonly rounds: number;
  /** wrk threads. */
  readonly threads: number;
  /** --tool as given (undefined: the script picks wrk when on the PATH). */
  readonly tool: "wrk" | "autocannon" | undefined;
}

/** Reads and checks the load flags (see LOAD_FLAGS). */
export function loadSettings(flags: {
  duration: string;
  warmup: string;
  connections: string;
  rounds: string;
  threads: string;
  tool?: string | undefined;
}): LoadSettings {
  const duration = positive("duration", flags.duration);
  const warmup = Number(flags.warmup) >= 0 ? Number(flags.warmup) : 2;
  const connections = Math.round(positive("connections", flags.connections));
  const threads = Math.round(positive("threads", flags.threads));
  const rounds = Math.round(positive("rounds", flags.rounds));
  const { tool } = flags;
  if (tool !== undefined && tool !== "wrk" && tool !== "autocannon")
    throw new Error(`--tool must be wrk or autocannon, got ${tool}`);
  return { duration, warmup, connections, rounds, threads, tool };
}
