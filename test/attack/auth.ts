// `npm run fuzz -- --only auth`: attacks on sign-in against the real service (real-service.ts), each row
// with a probe (a right pair of another account, from its own address) that must answer within 1 s:
//
//   unauthenticated memory   failed sign-ins with 1 MiB and 16 MiB user names and passwords, the child's
//                            heap bounded (--max-old-space-size=256): alive, RSS growth bounded
//   credential floods        wrong passwords for one name from one source and from sixteen (loopback
//                            127.0.0.0/8 addresses as sources), while the name's owner, who signed in from
//                            its own address before, keeps signing in every 1.5 s (AUTH_CACHE_MS=1000:
//                            its password is checked through its trusted pair, not answered from the cache)
//
// Every password check answers InvalidCredentials; a refusal during a delay answers TooManyAttempts without
// one, so the answers count the attacker's guesses.

import { cpuSeconds } from "../../bench/process.js";
import { mb, ms, type Row } from "./report.js";
import {
  type HttpOutcome,
  callHttpPost,
  describeProbes,
  inParallel,
  probeDuring,
  startRealService,
} from "./real-service.js";
import { topCounts } from "./judge.js";

const PROBE = { username: "probe", password: "probe-password-1" };
const OWNER = { username: "victim", password: "victim-password-1" };
const PROBE_FROM = "127.0.0.1";
const OWNER_FROM = "127.0.0.2";

/** The error code of an answer: X-Error-Code of the HTTP bindings, "OK" for 200, or how it failed. */
function codeOf(outcome: HttpOutcome): string {
  if (outcome.kind === "failed") return `failed: ${outcome.detail}`;
  if (outcome.status === 200) return "OK";
  const code = outcome.headers["x-error-code"];
  return typeof code === "string" ? code : `status ${outcome.status}`;
}

function tally(codes: Map<string, number>, code: string): void {
  codes.set(code, (codes.get(code) ?? 0) + 1);
}

const signIn = (
  port: number,
  who: { username: string; password: string },
  from: string,
  timeoutMs = 10_000,
) =>
  callHttpPost(
    port,
    "GetTriggerIdForAccount",
    { strUsername: who.username, strPassword: who.password },
    { localAddress: from, timeoutMs },
  );

export async function authSection(rows: Row[]): Promise<void> {
  await memoryRows(rows);
  await floodRow(rows, 1);
  await floodRow(rows, 16);
}

/** Failed sign-ins with huge credentials: nothing of them may outlive its request. */
async function memoryRows(rows: Row[]): Promise<void> {
  const service = await startRealService({ accounts: [PROBE] }, ["--max-old-space-size=256"]);
  try {
    const warm = await signIn(service.port, PROBE, PROBE_FROM);
    if (codeOf(warm) !== "OK") throw new Error(`the probe's own sign-in answered ${codeOf(warm)}`);
    // 40 x 16 MiB is 640 MiB: more than the whole heap, had anything kept them.
    for (const [label, bytes, count, concurrency] of [
      ["1 MiB", 1 << 20, 300, 8],
      ["16 MiB", 16 << 20, 40, 2],
    ] as const) {
      await service.child.stats(true);
      const baseline = service.child.memory();
      const codes = new Map<string, number>();
      const big = "n".repeat(bytes);
      const attack = inParallel(count, concurrency, async (i) => {
        // Names and passwords of the size, each different (a table keyed by them would keep every one).
        const who =
          i % 2 === 0
            ? { username: `${i}${big}`, password: "p" }
            : { username: `user-${i}`, password: `${i}${big}` };
        const outcome = await callHttpPost(
          service.port,
          "GetTriggerIdForAccount",
          { strUsername: who.username, strPassword: who.password },
          { localAddress: `127.0.40.${(i % 200) + 1}`, timeoutMs: 30_000 },
        );
        tally(codes, codeOf(outcome));
      });
      const { probes } = await probeDuring(attack, () => signIn(service.port, PROBE, PROBE_FROM));
      const after = service.child.memory();
      const alive = service.child.alive;
      const stats = alive ? await service.child.stats() : undefined;
      rows.push({
        attack: `auth: ${count} failed sign-ins with ${label} user names or passwords (heap --max-old-space-size=256)`,
        requests: `${count} + probes`,
        outcome: `answers ${topCounts(codes)}`,
        measured: `${alive ? "process up" : `process exited (${service.child.exit})`}; RSS ${mb(baseline.rssMb)} -> ${mb(after.rssMb)} (peak ${mb(after.hwmMb)}); ${describeProbes(probes)}; loop stall ${stats ? ms(stats.maxStallMs) : "?"}`,
        target: "alive, every one TooLong, RSS growth < 128 MB, probe <= 1 s",
        pass:
          alive &&
          (codes.get("TooLong") ?? 0) === count &&
          after.rssMb - baseline.rssMb < 128 &&
          probes.failed === 0 &&
          probes.maxMs <= 1000,
      });
      if (!alive) return;
    }
  } finally {
    await service.child.stop();
  }
}

