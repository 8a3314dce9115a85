// The shadow proxy (easgen shadow) under the attack suite: the mutation fuzzing sent through the proxy in
// mirror mode (every request mirrored, writes included) in front of two copies of the generated server, each
// in its own process; and a compared host answering a body far past the proxy's compare limit. The proxy
// runs in this process: its heap is measured before and after, and a crash ends the section.

import http from "node:http";
import type { AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";
import { parseShadowConfig } from "../../generator/shadow/config.js";
import { startShadowProxy } from "../../generator/shadow/proxy.js";
import { AttackChild } from "./child.js";
import { exchangeOnce } from "./connection.js";
import { runFuzz } from "./fuzz.js";
import { topCounts } from "./judge.js";
import { mb, type Row } from "./report.js";
import { PROBE_REQUEST } from "./requests.js";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));

function config(legacyPort: number, oursPort: number, extra = ""): ReturnType<typeof parseShadowConfig> {
  return parseShadowConfig(
    `spec: spec/ExternalAPIService.yaml\nlisten: 127.0.0.1:0\nmirror: all\nlegacy: http://127.0.0.1:${legacyPort}/ExternalAPIService.asmx\nours: http://127.0.0.1:${oursPort}/ExternalAPIService.asmx\n${extra}`,
    "attack-shadow.yaml",
    ROOT,
  );
}

function heapMb(): number {
  globalThis.gc?.();
  return process.memoryUsage().heapUsed / 1024 / 1024;
}

export async function shadowSection(rows: Row[], requests: number, seed: number): Promise<void> {
  const legacy = await AttackChild.start({ mode: "service" });
  const ours = await AttackChild.start({ mode: "service" });
  const divergences: string[] = [];
  const proxy = await startShadowProxy(config(legacy.port, ours.port, "limits: { queue: 2000 }\n"), {
    observer: {
      comparison: (c) => {
        if (c.verdict.outcome === "diverged" && divergences.length < 5) {
          divergences.push(
            `${c.operation} ${c.binding} ${c.verdict.path}: ${c.verdict.what} (${c.verdict.legacy} / ${c.verdict.ours}) for ${c.method} ${c.url} ${JSON.stringify(c.requestHeaders)} body ${c.requestBody.length} B; legacy ${JSON.stringify(c.legacy.headers)} ${Buffer.from(c.legacy.body).toString("latin1").slice(0, 200)}; ours ${JSON.stringify(c.ours.headers)} ${Buffer.from(c.ours.body).toString("latin1").slice(0, 200)}`,
          );
        }
      },
    },
  });
  const port = Number(new URL(proxy.url).port);
  const heapBefore = heapMb();
  // Each request crosses two hops and two child processes, on a machine the other sections (and other work) may
  // load: 30 s per answer, not the fuzzer's 10 s, so that a slow machine is not read as a proxy that lost one.
  const result = await runFuzz({ port, requests, connections: 8, seed, maxMs: 150_000, timeoutMs: 30_000 });
  await proxy.drain();
  // The fuzzer has closed its connections, but a request it left unfinished (a body shorter than its
  // Content-Length, answered early) is let go only when its connection's close reaches the proxy: wait for
  // that, bounded (30 s: under load a close can take seconds to be read).
  for (let i = 0; i < 600 && proxy.held().pendingBytes > 0; i++) await new Promise((r) => setTimeout(r, 50));
  const after = await exchangeOnce(port, PROBE_REQUEST, { timeoutMs: 10_000 });
  // The probe is mirrored too: its copy may still be in flight when its answer arrives.
  await proxy.drain();
  const held = proxy.held();
  const m = proxy.metrics;
  const compared = m.matched.sum() + m.diverged.sum() + m.explained.sum();
  const heapAfter = heapMb();
  await proxy.close();
  await legacy.stop();
  await ours.stop();
  const unanswered = result.closedWithoutAnswer + result.timedOut + result.refused;
  rows.push({
    attack: `shadow proxy: mutation fuzzing through it, every request mirrored (seed ${seed})`,
    requests: result.sent,
    outcome: `statuses ${topCounts(result.statuses, 6)}`,
    measured: `${unanswered} unanswered, ${result.notWellFormed} not well-formed; ${after.kind === "answer" && after.status === 200 ? "serves the probe after" : "does NOT serve the probe after"}; ${compared} compared, ${m.diverged.sum()} diverged (same server both sides), ${m.dropped.sum()} dropped, ${m.failed.sum()} compared-host failures; held after: ${held.pendingBytes} B (${held.queued} queued, ${held.inFlight} in flight), heap ${mb(heapBefore)} -> ${mb(heapAfter)}`,
    target: "0 unanswered, 0 not well-formed, 0 diverged, nothing held after",
    pass:
      unanswered === 0 &&
      result.notWellFormed === 0 &&
      after.kind === "answer" &&
      after.status === 200 &&
      m.diverged.sum() === 0 &&
      held.pendingBytes === 0 &&
      held.queued === 0 &&
      held.inFlight === 0 &&
      compared > 0,
    details: [
      topCounts(result.problems, 10),
      ...result.examples,
      ...divergences,
      `failures: ${JSON.stringify([...m.failed.values.values()])}`,
    ],
  });

  // A compared host that answers 256 MiB: the proxy reads it only up to compareBytes, then lets go.
  const answering = await AttackChild.start({ mode: "service" });
  const chunk = Buffer.alloc(1024 * 1024, "x");
  const flood = http.createServer((_req, res) => {
    res.writeHead(200, { "Content-Type": "text/xml; charset=utf-8" });
    let sent = 0;
    const more = () => {
      while (sent < 256 && res.write(chunk)) sent++;
      if (sent >= 256) res.end();
      else res.once("drain", more);
    };
    res.on("close", () => {
      sent = 256;
    });
    more();
  });
  await new Promise<void>((resolve) => flood.listen(0, "127.0.0.1", resolve));
  const floodPort = (flood.address() as AddressInfo).port;
  const big = await startShadowProxy(
    config(answering.port, floodPort, "limits: { compareBytes: 1048576, pendingBytes: 8388608 }\n"),
  );
  const bigPort = Number(new URL(big.url).port);
  const heap0 = heapMb();
  let answered = 0;
  for (let i = 0; i < 20; i++) {
    const r = await exchangeOnce(bigPort, PROBE_REQUEST, { timeoutMs: 10_000 });
    if (r.kind === "answer" && r.status === 200) answered++;
  }
  await big.drain();
  const heap1 = heapMb();
  const large = big.metrics.failed.sum({ reason: "large" });
  const bigHeld = big.held();
  await big.close();
  await new Promise<void>((resolve) => {
    flood.closeAllConnections();
    flood.close(() => resolve());
  });
  await answering.stop();
  rows.push({
    attack: "shadow proxy: compared host answers 256 MiB to every copy",
    requests: 20,
    outcome: `${answered}/20 callers answered 200`,
    measured: `${large} copies given up past compareBytes (1 MiB); held after ${bigHeld.pendingBytes} B; heap ${mb(heap0)} -> ${mb(heap1)}`,
    details: [
      `mirrored ${big.metrics.mirrored.sum()}, dropped ${JSON.stringify([...big.metrics.dropped.values.values()])}, failed ${JSON.stringify([...big.metrics.failed.values.values()])}`,
    ],
    target: "every caller answered, every copy given up, heap growth < 32 MB",
    pass: answered === 20 && large === 20 && bigHeld.pendingBytes === 0 && heap1 - heap0 < 32,
  });
}
