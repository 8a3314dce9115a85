// Hostile Origin and preflight input (the attack suite's "cors" section), against the generated server with
// `cors: { origins: [ALLOWED] }` in its own process: forged, joined, huge and odd Origin values, preflights
// with bodies, huge request-method and request-header lists, and a flood of preflights. Every answer is
// well-formed; only the configured origin, byte for byte, is ever named in Access-Control-Allow-Origin
// (never an echo of the input); a preflight with a body is no preflight; the server serves the probe after,
// and its memory stays flat.

import { AttackChild } from "./child.js";
import { exchangeOnce, RawConnection, type Outcome } from "./connection.js";
import { judgeAnswer } from "./judge.js";
import { mb, type Row } from "./report.js";
import { ENDPOINT, PROBE_REQUEST } from "./requests.js";

const ALLOWED = "https://app.example";

interface CorsCase {
  readonly name: string;
  /** Header lines after the request line and Host, without CRLF. */
  readonly headers: readonly string[];
  readonly method?: string;
  readonly body?: string;
  /**
   * preflight: the 204 with ACAO = ALLOWED and the fixed lists; refused: no CORS header at all (Vary: Origin);
   * plain: from the allowed origin but no preflight (a method the bindings do not take, a body): the
   * ordinary answer, ACAO = ALLOWED, no preflight headers.
   */
  readonly expect: "preflight" | "refused" | "plain";
}

const PREFLIGHT = [
  "Access-Control-Request-Method: POST",
  "Access-Control-Request-Headers: content-type,soapaction",
];

const CASES: readonly CorsCase[] = [
  {
    name: "the allowed origin's preflight",
    headers: [`Origin: ${ALLOWED}`, ...PREFLIGHT],
    expect: "preflight",
  },
  { name: "a forged origin", headers: ["Origin: https://evil.example", ...PREFLIGHT], expect: "refused" },
  {
    name: "the allowed origin as a prefix",
    headers: [`Origin: ${ALLOWED}.evil.example`, ...PREFLIGHT],
    expect: "refused",
  },
  {
    name: "the allowed origin with a path",
    headers: [`Origin: ${ALLOWED}/x`, ...PREFLIGHT],
    expect: "refused",
  },
  {
    name: "the allowed origin with user info",
    headers: [`Origin: https://x@app.example`, ...PREFLIGHT],
    expect: "refused",
  },
  { name: "Origin: null", headers: ["Origin: null", ...PREFLIGHT], expect: "refused" },
  { name: "an empty Origin", headers: ["Origin: ", ...PREFLIGHT], expect: "refused" },
  {
    name: "two Origin headers (allowed, then forged)",
    headers: [`Origin: ${ALLOWED}`, "Origin: https://evil.example", ...PREFLIGHT],
    expect: "refused",
  },
  {
    name: "1,000 origins in one header, the allowed among them",
    headers: [
      `Origin: ${Array.from({ length: 1000 }, (_, i) => (i === 500 ? ALLOWED : `https://o${i}.example`)).join(", ")}`,
      ...PREFLIGHT,
    ],
    expect: "refused",
  },
  {
    name: "an 8 KiB Origin",
    headers: [`Origin: ${ALLOWED}${"a".repeat(8192)}`, ...PREFLIGHT],
    expect: "refused",
  },
  {
    name: "Origin with Latin-1 bytes",
    headers: [`Origin: https://\u00e9vil.example`, ...PREFLIGHT],
    expect: "refused",
  },
  {
    name: "an 8 KiB Access-Control-Request-Method",
    headers: [`Origin: ${ALLOWED}`, `Access-Control-Request-Method: ${"P".repeat(8192)}`],
    expect: "plain",
  },
  {
    name: "Access-Control-Request-Method: PUT",
    headers: [`Origin: ${ALLOWED}`, "Access-Control-Request-Method: PUT"],
    expect: "plain",
  },
  {
    name: "1,000 request headers asked for",
    headers: [
      `Origin: ${ALLOWED}`,
      "Access-Control-Request-Method: POST",
      `Access-Control-Request-Headers: ${Array.from({ length: 1000 }, (_, i) => `x-h${i}`).join(",")}`,
    ],
    expect: "preflight",
  },
  {
    name: "a preflight with a body",
    headers: [`Origin: ${ALLOWED}`, ...PREFLIGHT, "Content-Length: 5"],
    body: "hello",
    expect: "plain",
  },
  {
    name: "a preflight with a chunked body",
    headers: [`Origin: ${ALLOWED}`, ...PREFLIGHT, "Transfer-Encoding: chunked"],
    body: "5\r\nhello\r\n0\r\n\r\n",
    expect: "plain",
  },
  {
    name: "a forged origin's SOAP call",
    method: "POST",
    headers: [
      "Origin: https://evil.example",
      "Content-Type: text/xml; charset=utf-8",
      'SOAPAction: "http://tempuri.org/InsertSubscriberSid"',
      "Content-Length: 0",
    ],
    expect: "refused",
  },
];

