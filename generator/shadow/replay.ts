// Replays recorded cases (record.ts) against any endpoint and compares each answer with the recorded one as
// the shadow proxy does (compare.ts): canonical XML, the case's volatile paths, status, content type, fault
// codes; a recorded "[redacted]" value is compared by nothing. The credentials, redacted when recorded, are
// filled in from what the caller gives (the spec's credential parameters by their property, username and
// password), escaped for the request's form: XML text, or a query or form value.

import { compareAnswers, type Answer, type Verdict } from "./compare.js";
import { parseVolatilePath, type VolatilePath } from "./paths.js";
import { REDACTED } from "./redact.js";
import type { RecordedCase } from "./record.js";

export interface ReplayOptions {
  /** The endpoint, https://host/path/Service.asmx. */
  readonly url: string;
  /** Credential values by parameter name (strUsername → …). */
  readonly credentials: Readonly<Record<string, string>>;
  readonly timeoutMs: number;
}

export interface ReplayResult {
  readonly file: string;
  readonly outcome: "passed" | "failed";
  readonly detail: string;
  readonly verdict?: Verdict;
}

const PLACEHOLDER = /^\[redacted\]$/;
const ENCODED_REDACTED = encodeURIComponent(REDACTED);

function escapeXml(text: string): string {
  return text.replace(/[&<>]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;" })[c]!);
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/** The request with each given credential put back where the recording redacted it. */
export function fillCredentials(
  request: RecordedCase["request"],
  credentials: Readonly<Record<string, string>>,
): { target: string; body: string } {
  let { target, body } = request;
  for (const [name, value] of Object.entries(credentials)) {
    const n = escapeRegExp(name);
    const inForm = new RegExp(`((?:^|[?&])${n}=)${escapeRegExp(ENCODED_REDACTED)}(?=&|$)`, "gi");
    target = target.replace(inForm, (_m, head: string) => `${head}${encodeURIComponent(value)}`);
    body = body.replace(inForm, (_m, head: string) => `${head}${encodeURIComponent(value)}`);
    const inXml = new RegExp(
      `(<((?:[A-Za-z_][\\w.-]*:)?${n})(?:\\s[^<>]*)?>)${escapeRegExp(REDACTED)}(</\\2\\s*>)`,
      "g",
    );
    body = body.replace(
      inXml,
      (_m, open: string, _name, close: string) => `${open}${escapeXml(value)}${close}`,
    );
  }
  return { target, body };
}

function volatileOf(c: RecordedCase, file: string): VolatilePath[] {
  return c.volatile.map((text) => {
    const parsed = parseVolatilePath(text);
    if (typeof parsed === "string") throw new Error(`${file}: volatile path "${text}": ${parsed}`);
    return parsed;
  });
}

async function send(
  url: string,
  c: RecordedCase,
  filled: { target: string; body: string },
  timeoutMs: number,
): Promise<Answer> {
  const endpoint = url.replace(/\/+$/, "");
  const hasBody = c.request.method !== "GET" && c.request.method !== "HEAD";
  const response = await fetch(`${endpoint}${filled.target}`, {
    method: c.request.method,
    headers: c.request.headers,
    ...(hasBody ? { body: filled.body } : {}),
    redirect: "manual",
    signal: AbortSignal.timeout(timeoutMs),
  });
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => {
    headers[name] = value;
  });
  return { status: response.status, headers, body: new Uint8Array(await response.arrayBuffer()) };
}

/** Replays every case in order; one result each. */
export async function replayCases(
  cases: readonly { file: string; recorded: RecordedCase }[],
  options: ReplayOptions,
): Promise<ReplayResult[]> {
  const results: ReplayResult[] = [];
  for (const { file, recorded } of cases) {
    const rules = { volatile: volatileOf(recorded, file), placeholder: PLACEHOLDER };
    const expected: Answer = {
      status: recorded.answer.status,
      headers: recorded.answer.contentType === "" ? {} : { "content-type": recorded.answer.contentType },
      body: Buffer.from(recorded.answer.body, "utf8"),
    };
    let live: Answer;
    try {
      live = await send(
        options.url,
        recorded,
        fillCredentials(recorded.request, options.credentials),
        options.timeoutMs,
      );
    } catch (error) {
      const e = error as Error & { cause?: { code?: string } };
      results.push({ file, outcome: "failed", detail: `no answer: ${e.cause?.code ?? e.name}` });
      continue;
    }
    const verdict = compareAnswers(expected, live, rules);
    if (verdict.outcome === "matched") results.push({ file, outcome: "passed", detail: "the same", verdict });
    else if (verdict.outcome === "explained") {
      results.push({ file, outcome: "passed", detail: `explained: ${verdict.known!.id}`, verdict });
    } else {
      results.push({
        file,
        outcome: "failed",
        detail: `${verdict.path}: ${verdict.what} (recorded ${verdict.legacy}, got ${verdict.ours})`,
        verdict,
      });
    }
  }
  return results;
}
