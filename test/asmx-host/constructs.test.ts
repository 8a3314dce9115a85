// Evidence: what a real ASMX runtime (Mono's ASP.NET, see README.md) publishes and answers for the constructs
// public ASMX services use (constructs/, constructs.ts). For each service the ?WSDL it publishes is saved in
// recorded/constructs/<Service>/service.wsdl (the host's URL replaced by HOST_PLACEHOLDER), and each exchange
// of constructs-cases.ts in recorded/constructs/<Service>/<case>.txt; docs/asmx-evidence/*.md sum them up.
// This test fetches and sends everything again and compares byte for byte, so the evidence stays true.
// ASMX_RECORD=1 npx vitest run test/asmx-host/constructs.test.ts rewrites the files from the live host.

import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { hasMono } from "../fixtures/system-component.js";
import { EXCHANGES, type Exchange } from "./constructs-cases.js";
import { exchangeRequest as request } from "./exchange-request.js";
import { CONSTRUCT_SERVICES, HOST_PLACEHOLDER, prepareConstructs } from "./constructs.js";
import { startAsmxHost, type AsmxHost } from "./host.js";

const RECORDED = fileURLToPath(new URL("./recorded/constructs/", import.meta.url));
const RECORD = process.env.ASMX_RECORD === "1";

/** Extra documents the host publishes besides ?WSDL, saved beside it. */
const DOCUMENTS: readonly { service: (typeof CONSTRUCT_SERVICES)[number]; query: string; file: string }[] = [
  { service: "DataSets", query: "schema=Inventory", file: "schema-Inventory.xsd" },
];

/** The host's URL in what it publishes, replaced so that recordings do not depend on the port. */
const placeholder = (host: AsmxHost, text: string) => text.split(host.url).join(HOST_PLACEHOLDER);

async function exchange(host: AsmxHost, x: Exchange) {
  const sent = request(x);
  const res = await fetch(new URL(sent.path, host.url), {
    method: sent.method,
    headers: sent.headers,
    ...(sent.method === "POST" ? { body: sent.body } : {}),
  });
  const answer = {
    status: res.status,
    statusText: res.statusText,
    contentType: res.headers.get("content-type") ?? "",
    body: placeholder(host, await res.text()),
  };
  const text = [
    `# ${x.note}`,
    `# Answered by Mono 6.8's ASP.NET (test/asmx-host), constructs/${x.service}.asmx, customErrors On. Host (and`,
    "# Content-Length) were sent too; of the answer's headers only Content-Type is kept.",
    ">>> request",
    `${sent.method} ${sent.path} HTTP/1.1`,
    ...Object.entries(sent.headers).map(([k, v]) => `${k}: ${v}`),
    "",
    sent.body,
    "<<< response",
    `HTTP/1.1 ${answer.status} ${answer.statusText}`,
    `Content-Type: ${answer.contentType}`,
    "",
    answer.body,
    "",
  ].join("\n");
  return { answer, text };
}

function compare(file: string, text: string): void {
  if (RECORD) writeFileSync(file, text);
  expect(existsSync(file), `${file} is missing: record it with ASMX_RECORD=1`).toBe(true);
  expect(text, `the host no longer answers as recorded in ${file}`).toBe(readFileSync(file, "utf8"));
}

const monoInstalled = hasMono();
let host: AsmxHost;

beforeAll(async () => {
  if (!monoInstalled) return;
  // DataSets write DateTime columns in the host's local time: fix the zone so recordings do not depend on it.
  host = await startAsmxHost({ services: await prepareConstructs(), env: { TZ: "UTC" } });
  if (RECORD) for (const s of CONSTRUCT_SERVICES) mkdirSync(join(RECORDED, s), { recursive: true });
}, 300_000);
afterAll(() => host?.stop(), 30_000);

describe.runIf(monoInstalled)("constructs on a real ASMX runtime (recorded evidence)", () => {
  it.each([...CONSTRUCT_SERVICES])("%s publishes the recorded ?WSDL", async (service) => {
    const res = await fetch(new URL(`/${service}.asmx?WSDL`, host.url));
    expect(res.status).toBe(200);
    compare(join(RECORDED, service, "service.wsdl"), placeholder(host, await res.text()));
  });

  it.each(DOCUMENTS.map((d) => [`${d.service}.asmx?${d.query}`, d] as const))(
    "%s is as recorded",
    async (_, d) => {
      const res = await fetch(new URL(`/${d.service}.asmx?${d.query}`, host.url));
      expect(res.status).toBe(200);
      compare(join(RECORDED, d.service, d.file), placeholder(host, await res.text()));
    },
  );

  it.each(EXCHANGES.map((x) => [`${x.service}/${x.name}`, x] as const))("%s", async (_, x) => {
    const { answer, text } = await exchange(host, x);
    compare(join(RECORDED, x.service, `${x.name}.txt`), text);
    expect(answer.status, x.note).toBe(x.status);
    for (const s of x.contains ?? []) expect(answer.body, x.note).toContain(s);
    for (const s of x.lacks ?? []) expect(answer.body, x.note).not.toContain(s);
  });

  it("every saved recording belongs to a case, and names are unique", () => {
    const names = EXCHANGES.map((x) => `${x.service}/${x.name}.txt`);
    expect(new Set(names).size).toBe(names.length);
    const expected = new Set([
      ...names,
      ...CONSTRUCT_SERVICES.map((s) => `${s}/service.wsdl`),
      ...DOCUMENTS.map((d) => `${d.service}/${d.file}`),
    ]);
    const saved = CONSTRUCT_SERVICES.flatMap((s) =>
      existsSync(join(RECORDED, s)) ? readdirSync(join(RECORDED, s)).map((f) => `${s}/${f}`) : [],
    );
    expect(saved.filter((f) => !expected.has(f))).toEqual([]);
  });
});
