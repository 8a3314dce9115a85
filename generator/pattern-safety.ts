// validate's check of a `pattern` rule: the regular expression must compile in the runtime's mode
// (JavaScript, unicode), and recheck (a ReDoS analyser: automata theory where the pattern allows, else
// fuzzing with static seeding) must prove that matching it takes linear time at worst. The runtime matches
// every value a caller sends against it, so a pattern that backtracks catastrophically ((\w|\d)+$ on
// "A000…0\0": exponential) or polynomially ([^@]+@[^@]+\.[^@]+ on ".\0" repeated: quadratic) would let one
// request hold the server's event loop. A pattern recheck finds vulnerable is refused with its attack string;
// one it cannot decide within ANALYSIS_TIMEOUT_MS is refused too (it is not known to be safe).
//
// recheck runs in-process on its pure JavaScript build (its native and JVM builds, optional packages, are
// not used), with its time-based sub-limits off and a fixed seed, so its verdict is the same on every machine
// short of the overall timeout. Verdicts are remembered in node_modules/.cache/easgen (format-cache.ts).
//
// Defence in depth: the runtime also refuses a value longer than PATTERN_MAX_CHARACTERS before matching
// (runtime/codec/rules.ts), so even a pattern the analyser misjudged meets no more than that many characters.

import { createRequire } from "node:module";
import { FormatCache } from "./format-cache.js";
import { PACKAGE_FILES } from "./paths.js";

/** The longest the analysis of one pattern may take before the pattern is refused as undecided. */
const ANALYSIS_TIMEOUT_MS = 10_000;

/** recheck's parameters: deterministic (no time-based sub-limits, a fixed seed), bounded by `timeout`. */
const PARAMETERS = {
  timeout: ANALYSIS_TIMEOUT_MS,
  // Counted repetitions up to 200 in all stay on the exact automaton checker ({8}-{4}-…-{12} guids do).
  maxRepeatCount: 200,
  attackTimeout: null,
  incubationTimeout: null,
  seedingTimeout: null,
  randomSeed: 0,
} as const;

interface RecheckResult {
  readonly status: "safe" | "vulnerable" | "unknown";
  readonly complexity?: { readonly type: string; readonly degree?: number };
  readonly attack?: { readonly pattern: string };
  readonly hotspot?: readonly { readonly start: number; readonly end: number }[];
  readonly error?: { readonly kind: string; readonly message?: string };
}

type Recheck = { checkSync(source: string, flags: string, params: object): RecheckResult };

let recheck: Recheck | undefined;
let verdicts: FormatCache | undefined;

const require = createRequire(import.meta.url);

/** recheck is 3 MB of JavaScript (about a second to load): loaded only when a verdict is not cached. */
function analyser(): Recheck {
  recheck ??= require("recheck") as Recheck;
  return recheck;
}

function verdictCache(): FormatCache {
  const version = (require("recheck/package.json") as { version: string }).version;
  verdicts ??= new FormatCache(
    PACKAGE_FILES.patternCache,
    JSON.stringify({ recheck: version, parameters: PARAMETERS }),
  );
  return verdicts;
}

/** Why the pattern cannot be used, in words, or undefined when it can. */
export function patternProblem(pattern: string): string | undefined {
  try {
    new RegExp(pattern, "u");
  } catch (error) {
    return `the pattern does not compile as a JavaScript regular expression (unicode mode): ${(error as Error).message}`;
  }
  return backtrackingProblem(pattern);
}

function backtrackingProblem(pattern: string): string | undefined {
  const cache = verdictCache();
  const known = cache.get(pattern);
  if (known !== undefined) return known === "" ? undefined : known;
  const result = runPure(() => analyser().checkSync(pattern, "u", PARAMETERS));
  const problem = describe(pattern, result);
  // An undecided verdict depends on the machine's speed: not remembered.
  if (result.status !== "unknown") {
    cache.set(pattern, problem ?? "");
    cache.save();
  }
  return problem;
}

function describe(pattern: string, result: RecheckResult): string | undefined {
  if (result.status === "safe") return undefined;
  if (result.status === "vulnerable") {
    const complexity = result.complexity;
    const how =
      complexity?.type === "exponential"
        ? "exponential time"
        : `polynomial time (degree ${complexity?.degree ?? "2 or more"})`;
    const parts = (result.hotspot ?? [])
      .map((spot) => pattern.slice(spot.start, spot.end))
      .filter((part, i, all) => part !== "" && all.indexOf(part) === i);
    return (
      `the pattern can take ${how} to match (catastrophic backtracking), as on the value ` +
      `${result.attack?.pattern ?? "(no attack string)"}` +
      `${parts.length > 0 ? `; the parts that backtrack: ${parts.join(", ")}` : ""}. Rewrite it so that ` +
      "no text can be matched in two ways (for example (\\w|\\d)+ as \\w+, [^@]+@[^@]+\\.[^@]+ as [^@]+@[^@.]+(\\.[^@.]+)+)"
    );
  }
  if (result.error?.kind === "timeout") {
    return (
      `recheck could not show within ${ANALYSIS_TIMEOUT_MS / 1000} s that the pattern matches in linear time, ` +
      "so it may backtrack catastrophically; simplify it (fewer nested or counted repetitions, no lookarounds)"
    );
  }
  return `recheck cannot analyse the pattern (${result.error?.kind ?? "unknown"}${result.error?.message ? `: ${result.error.message}` : ""}); rewrite it without that construct`;
}

/** Runs recheck on its pure JavaScript build in this thread (it reads the choice from the environment). */
function runPure<T>(check: () => T): T {
  const saved = process.env["RECHECK_SYNC_BACKEND"];
  process.env["RECHECK_SYNC_BACKEND"] = "pure";
  try {
    return check();
  } finally {
    if (saved === undefined) delete process.env["RECHECK_SYNC_BACKEND"];
    else process.env["RECHECK_SYNC_BACKEND"] = saved;
  }
}