function requestBytes(c: CorsCase): Buffer {
  const head = [`${c.method ?? "OPTIONS"} ${ENDPOINT} HTTP/1.1`, "Host: 127.0.0.1", ...c.headers].join(
    "\r\n",
  );
  return Buffer.from(`${head}\r\n\r\n${c.body ?? ""}`, "latin1");
}

/** Undefined when the answer is what the case must get, else why not. */
function problemOf(c: CorsCase, outcome: Outcome): string | undefined {
  if (outcome.kind !== "answer") return `${outcome.kind}: ${outcome.detail}`;
  const cors = Object.keys(outcome.headers).filter((name) => name.startsWith("access-control-"));
  // Node's parser refused the bytes (a head over its limit, a bad header) before the server saw them.
  if ((outcome.status === 400 || outcome.status === 431) && outcome.closes && cors.length === 0)
    return undefined;
  if (c.expect === "preflight") {
    if (outcome.status !== 204) return `status ${outcome.status}, not 204`;
    if (outcome.headers["access-control-allow-origin"] !== ALLOWED)
      return "Allow-Origin is not the configured origin";
    if (outcome.headers["access-control-allow-headers"] !== "Content-Type, SOAPAction")
      return "request headers echoed";
    return undefined;
  }
  if (c.expect === "plain") {
    if (
      cors.join() !== "access-control-allow-origin" ||
      outcome.headers["access-control-allow-origin"] !== ALLOWED
    )
      return `not the ordinary answer to the allowed origin: ${cors.join(", ")}`;
  } else if (cors.length > 0) return `CORS headers for a refused request: ${cors.join(", ")}`;
  if (outcome.headers.vary !== "Origin") return "no Vary: Origin";
  return judgeAnswer(outcome);
}

const FLOOD = 5_000;
const FLOOD_CONNECTIONS = 8;

export async function corsSection(rows: Row[]): Promise<void> {
  const child = await AttackChild.start({ mode: "service", options: { cors: { origins: [ALLOWED] } } });
  try {
    const problems: string[] = [];
    for (const c of CASES) {
      const outcome = await exchangeOnce(child.port, requestBytes(c), { timeoutMs: 10_000 });
      const problem = problemOf(c, outcome);
      if (problem !== undefined) problems.push(`${c.name}: ${problem}`);
    }
    rows.push({
      attack: "hostile Origin and preflight input (forged, joined, 8 KiB, null, bodies, 1,000 headers)",
      requests: CASES.length,
      outcome: `${CASES.length - problems.length} as expected`,
      measured: `${problems.length} wrong (an echoed origin, CORS headers for a refused one, a body taken as a preflight)`,
      target: "only the configured origin is ever allowed; every answer well-formed",
      pass: problems.length === 0 && child.alive,
      details: problems,
    });

    const before = child.memory();
    const allowed = requestBytes(CASES[0]!);
    const forged = requestBytes(CASES[1]!);
    let wrong = 0;
    let sent = 0;
    await Promise.all(
      Array.from({ length: FLOOD_CONNECTIONS }, async (_, lane) => {
        const connection = await RawConnection.open(child.port);
        try {
          for (let i = lane; i < FLOOD; i += FLOOD_CONNECTIONS) {
            const c = i % 2 === 0 ? CASES[0]! : CASES[1]!;
            const outcome = await connection.exchange(i % 2 === 0 ? allowed : forged, { timeoutMs: 10_000 });
            sent++;
            if (problemOf(c, outcome) !== undefined) wrong++;
          }
        } finally {
          connection.close();
        }
      }),
    );
    const after = child.memory();
    const probe = child.alive
      ? await exchangeOnce(child.port, PROBE_REQUEST, { timeoutMs: 10_000 })
      : undefined;
    const serves = probe?.kind === "answer" && probe.status === 200;
    const growth = after.hwmMb - before.hwmMb;
    rows.push({
      attack: `preflight flood: ${FLOOD.toLocaleString("en")} preflights, allowed and forged, ${FLOOD_CONNECTIONS} keep-alive connections`,
      requests: sent,
      outcome: `${sent - wrong} as expected; ${serves ? "serves the probe after" : "does NOT serve the probe after"}`,
      measured: `${wrong} wrong, peak RSS ${mb(before.hwmMb)} -> ${mb(after.hwmMb)}`,
      target: "0 wrong, serves after, peak RSS grows < 32 MB",
      pass: wrong === 0 && sent === FLOOD && serves && growth < 32,
    });
  } finally {
    await child.stop();
  }
}
