// HTTP GET/POST details as .NET has them, both ways against a real ASMX runtime (test/asmx-host, Mono):
// HttpDetails.asmx's recorded WSDL is imported and generated; our client calls the host on the four
// bindings, and the host's wsdl-built proxies call our generated server. What is checked: `%uXXXX` (what
// .NET's HttpGet/HttpPost proxies send for non-ASCII) is decoded, INF/-INF are refused on HTTP and sent
// as Infinity/-Infinity by our client, and a text value holding elements is refused. Evidence:
// docs/asmx-evidence/http-details.md.

import { readFileSync } from "node:fs";
import type { Server } from "node:http";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EXCHANGES, NAMESPACES } from "../asmx-host/constructs-cases.js";
import { prepareConstructs } from "../asmx-host/constructs.js";
import { generateProxy, runCSharpClient, startAsmxHost, type AsmxHost } from "../asmx-host/host.js";
import { hasMono } from "../fixtures/system-component.js";
import { close, importConstruct, listen, RECORDED, type Imported } from "./imported.js";

const BINDINGS = ["soap11", "soap12", "httpGet", "httpPost"] as const;

/** The UTF-16 code units of a text in hex, as the fixture's Echo writes them. */
const units = (text: string) =>
  [...Array(text.length).keys()]
    .map((i) => text.charCodeAt(i).toString(16).toUpperCase().padStart(4, "0"))
    .join(" ");

/** The fixture's methods (constructs/App_Code/HttpDetails.cs) as handlers of our generated server. */
const handlers = {
  Echo: ({ text }: { text?: string }) =>
    text === undefined ? "(null)" : `${text} |${text.length}| ${units(text)}`,
  Twice: ({ x }: { x: number }) => x * 2,
  Half: ({ x }: { x: number }) => Math.fround(x / 2),
  Increment: ({ x }: { x: string }) => String(Number(x) + 1),
  Special: ({ which }: { which?: string }) =>
    which === "inf" ? Infinity : which === "-inf" ? -Infinity : which === "nan" ? NaN : 0,
  Not: ({ value }: { value: boolean }) => !value,
};

const monoInstalled = hasMono();
let host: AsmxHost;
let imported: Imported;
let server: Server;
let ours: string;

beforeAll(async () => {
  imported = await importConstruct("HttpDetails");
  server = imported.createServer(handlers);
  ours = await listen(server);
  if (monoInstalled) host = await startAsmxHost({ services: await prepareConstructs(), env: { TZ: "UTC" } });
}, 300_000);
afterAll(async () => {
  await close(server);
  await host?.stop();
  imported?.cleanUp();
}, 30_000);

describe.runIf(monoInstalled)("HttpDetails: our generated client against the ASMX host", () => {
  it.each(BINDINGS)("%s: non-ASCII text, infinities, NaN and decimals", async (binding) => {
    const client = imported.createClient({ baseUrl: host.url, binding });
    expect(await client.Echo!({ text: "héllo €" })).toBe(`héllo € |7| ${units("héllo €")}`);
    // Our HTTP client sends .NET's Infinity (the host refuses INF there); SOAP sends INF.
    expect(await client.Twice!({ x: Infinity })).toBe(Infinity);
    expect(await client.Twice!({ x: -Infinity })).toBe(-Infinity);
    expect(await client.Twice!({ x: NaN })).toBeNaN();
    expect(await client.Half!({ x: -Infinity })).toBe(-Infinity);
    expect(await client.Special!({ which: "-inf" })).toBe(-Infinity);
    expect(await client.Increment!({ x: "1.5" })).toBe("2.5");
  });
});

