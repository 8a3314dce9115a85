// The ASMX host (Mono's ASP.NET on 127.0.0.1) serves the fixture services over all four bindings and ?WSDL,
// and proxies that Mono's `wsdl` tool generates from the hosted WSDL call it. Needs Debian's mono-devel.

import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import http from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { hasMono } from "../fixtures/system-component.js";
import { FIXTURE_SERVICES, generateProxy, runCSharpClient, startAsmxHost, type AsmxHost } from "./host.js";

const monoInstalled = hasMono();
const NS = "http://tempuri.org/calculator/";

let host: AsmxHost;
let calculator: string;

beforeAll(async () => {
  if (!monoInstalled) return;
  host = await startAsmxHost({ services: FIXTURE_SERVICES });
  calculator = `${host.url}Calculator.asmx`;
}, 180_000);
afterAll(() => host?.stop(), 30_000);

const soap11 = (body: string) =>
  `<?xml version="1.0" encoding="utf-8"?><soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/"><soap:Body>${body}</soap:Body></soap:Envelope>`;
const soap12 = (body: string) =>
  `<?xml version="1.0" encoding="utf-8"?><soap12:Envelope xmlns:soap12="http://www.w3.org/2003/05/soap-envelope"><soap12:Body>${body}</soap12:Body></soap12:Envelope>`;

/** POSTs `parts` as separate chunks (Transfer-Encoding: chunked, no Content-Length). */
function postChunked(
  url: string,
  headers: Record<string, string>,
  parts: string[],
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      url,
      { method: "POST", headers: { ...headers, "Transfer-Encoding": "chunked" } },
      (res) => {
        let body = "";
        res.setEncoding("utf8").on("data", (s: string) => (body += s));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
      },
    );
    req.on("error", reject);
    for (const part of parts) req.write(part);
    req.end();
  });
}

