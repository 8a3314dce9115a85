// SOAP headers both ways against a real ASMX runtime (test/asmx-host, Mono): SoapHeaders.asmx's recorded
// WSDL (AuthHeader in, SessionHeader out, TraceHeader inOut, two headers on one method) is imported and
// generated; our client calls the host on SOAP 1.1 and 1.2 (and HTTP GET/POST, which carry none), the
// host's wsdl-built proxies call our generated server, our server answers the recorded exchanges as the
// host did, and the WSDL it publishes has the host's headers. Evidence: docs/asmx-evidence/soap-headers.md.

import { readFileSync } from "node:fs";
import type { Server } from "node:http";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { importToYaml } from "../../generator/import/index.js";
import { EXCHANGES, NAMESPACES } from "../asmx-host/constructs-cases.js";
import { prepareConstructs } from "../asmx-host/constructs.js";
import { generateProxy, runCSharpClient, startAsmxHost, type AsmxHost } from "../asmx-host/host.js";
import { hasMono } from "../fixtures/system-component.js";
import { close, importConstruct, listen, RECORDED, type Imported } from "./imported.js";

const NS = NAMESPACES.SoapHeaders;
const EXPIRES = "2030-01-02T03:04:05Z";

interface Auth {
  Username?: string;
  Password?: string;
}
interface Trace {
  CorrelationId?: string;
  Hops: number;
}
interface Context {
  soapHeaders: { AuthHeader?: Auth; SessionHeader?: { SessionId?: string }; TraceHeader?: Trace };
  replyHeaders: Record<string, unknown>;
}

/** The fixture's methods (constructs/App_Code/SoapHeaders.cs) as handlers of our generated server. */
const handlers = {
  Login: (_: unknown, { soapHeaders, replyHeaders }: Context) => {
    const auth = soapHeaders.AuthHeader;
    if (auth?.Username !== "alice" || auth.Password !== "wonderland") return false;
    replyHeaders.SessionHeader = { SessionId: `s-${auth.Username}`, Expires: EXPIRES };
    return true;
  },
  WhoAmI: (_: unknown, { soapHeaders }: Context) => soapHeaders.AuthHeader?.Username ?? null,
  Echo: ({ text }: { text?: string }, { replyHeaders }: Context) => {
    const trace = replyHeaders.TraceHeader as Trace | undefined;
    if (trace !== undefined) trace.Hops++;
    return text ?? null;
  },
  Status: (_: unknown, { soapHeaders }: Context) =>
    `session=${soapHeaders.SessionHeader?.SessionId ?? "none"} auth=${soapHeaders.AuthHeader?.Username ?? "none"}`,
};

const monoInstalled = hasMono();
let host: AsmxHost;
let imported: Imported;
let server: Server;
let ours: string;

beforeAll(async () => {
  imported = await importConstruct("SoapHeaders");
  server = imported.createServer(handlers);
  ours = await listen(server);
  if (monoInstalled) host = await startAsmxHost({ services: await prepareConstructs(), env: { TZ: "UTC" } });
}, 300_000);
afterAll(async () => {
  await close(server);
  await host?.stop();
  imported?.cleanUp();
}, 30_000);

describe("SoapHeaders: import", () => {
  it("imports soap:header lines as the operations' headers, their types as records", () => {
    const ops = Object.fromEntries(imported.spec.groups[0]!.operations.map((op) => [op.name, op.headers]));
    expect(ops).toEqual({
      Login: [{ record: "AuthHeader" }, { record: "SessionHeader", direction: "out" }],
      WhoAmI: [{ record: "AuthHeader" }],
      Echo: [{ record: "TraceHeader", direction: "inOut" }],
      Status: [{ record: "AuthHeader" }, { record: "SessionHeader" }],
    });
    expect(imported.spec.records?.AuthHeader?.fields.map((f) => f.name)).toEqual(["Username", "Password"]);
    expect(imported.warnings).toEqual([]);
  });

  it("publishes the host's headers in its WSDL, and re-importing it gives the same spec", async () => {
    const theirs = readFileSync(path.join(RECORDED, "SoapHeaders", "service.wsdl"), "utf8");
    const wsdl = await (await fetch(`${ours}SoapHeaders.asmx?WSDL`)).text();
    const lines = (text: string, pattern: RegExp) => text.split("\n").filter((l) => pattern.test(l));
    // The same soap:header and soap12:header lines, in the same order; the same header messages.
    expect(lines(wsdl, /:header /)).toEqual(lines(theirs, /:header /));
    expect(lines(wsdl, /message name="\w+(Auth|Session|Trace)Header"|part name="\w+Header"/)).toEqual(
      lines(theirs, /message name="\w+(Auth|Session|Trace)Header"|part name="\w+Header"/),
    );
    // Each header's global element and its type ending with SoapHeader's anyAttribute.
    const typeOf = (text: string, name: string) =>
      text.slice(
        text.indexOf(`<s:element name="${name}" type=`),
        text.indexOf("</s:complexType>", text.indexOf(`<s:complexType name="${name}">`)),
      );
    for (const name of ["AuthHeader", "SessionHeader", "TraceHeader"]) {
      expect(typeOf(wsdl, name), name).toContain("<s:anyAttribute />");
      expect(typeOf(wsdl, name), name).toBe(typeOf(theirs, name));
    }
    const again = await importToYaml(`${ours}SoapHeaders.asmx?WSDL`);
    expect(again.spec.groups[0]!.operations.map((op) => op.headers)).toEqual(
      imported.spec.groups[0]!.operations.map((op) => op.headers),
    );
    expect(again.spec.records).toEqual(imported.spec.records);
  });
});