/**
 * Wrong passwords for the owner's name from `sources` addresses at once for a while, every one of them
 * trying as fast as it is answered; the owner keeps signing in from its own address every 1.5 s, past the
 * cache's 1 s (AUTH_CACHE_MS=1000), so its password is checked each time through its trusted pair.
 */
async function floodRow(rows: Row[], sources: number): Promise<void> {
  const service = await startRealService({ env: { AUTH_CACHE_MS: "1000" }, accounts: [PROBE, OWNER] });
  try {
    for (const [who, from] of [
      [PROBE, PROBE_FROM],
      [OWNER, OWNER_FROM],
    ] as const) {
      const first = await signIn(service.port, who, from);
      if (codeOf(first) !== "OK") throw new Error(`${who.username}'s own sign-in answered ${codeOf(first)}`);
    }
    const codes = new Map<string, number>();
    const durationMs = 15_000;
    const perSource = sources === 1 ? 16 : 2;
    const until = performance.now() + durationMs;
    let sent = 0;
    const attack = inParallel(sources * perSource, sources * perSource, async (worker) => {
      const from = `127.0.50.${(worker % sources) + 1}`;
      for (let i = 0; performance.now() < until && i < 100_000; i++) {
        sent++;
        tally(
          codes,
          codeOf(
            await signIn(service.port, { username: OWNER.username, password: `guess-${worker}-${i}` }, from),
          ),
        );
      }
    });
    await service.child.stats(true);
    const cpuBefore = cpuSeconds(service.child.pid);
    const owner: number[] = [];
    let ownerRefused = 0;
    const ownerLoop = (async () => {
      while (performance.now() < until) {
        await new Promise((resolve) => setTimeout(resolve, 1500));
        const mine = await signIn(service.port, OWNER, OWNER_FROM);
        owner.push(mine.ms);
        if (codeOf(mine) !== "OK") ownerRefused++;
      }
    })();
    const { probes } = await probeDuring(attack, () => signIn(service.port, PROBE, PROBE_FROM));
    await ownerLoop;
    const cpuMs = (cpuSeconds(service.child.pid) - cpuBefore) * 1000;
    const checked = codes.get("InvalidCredentials") ?? 0;
    const ownerMax = Math.max(...owner);
    const stats = await service.child.stats();
    rows.push({
      attack: `auth: wrong passwords for one name from ${sources === 1 ? "one source" : `${sources} sources`} (${sources * perSource} callers, ${durationMs / 1000} s)`,
      requests: `${sent} + probes`,
      outcome: `answers ${topCounts(codes)}`,
      measured: `${checked} passwords checked; probe ${describeProbes(probes)}; owner signed in ${owner.length - ownerRefused}/${owner.length}, slowest ${ms(ownerMax)}; loop stall ${stats ? ms(stats.maxStallMs) : "?"}; service CPU ${Math.round(cpuMs)} ms (${Math.round((cpuMs * 1000) / Math.max(1, sent))} µs an attempt)`,
      target: "<= 20 checked, probe <= 1 s, owner in every time within 1 s",
      pass:
        service.child.alive &&
        checked <= 20 &&
        probes.failed === 0 &&
        probes.maxMs <= 1000 &&
        ownerRefused === 0 &&
        ownerMax <= 1000,
      details: probes.examples,
    });
  } finally {
    await service.child.stop();
  }
}