describe.runIf(monoInstalled)("ASMX host: the four bindings", () => {
  it("SOAP 1.1 answers Add", async () => {
    const res = await fetch(calculator, {
      method: "POST",
      headers: { "Content-Type": "text/xml; charset=utf-8", SOAPAction: `"${NS}Add"` },
      body: soap11(`<Add xmlns="${NS}"><a>2</a><b>40</b></Add>`),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/xml; charset=utf-8");
    expect(await res.text()).toContain(`<AddResponse xmlns="${NS}"><AddResult>42</AddResult></AddResponse>`);
  });

  it("SOAP 1.2 answers Add", async () => {
    const res = await fetch(calculator, {
      method: "POST",
      headers: { "Content-Type": `application/soap+xml; charset=utf-8; action="${NS}Add"` },
      body: soap12(`<Add xmlns="${NS}"><a>-5</a><b>3</b></Add>`),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("application/soap+xml; charset=utf-8");
    const text = await res.text();
    expect(text).toContain('xmlns:soap="http://www.w3.org/2003/05/soap-envelope"');
    expect(text).toContain("<AddResult>-2</AddResult>");
  });

  it("HTTP GET answers Echo with the query's text, decoded", async () => {
    const res = await fetch(`${calculator}/Echo?text=${encodeURIComponent("a b&c=d é")}`);
    expect(res.status).toBe(200);
    // Mono ends the XML declaration with Environment.NewLine, "\n" on Linux (.NET on Windows: "\r\n").
    expect(await res.text()).toBe(
      `<?xml version="1.0" encoding="utf-8"?>\n<string xmlns="${NS}">a b&amp;c=d é</string>`,
    );
  });

  it("HTTP POST answers Add from a form", async () => {
    const res = await fetch(`${calculator}/Add`, {
      method: "POST",
      headers: { "Content-Type": "application/x-www-form-urlencoded" },
      body: "a=7&b=8",
    });
    expect(res.status).toBe(200);
    expect(await res.text()).toBe(`<?xml version="1.0" encoding="utf-8"?>\n<int xmlns="${NS}">15</int>`);
  });

  it("a chunked request body reaches ASP.NET whole (SOAP 1.1 and HTTP POST)", async () => {
    const envelope = soap11(`<Add xmlns="${NS}"><a>20</a><b>22</b></Add>`);
    const half = envelope.indexOf("<b>");
    const soap = await postChunked(
      calculator,
      { "Content-Type": "text/xml; charset=utf-8", SOAPAction: `"${NS}Add"` },
      [envelope.slice(0, half), envelope.slice(half)],
    );
    expect(soap.status, soap.body).toBe(200);
    expect(soap.body).toContain("<AddResult>42</AddResult>");
    const form = await postChunked(
      `${calculator}/Add`,
      { "Content-Type": "application/x-www-form-urlencoded" },
      ["a=1", "&b=2"],
    );
    expect(form.status).toBe(200);
    expect(form.body).toContain(">3</int>");
  });

  it("an unknown operation over HTTP GET is ASP.NET's own error, not the host's", async () => {
    const res = await fetch(`${calculator}/Nope?x=1`);
    expect(res.status).toBe(500);
    expect(await res.text()).not.toContain("asmx-host");
  });
});

describe.runIf(monoInstalled)("ASMX host: descriptions", () => {
  it("?WSDL describes all four bindings at the host's own address", async () => {
    const res = await fetch(`${calculator}?WSDL`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/xml; charset=utf-8");
    const wsdl = await res.text();
    for (const binding of ["CalculatorSoap", "CalculatorSoap12", "CalculatorHttpGet", "CalculatorHttpPost"]) {
      expect(wsdl).toContain(`<wsdl:binding name="${binding}"`);
    }
    expect(wsdl).toContain(`<soap:address location="${calculator}" />`);
    expect(wsdl).toContain(`<soap12:address location="${calculator}" />`);
  });

  it("serves the help page and an operation's page (Mono's own help pages, not .NET's)", async () => {
    const page = await fetch(calculator);
    expect(page.status).toBe(200);
    expect(page.headers.get("content-type")).toMatch(/^text\/html/);
    const html = await page.text();
    expect(html).toContain("Calculator Web Service");
    expect(html).toContain('href="Calculator.asmx?page=op&tab=main&op=Add&bnd=CalculatorSoap"');
    const op = await fetch(`${calculator}?page=op&tab=main&op=Add&bnd=CalculatorSoap`);
    expect(op.status).toBe(200);
    expect(await op.text()).toContain("Adds two integers.");
  });

  it("one host serves several .asmx files", async () => {
    const res = await fetch(`${host.url}Headers.asmx?WSDL`);
    expect(res.status).toBe(200);
    expect(await res.text()).toContain('targetNamespace="http://tempuri.org/headers/"');
  });
});

describe.runIf(monoInstalled)("ASMX host: wsdl-generated .NET proxies", () => {
  it("proxies for SOAP 1.1, SOAP 1.2, HTTP GET and HTTP POST call the host", async () => {
    const wsdlUrl = `${calculator}?WSDL`;
    const [soap, soap12Proxy, get, post] = await Promise.all([
      generateProxy(wsdlUrl, "SOAP"),
      generateProxy(wsdlUrl, "SOAP12"),
      generateProxy(wsdlUrl, "HttpGet"),
      generateProxy(wsdlUrl, "HttpPost"),
    ]);
    expect(soap).toContain("class Calculator : System.Web.Services.Protocols.SoapHttpClientProtocol");
    expect(soap12Proxy).toContain("SoapProtocolVersion.Soap12");
    expect(get).toContain("class Calculator : System.Web.Services.Protocols.HttpGetClientProtocol");
    expect(post).toContain("class Calculator : System.Web.Services.Protocols.HttpPostClientProtocol");
    // The HTTP bindings' WSDL types every parameter as s:string, so their proxies take strings.
    const client = `
      using System;
      public static class Client {
        public static int Main(string[] args) {
          Console.WriteLine("soap11 " + new ProxySOAP.Calculator().Add(1, 2));
          Console.WriteLine("soap12 " + new ProxySOAP12.Calculator().Add(30, 4));
          Console.WriteLine("get " + new ProxyHttpGet.Calculator().Add("500", "6"));
          Console.WriteLine("post " + new ProxyHttpPost.Calculator().Echo(args[0]));
          return 0;
        }
      }`;
    const result = await runCSharpClient({
      sources: {
        "Client.cs": client,
        "Soap.cs": soap,
        "Soap12.cs": soap12Proxy,
        "Get.cs": get,
        "Post.cs": post,
      },
      args: ["plain words"],
    });
    expect(result.stderr).toBe("");
    expect(result.stdout.split("\n")).toEqual(["soap11 3", "soap12 34", "get 506", "post plain words", ""]);
    expect(result.code).toBe(0);
  }, 120_000);
});

describe.runIf(monoInstalled)("ASMX host: startup errors", () => {
  it("a service that does not compile fails startAsmxHost with the compiler's message", async () => {
    const dir = mkdtempSync(join(tmpdir(), "asmx-broken-"));
    try {
      writeFileSync(
        join(dir, "Broken.asmx"),
        '<%@ WebService Language="C#" Class="Broken" %>\nusing System.Web.Services;\npublic class Broken : WebService { [WebMethod] public int F() { return undefinedName; } }\n',
      );
      await expect(startAsmxHost({ services: dir })).rejects.toThrow(
        /WARMUP-FAILED \/Broken\.asmx\?WSDL 500[\s\S]*undefinedName/,
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 180_000);

  it("a missing services folder is refused before anything starts", async () => {
    await expect(startAsmxHost({ services: join(tmpdir(), "no-such-asmx-folder") })).rejects.toThrow(
      /does not exist/,
    );
  });
});
