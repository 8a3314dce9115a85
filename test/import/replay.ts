// Every recorded exchange of a construct fixture (test/asmx-host/constructs-cases.ts, answered by the real
// ASMX host in test/asmx-host/recorded/constructs/<Service>/<case>.txt) sent again to one of our generated
// servers: its answers, beside the host's, for a test to compare. Needs no Mono.

import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { EXCHANGES } from "../asmx-host/constructs-cases.js";
import type { ConstructService } from "../asmx-host/constructs.js";
import { exchangeRequest } from "../asmx-host/exchange-request.js";

const RECORDED = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  "../asmx-host/recorded/constructs",
);

export interface Replayed {
  readonly name: string;
  readonly note: string;
  /** Our server's answer. */
  readonly status: number;
  readonly body: string;
  /** The host's, as recorded. */
  readonly hostStatus: number;
  readonly hostBody: string;
}

/** The body of a recorded answer (what follows its blank line, without the recording's final newline). */
function recordedAnswer(text: string): { status: number; body: string } {
  const response = text.slice(text.indexOf("<<< response\n") + "<<< response\n".length);
  const status = Number(/^HTTP\/1\.1 (\d+)/.exec(response)![1]);
  return { status, body: response.slice(response.indexOf("\n\n") + 2).replace(/\n$/, "") };
}

/** Sends every recorded exchange of `service` to our server at `baseUrl` (ending in `/`), in order. */
export async function replayRecorded(service: ConstructService, baseUrl: string): Promise<Replayed[]> {
  const out: Replayed[] = [];
  for (const x of EXCHANGES.filter((e) => e.service === service)) {
    const sent = exchangeRequest(x);
    const res = await fetch(new URL(sent.path.slice(1), baseUrl), {
      method: sent.method,
      headers: sent.headers,
      ...(sent.method === "POST" ? { body: sent.body } : {}),
    });
    const host = recordedAnswer(readFileSync(path.join(RECORDED, service, `${x.name}.txt`), "utf8"));
    out.push({
      name: x.name,
      note: x.note,
      status: res.status,
      body: await res.text(),
      hostStatus: host.status,
      hostBody: host.body,
    });
  }
  return out;
}
