// `npm run fuzz -- --only auth`: attacks on sign-in against the real service (real-service.ts), each row
// with a probe (a right pair of another account, from its own address) that must answer within 1 s:
//
//   unauthenticated memory   failed sign-ins with 1 MiB and 16 MiB user names and passwords, the child's
//                            heap bounded (--max-old-space-size=256): alive, RSS growth bounded
//   credential floods        wrong passwords for one name from one source and from sixteen (loopback
//                            127.0.0.0/8 addresses as sources), while the name's owner, who signed in from
//                            its own address before, keeps signing in every 1.5 s (AUTH_CACHE_MS=1000:
//                            its password is checked through its trusted pair, not answered from the cache)
//   forwarded addresses      TRUSTED_PROXIES=127.0.0.9 (the "balancer"): a name spray from an untrusted peer
//                            with a new X-Forwarded-For on every guess (the header is ignored: one source,
//                            delayed after its free failures); the same spray through the balancer with forged
//                            hops left of the sprayer's address (counted under that address), while callers
//                            behind the same balancer sign in for the first time from addresses of their own
//                            (before TRUSTED_PROXIES they shared the balancer's delayed address and were
//                            refused); 8 KiB headers of 1,000 hops and 12 KiB single entries, CPU per call
//                            against the same calls without the header
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
  await forwardedRows(rows);
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

const BALANCER = "127.0.0.9";
/** Accounts that sign in for the first time behind the balancer while a spray runs through it. */
const NEWCOMERS = Array.from({ length: 6 }, (_, i) => ({
  username: `newcomer-${i}`,
  password: `newcomer-password-${i}`,
}));

/** A sign-in (right or wrong) with X-Forwarded-For, from `from`. */
const signInForwarded = (
  port: number,
  who: { username: string; password: string },
  from: string,
  forwardedFor: string,
) =>
  callHttpPost(
    port,
    "GetTriggerIdForAccount",
    { strUsername: who.username, strPassword: who.password },
    { localAddress: from, headers: { "x-forwarded-for": forwardedFor }, timeoutMs: 10_000 },
  );

/** A forged address: 198.18.0.0/15 (benchmarking range), different for each i. */
const forged = (i: number) => `198.18.${(i >> 8) & 255}.${i & 255}`;

/**
 * Unknown names sprayed for `durationMs` by 16 callers from `from`, each guess with `header(n)`; a name is
 * never tried twice, so only the per-source count can slow the spray down.
 */
async function spray(
  port: number,
  from: string,
  header: (n: number) => string,
  durationMs: number,
): Promise<{ codes: Map<string, number>; sent: number }> {
  const codes = new Map<string, number>();
  const until = performance.now() + durationMs;
  let sent = 0;
  await inParallel(16, 16, async (worker) => {
    for (let i = 0; performance.now() < until && i < 100_000; i++) {
      const n = sent++;
      tally(
        codes,
        codeOf(
          await signInForwarded(
            port,
            { username: `spray-${worker}-${i}`, password: "guess" },
            from,
            header(n),
          ),
        ),
      );
    }
  });
  return { codes, sent };
}

