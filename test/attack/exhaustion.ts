// Resource exhaustion: many uploads at once, each just under maxBodyBytes, some sent as fast as the
// socket takes them and some dripped in 1 MiB pieces; probes are sent one after another while they are in
// flight and the slowest is kept. Every
// upload must get an answer (200, 503 or 413), the probe must be answered, and the server's peak memory
// is read by the caller (VmHWM of the child).

import { RawConnection, type Outcome } from "./connection.js";
import { judgeAnswer, tally } from "./judge.js";
import { PROBE_REQUEST, soapWithPayload } from "./requests.js";

export interface ExhaustionOptions {
  readonly port: number;
  readonly uploads: number;
  /** Body size of each upload in bytes (just under the server's maxBodyBytes). */
  readonly bodyBytes: number;
  /** Pause between the 1 MiB pieces of a slow sender. */
  readonly slowPaceMs: number;
  /** Interval of the probes sent while the uploads are in flight (the first after one interval). */
  readonly probeEveryMs: number;
  readonly timeoutMs: number;
  /** What fills the strName parameter: plain text, or entity references (the costliest text to read). */
  readonly filler: "x" | "&amp;";
}

export interface ExhaustionResult {
  readonly statuses: Map<string, number>;
  /** Uploads without an answer, or with one that is not well-formed / not 200, 413 or 503. */
  readonly unanswered: number;
  readonly problems: string[];
  /** The slowest of the probes (or the first that got no answer), and how many were sent. */
  readonly probe: Outcome;
  readonly probes: number;
  readonly slowestUploadMs: number;
  readonly ms: number;
}

const EXPECTED = new Set([200, 413, 503]);

export async function runExhaustion(options: ExhaustionOptions): Promise<ExhaustionResult> {
  const envelope = soapWithPayload({ strName: "<strName></strName>" });
  const envelopeBytes = envelope.slice(1).reduce((n, b) => n + b.length, 0);
  const fillerBytes = Math.max(0, options.bodyBytes - envelopeBytes);
  const filler = Buffer.alloc(fillerBytes - (fillerBytes % options.filler.length), options.filler);
  const [head, ...body] = soapWithPayload({
    strName: Buffer.concat([Buffer.from("<strName>"), filler, Buffer.from("</strName>")]),
  });
  const started = performance.now();
  const statuses = new Map<string, number>();
  const problems: string[] = [];
  let unanswered = 0;
  let slowestUploadMs = 0;
  const upload = async (index: number) => {
    const slow = index % 2 === 1;
    const expect = index % 4 === 3;
    const headBytes = expect
      ? Buffer.from(head.toString("latin1").replace("\r\n\r\n", "\r\nExpect: 100-continue\r\n\r\n"), "latin1")
      : head;
    const pieces = slow ? [headBytes, ...body.flatMap((b) => split(b, 1024 * 1024))] : [headBytes, ...body];
    const connection = await RawConnection.open(options.port);
    const t = performance.now();
    const outcome = await connection.exchange(pieces, {
      timeoutMs: options.timeoutMs,
      paceMs: slow ? options.slowPaceMs : 0,
    });
    connection.close();
    slowestUploadMs = Math.max(slowestUploadMs, performance.now() - t);
    if (outcome.kind !== "answer") {
      unanswered++;
      problems.push(
        `upload ${index} (${slow ? "slow" : "fast"}): ${outcome.detail} after ${outcome.received} bytes`,
      );
      return;
    }
    tally(statuses, String(outcome.status));
    const why =
      judgeAnswer(outcome) ?? (EXPECTED.has(outcome.status) ? undefined : `status ${outcome.status}`);
    if (why) {
      unanswered++;
      problems.push(`upload ${index}: ${why}`);
    }
  };
  let done = false;
  const uploads = Promise.all(Array.from({ length: options.uploads }, (_, i) => upload(i))).then(() => {
    done = true;
  });
  let worst: Outcome | undefined;
  let probes = 0;
  while (!done) {
    await Promise.race([uploads, new Promise((resolve) => setTimeout(resolve, options.probeEveryMs))]);
    if (done) break;
    const prober = await RawConnection.open(options.port);
    const probe = await prober.exchange(PROBE_REQUEST, { timeoutMs: options.timeoutMs });
    prober.close();
    probes++;
    if (!worst || probe.kind !== "answer" || (worst.kind === "answer" && probe.ms > worst.ms)) worst = probe;
    if (probe.kind !== "answer") break;
  }
  await uploads;
  if (!worst) {
    // The uploads were over before the first probe: probe once anyway, so the row always has one.
    const prober = await RawConnection.open(options.port);
    worst = await prober.exchange(PROBE_REQUEST, { timeoutMs: options.timeoutMs });
    prober.close();
    probes++;
  }
  return {
    statuses,
    unanswered,
    problems,
    probe: worst,
    probes,
    slowestUploadMs,
    ms: performance.now() - started,
  };
}

function split(buffer: Buffer, size: number): Buffer[] {
  const out: Buffer[] = [];
  for (let at = 0; at < buffer.length; at += size) out.push(buffer.subarray(at, at + size));
  return out;
}

export interface SlowHeadersResult {
  readonly connections: number;
  /** Connections the server answered 408 before closing. */
  readonly answered408: number;
  /** Connections still open when the wait ended, or closed without a status line. */
  readonly other: number;
  readonly probe: Outcome;
  readonly ms: number;
}

const PARTIAL_HEAD = Buffer.from(
  "POST /ExternalAPIService.asmx HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ",
  "latin1",
);

