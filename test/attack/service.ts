// The server the attacks aim at: the generated createServer with the fixture implementation (every
// operation answers its sample result), recording nothing per call so that a long run does not grow.
// With `signalWatch`, GetTriggerIdForAccount instead waits for its context.signal (bounded), counting the
// handlers that started and those that saw the abort.

import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import {
  createServer,
  type CallContext,
  type ExternalAPIService,
  type ServerOptions,
  type TransportLimits,
} from "../../generated/server.js";
import { sampleImplementation, type ReceivedCall } from "../fixtures/fixture-server.js";

export interface SignalCounters {
  started: number;
  aborted: number;
}

/** How long a signal-watching handler waits at most before answering anyway. */
const SIGNAL_WAIT_MS = 20_000;

/**
 * Calls whose parameters reached the handler holding U+FFFD: bytes that were not valid in the body's
 * charset, replaced instead of refused (none of the requests the attacks start from carries U+FFFD).
 */
export const handlerSaw = { replacementCharacter: 0 };

function countReplacements(params: unknown): void {
  if (typeof params !== "object" || params === null) return;
  for (const value of Object.values(params)) {
    if (typeof value === "string" && value.includes("\uFFFD")) {
      handlerSaw.replacementCharacter++;
      return;
    }
  }
}

function attackImplementation(counters?: SignalCounters): ExternalAPIService {
  // sampleImplementation records each call; a sink that only counts holds memory flat over a long run.
  const sink = {
    push: (call: ReceivedCall) => {
      countReplacements(call.params);
      return 0;
    },
  };
  const impl = sampleImplementation(sink as unknown as ReceivedCall[]);
  if (!counters) return impl;
  return {
    ...impl,
    GetTriggerIdForAccount: (_params: unknown, context: CallContext) =>
      new Promise((resolve) => {
        counters.started++;
        const signal = context.signal;
        const timer = setTimeout(() => resolve([]), SIGNAL_WAIT_MS);
        const onAbort = () => {
          counters.aborted++;
          clearTimeout(timer);
          resolve([]);
        };
        if (signal.aborted) onAbort();
        else signal.addEventListener("abort", onAbort, { once: true });
      }),
  };
}

export interface RunningServer {
  readonly server: Server;
  readonly port: number;
  close(): Promise<void>;
}

export async function startAttackServer(
  options: ServerOptions & TransportLimits = {},
  counters?: SignalCounters,
): Promise<RunningServer> {
  const server = createServer(attackImplementation(counters), options);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    server,
    port,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
