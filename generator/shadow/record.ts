// Recorded conformance cases: `easgen record` writes each operation exchange the proxy passes (the answering
// host's request and answer) into a folder, one YAML file a case, redacted (credentials and the config's
// secrets read "[redacted]"); `npm run conformance -- --cases <folder> --url …` replays them (replay.ts).
//
//   # GetRoiResults over soap11, recorded from http://legacy/ExternalAPIService.asmx
//   operation: GetRoiResults
//   binding: soap11
//   recordedAt: 2026-11-28T00:01:02.003Z
//   request:
//     method: POST
//     target: ""                    # after the endpoint: "" (SOAP) or "/Op?query" (HTTP GET/POST)
//     headers: { Content-Type: text/xml; charset=utf-8, SOAPAction: '"http://tempuri.org/GetRoiResults"' }
//     body: <?xml …
//   answer: { status: 200, contentType: text/xml; charset=utf-8, body: <?xml … }
//   volatile: [ RoiResult/Url ]     # the config's paths for the operation, compared by nothing
//
// Bounded: at most maxCases files, at most perOperation per operation and binding, bodies no larger than the
// proxy's compareBytes (the proxy does not collect larger ones).

import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { parse, stringify } from "yaml";
import type { ShadowConfig } from "./config.js";
import type { Exchange } from "./proxy.js";
import { createRedactor, secretNames } from "./redact.js";

export interface RecordedCase {
  readonly operation: string;
  readonly binding: string;
  readonly recordedAt: string;
  readonly request: {
    readonly method: string;
    readonly target: string;
    readonly headers: Readonly<Record<string, string>>;
    readonly body: string;
  };
  readonly answer: { readonly status: number; readonly contentType: string; readonly body: string };
  readonly volatile: readonly string[];
}

export interface RecordLimits {
  readonly maxCases: number;
  readonly perOperation: number;
}

/** Request headers worth keeping: what decides how a host reads the request. */
const KEPT_HEADERS = new Map([
  ["content-type", "Content-Type"],
  ["soapaction", "SOAPAction"],
  ["accept", "Accept"],
  ["user-agent", "User-Agent"],
]);

export interface Recorder {
  readonly written: () => number;
  add(exchange: Exchange): void;
}

export function createRecorder(config: ShadowConfig, dir: string, limits: RecordLimits): Recorder {
  mkdirSync(dir, { recursive: true });
  const redact = createRedactor(secretNames(config));
  const endpointPath = new URL(
    config.mode === "mirror" ? config.legacy : config.ours!,
  ).pathname.toLowerCase();
  const source = (config.mode === "mirror" ? config.legacy : config.ours!).href;
  const perGroup = new Map<string, number>();
  let written = readdirSync(dir).filter((f) => f.endsWith(".yaml")).length;
  return {
    written: () => written,
    add(e) {
      if (written >= limits.maxCases) return;
      const group = `${e.operation}.${e.binding}`;
      const count = perGroup.get(group) ?? 0;
      if (count >= limits.perOperation) return;
      perGroup.set(group, count + 1);
      const headers: Record<string, string> = {};
      for (const [name, value] of Object.entries(e.requestHeaders)) {
        const kept = KEPT_HEADERS.get(name);
        if (kept) headers[kept] = value;
      }
      const text = (b: Uint8Array) => Buffer.from(b.buffer, b.byteOffset, b.length).toString("utf8");
      const target = e.url.toLowerCase().startsWith(endpointPath) ? e.url.slice(endpointPath.length) : e.url;
      const recorded: RecordedCase = {
        operation: e.operation,
        binding: e.binding,
        recordedAt: new Date(e.at).toISOString(),
        request: {
          method: e.method,
          target: redact.url(target),
          headers,
          body: redact.body(text(e.requestBody), e.requestHeaders["content-type"]),
        },
        answer: {
          status: e.answer.status,
          contentType: e.answer.headers["content-type"] ?? "",
          body: redact.xml(text(e.answer.body)),
        },
        volatile: [...config.volatile, ...(config.operations.get(e.operation)?.volatile ?? [])].map(
          (v) => v.text,
        ),
      };
      let name: string;
      let n = count + 1;
      do name = `${e.operation}.${e.binding}.${String(n++).padStart(3, "0")}.yaml`;
      while (existsIn(dir, name));
      writeFileSync(
        path.join(dir, name),
        `# ${e.operation} over ${e.binding}, recorded from ${source}\n${stringify(recorded, { lineWidth: 0 })}`,
        { mode: 0o600 },
      );
      written++;
    },
  };
}

function existsIn(dir: string, name: string): boolean {
  return existsSync(path.join(dir, name));
}

/** Reads a folder of recorded cases; throws naming the file and the field for one that is not a case. */
export function readRecordedCases(dir: string): { file: string; recorded: RecordedCase }[] {
  const files = readdirSync(dir)
    .filter((f) => f.endsWith(".yaml") || f.endsWith(".yml"))
    .sort();
  return files.map((file) => {
    const value = parse(readFileSync(path.join(dir, file), "utf8")) as Record<string, unknown> | null;
    const problem = (what: string) => new Error(`${path.join(dir, file)}: ${what}`);
    if (typeof value !== "object" || value === null)
      throw problem("not a recorded case (a mapping with operation, request, answer)");
    const request = value["request"] as Record<string, unknown> | undefined;
    const answer = value["answer"] as Record<string, unknown> | undefined;
    if (typeof value["operation"] !== "string") throw problem("operation must be a string");
    if (typeof request !== "object" || request === null) throw problem("request must be a mapping");
    if (typeof answer !== "object" || answer === null) throw problem("answer must be a mapping");
    if (typeof request["method"] !== "string" || typeof request["target"] !== "string")
      throw problem("request needs method and target");
    if (typeof answer["status"] !== "number") throw problem("answer.status must be a number");
    const volatile = value["volatile"] ?? [];
    if (!Array.isArray(volatile) || volatile.some((v) => typeof v !== "string"))
      throw problem("volatile must be a list of paths");
    return {
      file,
      recorded: {
        operation: value["operation"],
        binding: String(value["binding"] ?? ""),
        recordedAt: String(value["recordedAt"] ?? ""),
        request: {
          method: request["method"],
          target: request["target"],
          headers: (request["headers"] ?? {}) as Record<string, string>,
          body: String(request["body"] ?? ""),
        },
        answer: {
          status: answer["status"],
          contentType: String(answer["contentType"] ?? ""),
          body: String(answer["body"] ?? ""),
        },
        volatile: volatile as string[],
      },
    };
  });
}
