// SOAP headers marked mustUnderstand: the generated server answers them as ASMX does. The evidence is the
// ASMX host's recorded exchanges (test/asmx-host/recorded/must-understand/, summed up in
// docs/asmx-evidence/must-understand.md): every recorded request whose headers the ASMX method did not bind
// is sent here again, with this service's operation in the Body, and the answer must be ASMX's byte for
// byte (status, Content-Type, envelope), with .NET's wording where Mono leaves "{0}" unfilled.

import { readdirSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createHandler } from "../../generated/server.js";
import { operations } from "../../generated/model.js";
import { serverModel } from "../../generated/server-model.js";
import { createSoapServerBinding } from "../../runtime/server/soap.js";
import { soap11ServerVersion } from "../../runtime/server/soap11.js";
import { readXml } from "../../generated/runtime/xml/scan.js";
import { SoapFaultError } from "../../generated/runtime/errors.js";
import { sampleImplementation, startFixtureServer, type FixtureServer } from "../fixtures/fixture-server.js";
import { faultOf, rawRequest, soapRequest } from "../fixtures/raw-http.js";

const RECORDED = fileURLToPath(new URL("../asmx-host/recorded/must-understand/", import.meta.url));
const SOAP11 = "http://schemas.xmlsoap.org/soap/envelope/";
const SOAP12 = "http://www.w3.org/2003/05/soap-envelope";
const FILTERS = { strUsername: "u", strPassword: "p", intNewsletterId: "7" };

interface Recorded {
  readonly name: string;
  readonly version: "soap11" | "soap12";
  /** The Header element as sent (prefix soap for the envelope namespace), or "" when none was. */
  readonly header: string;
  readonly status: number;
  readonly contentType: string;
  readonly body: string;
}

function readRecorded(name: string): Recorded {
  const text = readFileSync(`${RECORDED}${name}`, "utf8");
  const [request, response] = text.split("\n<<< response\n");
  const sent = request!.slice(request!.indexOf("\n\n") + 2);
  const [statusLine, contentTypeLine, , ...body] = response!.split("\n");
  return {
    name: name.replace(/\.txt$/, ""),
    version: sent.includes(`xmlns:soap="${SOAP12}"`) ? "soap12" : "soap11",
    header: /<soap:Header>.*<\/soap:Header>/.exec(sent)?.[0] ?? "",
    status: Number(statusLine!.split(" ")[1]),
    contentType: contentTypeLine!.replace(/^Content-Type: /, ""),
    body: body.join("\n").replace(/\n$/, ""),
  };
}

// The ASMX methods that bind AuthHeader (Secured) understood it by binding it; no operation of ours binds a
// header, so those two exchanges say nothing about us. Every other exchange is a header the method did not bind.
const BOUND = new Set(["soap11-secured-auth-mu-1", "soap12-secured-auth-mu-1"]);
const CASES = readdirSync(RECORDED)
  .filter((f) => f.endsWith(".txt"))
  .map(readRecorded)
  .filter((c) => !BOUND.has(c.name));

/** The local name of the first header marked mustUnderstand "1"/"true" in either envelope namespace. */
function firstMustUnderstand(header: string): string {
  const root = readXml(
    `<r xmlns:soap="${SOAP11}">${header.replace(/^<soap:Header>|<\/soap:Header>$/g, "")}</r>`,
  );
  const el = root.children.find((c) =>
    c.attrs.some((a) => a.local === "mustUnderstand" && ["1", "true"].includes(a.value)),
  );
  if (!el) throw new Error(`no mustUnderstand header in ${header}`);
  return el.local;
}

/** Our operation's request with the recorded Header put in front of the Body. */
function withHeader(
  version: "soap11" | "soap12",
  header: string,
): { headers: Record<string, string>; body: string } {
  const { headers, body } = soapRequest(version, "GetNewsletterFilters", FILTERS);
  return { headers, body: body.replace("<soap:Body>", `${header}<soap:Body>`) };
}

let server: FixtureServer;
beforeAll(async () => {
  server = await startFixtureServer();
});
afterAll(() => server.close());

describe("mustUnderstand headers: answered as the ASMX host answered (recorded)", () => {
  it("has the recorded exchanges to compare with", () => {
    expect(CASES.length).toBeGreaterThanOrEqual(20);
    expect(CASES.filter((c) => c.status === 500).length).toBeGreaterThanOrEqual(12);
  });

  it.each(CASES.map((c) => [c.name, c] as const))("%s", async (_, c) => {
    const before = server.calls.length;
    const answer = await rawRequest(server.endpointUrl, {
      method: "POST",
      ...withHeader(c.version, c.header),
    });
    expect(answer.status).toBe(c.status);
    if (c.status === 500) {
      expect(answer.headers["content-type"]).toBe(c.contentType);
      // Mono leaves .NET's placeholder unfilled; .NET names the header element's local name.
      expect(answer.body).toBe(c.body.replace("{0}", firstMustUnderstand(c.header)));
      expect(server.calls.length, "the operation must not run").toBe(before);
    } else {
      expect(answer.body).toContain("<GetNewsletterFiltersResponse");
      expect(server.calls.length).toBe(before + 1);
    }
  });
});

