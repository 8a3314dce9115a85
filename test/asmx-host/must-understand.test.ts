// Evidence: what a real ASMX runtime (Mono's ASP.NET, see README.md) answers to SOAP headers marked
// mustUnderstand that the method does not take, and to a declared [SoapHeader(Required = true)] header that
// is missing or marked mustUnderstand. Each exchange is saved in recorded/must-understand/<case>.txt and
// docs/asmx-evidence/must-understand.md sums them up; this test sends every request again and compares the
// answer with the saved one byte for byte, so the evidence stays true.
// ASMX_RECORD=1 npx vitest run test/asmx-host/must-understand.test.ts rewrites the files from the live host.

import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { hasMono } from "../fixtures/system-component.js";
import { FIXTURE_SERVICES, startAsmxHost, type AsmxHost } from "./host.js";

const RECORDED = fileURLToPath(new URL("./recorded/must-understand/", import.meta.url));
const RECORD = process.env.ASMX_RECORD === "1";
const PATH = "/Headers.asmx";
const NS = "http://tempuri.org/headers/";
const SOAP11 = "http://schemas.xmlsoap.org/soap/envelope/";
const SOAP12 = "http://www.w3.org/2003/05/soap-envelope";

type Version = "1.1" | "1.2";
type Method = "Plain" | "Secured" | "SecuredRejecting";

interface Case {
  readonly name: string;
  readonly note: string;
  readonly version: Version;
  readonly method: Method;
  /** The Header element's content (attributes use the envelope's prefix, soap). */
  readonly headers: string | null;
  /** What the answer is, asserted besides the byte comparison. */
  readonly outcome: "MustUnderstand fault" | "answered";
}

const unknown = (attributes: string) =>
  `<x:Unknown xmlns:x="urn:example:unknown"${attributes}>value</x:Unknown>`;
const auth = (attributes: string) =>
  `<AuthHeader xmlns="${NS}"${attributes}><Username>alice</Username><Password>secret</Password></AuthHeader>`;

