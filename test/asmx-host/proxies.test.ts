// Evidence: what .NET-style client proxies (Mono's `wsdl` tool; the client side of System.Web.Services is
// .NET's reference source in Mono) send to the construct fixtures (constructs/): non-ASCII text on HTTP
// GET/POST, INF/NaN, nullables, SOAP headers, derived types, [Flags] enums, overloads. A loopback recorder
// between the proxies and the host saves each request (Host left out) in recorded/proxies/requests.txt;
// the test runs the proxies again and compares byte for byte. docs/asmx-evidence/ cites it.
// ASMX_RECORD=1 npx vitest run test/asmx-host/proxies.test.ts rewrites the file.

import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { hasMono } from "../fixtures/system-component.js";
import { prepareConstructs } from "./constructs.js";
import { generateProxy, runCSharpClient, startAsmxHost, type AsmxHost, type ProxyProtocol } from "./host.js";

const RECORDED = fileURLToPath(new URL("./recorded/proxies/", import.meta.url));
const RECORD = process.env.ASMX_RECORD === "1";
const MAX_BODY = 1024 * 1024;

/** Forwards every request to the host and keeps what the client sent. */
function recorder(target: string): Promise<{ server: http.Server; url: string; requests: string[] }> {
  const requests: string[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on("data", (c: Buffer) => {
      size += c.length;
      if (size <= MAX_BODY) chunks.push(c);
    });
    req.on("end", () => {
      const body = Buffer.concat(chunks);
      const headers: string[] = [];
      for (let i = 0; i < req.rawHeaders.length; i += 2) {
        if (req.rawHeaders[i]!.toLowerCase() !== "host")
          headers.push(`${req.rawHeaders[i]}: ${req.rawHeaders[i + 1]}`);
      }
      requests.push(
        [`${req.method} ${req.url} HTTP/${req.httpVersion}`, ...headers, "", body.toString("utf8"), ""].join(
          "\n",
        ),
      );
      const forward = http.request(
        new URL(req.url ?? "/", target),
        { method: req.method, headers: { ...req.headers, host: new URL(target).host } },
        (answer) => {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
        },
      );
      forward.on("error", () => {
        res.writeHead(502);
        res.end();
      });
      forward.end(body);
    });
  });
  return new Promise((resolve) =>
    server.listen(0, "127.0.0.1", () =>
      resolve({ server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`, requests }),
    ),
  );
}

const CLIENT = `
using System;
using System.Globalization;
public static class Client {
  static void Say(string what, object value) { Console.WriteLine(what + " = " + (value == null ? "null" : Convert.ToString(value, CultureInfo.InvariantCulture))); }
  public static int Main(string[] args) {
    string b = args[0];
    var get = new P_HttpDetails_HttpGet.HttpDetails { Url = b + "HttpDetails.asmx" };
    Say("HttpGet Echo", get.Echo("h\\u00e9llo \\u20ac"));
    var post = new P_HttpDetails_HttpPost.HttpDetails { Url = b + "HttpDetails.asmx" };
    Say("HttpPost Echo", post.Echo("h\\u00e9llo \\u20ac"));
    var soap = new P_HttpDetails_SOAP.HttpDetails { Url = b + "HttpDetails.asmx" };
    Say("SOAP Twice(+inf)", soap.Twice(double.PositiveInfinity));
    Say("SOAP Twice(NaN)", soap.Twice(double.NaN));
    var soap12 = new P_HttpDetails_SOAP12.HttpDetails { Url = b + "HttpDetails.asmx" };
    Say("SOAP12 Echo", soap12.Echo("h\\u00e9llo"));
    var nul = new P_Nullables_SOAP.Nullables { Url = b + "Nullables.asmx" };
    Say("SOAP Next(null)", nul.Next(null));
    var r = nul.EchoReading(new P_Nullables_SOAP.Reading { Color = P_Nullables_SOAP.Color.Blue, Note = "n" });
    Say("SOAP EchoReading Value", r.Value);
    Say("SOAP EchoReading Color", r.Color);
    var hdr = new P_SoapHeaders_SOAP.SoapHeaders { Url = b + "SoapHeaders.asmx" };
    hdr.AuthHeaderValue = new P_SoapHeaders_SOAP.AuthHeader { Username = "alice", Password = "wonderland" };
    Say("SOAP Login", hdr.Login());
    Say("SOAP Login SessionHeader", hdr.SessionHeaderValue == null ? null : hdr.SessionHeaderValue.SessionId);
    var der = new P_DerivedTypes_SOAP.DerivedTypes { Url = b + "DerivedTypes.asmx" };
    Say("SOAP Area(Triangle)", der.Area(new P_DerivedTypes_SOAP.Triangle { Name = "t", Base = 3, Height = 4 }));
    Say("SOAP GetShape(circle)", der.GetShape("circle").GetType().Name);
    var en = new P_Enums_SOAP.Enums { Url = b + "Enums.asmx" };
    Say("SOAP Grant(Read|Delete)", en.Grant(P_Enums_SOAP.Permissions.Read | P_Enums_SOAP.Permissions.Delete));
    var ov = new P_Overloads_SOAP.Overloads { Url = b + "Overloads.asmx" };
    Say("SOAP Add(1.5, 2.25)", ov.Add(1.5, 2.25));
    return 0;
  }
}`;

const monoInstalled = hasMono();
let host: AsmxHost;
let rec: Awaited<ReturnType<typeof recorder>>;

beforeAll(async () => {
  if (!monoInstalled) return;
  host = await startAsmxHost({ services: await prepareConstructs(), env: { TZ: "UTC" } });
  rec = await recorder(host.url);
}, 300_000);
afterAll(async () => {
  if (rec !== undefined) await new Promise((resolve) => rec.server.close(resolve));
  await host?.stop();
}, 30_000);

describe.runIf(monoInstalled)("what .NET-style proxies send (recorded evidence)", () => {
  it("records the proxies' requests", async () => {
    const wanted: [string, ProxyProtocol][] = [
      ["HttpDetails", "HttpGet"],
      ["HttpDetails", "HttpPost"],
      ["HttpDetails", "SOAP"],
      ["HttpDetails", "SOAP12"],
      ["Nullables", "SOAP"],
      ["SoapHeaders", "SOAP"],
      ["DerivedTypes", "SOAP"],
      ["Enums", "SOAP"],
      ["Overloads", "SOAP"],
    ];
    const sources: Record<string, string> = { "Client.cs": CLIENT };
    for (const [service, protocol] of wanted) {
      sources[`${service}_${protocol}.cs`] = await generateProxy(
        `${host.url}${service}.asmx?WSDL`,
        protocol,
        `P_${service}_${protocol}`,
      );
    }
    const result = await runCSharpClient({ sources, args: [rec.url], timeoutMs: 120_000 });
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    expect(result.stdout.split("\n")).toEqual([
      "HttpGet Echo = h%u00E9llo %u20AC |17| 0068 0025 0075 0030 0030 0045 0039 006C 006C 006F 0020 0025 0075 0032 0030 0041 0043",
      "HttpPost Echo = h\uFFFDllo € |7| 0068 FFFD 006C 006C 006F 0020 20AC",
      "SOAP Twice(+inf) = Infinity",
      "SOAP Twice(NaN) = NaN",
      "SOAP12 Echo = héllo |5| 0068 00E9 006C 006C 006F",
      "SOAP Next(null) = null",
      "SOAP EchoReading Value = null",
      "SOAP EchoReading Color = Blue",
      "SOAP Login = True",
      "SOAP Login SessionHeader = s-alice",
      "SOAP Area(Triangle) = Triangle t 6",
      "SOAP GetShape(circle) = Circle",
      "SOAP Grant(Read|Delete) = All",
      "SOAP Add(1.5, 2.25) = 3.75",
      "",
    ]);
    const text = [
      "# Requests sent by client proxies that Mono's wsdl tool generated from the construct fixtures' WSDLs",
      "# (test/asmx-host/proxies.test.ts), in call order; the Host header is left out.",
      "",
      ...rec.requests,
    ].join("\n");
    const file = join(RECORDED, "requests.txt");
    if (RECORD) {
      mkdirSync(RECORDED, { recursive: true });
      writeFileSync(file, text);
    }
    expect(existsSync(file), `${file} is missing: record it with ASMX_RECORD=1`).toBe(true);
    expect(text, `the proxies no longer send what ${file} holds`).toBe(readFileSync(file, "utf8"));
    // The HTTP GET proxy escapes non-ASCII as %uXXXX; the SOAP proxies write xs:double's INF and xsi:nil.
    expect(text).toContain("GET /HttpDetails.asmx/Echo?text=h%u00E9llo+%u20AC HTTP/1.1");
    expect(text).toContain("<x>INF</x>");
    expect(text).toContain('<n xsi:nil="true" />');
    expect(text).toContain('<shape xsi:type="Triangle">');
  }, 300_000);
});