describe("mustUnderstand headers: beyond the recorded cases", () => {
  const unknown = (attributes: string, name = "Security") =>
    `<soap:Header><w:${name} xmlns:w="urn:example:sec"${attributes}>x</w:${name}></soap:Header>`;

  it("a refusal of the Body comes first: an unknown SOAPAction or operation is answered as such", async () => {
    const { headers, body } = withHeader("soap11", unknown(' soap:mustUnderstand="1"'));
    const badAction = await rawRequest(server.endpointUrl, {
      method: "POST",
      headers: { ...headers, soapaction: '"http://tempuri.org/Nope"' },
      body,
    });
    expect(faultOf(badAction.body).errorCode).toBe("UnknownSoapAction");
    const badOp = await rawRequest(server.endpointUrl, {
      method: "POST",
      headers: { "content-type": "text/xml; charset=utf-8" },
      body: body.replace(/GetNewsletterFilters/g, "Nope"),
    });
    expect(faultOf(badOp.body).errorCode).toBe("UnknownOperation");
  });

  it("refuses the first of several, in document order, and looks at every Header element", async () => {
    const two = `<soap:Header><a:First xmlns:a="urn:a" soap:mustUnderstand="0"/><b:Second xmlns:b="urn:b" soap:mustUnderstand="1"/><c:Third xmlns:c="urn:c" soap:mustUnderstand="1"/></soap:Header>`;
    const answer = await rawRequest(server.endpointUrl, { method: "POST", ...withHeader("soap11", two) });
    expect(faultOf(answer.body)).toMatchObject({
      code: "MustUnderstand",
      reason: "SOAP header Second was not understood.",
    });
    const second = `<soap:Header/><soap:Header><b:Late xmlns:b="urn:b" soap:mustUnderstand="true"/></soap:Header>`;
    const late = await rawRequest(server.endpointUrl, { method: "POST", ...withHeader("soap12", second) });
    expect([late.status, faultOf(late.body).code]).toEqual([500, "MustUnderstand"]);
  });

  it("cuts a long header name in the message to 40 characters", async () => {
    const name = `H${"x".repeat(5000)}`;
    const answer = await rawRequest(server.endpointUrl, {
      method: "POST",
      ...withHeader("soap11", unknown(' soap:mustUnderstand="1"', name)),
    });
    expect(faultOf(answer.body).reason).toBe(`SOAP header ${name.slice(0, 40)}... was not understood.`);
  });

  it("an empty Header and headers not marked are no reason to refuse", async () => {
    for (const header of [
      "<soap:Header/>",
      "<soap:Header></soap:Header>",
      unknown(""),
      unknown(' soap:mustUnderstand="false"'),
    ]) {
      const answer = await rawRequest(server.endpointUrl, {
        method: "POST",
        ...withHeader("soap11", header),
      });
      expect(answer.status, header).toBe(200);
    }
  });

  it("the fetch adapter answers the same", async () => {
    const fetchHandler = createHandler(sampleImplementation([])).fetch;
    for (const version of ["soap11", "soap12"] as const) {
      const { headers, body } = withHeader(version, unknown(' soap:mustUnderstand="1"'));
      const response = await fetchHandler(
        new Request("http://127.0.0.1/ExternalAPIService.asmx", { method: "POST", headers, body }),
      );
      expect(response.status).toBe(500);
      expect(faultOf(await response.text())).toMatchObject({
        code: "MustUnderstand",
        reason: "SOAP header Security was not understood.",
      });
    }
  });

  it("the generated client reports it as a SoapFaultError of the caller's side", () => {
    const error = new SoapFaultError(
      { faultCode: "MustUnderstand", reason: "SOAP header Security was not understood.", status: 500 },
      "soap11",
      "GetNewsletterFilters",
    );
    expect(error.side).toBe("client");
  });

  it("a header the operation understands (the hook later issues fill from the spec) is not refused", () => {
    const understood: string[] = [];
    const binding = createSoapServerBinding(soap11ServerVersion, serverModel, {
      readXml,
      understoodHeaders: (op, header) => {
        understood.push(`${op.name} {${header.ns}}${header.local}`);
        return header.ns === "urn:example:sec" && header.local === "Security";
      },
    });
    const request = (header: string) => {
      const { headers, body } = withHeader("soap11", header);
      return { method: "POST" as const, path: "", query: "", headers, body };
    };
    const decoded = binding.decodeRequest(request(unknown(' soap:mustUnderstand="1"')));
    expect(decoded.op.name).toBe(operations.GetNewsletterFilters.name);
    expect(understood).toEqual(["GetNewsletterFilters {urn:example:sec}Security"]);
    expect(() => binding.decodeRequest(request(unknown(' soap:mustUnderstand="1"', "Other")))).toThrow(
      "SOAP header Other was not understood.",
    );
  });
});