const CASES: readonly Case[] = [
  // A method without any [SoapHeader]: the header is unknown to it.
  {
    name: "soap11-unknown-mu-1",
    version: "1.1",
    method: "Plain",
    headers: unknown(' soap:mustUnderstand="1"'),
    outcome: "MustUnderstand fault",
    note: 'SOAP 1.1, unknown header, mustUnderstand="1"',
  },
  {
    name: "soap11-unknown-mu-true",
    version: "1.1",
    method: "Plain",
    headers: unknown(' soap:mustUnderstand="true"'),
    outcome: "MustUnderstand fault",
    note: 'SOAP 1.1, unknown header, mustUnderstand="true"',
  },
  {
    name: "soap11-unknown-mu-0",
    version: "1.1",
    method: "Plain",
    headers: unknown(' soap:mustUnderstand="0"'),
    outcome: "answered",
    note: 'SOAP 1.1, unknown header, mustUnderstand="0"',
  },
  {
    name: "soap11-unknown-no-mu",
    version: "1.1",
    method: "Plain",
    headers: unknown(""),
    outcome: "answered",
    note: "SOAP 1.1, unknown header without mustUnderstand",
  },
  {
    name: "soap11-unknown-mu-invalid",
    version: "1.1",
    method: "Plain",
    headers: unknown(' soap:mustUnderstand="yes"'),
    outcome: "answered",
    note: 'SOAP 1.1, unknown header, mustUnderstand="yes" (not a boolean)',
  },
  {
    name: "soap11-unknown-mu-1-actor-next",
    version: "1.1",
    method: "Plain",
    headers: unknown(' soap:mustUnderstand="1" soap:actor="http://schemas.xmlsoap.org/soap/actor/next"'),
    outcome: "MustUnderstand fault",
    note: 'SOAP 1.1, unknown header, mustUnderstand="1", actor = the next node',
  },
  {
    name: "soap11-unknown-mu-1-actor-other",
    version: "1.1",
    method: "Plain",
    headers: unknown(' soap:mustUnderstand="1" soap:actor="http://example.org/another-node"'),
    outcome: "MustUnderstand fault",
    note: 'SOAP 1.1, unknown header, mustUnderstand="1", actor = another node',
  },
  {
    name: "soap11-unknown-soap12-mu-1",
    version: "1.1",
    method: "Plain",
    headers: `<x:Unknown xmlns:x="urn:example:unknown" xmlns:s12="${SOAP12}" s12:mustUnderstand="1">value</x:Unknown>`,
    outcome: "MustUnderstand fault",
    note: 'SOAP 1.1 envelope, unknown header whose mustUnderstand="1" is in the SOAP 1.2 namespace',
  },
  {
    name: "soap12-unknown-mu-1",
    version: "1.2",
    method: "Plain",
    headers: unknown(' soap:mustUnderstand="1"'),
    outcome: "MustUnderstand fault",
    note: 'SOAP 1.2, unknown header, mustUnderstand="1"',
  },
  {
    name: "soap12-unknown-mu-true",
    version: "1.2",
    method: "Plain",
    headers: unknown(' soap:mustUnderstand="true"'),
    outcome: "MustUnderstand fault",
    note: 'SOAP 1.2, unknown header, mustUnderstand="true"',
  },
  {
    name: "soap12-unknown-mu-0",
    version: "1.2",
    method: "Plain",
    headers: unknown(' soap:mustUnderstand="0"'),
    outcome: "answered",
    note: 'SOAP 1.2, unknown header, mustUnderstand="0"',
  },
  {
    name: "soap12-unknown-mu-1-role-next",
    version: "1.2",
    method: "Plain",
    headers: unknown(` soap:mustUnderstand="1" soap:role="${SOAP12}/role/next"`),
    outcome: "MustUnderstand fault",
    note: 'SOAP 1.2, unknown header, mustUnderstand="1", role = next',
  },
  {
    name: "soap12-unknown-mu-1-role-other",
    version: "1.2",
    method: "Plain",
    headers: unknown(' soap:mustUnderstand="1" soap:role="http://example.org/another-node"'),
    outcome: "MustUnderstand fault",
    note: 'SOAP 1.2, unknown header, mustUnderstand="1", role = another node',
  },
  {
    name: "soap12-unknown-mu-1-role-none",
    version: "1.2",
    method: "Plain",
    headers: unknown(` soap:mustUnderstand="1" soap:role="${SOAP12}/role/none"`),
    outcome: "MustUnderstand fault",
    note: 'SOAP 1.2, unknown header, mustUnderstand="1", role = none',
  },
  // A method with [SoapHeader("Auth", Required = true)] AuthHeader Auth; it never sets DidUnderstand.
  {
    name: "soap11-secured-missing",
    version: "1.1",
    method: "Secured",
    headers: null,
    outcome: "answered",
    note: "SOAP 1.1, required AuthHeader missing (no Header element)",
  },
  {
    name: "soap12-secured-missing",
    version: "1.2",
    method: "Secured",
    headers: null,
    outcome: "answered",
    note: "SOAP 1.2, required AuthHeader missing (no Header element)",
  },
  {
    name: "soap11-secured-auth-mu-1",
    version: "1.1",
    method: "Secured",
    headers: auth(' soap:mustUnderstand="1"'),
    outcome: "answered",
    note: 'SOAP 1.1, AuthHeader with mustUnderstand="1"; the method does not mark it understood',
  },
  {
    name: "soap12-secured-auth-mu-1",
    version: "1.2",
    method: "Secured",
    headers: auth(' soap:mustUnderstand="1"'),
    outcome: "answered",
    note: 'SOAP 1.2, AuthHeader with mustUnderstand="1"; the method does not mark it understood',
  },
  {
    name: "soap11-secured-auth-twice-mu-1",
    version: "1.1",
    method: "Secured",
    headers: auth(' soap:mustUnderstand="1"') + auth(' soap:mustUnderstand="1"'),
    outcome: "MustUnderstand fault",
    note: 'SOAP 1.1, AuthHeader twice, both mustUnderstand="1"',
  },
  {
    name: "soap11-secured-unknown-mu-1",
    version: "1.1",
    method: "Secured",
    headers: auth("") + unknown(' soap:mustUnderstand="1"'),
    outcome: "MustUnderstand fault",
    note: 'SOAP 1.1, AuthHeader plus an unknown header with mustUnderstand="1"',
  },
  // A method with [SoapHeader("Auth")] that sets Auth.DidUnderstand = false.
  {
    name: "soap11-rejecting-auth-mu-1",
    version: "1.1",
    method: "SecuredRejecting",
    headers: auth(' soap:mustUnderstand="1"'),
    outcome: "MustUnderstand fault",
    note: 'SOAP 1.1, AuthHeader with mustUnderstand="1"; the method sets DidUnderstand = false',
  },
  {
    name: "soap11-rejecting-auth-mu-0",
    version: "1.1",
    method: "SecuredRejecting",
    headers: auth(""),
    outcome: "answered",
    note: "SOAP 1.1, AuthHeader without mustUnderstand; the method sets DidUnderstand = false",
  },
  {
    name: "soap11-plain-auth-mu-1",
    version: "1.1",
    method: "Plain",
    headers: auth(' soap:mustUnderstand="1"'),
    outcome: "MustUnderstand fault",
    note: 'SOAP 1.1, AuthHeader with mustUnderstand="1" sent to a method that does not declare it',
  },
];

function request(c: Case): { headers: Record<string, string>; body: string } {
  const envNs = c.version === "1.1" ? SOAP11 : SOAP12;
  const header = c.headers === null ? "" : `<soap:Header>${c.headers}</soap:Header>`;
  const body = `<?xml version="1.0" encoding="utf-8"?><soap:Envelope xmlns:soap="${envNs}">${header}<soap:Body><${c.method} xmlns="${NS}"><text>hello</text></${c.method}></soap:Body></soap:Envelope>`;
  const headers: Record<string, string> =
    c.version === "1.1"
      ? { "Content-Type": "text/xml; charset=utf-8", SOAPAction: `"${NS}${c.method}"` }
      : { "Content-Type": `application/soap+xml; charset=utf-8; action="${NS}${c.method}"` };
  return { headers, body };
}

