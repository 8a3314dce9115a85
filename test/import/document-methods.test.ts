// Bare, renamed and other-namespace SOAP messages ([SoapDocumentMethod], docs/asmx-evidence/document-methods.md)
// without Mono: DocumentMethods.asmx's recorded WSDL imported and generated; every exchange recorded against
// the real ASMX host is sent to our generated server, which must answer as the host did. And a SOAP shape on an
// operation with a dotted MessageName: the shape's defaults are the wire name's, as ASMX's
// (constructs-roundtrip.test.ts runs DocumentMethods against the live host, both ways, when Mono is installed).

import type { Server } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readXml } from "../../runtime/xml/scan.js";
import type { XmlElement } from "../../runtime/xml/tree.js";
import { close, importConstruct, listen, type Imported } from "../headers/imported.js";
import { replayRecorded } from "./replay.js";

/** XML values as the runtime's tree holds them (xml/tree.ts XmlElement). */
interface Node {
  readonly ns: string;
  readonly local: string;
  readonly prefix: string;
  readonly attrs: readonly { ns: string; local: string; value: string }[];
  readonly children: readonly Node[];
  readonly text: string;
}
const el = (ns: string, local: string, attrs: Node["attrs"], children: Node[]): Node => ({
  ns,
  local,
  prefix: "",
  attrs,
  children,
  text: "",
});

/** An XML document as names and values, where namespaces are declared and with which prefixes left out. */
const infoset = (xml: string): unknown => {
  const walk = (e: XmlElement): unknown => [
    e.ns,
    e.local,
    e.attrs.map((a) => [a.ns, a.local, a.value]),
    e.text,
    e.children.map(walk),
  ];
  return walk(readXml(xml));
};

/** The RPC method's portType, binding and message entries removed (it has no spec shape here). */
const withoutMultiply = (wsdl: string) =>
  wsdl
    .replace(/<wsdl:message name="Multiply[A-Za-z0-9]*">[\s\S]*?<\/wsdl:message>\s*/g, "")
    .replace(/<wsdl:operation name="Multiply">[\s\S]*?<\/wsdl:operation>\s*/g, "");

describe("DocumentMethods: bare, renamed and other-namespace messages against the host's recordings", () => {
  let imported: Imported;
  let server: Server;
  let ours: string;
  let notified = 0;

  beforeAll(async () => {
    imported = await importConstruct("DocumentMethods", undefined, withoutMultiply);
    server = imported.createServer({
      GetQuote: ({ symbol }: { symbol?: string }) => ({
        ...(symbol === undefined ? {} : { Symbol: symbol }),
        Price: "101.25",
      }),
      Echo: ({ text }: { text?: string }) => text ?? null,
      Forget: () => undefined,
      Wrap: ({ dadosMsg }: { dadosMsg?: Node }) =>
        el(
          "urn:example:wrap",
          "echo",
          [{ ns: "", local: "had", value: dadosMsg === undefined ? "null" : dadosMsg.local }],
          dadosMsg === undefined ? [] : [dadosMsg],
        ),
      Count: ({ text, warnings }: { text?: string; warnings?: string }) => ({
        Int32: text === undefined ? -1 : text.length,
        warnings: `${warnings ?? ""}counted;`,
      }),
      Lookup: ({ key }: { key: string }) => `value-of-${key}`,
      Notify: () => {
        notified++;
      },
      Notified: () => notified,
      Square: ({ n }: { n: number }) => n * n,
    });
    ours = await listen(server);
  }, 300_000);
  afterAll(async () => {
    await close(server);
    imported?.cleanUp();
  }, 30_000);

  it("answers every recorded exchange of its document methods as the host did", async () => {
    const replayed = (await replayRecorded("DocumentMethods", ours)).filter(
      (r) => !r.name.includes("multiply"),
    );
    expect(replayed.length).toBeGreaterThanOrEqual(15);
    let sameBytes = 0;
    for (const r of replayed) {
      if (r.name === "soap11-notify-oneway") {
        // One-way: Mono answers 200 with an empty body, .NET (and we) 202 Accepted, empty.
        expect([r.hostStatus, r.status, r.body, r.hostBody.trim()]).toEqual([200, 202, "", ""]);
        continue;
      }
      expect(r.status, `${r.name}: ${r.note}`).toBe(r.hostStatus);
      if (r.body === r.hostBody) {
        sameBytes++;
        continue;
      }
      if (r.status !== 200) {
        // Refusals: Mono leaves its messages' placeholders unfilled ({0}), and our faults carry the error
        // code in their detail; the fault code and the message's words must be the host's.
        const text = (body: string) => /<faultstring>([^<]*)<\/faultstring>/.exec(body)?.[1] ?? body.trim();
        const words = text(r.hostBody)
          .replace(/^System\.\w+Exception: /, "")
          .split(/\{\d\}/)
          .map((part) => part.replace(/[.*+?^$()|[\]\\]/g, "\\$&"));
        expect(text(r.body), `${r.name}: ${r.note}`).toMatch(new RegExp(words.join(".+")));
        expect(/<faultcode>[^<]*/.exec(r.body)?.[0]).toBe(/<faultcode>[^<]*/.exec(r.hostBody)?.[0]);
        continue;
      }
      // The one difference: a bare answer declares the message namespace once, on <soap:Body>, where the
      // host declares it on each element the Body holds (soap-shape.ts bareBodyOpen). The same XML.
      expect(r.body, r.name).toContain("<soap:Body xmlns=");
      expect(infoset(r.body), `${r.name}: ${r.note}`).toEqual(infoset(r.hostBody));
    }
    expect(sameBytes).toBeGreaterThanOrEqual(6);
  });
});

