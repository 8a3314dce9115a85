// `npm run fuzz -- --only headers`: hostile SOAP header input against a generated server whose operations
// declare headers (SoapHeaders.asmx's WSDL imported, with AuthHeader as the credentials header and
// TraceHeader required on Echo: test/headers/). Huge, deep, many and duplicated headers, mustUnderstand on
// odd values, headers that do not read, a required header missing, on SOAP 1.1 and 1.2: every request is
// answered with the expected status, the handler never runs on a refusal, and the server stays up.

import type { Server } from "node:http";
import { close, importConstruct, listen } from "../headers/imported.js";
import { ms, type Row } from "./report.js";

const NS = "http://tempuri.org/constructs/headers/";
const SOAP11 = "http://schemas.xmlsoap.org/soap/envelope/";
const SOAP12 = "http://www.w3.org/2003/05/soap-envelope";

const edit = (yaml: string) =>
  yaml
    .replace("  bindings: [soap11, soap12, httpGet, httpPost]\n", "$&  credentialsHeader: AuthHeader\n")
    .replaceAll("          - { record: AuthHeader }\n", "")
    .replace(/ {8}headers:\n(?! {10}- )/g, "")
    .replace(
      "{ record: TraceHeader, direction: inOut }",
      "{ record: TraceHeader, direction: inOut, required: true }",
    );

const auth = (user: string, attrs = "") =>
  `<AuthHeader xmlns="${NS}"${attrs}><Username>${user}</Username><Password>p</Password></AuthHeader>`;
const trace = (hops: string, attrs = "") =>
  `<TraceHeader xmlns="${NS}"${attrs}><CorrelationId>c</CorrelationId><Hops>${hops}</Hops></TraceHeader>`;
const echo = `<Echo xmlns="${NS}"><text>t</text></Echo>`;

interface Case {
  readonly name: string;
  /** The Header's content, `{p}` standing for the envelope's prefix. */
  readonly header: string;
  readonly body?: string;
  readonly op?: string;
  readonly status: number;
  /** The fault code the answer holds, or the text it holds when 200. */
  readonly holds: string;
  /** Whether the handler may run. */
  readonly runs: boolean;
}

function cases(): Case[] {
  const huge = "x".repeat(8 * 1024 * 1024);
  let deep = "";
  for (let i = 0; i < 5000; i++) deep += "<d>";
  deep += "</d>".repeat(5000);
  return [
    {
      name: "an 8 MiB Username in the credentials header",
      header: auth(huge) + trace("1"),
      status: 200,
      holds: "<EchoResult>t</EchoResult>",
      runs: true,
    },
    {
      name: "a header nested 5,000 deep",
      header: auth(`u${deep}`) + trace("1"),
      status: 400,
      holds: "",
      runs: false,
    },
    {
      name: "100,000 unknown headers (past the element limit)",
      header: '<h:N xmlns:h="urn:n"/>'.repeat(100_000) + auth("u") + trace("1"),
      status: 400,
      holds: "",
      runs: false,
    },
    {
      name: "9,000 unknown headers, not marked",
      header: '<h:N xmlns:h="urn:n"/>'.repeat(9_000) + auth("u") + trace("1"),
      status: 200,
      holds: "<EchoResult>t</EchoResult>",
      runs: true,
    },
    {
      name: "the credentials header 1,000 times, not marked (the first is bound)",
      header: auth("u").repeat(1000) + trace("1"),
      status: 200,
      holds: "<EchoResult>t</EchoResult>",
      runs: true,
    },
    {
      name: "the credentials header twice, the second marked mustUnderstand",
      header: auth("u") + auth("v", ' {p}:mustUnderstand="1"') + trace("1"),
      status: 500,
      holds: "MustUnderstand",
      runs: false,
    },
    ...["1 ", " true", "TRUE", "01", "", "yes", "0"].map((value) => ({
      name: `an unknown header with mustUnderstand="${value}" (only 1 and true mark it: ignored)`,
      header: `<h:N xmlns:h="urn:n" {p}:mustUnderstand="${value}"/>${auth("u")}${trace("1")}`,
      status: 200,
      holds: "<EchoResult>t</EchoResult>",
      runs: true,
    })),
    {
      name: "the declared headers marked mustUnderstand (bound: understood)",
      header: auth("u", ' {p}:mustUnderstand="1"') + trace("1", ' {p}:mustUnderstand="true"'),
      status: 200,
      holds: "<EchoResult>t</EchoResult>",
      runs: true,
    },
    {
      name: "the credentials header in another namespace, marked mustUnderstand",
      header: `<AuthHeader xmlns="urn:other" {p}:mustUnderstand="1"/>${auth("u")}${trace("1")}`,
      status: 500,
      holds: "MustUnderstand",
      runs: false,
    },
    {
      name: "a required header missing",
      header: auth("u"),
      status: 500,
      holds: "MustUnderstand",
      runs: false,
    },
    {
      name: "no Header at all on an operation requiring two",
      header: "",
      status: 500,
      holds: "MustUnderstand",
      runs: false,
    },
    {
      name: "a header field that does not read (Hops=many)",
      header: auth("u") + trace("many"),
      status: 500,
      holds: "<Code>InvalidType</Code>",
      runs: false,
    },
    {
      name: "a header field holding elements",
      header: auth("u<b/>") + trace("1"),
      status: 500,
      holds: "<Code>InvalidType</Code>",
      runs: false,
    },
    {
      name: "a nil value-type field in a header",
      header: `${auth("u")}<TraceHeader xmlns="${NS}" xmlns:i="http://www.w3.org/2001/XMLSchema-instance"><Hops i:nil="true"/></TraceHeader>`,
      status: 500,
      holds: "<Code>InvalidType</Code>",
      runs: false,
    },
    {
      name: "an out-only header sent by the caller (not bound: ignored)",
      op: "Login",
      body: `<Login xmlns="${NS}"/>`,
      header: `${auth("u")}<SessionHeader xmlns="${NS}"><SessionId>s</SessionId><Expires>2030-01-01T00:00:00Z</Expires></SessionHeader>`,
      status: 200,
      holds: "<LoginResult>",
      runs: true,
    },
  ];
}