describe("HttpDetails: our generated server", () => {
  it("decodes %uXXXX on HTTP GET and POST, UTF-16 code units as .NET's HttpUtility does", async () => {
    const get = await fetch(`${ours}HttpDetails.asmx/Echo?text=h%u00E9llo+%u20AC%uD83D%uDE00`);
    expect(get.status).toBe(200);
    expect(await get.text()).toContain(`>héllo €😀 |9| ${units("héllo €😀")}</string>`);
    const post = await fetch(`${ours}HttpDetails.asmx/Echo`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: "text=h%u00e9llo%20%C3%A9",
    });
    expect(await post.text()).toContain(">héllo é |7|");
    // Malformed %u stays text; %U is not .NET's escape; an unpaired surrogate is refused.
    expect(await (await fetch(`${ours}HttpDetails.asmx/Echo?text=a%u00zzb`)).text()).toContain(">a%u00zzb |");
    expect(await (await fetch(`${ours}HttpDetails.asmx/Echo?text=a%U00E9`)).text()).toContain(">a%U00E9 |");
    const lone = await fetch(`${ours}HttpDetails.asmx/Echo?text=a%uD83Db`);
    expect(lone.status).toBe(400);
    expect(await lone.text()).toMatch(/text holds %-escapes/);
  });

  it("refuses INF and -INF for a double or float on HTTP, takes Infinity and NaN", async () => {
    for (const [op, x] of [
      ["Twice", "INF"],
      ["Twice", "-INF"],
      ["Half", "INF"],
    ]) {
      const res = await fetch(`${ours}HttpDetails.asmx/${op}?x=${x}`);
      expect(res.status, `${op}(${x})`).toBe(500);
      expect(await res.text()).toMatch(/Cannot convert '-?INF' to System\.(Double|Single) for parameter x/);
    }
    expect(await (await fetch(`${ours}HttpDetails.asmx/Twice?x=Infinity`)).text()).toContain(">INF</double>");
    expect(await (await fetch(`${ours}HttpDetails.asmx/Twice?x=NaN`)).text()).toContain(">NaN</double>");
    expect((await fetch(`${ours}HttpDetails.asmx/Increment?x=NaN`)).status).toBe(500);
  });

  it("answers every recorded HttpDetails exchange with the host's status", async () => {
    // Where we differ from Mono on purpose: %u is decoded as .NET Framework does (Mono keeps it or makes
    // U+FFFD), and a comma is not a thousands separator (.NET reads 1,5 as 15; we refuse it).
    const differ: Record<string, number> = { "get-twice-comma": 500 };
    const cases = EXCHANGES.filter((x) => x.service === "HttpDetails");
    expect(cases.length).toBeGreaterThan(20);
    for (const x of cases) {
      const recorded = readFileSync(path.join(RECORDED, "HttpDetails", `${x.name}.txt`), "utf8");
      const status = Number(/<<< response\nHTTP\/1\.1 (\d+)/.exec(recorded)![1]);
      const res = await send(x.binding, x.op, x.body);
      expect(res.status, `${x.name}: ${x.note}`).toBe(differ[x.name] ?? status);
    }
  });

  it("refuses a text parameter holding elements on SOAP (400, as the host), and a text result so", async () => {
    const res = await send(
      "soap11",
      "Echo",
      `<Echo xmlns="${NAMESPACES.HttpDetails}"><text>a<b>c</b></text></Echo>`,
    );
    expect(res.status).toBe(400);
    expect(await res.text()).toMatch(/text holds XML elements where a text value is expected/);
    // Our client refuses such a result on every binding (it read "" over SOAP before).
    const answers: Record<string, string> = {
      soap11: `<?xml version="1.0"?><soap:Envelope xmlns:soap="${SOAP11}"><soap:Body><EchoResponse xmlns="${NAMESPACES.HttpDetails}"><EchoResult>a<b>c</b></EchoResult></EchoResponse></soap:Body></soap:Envelope>`,
      soap12: `<?xml version="1.0"?><soap:Envelope xmlns:soap="${SOAP12}"><soap:Body><EchoResponse xmlns="${NAMESPACES.HttpDetails}"><EchoResult><b>c</b></EchoResult></EchoResponse></soap:Body></soap:Envelope>`,
      httpGet: `<?xml version="1.0"?><string xmlns="${NAMESPACES.HttpDetails}">a<b>c</b></string>`,
      httpPost: `<?xml version="1.0"?><string xmlns="${NAMESPACES.HttpDetails}"><b /></string>`,
    };
    for (const binding of BINDINGS) {
      const client = imported.createClient({
        baseUrl: "http://127.0.0.1:9/",
        binding,
        fetch: async () =>
          new Response(answers[binding], {
            headers: { "content-type": binding === "soap12" ? "application/soap+xml" : "text/xml" },
          }),
      });
      await expect(client.Echo!({ text: "x" }), binding).rejects.toThrow(
        /holds XML elements where a text value is expected/,
      );
    }
  });
});