async function forwardedRows(rows: Row[]): Promise<void> {
  const service = await startRealService({
    env: { TRUSTED_PROXIES: BALANCER },
    accounts: [PROBE, ...NEWCOMERS],
  });
  try {
    const first = await signIn(service.port, PROBE, PROBE_FROM);
    if (codeOf(first) !== "OK") throw new Error(`the probe's own sign-in answered ${codeOf(first)}`);
    const durationMs = 10_000;

    // 1. From a peer that is not trusted, a new X-Forwarded-For every guess: one source all the same.
    {
      const { result, probes } = await probeDuring(
        spray(service.port, "127.0.50.1", (n) => forged(n), durationMs),
        () => signIn(service.port, PROBE, PROBE_FROM),
      );
      const checked = result.codes.get("InvalidCredentials") ?? 0;
      rows.push({
        attack: `auth: name spray from an untrusted peer with a new X-Forwarded-For each guess (16 callers, ${durationMs / 1000} s)`,
        requests: `${result.sent} + probes`,
        outcome: `answers ${topCounts(result.codes)}`,
        measured: `${checked} passwords checked (a source's free failures: 20); probe ${describeProbes(probes)}`,
        target: "<= 30 checked (the header ignored: one source), probe <= 1 s",
        pass: service.child.alive && checked <= 30 && probes.failed === 0 && probes.maxMs <= 1000,
        details: probes.examples,
      });
    }

    // 2. Through the balancer: forged hops left of the sprayer's address; newcomers behind the same balancer.
    {
      const sprayer = "198.51.100.66";
      const attack = spray(
        service.port,
        BALANCER,
        (n) => `${forged(n)}, ${forged(n + 1)}, ${sprayer}`,
        durationMs,
      );
      const newcomers: string[] = [];
      const newcomerMs: number[] = [];
      const arrivals = (async () => {
        for (const [i, who] of NEWCOMERS.entries()) {
          await new Promise((resolve) => setTimeout(resolve, durationMs / (NEWCOMERS.length + 1)));
          // Each from an address of its own, with a forged hop of the sprayer's to its left.
          const outcome = await signInForwarded(
            service.port,
            who,
            BALANCER,
            `${sprayer}, 203.0.113.${i + 1}`,
          );
          newcomers.push(codeOf(outcome));
          newcomerMs.push(outcome.ms);
        }
      })();
      const { result, probes } = await probeDuring(attack, () => signIn(service.port, PROBE, PROBE_FROM));
      await arrivals;
      const checked = result.codes.get("InvalidCredentials") ?? 0;
      const newcomersIn = newcomers.filter((code) => code === "OK").length;
      rows.push({
        attack: `auth: name spray through the trusted balancer, forged hops left of the sprayer (16 callers, ${durationMs / 1000} s); ${NEWCOMERS.length} first sign-ins behind it`,
        requests: `${result.sent} + ${NEWCOMERS.length} + probes`,
        outcome: `answers ${topCounts(result.codes)}; newcomers ${topCounts(new Map(newcomers.map((c) => [c, newcomers.filter((x) => x === c).length])))}`,
        measured: `${checked} passwords checked; newcomers signed in ${newcomersIn}/${NEWCOMERS.length}, slowest ${ms(Math.max(...newcomerMs))}; probe ${describeProbes(probes)}`,
        target:
          "<= 30 checked (counted under the sprayer's address), every newcomer in within 1 s, probe <= 1 s",
        pass:
          service.child.alive &&
          checked <= 30 &&
          newcomersIn === NEWCOMERS.length &&
          Math.max(...newcomerMs) <= 1000 &&
          probes.failed === 0 &&
          probes.maxMs <= 1000,
        details: [...probes.examples, ...newcomers.filter((c) => c !== "OK")],
      });
    }

    // 3. Huge headers through the balancer, on a cached right pair: CPU per call against no header.
    {
      const hops = `${Array.from({ length: 1000 }, (_, i) => forged(i)).join(", ")}, 203.0.113.50`;
      const token = "9".repeat(12 * 1024);
      const calls = 400;
      const measure = async (headers: Record<string, string>) => {
        const codes = new Map<string, number>();
        const before = cpuSeconds(service.child.pid);
        await inParallel(calls, 8, async () => {
          const outcome = await callHttpPost(
            service.port,
            "GetTriggerIdForAccount",
            { strUsername: PROBE.username, strPassword: PROBE.password },
            { localAddress: BALANCER, headers, timeoutMs: 10_000 },
          );
          tally(codes, codeOf(outcome));
        });
        return { codes, cpuUs: ((cpuSeconds(service.child.pid) - before) * 1e6) / calls };
      };
      // Each source's first call checks the password (then cached): one call of each kind first.
      for (const headers of [{}, { "x-forwarded-for": hops }, { "x-forwarded-for": token }] as Record<
        string,
        string
      >[])
        await callHttpPost(
          service.port,
          "GetTriggerIdForAccount",
          { strUsername: PROBE.username, strPassword: PROBE.password },
          { localAddress: BALANCER, headers },
        );
      const plain = await measure({});
      const many = await measure({ "x-forwarded-for": hops });
      const long = await measure({ "x-forwarded-for": token });
      const stats = await service.child.stats();
      const logged = (stats?.logTail ?? [])
        .map((line) => (JSON.parse(line) as { ip?: string }).ip)
        .filter((ip) => ip !== undefined);
      const ok = (codes: Map<string, number>) => (codes.get("OK") ?? 0) === calls;
      rows.push({
        attack: `auth: X-Forwarded-For of ${Math.round(hops.length / 1024)} KiB (1,000 hops) and of one ${token.length / 1024} KiB entry through the balancer, ${calls} calls each`,
        requests: String(3 * calls),
        outcome: `answers ${topCounts(many.codes)} / ${topCounts(long.codes)}; logged as ${[...new Set(logged)].join(", ")}`,
        measured: `service CPU ${Math.round(plain.cpuUs)} µs a call without the header, ${Math.round(many.cpuUs)} with 1,000 hops, ${Math.round(long.cpuUs)} with the long entry`,
        target:
          "every call OK, CPU a call <= 2x + 100 µs of the plain calls, the long entry's calls logged as the balancer",
        pass:
          service.child.alive &&
          ok(plain.codes) &&
          ok(many.codes) &&
          ok(long.codes) &&
          many.cpuUs <= 2 * plain.cpuUs + 100 &&
          long.cpuUs <= 2 * plain.cpuUs + 100 &&
          logged.length > 0 &&
          logged.every((ip) => ip === BALANCER),
      });
    }
  } finally {
    await service.child.stop();
  }
}