describe("a dotted MessageName with a SOAP shape: the defaults are the wire name's", () => {
  let imported: Imported;
  let server: Server;
  let ours: string;

  beforeAll(async () => {
    // [WebMethod(MessageName = "Service.Ping")] with [SoapDocumentMethod(ResponseElementName = "PingReply")]:
    // the request element, the SOAPAction and the result element stay the MessageName's.
    imported = await importConstruct("Overloads", undefined, (wsdl) =>
      wsdl
        .replace('<s:element name="Service.PingResponse">', '<s:element name="PingReply">')
        .replace('element="tns:Service.PingResponse"', 'element="tns:PingReply"'),
    );
    server = imported.createServer({
      Add: ({ a, b }: { a: number; b: number }) => a + b,
      AddDoubles: ({ a, b }: { a: number; b: number }) => a + b,
      AddThree: ({ a, b, c }: { a: number; b: number; c: number }) => a + b + c,
      Ping: () => "pong",
    });
    ours = await listen(server);
  }, 300_000);
  afterAll(async () => {
    await close(server);
    imported?.cleanUp();
  }, 30_000);

  it("imports the shape beside the MessageName", () => {
    const ping = imported.spec.groups[0]!.operations.find((o) => o.name === "Ping")!;
    expect(ping.messageName).toBe("Service.Ping");
    expect(ping.soap).toEqual({ responseElement: "PingReply" });
  });

  it("reads the host's request (element and SOAPAction by the MessageName) and answers in PingReply", async () => {
    const replayed = (await replayRecorded("Overloads", ours)).filter((r) => r.name.includes("ping"));
    expect(replayed.map((r) => r.name)).toContain("soap11-ping-dotted");
    for (const r of replayed) {
      expect(r.status, r.name).toBe(200);
      expect(r.body, r.name).toBe(r.hostBody.replaceAll("Service.PingResponse", "PingReply"));
    }
  });

  it("our client calls it on every binding", async () => {
    for (const binding of ["soap11", "soap12", "httpGet", "httpPost"]) {
      const client = imported.createClient({ baseUrl: ours, binding });
      expect(await client.Ping!(), binding).toBe("pong");
    }
  });

  it("publishes its messages by the MessageName, the response part naming PingReply", async () => {
    const wsdl = await (await fetch(`${ours}Overloads.asmx?WSDL`)).text();
    expect(wsdl).toContain(
      '<wsdl:message name="Service.PingSoapIn">\n    <wsdl:part name="parameters" element="tns:Service.Ping" />',
    );
    expect(wsdl).toContain(
      '<wsdl:message name="Service.PingSoapOut">\n    <wsdl:part name="parameters" element="tns:PingReply" />',
    );
    expect(wsdl).toContain('soapAction="http://tempuri.org/constructs/overloads/Service.Ping"');
    expect(wsdl).toContain('name="Service.PingResult"');
  });
});
