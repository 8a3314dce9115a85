// `npm run fuzz -- --only docmethods`: hostile input to operations whose SOAP messages are not ASMX's default
// shape (DocumentMethods.asmx's WSDL imported, its RPC method left out): bare operations, whose Body holds
// the parameters themselves and is routed by the SOAP action (or, without one, by its first element), a
// renamed request element and one in another namespace. Many, huge, deep, unknown, misplaced and repeated
// parameter elements, an empty Body, a Body routed to the wrong operation, on SOAP 1.1 and 1.2: every
// request gets the expected status, the handler never runs on a refusal, and the server stays up.

import type { Server } from "node:http";
import { close, importConstruct, listen } from "../headers/imported.js";
import { ms, type Row } from "./report.js";

const NS = "http://tempuri.org/constructs/document/";
const SOAP11 = "http://schemas.xmlsoap.org/soap/envelope/";
const SOAP12 = "http://www.w3.org/2003/05/soap-envelope";

/** The WSDL without its RPC/encoded method (no spec shape), its messages and binding operations. */
const withoutMultiply = (wsdl: string) =>
  wsdl
    .replace(/<wsdl:message name="Multiply[A-Za-z0-9]*">[\s\S]*?<\/wsdl:message>\s*/g, "")
    .replace(/<wsdl:operation name="Multiply">[\s\S]*?<\/wsdl:operation>\s*/g, "");

const p = (name: string, inner: string, attrs = "") => `<${name} xmlns="${NS}"${attrs}>${inner}</${name}>`;

interface Case {
  readonly name: string;
  /** The operation the action names; absent on SOAP 1.2: no action (routed by the Body's element). */
  readonly action: string | undefined;
  readonly body: string;
  readonly status: number;
  /** What the answer holds (literally). */
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
      name: "bare: an 8 MiB parameter",
      action: "Echo",
      body: p("text", huge),
      status: 200,
      holds: `<EchoResult>${"x".repeat(64)}`,
      runs: true,
    },
    {
      name: "bare: the parameter element 100,000 times (past the element limit)",
      action: "Echo",
      body: p("text", "t").repeat(100_000),
      status: 400,
      holds: "",
      runs: false,
    },
    {
      name: "bare: the parameter element 9,000 times (the first is read)",
      action: "Echo",
      body: p("text", "first") + p("text", "t").repeat(8_999),
      status: 200,
      holds: "<EchoResult>first</EchoResult>",
      runs: true,
    },
    {
      name: "bare: 9,000 unknown elements before the parameter",
      action: "Echo",
      body: `<u xmlns="urn:u"/>`.repeat(9_000) + p("text", "t"),
      status: 200,
      holds: "<EchoResult>t</EchoResult>",
      runs: true,
    },
    {
      name: "bare: an XmlNode parameter nested 5,000 deep",
      action: "Wrap",
      body: p("dadosMsg", deep),
      status: 400,
      holds: "",
      runs: false,
    },
    {
      name: "bare: an XmlNode parameter of 9,000 elements",
      action: "Wrap",
      body: p("dadosMsg", `<n xmlns="urn:n">${"<c/>".repeat(9_000)}</n>`),
      status: 200,
      holds: 'had="n"',
      runs: true,
    },
    {
      name: "bare: a scalar parameter holding elements",
      action: "Echo",
      body: p("text", "<b/>"),
      status: 400,
      holds: "",
      runs: false,
    },
    {
      name: "bare: a ref parameter holding elements",
      action: "Count",
      body: p("text", "abc") + p("warnings", "<x/>"),
      status: 400,
      holds: "",
      runs: false,
    },
    {
      name: "bare: an empty Body (every parameter absent)",
      action: "Count",
      body: "",
      status: 200,
      holds: "<Int32>-1</Int32><warnings>counted;</warnings>",
      runs: true,
    },
    {
      name: "bare: the Body holding another operation's request element",
      action: "Echo",
      body: p("LookupRequest", "<key>k</key>"),
      status: 200,
      holds: "<soap:Body /></soap:Envelope>",
      runs: true,
    },
    {
      name: "no action: a Body element no operation takes first",
      action: undefined,
      body: p("nothing", "t"),
      status: 500,
      holds: "<Code>UnknownOperation</Code>",
      runs: false,
    },
    {
      name: "no action: a bare parameter element routes to its operation",
      action: undefined,
      body: p("symbol", "MSFT"),
      status: 200,
      holds: "<Symbol>MSFT</Symbol>",
      runs: true,
    },
    {
      name: "a renamed request element under the operation's own name",
      action: "Lookup",
      body: p("Lookup", "<key>k</key>"),
      status: 500,
      holds: "<Code>UnknownOperation</Code>",
      runs: false,
    },
    {
      name: "another namespace's request element in the service namespace",
      action: "Square",
      body: p("Square", "<n>7</n>"),
      status: 500,
      holds: "<Code>UnknownOperation</Code>",
      runs: false,
    },
    {
      name: "the renamed request element under another operation's action",
      action: "Square",
      body: p("LookupRequest", "<key>k</key>"),
      status: 500,
      holds: "<Code>SoapActionMismatch</Code>",
      runs: false,
    },
  ];
}

