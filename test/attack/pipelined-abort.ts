// Pipelined requests whose caller disconnects: several requests written at once on one connection, each
// to a handler that waits for its context.signal (service.ts, signalWatch); then the connection is cut.
// Every handler that started must see its signal aborted, the queued ones as well as the first.

import net from "node:net";
import { ENDPOINT } from "./requests.js";

export interface SignalSource {
  /** Handlers started and signals seen aborted so far (cumulative). */
  counters(): Promise<{ started: number; aborted: number } | undefined>;
}

export interface AbortResult {
  readonly sent: number;
  readonly started: number;
  /** Handlers started when the callers disconnected: at most the server's concurrency limit. */
  readonly startedAtClose: number;
  readonly aborted: number;
  readonly ms: number;
}

const REQUEST = Buffer.from(
  `GET ${ENDPOINT}/GetTriggerIdForAccount?strUsername=u&strPassword=p HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`,
  "latin1",
);

async function until(check: () => Promise<boolean>, maxMs: number): Promise<void> {
  const end = performance.now() + maxMs;
  while (performance.now() < end) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/**
 * `connections` connections, each writing `perConnection` pipelined requests at once, then all cut once
 * `starts` handlers have started (all of them by default; maxConcurrentCalls when there are more).
 */
export async function runPipelinedAbort(
  port: number,
  source: SignalSource,
  connections: number,
  perConnection: number,
  starts = connections * perConnection,
): Promise<AbortResult> {
  const before = (await source.counters()) ?? { started: 0, aborted: 0 };
  const started = performance.now();
  const sockets = await Promise.all(
    Array.from(
      { length: connections },
      () =>
        new Promise<net.Socket>((resolve, reject) => {
          const socket = net.connect(port, "127.0.0.1", () => resolve(socket));
          socket.on("error", () => {});
          socket.once("error", reject);
        }),
    ),
  );
  const sent = connections * perConnection;
  const batch = Buffer.concat(Array.from({ length: perConnection }, () => REQUEST));
  for (const socket of sockets) socket.write(batch);
  let now = before;
  await until(async () => {
    now = (await source.counters()) ?? now;
    return now.started - before.started >= Math.min(sent, starts);
  }, 5000);
  const startedAtClose = now.started - before.started;
  for (const socket of sockets) socket.destroy();
  // Calls past the limit that were read before the close was seen may start as aborted calls end: they
  // must see their signal abort too.
  await until(async () => {
    now = (await source.counters()) ?? now;
    return now.aborted - before.aborted >= now.started - before.started;
  }, 5000);
  return {
    sent,
    started: now.started - before.started,
    startedAtClose,
    aborted: now.aborted - before.aborted,
    ms: performance.now() - started,
  };
}
