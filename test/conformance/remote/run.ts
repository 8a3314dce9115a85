// Remote mode: holds any live endpoint (ours, or a legacy ASMX host) to the cases that need no known
// data. Every operation's success request must get an answer of the right shape on every binding (a
// well-formed Server/Receiver fault counts as "answered, fault"); every refusal case must get the right
// fault or 500 text (the error code checked only when the endpoint sends one); the WSDL must be served
// with the four bindings. Cases on operations that write run only with allowWrites.

import type { ReferenceAnswer } from "../reference/errors.js";
import { checkAnswerShape } from "../reference/shape.js";
import { loadReferenceService, type RefOperation } from "../reference/spec.js";
import { expectedError, loadCases, sentValues, type ConformanceCase } from "../suite/cases.js";
import { sendRequest } from "../suite/http.js";
import { checkRefusal } from "../suite/refusal.js";
import { caseRequest } from "../suite/request.js";
import { checkWsdl, type CheckRow } from "./wsdl.js";

export interface RemoteOptions {
  /** The endpoint, `https://host/path/ExternalAPIService.asmx`. */
  readonly url: string;
  readonly username: string;
  readonly password: string;
  readonly allowWrites?: boolean;
  /** The service namespace the endpoint uses (default: the spec's). */
  readonly namespace?: string;
  readonly timeoutMs?: number;
}

const WRITES_SKIPPED = "writes data: run with --allow-writes";

async function exchange(send: () => Promise<ReferenceAnswer>): Promise<ReferenceAnswer | Error> {
  try {
    return await send();
  } catch (error) {
    return error instanceof Error ? error : new Error(String(error));
  }
}

/** A case writes unless its operation only reads or its request names no real operation. */
function writes(op: RefOperation, c?: ConformanceCase): boolean {
  return !op.readsOnly && c?.tamper?.operationName === undefined;
}

export function formatTable(rows: readonly CheckRow[]): string[] {
  const width = Math.max(4, ...rows.map((r) => r.name.length));
  const outcomeWidth = 7;
  const line = (a: string, b: string, c: string) => `${a.padEnd(width)} | ${b.padEnd(outcomeWidth)} | ${c}`;
  return [
    line("case", "outcome", "detail"),
    `${"-".repeat(width)}-|-${"-".repeat(outcomeWidth)}-|-${"-".repeat(6)}`,
    ...rows.map((r) => line(r.name, r.outcome, r.detail.replace(/\s+/g, " "))),
  ];
}

export async function runRemote(options: RemoteOptions, print: (line: string) => void): Promise<number> {
  const service = loadReferenceService({ namespace: options.namespace });
  const cases = loadCases(service);
  const endpoint = options.url.replace(/[?#].*$/, "").replace(/\/+$/, "");
  const credentials = { username: options.username, password: options.password };
  const refusalCodes = new Set(cases.flatMap((c) => (c.error?.side === "client" ? [c.error.code] : [])));
  const send = (request: Parameters<typeof sendRequest>[1]) =>
    exchange(() => sendRequest(endpoint, request, options.timeoutMs));
  const rows: CheckRow[] = [];

  const wsdl = await send({ method: "GET", path: "", query: "WSDL", headers: {}, body: "" });
  rows.push(...checkWsdl(wsdl, service));

  for (const c of cases) {
    const op = service.operations.get(c.operation);
    if (!op) continue;
    const isShape = c.name === "success";
    const isRefusal = c.error?.side === "client";
    if (!isShape && !isRefusal) continue;
    for (const binding of c.bindings) {
      const name = `${c.operation}/${binding}/${isShape ? "shape" : c.name}`;
      if (!c.remote) {
        rows.push({ name, outcome: "skipped", detail: "not for live endpoints (a limit of ours)" });
        continue;
      }
      if (writes(op, isShape ? undefined : c) && !options.allowWrites) {
        rows.push({ name, outcome: "skipped", detail: WRITES_SKIPPED });
        continue;
      }
      const values = sentValues(c, credentials);
      const answer = await send(caseRequest(op, binding, values, c.omit, c.tamper));
      if (answer instanceof Error) {
        rows.push({ name, outcome: "failed", detail: `no answer: ${answer.message}` });
      } else if (isShape) {
        const verdict = checkAnswerShape(op, binding, answer, refusalCodes);
        rows.push(
          verdict.problems.length === 0
            ? { name, outcome: "passed", detail: verdict.note }
            : { name, outcome: "failed", detail: verdict.problems.join("; ") },
        );
      } else if (c.error) {
        const problems = checkRefusal(binding, answer, expectedError(c.error, binding), false);
        rows.push(
          problems.length === 0
            ? { name, outcome: "passed", detail: `refused: ${c.error.code}` }
            : { name, outcome: "failed", detail: problems.join("; ") },
        );
      }
    }
  }

  for (const line of formatTable(rows)) print(line);
  const passed = rows.filter((r) => r.outcome === "passed").length;
  const failed = rows.filter((r) => r.outcome === "failed").length;
  const skipped = rows.length - passed - failed;
  if (skipped > 0) print(`(${skipped} skipped, not counted)`);
  print(`${passed} passed, ${failed} failed`);
  return failed === 0 ? 0 : 1;
}
