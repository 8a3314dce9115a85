// An attack target in its own process (started by child.ts with `node --import tsx`): the generated
// server with the fixture implementation ("service"), the reference service itself on a fresh SQLite
// database ("real-service", real-service-child.ts), or the handler-fault listener ("faults"), on an
// ephemeral port of 127.0.0.1, or the generated client calling malicious servers ("client"). Reports its port over IPC, answers "stats" (largest event-loop stall since
// the last reset, signal counters), and exits when the parent goes away.

import http from "node:http";
import type { AddressInfo } from "node:net";
import { monitorEventLoopDelay } from "node:perf_hooks";
import type { ChildConfig } from "./child.js";
import { faultListener } from "./faults.js";
import { MALICIOUS_CASES, runClientCase } from "./malicious.js";
import { realServiceLogs, startRealServiceInChild } from "./real-service-child.js";
import { handlerSaw, startAttackServer, type SignalCounters } from "./service.js";

async function main(): Promise<void> {
  if (!process.send) throw new Error("child-main.ts is started by test/attack/child.ts (it reports over IPC).");
  process.on("disconnect", () => process.exit(0));
  const config = JSON.parse(process.argv[2] ?? "{}") as ChildConfig;
  const counters: SignalCounters = { started: 0, aborted: 0 };
  const trouble = { nextWithError: 0, fetchRejected: 0, bridgeRefused: 0 };
  let port: number;
  let info: unknown;
  if (config.mode === "service") {
    const running = await startAttackServer(config.options ?? {}, config.signalWatch ? counters : undefined);
    port = running.port;
  } else if (config.mode === "faults") {
    const server = http.createServer(faultListener(trouble));
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    port = (server.address() as AddressInfo).port;
  } else if (config.mode === "real-service") {
    const running = await startRealServiceInChild(config.service);
    port = running.port;
    info = running.info;
  } else if (config.mode === "client") {
    port = 0;
    process.on("message", (message: { id: number; type: string; origin: string; name: string }) => {
      if (message.type !== "client-case") return;
      const found = MALICIOUS_CASES.find((c) => c.name === message.name);
      if (!found) return void process.send?.({ id: message.id, reply: undefined });
      void runClientCase(message.origin, found).then((reply) => process.send?.({ id: message.id, reply }));
    });
  } else {
    throw new Error(`unknown child mode ${JSON.stringify(config)}`);
  }
  const stalls = monitorEventLoopDelay({ resolution: 10 });
  stalls.enable();
  process.on("message", (message: { id: number; type: string; reset?: boolean }) => {
    if (message.type !== "stats") return;
    const reply = { maxStallMs: stalls.max / 1e6, ...counters, ...trouble, ...handlerSaw, logLines: realServiceLogs.lines, logTail: realServiceLogs.tail };
    if (message.reset) stalls.reset();
    process.send?.({ id: message.id, reply });
  });
  process.send({ port, info });
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