/**
 * Slowloris: `connections` connections each send the start of a request head and then nothing. The server
 * must keep answering others meanwhile (a probe once they are all open) and, once its headers time limit
 * passes, answer each 408 and close it.
 */
export async function runSlowHeaders(
  port: number,
  connections: number,
  waitMs: number,
): Promise<SlowHeadersResult> {
  const started = performance.now();
  const pending: Promise<Outcome>[] = [];
  for (let i = 0; i < connections; i++) {
    pending.push(
      RawConnection.open(port).then(
        async (connection) => {
          const outcome = await connection.exchange(PARTIAL_HEAD, { timeoutMs: waitMs });
          connection.close();
          return outcome;
        },
        (): Outcome => ({ kind: "closed", received: 0, detail: "could not connect", ms: 0 }),
      ),
    );
  }
  await new Promise((resolve) => setTimeout(resolve, 300));
  const prober = await RawConnection.open(port);
  const probe = await prober.exchange(PROBE_REQUEST, { timeoutMs: waitMs });
  prober.close();
  const outcomes = await Promise.all(pending);
  const answered408 = outcomes.filter((o) => o.kind === "answer" && o.status === 408).length;
  return {
    connections,
    answered408,
    other: connections - answered408,
    probe,
    ms: performance.now() - started,
  };
}

export interface SlowBodyPeers {
  /** Peers announcing `bytes` each, by how many. */
  readonly announce: readonly { readonly count: number; readonly bytes: number }[];
  /** Every other peer trickles a byte every this many ms after its first; the rest idle after it. */
  readonly trickleEveryMs: number;
}

export interface SlowBodiesResult {
  readonly peers: number;
  /** Peers the server answered 408 before closing, and those it closed otherwise (or that could not connect). */
  readonly answered408: number;
  readonly closedOther: number;
  /** Peers still open when the run ended. */
  readonly open: number;
  /** The latest cut (408 or close) after the peer's head, ms; 0 when none was cut. */
  readonly lastCutMs: number;
  readonly probes: number;
  /** Probes answered other than 200 within 1 s, and the slowest probe. */
  readonly probesBad: number;
  readonly probe: Outcome;
  readonly ms: number;
}

/** A SOAP 1.1 InsertSubscriberSid head announcing `length` body bytes. */
function announcingHead(length: number): Buffer {
  return Buffer.from(
    `POST /ExternalAPIService.asmx HTTP/1.1\r\nHost: 127.0.0.1\r\ncontent-type: text/xml; charset=utf-8\r\n` +
      `soapaction: "http://tempuri.org/InsertSubscriberSid"\r\nContent-Length: ${length}\r\n\r\n<`,
    "latin1",
  );
}

/**
 * Slow and idle bodies: peers each announce a body (some far larger than the server's byte budget together)
 * and send its first byte, then half of them trickle a byte now and then and half send nothing. Meanwhile a
 * SOAP probe is sent every `probeEveryMs` for `durationMs`: each must be answered 200 within 1 s throughout.
 * The server may cut the peers (408) once their bodies fall behind; how many it cut, and when, is counted.
 */
export async function runSlowBodies(
  port: number,
  peers: SlowBodyPeers,
  options: { readonly durationMs: number; readonly probeEveryMs: number; readonly untilAllCut?: boolean },
): Promise<SlowBodiesResult> {
  const { durationMs, probeEveryMs } = options;
  const started = performance.now();
  const sizes = peers.announce.flatMap((a) => Array.from({ length: a.count }, () => a.bytes));
  const timers: NodeJS.Timeout[] = [];
  const cuts = { answered408: 0, closedOther: 0, lastCutMs: 0 };
  const connections = await Promise.all(
    sizes.map(async (bytes, i) => {
      let connection: RawConnection;
      try {
        connection = await RawConnection.open(port);
      } catch {
        cuts.closedOther++;
        return undefined;
      }
      const sentAt = performance.now();
      const outcome = connection.exchange(announcingHead(bytes), { timeoutMs: durationMs + 60_000 });
      void outcome.then((o) => {
        if (o.kind === "timeout") return;
        if (o.kind === "answer" && o.status === 408) cuts.answered408++;
        else cuts.closedOther++;
        cuts.lastCutMs = Math.max(cuts.lastCutMs, performance.now() - sentAt);
      });
      if (i % 2 === 1)
        timers.push(setInterval(() => connection.send(Buffer.from(" ")), peers.trickleEveryMs));
      return { connection, outcome };
    }),
  );
  let probes = 0;
  let probesBad = 0;
  let worst: Outcome | undefined;
  const allCut = () => cuts.answered408 + cuts.closedOther >= sizes.length;
  while (performance.now() - started < durationMs && !(options.untilAllCut && allCut())) {
    await new Promise((resolve) => setTimeout(resolve, probeEveryMs));
    const prober = await RawConnection.open(port);
    const probe = await prober.exchange(PROBE_REQUEST, { timeoutMs: 10_000 });
    prober.close();
    probes++;
    if (probe.kind !== "answer" || probe.status !== 200 || probe.ms > 1000) probesBad++;
    if (!worst || probe.kind !== "answer" || (worst.kind === "answer" && probe.ms > worst.ms)) worst = probe;
  }
  for (const t of timers) clearInterval(t);
  // Let the answers to cuts in flight arrive before counting what is still open.
  await new Promise((resolve) => setTimeout(resolve, 200));
  const open = connections.filter((c) => c?.connection.usable).length;
  const result = {
    peers: sizes.length,
    ...cuts,
    open,
    probes,
    probesBad,
    probe: worst!,
    ms: performance.now() - started,
  };
  for (const c of connections) c?.connection.close();
  return result;
}