/** The exchange as saved: the note, the request as sent, the answer's status line, Content-Type and body. */
function transcript(
  c: Case,
  sent: { headers: Record<string, string>; body: string },
  res: { status: number; statusText: string; contentType: string; body: string },
): string {
  return [
    `# ${c.note}`,
    "# Answered by Mono 6.8's ASP.NET (test/asmx-host), services/Headers.asmx, customErrors On. Host and",
    "# Content-Length were sent too; of the answer's headers only Content-Type is kept.",
    ">>> request",
    `POST ${PATH} HTTP/1.1`,
    ...Object.entries(sent.headers).map(([k, v]) => `${k}: ${v}`),
    "",
    sent.body,
    "<<< response",
    `HTTP/1.1 ${res.status} ${res.statusText}`,
    `Content-Type: ${res.contentType}`,
    "",
    res.body,
    "",
  ].join("\n");
}

async function send(host: AsmxHost, c: Case) {
  const sent = request(c);
  const res = await fetch(new URL(PATH, host.url), {
    method: "POST",
    headers: sent.headers,
    body: sent.body,
  });
  const answer = {
    status: res.status,
    statusText: res.statusText,
    contentType: res.headers.get("content-type") ?? "",
    body: await res.text(),
  };
  return { sent, answer, text: transcript(c, sent, answer) };
}

/** A call counter of the fixture (PlainCalls, RejectingCalls), read over HTTP GET. */
async function counter(host: AsmxHost, name: "PlainCalls" | "RejectingCalls"): Promise<number> {
  const res = await fetch(new URL(`${PATH}/${name}`, host.url));
  const match = /<int [^>]*>(\d+)<\/int>/.exec(await res.text());
  if (!match) throw new Error(`${name} gave no number`);
  return Number(match[1]);
}

const monoInstalled = hasMono();
let host: AsmxHost;

beforeAll(async () => {
  if (!monoInstalled) return;
  host = await startAsmxHost({ services: FIXTURE_SERVICES });
  if (RECORD) mkdirSync(RECORDED, { recursive: true });
}, 180_000);
afterAll(() => host?.stop(), 30_000);

describe.runIf(monoInstalled)("mustUnderstand on a real ASMX runtime (recorded evidence)", () => {
  it.each(CASES.map((c) => [c.name, c] as const))("%s", async (name, c) => {
    const { answer, text } = await send(host, c);
    const file = join(RECORDED, `${name}.txt`);
    if (RECORD) writeFileSync(file, text);
    expect(existsSync(file), `${file} is missing: record it with ASMX_RECORD=1`).toBe(true);
    expect(text, `the host no longer answers as recorded in ${file}`).toBe(readFileSync(file, "utf8"));

    const faultCode = /<faultcode>([^<]*)<\/faultcode>|<soap:Code><soap:Value>([^<]*)<\/soap:Value>/.exec(
      answer.body,
    );
    const code = faultCode ? (faultCode[1] ?? faultCode[2]) : null;
    if (c.outcome === "answered") {
      expect(answer.status).toBe(200);
      expect(answer.body).toContain(`<${c.method}Response xmlns="${NS}">`);
    } else {
      expect(answer.status).toBe(500);
      expect(code).toBe("soap:MustUnderstand");
    }
  });

  it("an unknown mustUnderstand header faults before the method runs: Plain's call counter does not move", async () => {
    const faulting = CASES.filter((c) => c.method === "Plain" && c.outcome !== "answered");
    const answering = CASES.filter((c) => c.method === "Plain" && c.outcome === "answered");
    const before = await counter(host, "PlainCalls");
    for (const c of faulting) expect((await send(host, c)).answer.status).toBe(500);
    expect(await counter(host, "PlainCalls")).toBe(before);
    for (const c of answering) expect((await send(host, c)).answer.status).toBe(200);
    expect(await counter(host, "PlainCalls")).toBe(before + answering.length);
  });

  it("a declared header the method marks not understood faults after the method ran", async () => {
    const rejected = CASES.find((c) => c.name === "soap11-rejecting-auth-mu-1")!;
    const before = await counter(host, "RejectingCalls");
    expect((await send(host, rejected)).answer.status).toBe(500);
    expect(await counter(host, "RejectingCalls")).toBe(before + 1);
  });

  it("every saved recording belongs to a case", () => {
    const names = new Set(CASES.map((c) => `${c.name}.txt`));
    const saved = existsSync(RECORDED) ? readdirSync(RECORDED).filter((f) => f.endsWith(".txt")) : [];
    expect(saved.filter((f) => !names.has(f))).toEqual([]);
  });
});
