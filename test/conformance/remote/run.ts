// Remote mode: holds any live endpoint (ours, or a legacy ASMX host) to the cases that need no known
// data. Every operation's success request, and every request a protocol case varies (tampered, or values
// in .NET's lenient forms), must get an answer of the right shape on every binding (a well-formed
// Server/Receiver fault counts as "answered, fault"); every refusal case must get the right fault, 500
// text or HTTP-level refusal (the error code checked only when the endpoint sends one); the WSDL must be
// served with the four bindings. Cases on operations that write run only with allowWrites. `profile`
// picks the cases: protocol (what every ASMX host does), service (our validation), or all.
//
// Data the cases need to exist (ids: `{ fixture: list }` in the cases) comes from `fixtures`; a fixture
// not given keeps the suite's value, and a case using one may then be answered "no such id" (a code of
// MISSING_DATA_CODES) instead of its expectation: it passes, saying which fixture to give to check it. A
// given fixture answered so is a failure. docs/conformance.md is the user's guide.

import { fixtureValues, MISSING_DATA_CODES, type FixtureKey } from "../fixtures.js";
import type { ReferenceAnswer } from "../reference/errors.js";
import { checkAnswerShape } from "../reference/shape.js";
import { loadReferenceService, type RefOperation } from "../reference/spec.js";
import {
  casesOf,
  expectedError,
  loadCases,
  sentValues,
  type ConformanceCase,
  type Profile,
} from "../suite/cases.js";
import { sendRequest } from "../suite/http.js";
import { answerErrorCode, checkRefusal } from "../suite/refusal.js";
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
  /** Which cases to run (default all); the WSDL and shape rows belong to protocol. */
  readonly profile?: Profile | "all";
  /** Ids and values that exist on the endpoint's account (fixtures.ts); the rest keep the suite's. */
  readonly fixtures?: Partial<Record<FixtureKey, string>>;
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

function formatTable(rows: readonly CheckRow[]): string[] {
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
  const profile = options.profile ?? "all";
  const given = options.fixtures ?? {};
  const allCases = loadCases(service, undefined, fixtureValues(given));
  const cases = casesOf(allCases, profile);
  const endpoint = options.url.replace(/[?#].*$/, "").replace(/\/+$/, "");
  const credentials = { username: options.username, password: options.password };
  const refusalCodes = new Set(allCases.flatMap((c) => (c.error?.side === "client" ? [c.error.code] : [])));
  const send = (request: Parameters<typeof sendRequest>[1]) =>
    exchange(() => sendRequest(endpoint, request, options.timeoutMs));
  const rows: CheckRow[] = [];

  if (profile !== "service") {
    const wsdl = await send({ method: "GET", path: "", query: "WSDL", headers: {}, body: "" });
    rows.push(...checkWsdl(wsdl, service));
  }

  for (const c of cases) {
    const op = service.operations.get(c.operation);
    if (!op) continue;
    const isSuccess = c.name === "success";
    // A result case that varies the request (tampered, or lenient values) is held to the shape too; other
    // result cases only vary the data, which a live endpoint has its own of.
    const isShape =
      c.result !== undefined && (isSuccess || c.tamper !== undefined || c.received !== undefined);
    // Refusals: the caller's fault, or a runtime refusal of a tampered request (an empty SOAP 1.2 body);
    // a server-side error without tampering is a handler's, which only our suite can script.
    const isRefusal = c.error !== undefined && (c.error.side === "client" || c.tamper !== undefined);
    if (!isShape && !isRefusal) continue;
    for (const binding of c.bindings) {
      const name = `${c.operation}/${binding}/${isSuccess ? "shape" : c.name}`;
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
        continue;
      }
      const verdict = isShape
        ? checkAnswerShape(op, binding, answer, refusalCodes)
        : {
            problems: checkRefusal(binding, answer, expectedError(c.error!, binding), false),
            note: `refused: ${c.error!.code}`,
          };
      if (verdict.problems.length === 0) {
        rows.push({ name, outcome: "passed", detail: verdict.note });
        continue;
      }
      const code = answerErrorCode(binding, answer);
      const missing = c.fixtures.filter((key) => given[key] === undefined);
      const meansMissing = (keys: readonly FixtureKey[]) =>
        code !== undefined &&
        code !== c.error?.code &&
        keys.some((key) => MISSING_DATA_CODES[key].includes(code));
      if (meansMissing(c.fixtures)) {
        rows.push(
          meansMissing(missing)
            ? {
                name,
                outcome: "passed",
                detail: `missing data: ${code} (give the fixtures ${missing.join(", ")} to check this case)`,
              }
            : {
                name,
                outcome: "failed",
                detail: `${verdict.problems.join("; ")} (the fixtures given, ${c.fixtures.join(", ")}: do they exist on this account?)`,
              },
        );
        continue;
      }
      rows.push({ name, outcome: "failed", detail: verdict.problems.join("; ") });
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