describe.runIf(monoInstalled)(
  "HttpDetails: the host's .NET-style proxies against our generated server",
  () => {
    it("HttpGet, HttpPost, SOAP and SOAP 1.2 proxies get the host's answers", async () => {
      const program = `using System;
public static class Program {
  static readonly System.Globalization.CultureInfo Inv = System.Globalization.CultureInfo.InvariantCulture;
  static void Say(string what, object value) { Console.WriteLine(what + " = " + (value == null ? "null" : value.ToString())); }
  public static int Main(string[] args) {
    string b = args[0] + "HttpDetails.asmx";
    var get = new G.HttpDetails { Url = b };
    Say("HttpGet Echo", get.Echo("h\\u00e9llo \\u20ac"));
    // The HTTP proxies take every parameter as a string: a .NET caller passes the number's ToString().
    Say("HttpGet Twice(-inf)", get.Twice(double.NegativeInfinity.ToString(Inv)));
    Say("HttpGet Twice(NaN)", get.Twice(double.NaN.ToString(Inv)));
    Say("HttpGet Half(+inf)", get.Half(float.PositiveInfinity.ToString(Inv)));
    var post = new P.HttpDetails { Url = b };
    Say("HttpPost Echo", post.Echo("h\\u00e9llo \\u20ac"));
    Say("HttpPost Twice(+inf)", post.Twice(double.PositiveInfinity.ToString(Inv)));
    var soap = new S.HttpDetails { Url = b };
    Say("SOAP Twice(+inf)", soap.Twice(double.PositiveInfinity));
    Say("SOAP Echo", soap.Echo("h\\u00e9llo"));
    var soap12 = new T.HttpDetails { Url = b };
    Say("SOAP12 Special(nan)", soap12.Special("nan"));
    return 0;
  }
}`;
      const wsdl = `${host.url}HttpDetails.asmx?WSDL`;
      const result = await runCSharpClient({
        sources: {
          "Client.cs": program,
          "G.cs": await generateProxy(wsdl, "HttpGet", "G"),
          "P.cs": await generateProxy(wsdl, "HttpPost", "P"),
          "S.cs": await generateProxy(wsdl, "SOAP", "S"),
          "T.cs": await generateProxy(wsdl, "SOAP12", "T"),
        },
        args: [ours],
        timeoutMs: 120_000,
      });
      expect(result.stderr).toBe("");
      expect(result.stdout.trim().split("\n")).toEqual([
        `HttpGet Echo = héllo € |7| ${units("héllo €")}`,
        "HttpGet Twice(-inf) = -Infinity",
        "HttpGet Twice(NaN) = NaN",
        "HttpGet Half(+inf) = Infinity",
        `HttpPost Echo = héllo € |7| ${units("héllo €")}`,
        "HttpPost Twice(+inf) = Infinity",
        "SOAP Twice(+inf) = Infinity",
        `SOAP Echo = héllo |5| ${units("héllo")}`,
        "SOAP12 Special(nan) = NaN",
      ]);
      expect(result.code).toBe(0);
    }, 300_000);
  },
);

const SOAP11 = "http://schemas.xmlsoap.org/soap/envelope/";
const SOAP12 = "http://www.w3.org/2003/05/soap-envelope";

/** A request to our server as the recorded exchanges send it to the host. */
function send(binding: string, op: string, body: string): Promise<Response> {
  const endpoint = `${ours}HttpDetails.asmx`;
  if (binding === "get") return fetch(`${endpoint}/${op}${body === "" ? "" : `?${body}`}`);
  if (binding === "post")
    return fetch(`${endpoint}/${op}`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body,
    });
  const action = `${NAMESPACES.HttpDetails}${op}`;
  const envelope = `<?xml version="1.0" encoding="utf-8"?><soap:Envelope xmlns:soap="${binding === "soap11" ? SOAP11 : SOAP12}"><soap:Body>${body}</soap:Body></soap:Envelope>`;
  return fetch(endpoint, {
    method: "POST",
    headers:
      binding === "soap11"
        ? { "content-type": "text/xml; charset=utf-8", soapaction: `"${action}"` }
        : { "content-type": `application/soap+xml; charset=utf-8; action="${action}"` },
    body: envelope,
  });
}