describe.runIf(monoInstalled)("SoapHeaders: our generated client against the ASMX host", () => {
  it.each(["soap11", "soap12"] as const)(
    "%s: in, out and inOut headers, per call and per client",
    async (binding) => {
      const client = imported.createClient({ baseUrl: host.url, binding });
      const received: Record<string, unknown>[] = [];
      const onSoapHeaders = (h: Record<string, unknown>) => received.push(h);
      const auth = { Username: "alice", Password: "wonderland" };
      expect(await client.Login!({}, { soapHeaders: { AuthHeader: auth }, onSoapHeaders })).toBe(true);
      expect(received.pop()).toEqual({ SessionHeader: { SessionId: "s-alice", Expires: EXPIRES } });
      expect(
        await client.Login!({}, { soapHeaders: { AuthHeader: { ...auth, Password: "x" } }, onSoapHeaders }),
      ).toBe(false);
      expect(received.pop()).toEqual({});
      expect(
        await client.Echo!(
          { text: "hi" },
          { soapHeaders: { TraceHeader: { CorrelationId: "c1", Hops: 2 } }, onSoapHeaders },
        ),
      ).toBe("hi");
      expect(received.pop()).toEqual({ TraceHeader: { CorrelationId: "c1", Hops: 3 } });
      expect(await client.WhoAmI!()).toBeNull();
      // Headers given once in the client's config go with every call that takes them.
      const configured = imported.createClient({
        baseUrl: host.url,
        binding,
        soapHeaders: {
          AuthHeader: { Username: "bob" },
          SessionHeader: { SessionId: "s-1", Expires: EXPIRES },
        },
      });
      expect(await configured.WhoAmI!()).toBe("bob");
      expect(await configured.Status!()).toBe("session=s-1 auth=bob");
      // A call's own headers replace the client's.
      expect(await configured.WhoAmI!({}, { soapHeaders: { AuthHeader: { Username: "carol" } } })).toBe(
        "carol",
      );
    },
  );

  it.each(["httpGet", "httpPost"] as const)("%s carries no headers, as ASMX", async (binding) => {
    const client = imported.createClient({
      baseUrl: host.url,
      binding,
      soapHeaders: { AuthHeader: { Username: "alice", Password: "wonderland" } },
    });
    expect(await client.Login!()).toBe(false);
    expect(await client.Echo!({ text: "x" })).toBe("x");
  });
});

describe("SoapHeaders: our generated server", () => {
  it("answers every recorded SoapHeaders exchange as the host did", async () => {
    const cases = EXCHANGES.filter((x) => x.service === "SoapHeaders");
    expect(cases.length).toBeGreaterThanOrEqual(12);
    for (const x of cases) {
      const recorded = readFileSync(path.join(RECORDED, "SoapHeaders", `${x.name}.txt`), "utf8");
      const status = Number(/<<< response\nHTTP\/1\.1 (\d+)/.exec(recorded)![1]);
      const res = await send(x.binding, x.op, x.body, x.header);
      const body = await res.text();
      expect(res.status, `${x.name}: ${x.note}`).toBe(status);
      for (const s of x.contains ?? []) expect(body, `${x.name}: ${x.note}`).toContain(s);
      for (const s of x.lacks ?? []) expect(body, `${x.name}: ${x.note}`).not.toContain(s);
      // The headers answered are the host's, byte for byte.
      const header = (text: string) => /<soap:Header>.*<\/soap:Header>/s.exec(text)?.[0];
      expect(header(body), x.name).toBe(header(recorded.slice(recorded.indexOf("<<< response"))));
    }
  });

  it("binds a declared header marked mustUnderstand; refuses an unknown one and a second of the same name", async () => {
    const auth = (mu: string) =>
      `<AuthHeader xmlns="${NS}" soap:mustUnderstand="${mu}"><Username>bob</Username></AuthHeader>`;
    const who = `<WhoAmI xmlns="${NS}" />`;
    let res = await send("soap11", "WhoAmI", who, auth("1"));
    expect(res.status).toBe(200);
    expect(await res.text()).toContain("<WhoAmIResult>bob</WhoAmIResult>");
    res = await send(
      "soap12",
      "WhoAmI",
      who,
      `${auth("true")}<x:Other xmlns:x="urn:x" soap:mustUnderstand="1" />`,
    );
    expect(res.status).toBe(500);
    expect(await res.text()).toContain("<soap:Value>soap:MustUnderstand</soap:Value>");
    res = await send("soap11", "WhoAmI", who, auth("1") + auth("1"));
    expect(res.status).toBe(500);
    expect(await res.text()).toContain("<faultcode>soap:MustUnderstand</faultcode>");
    // A header another operation declares is unknown to this one.
    res = await send("soap11", "Echo", `<Echo xmlns="${NS}" />`, auth("1"));
    expect(res.status).toBe(500);
  });

  it("refuses a header whose fields do not read, naming it", async () => {
    const res = await send(
      "soap11",
      "Echo",
      `<Echo xmlns="${NS}"><text>t</text></Echo>`,
      `<TraceHeader xmlns="${NS}"><Hops>many</Hops></TraceHeader>`,
    );
    expect(res.status).toBe(500);
    expect(await res.text()).toMatch(/SOAP header TraceHeader.*Hops/);
  });
});

