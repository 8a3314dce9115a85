// Mutation fuzzing: seeded mutations of the base requests, sent over several keep-alive connections in
// parallel, each answer judged. Counts what the targets are about: connections closed without an answer,
// no answer in time, answers that are not well-formed. A crash is the server process going away (the
// caller checks that; in-process, the test runner reports the uncaught error).

import { RawConnection } from "./connection.js";
import { judgeAnswer, tally } from "./judge.js";
import { mutate } from "./mutate.js";
import { baseRequests, serialize } from "./requests.js";
import { mulberry32 } from "../fixtures/random.js";

/** The seed of `npm run fuzz` and of the quick subset in `npm test`. */
export const DEFAULT_SEED = 20261123;

export interface FuzzOptions {
  readonly port: number;
  readonly requests: number;
  readonly connections: number;
  readonly seed: number;
  /** Share of requests sent unmutated (keeps the happy path in the mix). */
  readonly cleanShare?: number;
  readonly timeoutMs?: number;
  /** Stop starting new requests after this long (the count done so far is reported). */
  readonly maxMs?: number;
  /** Put before every request path (to reach a handler mounted below a prefix). */
  readonly pathPrefix?: string;
}

export interface FuzzResult {
  readonly sent: number;
  readonly answered: number;
  readonly closedWithoutAnswer: number;
  readonly timedOut: number;
  readonly notWellFormed: number;
  /** Connections refused (the server went away); the worker stops. */
  readonly refused: number;
  readonly statuses: Map<string, number>;
  /** Why answers were not well-formed / which mutations got no answer, with counts. */
  readonly problems: Map<string, number>;
  /** The first few failures in full, to reproduce: request number, mutation, what happened. */
  readonly examples: string[];
  readonly ms: number;
}

export async function runFuzz(options: FuzzOptions): Promise<FuzzResult> {
  const bases = baseRequests();
  const timeoutMs = options.timeoutMs ?? 10_000;
  const started = performance.now();
  // Request i is drawn from its own generator seeded by (seed, i): the run is the same whatever order the
  // connections take them in, and request i reproduces alone.
  const planned = (index: number) => {
    const random = mulberry32((options.seed ^ Math.imul(index + 1, 0x9e3779b1)) >>> 0);
    const base = bases[Math.floor(random() * bases.length)];
    return random() < (options.cleanShare ?? 0.05)
      ? { name: "unmutated", request: base }
      : mutate(base, random, bases);
  };
  const result = {
    sent: 0,
    answered: 0,
    closedWithoutAnswer: 0,
    timedOut: 0,
    notWellFormed: 0,
    refused: 0,
    statuses: new Map<string, number>(),
    problems: new Map<string, number>(),
    examples: [] as string[],
  };
  let next = 0;
  const worker = async () => {
    let connection: RawConnection | undefined;
    let previous = "none";
    try {
      while (next < options.requests) {
        if (options.maxMs !== undefined && performance.now() - started > options.maxMs) break;
        const index = next++;
        const { name, request } = planned(index);
        if (!connection?.usable) {
          connection?.close();
          try {
            connection = await RawConnection.open(options.port);
          } catch (error) {
            // The server is gone (the caller sees the crash); count what was not sent as unanswered.
            result.refused++;
            tally(result.problems, `cannot connect: ${String(error).slice(0, 60)}`);
            break;
          }
          previous = "none";
        }
        const bytes = serialize(
          options.pathPrefix ? { ...request, target: options.pathPrefix + request.target } : request,
        );
        result.sent++;
        const outcome = await connection.exchange(bytes, { timeoutMs });
        const failure = (what: string) => {
          tally(result.problems, `${what} (${name.split(" + ")[0]})`);
          if (result.examples.length < 8) {
            result.examples.push(
              `#${index} ${request.binding} ${request.operation} [${name}]: ${what} (previous on this connection: ${previous}); request starts ${JSON.stringify(bytes.subarray(0, 160).toString("latin1"))}`,
            );
          }
        };
        if (outcome.kind === "answer") {
          result.answered++;
          tally(result.statuses, String(outcome.status));
          const verdict = judgeAnswer(outcome);
          if (verdict) {
            result.notWellFormed++;
            failure(verdict);
          }
        } else if (outcome.kind === "timeout") {
          result.timedOut++;
          failure(outcome.detail);
        } else {
          result.closedWithoutAnswer++;
          failure(outcome.kind === "garbled" ? `garbled answer: ${outcome.detail}` : outcome.detail);
        }
        previous = `#${index} [${name}] ${outcome.kind === "answer" ? `${outcome.status} ${JSON.stringify(outcome.headers)}` : outcome.kind}`;
        if (request.breaksFraming || connection.leftover > 0) connection.close();
      }
    } finally {
      connection?.close();
    }
  };
  await Promise.all(Array.from({ length: options.connections }, worker));
  return { ...result, ms: performance.now() - started };
}