/** The action a case's operation has: Lookup's own, the others' derived. */
const actionOf = (op: string) => (op === "Lookup" ? "urn:example:actions/lookup" : `${NS}${op}`);

export async function documentMethodsSection(rows: Row[]): Promise<void> {
  let calls = 0;
  const imported = await importConstruct("DocumentMethods", undefined, withoutMultiply);
  let server: Server | undefined;
  try {
    const count =
      <T>(f: (params: Record<string, unknown>) => T) =>
      (params: Record<string, unknown>) => {
        calls++;
        return f(params);
      };
    server = imported.createServer({
      GetQuote: count(({ symbol }) => ({ Symbol: symbol, Price: "1" })),
      Echo: count(({ text }) => text ?? null),
      Forget: count(() => undefined),
      Wrap: count(({ dadosMsg }) => ({
        ns: "urn:example:wrap",
        local: "echo",
        prefix: "",
        attrs: [
          { ns: "", local: "had", value: (dadosMsg as { local?: string } | undefined)?.local ?? "null" },
        ],
        children: [],
        text: "",
      })),
      Count: count(({ text, warnings }) => ({
        Int32: text === undefined ? -1 : (text as string).length,
        warnings: `${(warnings as string | undefined) ?? ""}counted;`,
      })),
      Lookup: count(({ key }) => `value-of-${key as string}`),
      Notify: count(() => undefined),
      Notified: count(() => 0),
      Square: count(({ n }) => (n as number) * (n as number)),
    });
    const base = await listen(server);
    for (const c of cases()) {
      const problems: string[] = [];
      let sent = 0;
      let slowest = 0;
      for (const version of ["soap11", "soap12"] as const) {
        // SOAP 1.1 always names an action (ASMX routes by it); without one only SOAP 1.2 is tried.
        if (c.action === undefined && version === "soap11") continue;
        const env = version === "soap11" ? SOAP11 : SOAP12;
        const action = c.action === undefined ? "" : actionOf(c.action);
        const before = calls;
        const started = performance.now();
        const res = await fetch(`${base}DocumentMethods.asmx`, {
          method: "POST",
          headers:
            version === "soap11"
              ? { "content-type": "text/xml; charset=utf-8", soapaction: `"${action}"` }
              : {
                  "content-type": `application/soap+xml; charset=utf-8${c.action === undefined ? "" : `; action="${action}"`}`,
                },
          body: `<?xml version="1.0" encoding="utf-8"?><soap:Envelope xmlns:soap="${env}"><soap:Body>${c.body}</soap:Body></soap:Envelope>`,
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
        attack: `docmethods: ${c.name}`,
        requests: sent,
        outcome:
          problems.length === 0
            ? `${c.status}${c.holds === "" ? "" : ` ${c.holds.slice(0, 60)}`}`
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