describe.runIf(monoInstalled)(
  "SoapHeaders: the host's .NET-style proxies against our generated server",
  () => {
    it("SOAP and SOAP 1.2 proxies send AuthHeader and TraceHeader and read SessionHeader and TraceHeader", async () => {
      const program = `using System;
public static class Program {
  static void Say(string what, object value) { Console.WriteLine(what + " = " + (value == null ? "null" : value.ToString())); }
  public static int Main(string[] args) {
    string b = args[0] + "SoapHeaders.asmx";
    var s = new S.SoapHeaders { Url = b };
    s.AuthHeaderValue = new S.AuthHeader { Username = "alice", Password = "wonderland" };
    Say("SOAP Login", s.Login());
    Say("SOAP SessionHeader", s.SessionHeaderValue == null ? null : s.SessionHeaderValue.SessionId + " " + s.SessionHeaderValue.Expires.ToUniversalTime().ToString("o"));
    Say("SOAP WhoAmI", s.WhoAmI());
    s.TraceHeaderValue = new S.TraceHeader { CorrelationId = "c", Hops = 2 };
    Say("SOAP Echo", s.Echo("hi"));
    Say("SOAP TraceHeader", s.TraceHeaderValue.CorrelationId + " " + s.TraceHeaderValue.Hops);
    Say("SOAP Status", s.Status());
    var t = new T.SoapHeaders { Url = b };
    Say("SOAP12 Login", t.Login());
    t.AuthHeaderValue = new T.AuthHeader { Username = "alice", Password = "wonderland" };
    Say("SOAP12 Login", t.Login());
    Say("SOAP12 SessionHeader", t.SessionHeaderValue == null ? null : t.SessionHeaderValue.SessionId);
    t.TraceHeaderValue = new T.TraceHeader { CorrelationId = "d", Hops = 7 };
    Say("SOAP12 Echo", t.Echo("yo"));
    Say("SOAP12 TraceHeader", t.TraceHeaderValue.Hops);
    return 0;
  }
}`;
      const wsdl = `${host.url}SoapHeaders.asmx?WSDL`;
      const result = await runCSharpClient({
        sources: {
          "Client.cs": program,
          "S.cs": await generateProxy(wsdl, "SOAP", "S"),
          "T.cs": await generateProxy(wsdl, "SOAP12", "T"),
        },
        args: [ours],
        timeoutMs: 120_000,
      });
      expect(result.stderr).toBe("");
      expect(result.stdout.trim().split("\n")).toEqual([
        "SOAP Login = True",
        "SOAP SessionHeader = s-alice 2030-01-02T03:04:05.0000000Z",
        "SOAP WhoAmI = alice",
        "SOAP Echo = hi",
        "SOAP TraceHeader = c 3",
        "SOAP Status = session=s-alice auth=alice",
        "SOAP12 Login = False",
        "SOAP12 Login = True",
        "SOAP12 SessionHeader = s-alice",
        "SOAP12 Echo = yo",
        "SOAP12 TraceHeader = 8",
      ]);
      expect(result.code).toBe(0);
    }, 300_000);
  },
);

const SOAP11 = "http://schemas.xmlsoap.org/soap/envelope/";
const SOAP12 = "http://www.w3.org/2003/05/soap-envelope";

/** A request to our server as the recorded exchanges send it to the host. */
function send(binding: string, op: string, body: string, header?: string): Promise<Response> {
  const endpoint = `${ours}SoapHeaders.asmx`;
  if (binding === "get") return fetch(`${endpoint}/${op}${body === "" ? "" : `?${body}`}`);
  if (binding === "post")
    return fetch(`${endpoint}/${op}`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body,
    });
  const action = `${NS}${op}`;
  const head = header === undefined ? "" : `<soap:Header>${header}</soap:Header>`;
  const envelope = `<?xml version="1.0" encoding="utf-8"?><soap:Envelope xmlns:soap="${binding === "soap11" ? SOAP11 : SOAP12}">${head}<soap:Body>${body}</soap:Body></soap:Envelope>`;
  return fetch(endpoint, {
    method: "POST",
    headers:
      binding === "soap11"
        ? { "content-type": "text/xml; charset=utf-8", soapaction: `"${action}"` }
        : { "content-type": `application/soap+xml; charset=utf-8; action="${action}"` },
    body: envelope,
  });
}