export async function headersSection(rows: Row[]): Promise<void> {
  let calls = 0;
  const imported = await importConstruct("SoapHeaders", edit);
  let server: Server | undefined;
  try {
    server = imported.createServer({
      Login: () => {
        calls++;
        return false;
      },
      WhoAmI: () => null,
      Echo: ({ text }: { text?: string }) => {
        calls++;
        return text ?? null;
      },
      Status: () => "s",
    });
    const base = await listen(server);
    for (const c of cases()) {
      const problems: string[] = [];
      let sent = 0;
      let slowest = 0;
      for (const version of ["soap11", "soap12"] as const) {
        const prefix = "soap";
        const env = version === "soap11" ? SOAP11 : SOAP12;
        const op = c.op ?? "Echo";
        const head =
          c.header === "" ? "" : `<soap:Header>${c.header.replaceAll("{p}", prefix)}</soap:Header>`;
        const before = calls;
        const started = performance.now();
        const res = await fetch(`${base}SoapHeaders.asmx`, {
          method: "POST",
          headers:
            version === "soap11"
              ? { "content-type": "text/xml; charset=utf-8", soapaction: `"${NS}${op}"` }
              : { "content-type": `application/soap+xml; charset=utf-8; action="${NS}${op}"` },
          body: `<?xml version="1.0" encoding="utf-8"?><soap:Envelope xmlns:soap="${env}">${head}<soap:Body>${c.body ?? echo}</soap:Body></soap:Envelope>`,
          signal: AbortSignal.timeout(60_000),
        });
        const text = await res.text();
        slowest = Math.max(slowest, performance.now() - started);
        sent++;
        if (res.status !== c.status)
          problems.push(`${version}: status ${res.status}, want ${c.status}: ${text.slice(0, 160)}`);
        else if (c.holds !== "" && !text.includes(c.holds))
          problems.push(`${version}: the answer lacks ${c.holds}: ${text.slice(0, 160)}`);
        if (!c.runs && calls !== before) problems.push(`${version}: the handler ran`);
        if (text.includes("   at ")) problems.push(`${version}: a stack trace on the wire`);
      }
      rows.push({
        attack: `headers: ${c.name}`,
        requests: sent,
        outcome:
          problems.length === 0
            ? `${c.status}${c.holds === "" ? "" : ` ${c.holds}`}`
            : `${problems.length} unexpected`,
        measured: `slowest ${ms(slowest)}`,
        target: `${c.status}${c.runs ? "" : ", the handler not run"}`,
        pass: problems.length === 0,
        details: problems,
      });
    }
  } finally {
    await close(server);
    imported.cleanUp();
  }
}
