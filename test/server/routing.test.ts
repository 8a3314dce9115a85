// What the node:http handler answers for each kind of request at (and around) the endpoint, over real
// HTTP on loopback: documents, refusals, Express/Connect mounting and next().

import type { IncomingMessage, ServerResponse } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { operations } from "../../generated/model.js";
import { createHandler, type ServiceHandler } from "../../generated/server.js";
import {
  sampleImplementation,
  startFixtureServer,
  type FixtureServer,
  type ReceivedCall,
} from "../fixtures/fixture-server.js";
import {
  faultOf,
  listenOnLoopback,
  parseXml,
  rawRequest,
  soapRequest,
  wsdlAddresses,
  type Listening,
} from "../fixtures/raw-http.js";
import { SOAP11_REQUEST_BODY, SOAP11_REQUEST_HEADERS } from "../fixtures/wire-samples.js";
import { SPEC_OPERATIONS } from "../fixtures/spec-facts.js";

let server: FixtureServer;
beforeAll(async () => {
  server = await startFixtureServer();
});
afterAll(() => server.close());

describe("documents", () => {
  it.each(["WSDL", "wsdl"])("?%s answers the WSDL addressed at the endpoint as reached", async (key) => {
    const response = await fetch(`${server.endpointUrl}?${key}`);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("text/xml; charset=utf-8");
    const addresses = wsdlAddresses(await response.text());
    expect(addresses).toHaveLength(4);
    for (const address of addresses) expect(address).toBe(server.endpointUrl);
  });

  it("addresses the WSDL at the Host the caller used", async () => {
    const response = await rawRequest(`${server.endpointUrl}?wsdl`, {
      headers: { host: "api.example.test:8080" },
    });
    expect(wsdlAddresses(response.body)).toEqual(
      Array(4).fill("http://api.example.test:8080/ExternalAPIService.asmx"),
    );
  });

  it("serves the help index listing every operation", async () => {
    const response = await fetch(server.endpointUrl);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("text/html; charset=utf-8");
    const html = await response.text();
    const names = Object.keys(operations);
    expect([...names].sort()).toEqual([...SPEC_OPERATIONS].sort());
    for (const name of names) expect(html).toContain(`href="?op=${name}"`);
  });

  it("serves an operation's page with its parameters and a form to the HTTP POST binding", async () => {
    const response = await fetch(`${server.endpointUrl}?op=InsertSubscriberSid`);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("text/html; charset=utf-8");
    const html = await response.text();
    expect(html).toContain("<h1>InsertSubscriberSid</h1>");
    for (const p of operations.InsertSubscriberSid.params) expect(html).toContain(`name="${p.name}"`);
    expect(html).toContain(`action="${new URL(server.endpointUrl).pathname}/InsertSubscriberSid"`);
  });

  it("answers 404 for ?op= naming no operation", async () => {
    const response = await fetch(`${server.endpointUrl}?op=Nope`);
    expect(response.status).toBe(404);
    expect(response.headers.get("content-type")).toBe("text/plain; charset=utf-8");
    expect(await response.text()).toBe(
      "System.InvalidOperationException: Nope Web Service method name is not valid.",
    );
  });

  it("answers HEAD of the help page with its headers and no body", async () => {
    const get = await fetch(server.endpointUrl);
    const getBody = await get.text();
    const head = await rawRequest(server.endpointUrl, { method: "HEAD" });
    expect(head.status).toBe(200);
    expect(head.headers["content-type"]).toBe("text/html; charset=utf-8");
    expect(Number(head.headers["content-length"])).toBe(Buffer.byteLength(getBody));
    expect(head.body).toBe("");
  });

  it("matches the endpoint's path without regard to case", async () => {
    const origin = new URL(server.endpointUrl).origin;
    const wsdl = await fetch(`${origin}/externalapiservice.asmx?wsdl`);
    expect(wsdl.status).toBe(200);
    expect(wsdlAddresses(await wsdl.text())).toEqual(Array(4).fill(`${origin}/externalapiservice.asmx`));
    const call = await fetch(
      `${origin}/EXTERNALAPISERVICE.ASMX/GetTriggerIdForAccount?strUsername=u&strPassword=p`,
    );
    expect(call.status).toBe(200);
    expect(parseXml(await call.text()).local).toBe("ArrayOfTriggerResult");
  });
});

describe("refusals", () => {
  it("answers an unknown HTTP operation with the .NET 500 text", async () => {
    const response = await fetch(`${server.endpointUrl}/NoSuchOp?strUsername=u`);
    expect(response.status).toBe(500);
    expect(response.headers.get("content-type")).toBe("text/plain; charset=utf-8");
    expect(response.headers.get("x-error-code")).toBe("UnknownOperation");
    expect(await response.text()).toBe(
      "System.InvalidOperationException: NoSuchOp Web Service method name is not valid.",
    );
  });

  it("answers the same over HTTP POST", async () => {
    const response = await fetch(`${server.endpointUrl}/NoSuchOp`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: "strUsername=u",
    });
    expect(response.status).toBe(500);
    expect(await response.text()).toBe(
      "System.InvalidOperationException: NoSuchOp Web Service method name is not valid.",
    );
  });

  it.each([
    ["PUT", "the endpoint", "", "GET, HEAD, POST"],
    ["DELETE", "the endpoint", "", "GET, HEAD, POST"],
    ["PUT", "an operation", "/InsertSubscriberSid", "GET, POST"],
    ["DELETE", "an operation", "/InsertSubscriberSid", "GET, POST"],
  ])("answers %s to %s with 405, Allow and one line of text", async (method, _, path, allow) => {
    const response = await fetch(server.endpointUrl + path, { method, body: "x" });
    expect(response.status).toBe(405);
    expect(response.headers.get("allow")).toBe(allow);
    expect(response.headers.get("content-type")).toBe("text/plain; charset=utf-8");
    expect(response.headers.get("x-error-code")).toBe("MethodNotAllowed");
    expect(await response.text()).toBe(
      `System.InvalidOperationException: The method ${method} is not allowed here.`,
    );
  });

  it.each([["text/plain"], ["application/json"], [""]])(
    "answers a POST to the endpoint as %j (neither SOAP version) with 415 and an empty body, as ASMX",
    async (contentType) => {
      const before = server.calls.length;
      const headers: Record<string, string> = contentType === "" ? {} : { "content-type": contentType };
      const response = await rawRequest(server.endpointUrl, { method: "POST", headers, body: "hello" });
      expect(response.status).toBe(415);
      expect(response.headers["x-error-code"]).toBe("UnsupportedMediaType");
      expect(response.headers["content-type"]).toBe("text/plain; charset=utf-8");
      expect(response.body).toBe("");
      expect(server.calls.length).toBe(before);
    },
  );

  it("answers a wrong content type on the HTTP POST binding with the .NET 500 text", async () => {
    const response = await fetch(`${server.endpointUrl}/InsertSubscriberSid`, {
      method: "POST",
      headers: { "content-type": "text/plain" },
      body: "strUsername=u",
    });
    expect(response.status).toBe(500);
    expect(await response.text()).toBe(
      "System.InvalidOperationException: Request format is invalid: text/plain.",
    );
  });
});

describe("SOAP with Expect: 100-continue", () => {
  it("sends 100 Continue, then reads the body and answers", async () => {
    const response = await rawRequest(server.endpointUrl, {
      method: "POST",
      headers: {
        ...SOAP11_REQUEST_HEADERS,
        expect: "100-continue",
        "content-length": Buffer.byteLength(SOAP11_REQUEST_BODY),
      },
      body: SOAP11_REQUEST_BODY,
      waitForContinue: true,
    });
    expect(response.continued).toBe(true);
    expect(response.status).toBe(200);
    const body = parseXml(response.body).children[0].children[0];
    expect(body.local).toBe("InsertSubscriberSidResponse");
    expect(body.children[0].text).toBe("9223372036854775807");
  });
});

/** A Connect-style mount: strips `prefix` from req.url, keeps the full URL in req.originalUrl. */
function mount(prefix: string, handler: ServiceHandler) {
  return (req: IncomingMessage, res: ServerResponse) => {
    const url = req.url ?? "/";
    if (!url.startsWith(`${prefix}/`)) {
      res.statusCode = 404;
      res.end("outside the mount");
      return;
    }
    Object.assign(req, { originalUrl: url });
    req.url = url.slice(prefix.length);
    handler(req, res, () => {
      res.statusCode = 404;
      res.setHeader("x-next", "called");
      res.end("next() was called");
    });
  };
}

describe("as middleware", () => {
  const calls: ReceivedCall[] = [];
  const handler = createHandler(sampleImplementation(calls));
  let mounted: Listening;
  let bare: Listening;
  beforeAll(async () => {
    mounted = await listenOnLoopback(mount("/api/v1", handler));
    bare = await listenOnLoopback((req, res) =>
      handler(req, res, () => {
        res.statusCode = 404;
        res.setHeader("x-next", "called");
        res.end();
      }),
    );
  });
  afterAll(async () => {
    await mounted.close();
    await bare.close();
  });

  it("addresses the WSDL at the full path when mounted under a base path", async () => {
    const response = await fetch(`${mounted.origin}/api/v1/ExternalAPIService.asmx?WSDL`);
    expect(response.status).toBe(200);
    expect(wsdlAddresses(await response.text())).toEqual(
      Array(4).fill(`${mounted.origin}/api/v1/ExternalAPIService.asmx`),
    );
  });

  it("points the mounted help page's form at the full path", async () => {
    const html = await (
      await fetch(`${mounted.origin}/api/v1/ExternalAPIService.asmx?op=InsertSubscriberSid`)
    ).text();
    expect(html).toContain(`action="/api/v1/ExternalAPIService.asmx/InsertSubscriberSid"`);
  });

  it("serves calls when mounted", async () => {
    const response = await fetch(
      `${mounted.origin}/api/v1/ExternalAPIService.asmx/GetNewsletterFilters?strUsername=u&strPassword=p&intNewsletterId=3`,
    );
    expect(response.status).toBe(200);
    expect(calls.at(-1)?.params).toEqual({ intNewsletterId: 3 });
  });

  it("addresses the WSDL under a path prefix without a mount too", async () => {
    const response = await fetch(`${bare.origin}/legacy/ExternalAPIService.asmx?wsdl`);
    expect(wsdlAddresses(await response.text())).toEqual(
      Array(4).fill(`${bare.origin}/legacy/ExternalAPIService.asmx`),
    );
  });

  it.each(["/", "/other", "/ExternalAPIService.asmx/A/B", "/ExternalAPIService.asmxx", "/x.asmx?wsdl"])(
    "calls next() for the foreign path %s",
    async (path) => {
      const response = await fetch(bare.origin + path);
      expect(response.status).toBe(404);
      expect(response.headers.get("x-next")).toBe("called");
    },
  );

  it("calls next() for a foreign path under the mount", async () => {
    const response = await fetch(`${mounted.origin}/api/v1/elsewhere`);
    expect(response.status).toBe(404);
    expect(response.headers.get("x-next")).toBe("called");
  });
});

// docs/wire.md §1a: each row as the ASMX host answers it (rows marked "ours" are kept on purpose and
// listed in docs/wire.md §9, "Deliberate differences from ASMX").
describe("ASMX routing and refusals (docs/wire.md §1a)", () => {
  const SOAP11_NS = "http://schemas.xmlsoap.org/soap/envelope/";
  const SOAP12_NS = "http://www.w3.org/2003/05/soap-envelope";
  const filters = { strUsername: "u", strPassword: "p", intNewsletterId: "7" };
  const post = (headers: Record<string, string>, body: string | Buffer) =>
    rawRequest(server.endpointUrl, { method: "POST", headers, body });

  async function calledOnce<T>(run: () => Promise<T>): Promise<{ answer: T; calls: ReceivedCall[] }> {
    const before = server.calls.length;
    const answer = await run();
    return { answer, calls: server.calls.slice(before) };
  }

  it("SOAP 1.1 with no SOAPAction header: 200, the operation the Body names runs", async () => {
    const { body } = soapRequest("soap11", "GetNewsletterFilters", filters);
    const { answer, calls } = await calledOnce(() =>
      post({ "content-type": "text/xml; charset=utf-8" }, body),
    );
    expect(answer.status).toBe(200);
    expect(parseXml(answer.body).children[0].children[0].local).toBe("GetNewsletterFiltersResponse");
    expect(calls.map((c) => [c.operation, c.params])).toEqual([
      ["GetNewsletterFilters", { intNewsletterId: 7 }],
    ]);
  });

  it('SOAP 1.1 with SOAPAction "": 500 soap:Client, the .NET wording', async () => {
    const { body } = soapRequest("soap11", "GetNewsletterFilters", filters);
    const { answer, calls } = await calledOnce(() =>
      post({ "content-type": "text/xml; charset=utf-8", soapaction: '""' }, body),
    );
    expect(answer.status).toBe(500);
    expect(faultOf(answer.body)).toMatchObject({
      code: "Client",
      reason: "Server did not recognize the value of HTTP Header SOAPAction: .",
      errorCode: "UnknownSoapAction",
    });
    expect(calls).toEqual([]);
  });

  it.each([
    ["with a SOAPAction", { soapaction: '"http://tempuri.org/GetNewsletterFilters"' }],
    ["without one", {}],
  ])("a SOAP 1.2 envelope sent as text/xml (%s) is answered as SOAP 1.2", async (_, extra) => {
    const { body } = soapRequest("soap12", "GetNewsletterFilters", filters);
    const { answer, calls } = await calledOnce(() =>
      post({ "content-type": "text/xml; charset=utf-8", ...extra }, body),
    );
    expect(answer.status).toBe(200);
    expect(answer.headers["content-type"]).toBe("application/soap+xml; charset=utf-8");
    const envelope = parseXml(answer.body);
    expect([envelope.ns, envelope.children[0].children[0].local]).toEqual([
      SOAP12_NS,
      "GetNewsletterFiltersResponse",
    ]);
    expect(calls.map((c) => c.context.binding)).toEqual(["soap12"]);
  });

  it("a SOAP 1.1 envelope sent as application/soap+xml: 415, empty body, no call", async () => {
    const { body } = soapRequest("soap11", "GetNewsletterFilters", filters);
    const { answer, calls } = await calledOnce(() =>
      post({ "content-type": "application/soap+xml; charset=utf-8" }, body),
    );
    expect([answer.status, answer.body, answer.headers["x-error-code"]]).toEqual([
      415,
      "",
      "UnsupportedMediaType",
    ]);
    expect(calls).toEqual([]);
  });

  const { body: goodBody } = soapRequest("soap11", "GetNewsletterFilters", filters);
  const soap11Headers = {
    "content-type": "text/xml; charset=utf-8",
    soapaction: '"http://tempuri.org/GetNewsletterFilters"',
  };
  const soap12Headers = { "content-type": "application/soap+xml; charset=utf-8" };
  const as12 = (body: string) => body.replace(SOAP11_NS, SOAP12_NS);
  it.each([
    ["SOAP 1.1", "XML that is not well-formed", soap11Headers, goodBody.slice(0, -3), "MalformedXml"],
    ["SOAP 1.2", "XML that is not well-formed", soap12Headers, as12(goodBody).slice(0, -3), "MalformedXml"],
    ["SOAP 1.1", "an empty body", soap11Headers, "", "MalformedXml"],
    ["SOAP 1.1", "a DOCTYPE", soap11Headers, goodBody.replace("?>", "?><!DOCTYPE x []>"), "DoctypeRefused"],
    [
      "SOAP 1.2",
      "a DOCTYPE",
      soap12Headers,
      as12(goodBody).replace("?>", "?><!DOCTYPE x []>"),
      "DoctypeRefused",
    ],
    [
      "SOAP 1.1",
      "nesting past the depth limit",
      soap11Headers,
      goodBody.replace("<intNewsletterId>", `${"<x>".repeat(40)}${"</x>".repeat(40)}<intNewsletterId>`),
      "TooDeep",
    ],
  ])(
    "%s, %s: 400, one line of text/plain with X-Error-Code, no fault",
    async (_v, _what, headers, body, code) => {
      const { answer, calls } = await calledOnce(() => post(headers, body));
      expect(answer.status).toBe(400);
      expect(answer.headers["content-type"]).toBe("text/plain; charset=utf-8");
      expect(answer.headers["x-content-type-options"]).toBe("nosniff");
      expect(answer.headers["x-error-code"]).toBe(code);
      expect(answer.body).toMatch(/^System\.[\w.]+: [^\n]+$/);
      expect(calls).toEqual([]);
    },
  );

  // One UTF-8 byte order mark is the encoding's signature; a second is a character before the root element,
  // which XML does not allow.
  const BOM = Buffer.from([0xef, 0xbb, 0xbf]);
  it.each([
    ["SOAP 1.1", soap11Headers, goodBody],
    ["SOAP 1.2", soap12Headers, as12(goodBody)],
  ])("%s: one byte order mark is read, two are 400 MalformedXml, no call", async (_v, headers, body) => {
    const one = await calledOnce(() => post(headers, Buffer.concat([BOM, Buffer.from(body)])));
    expect(one.answer.status).toBe(200);
    expect(one.calls).toHaveLength(1);
    for (const bytes of [
      Buffer.concat([BOM, BOM, Buffer.from(body)]),
      Buffer.concat([BOM, BOM, Buffer.from(body.replace(/^<\?xml[^>]*>/, ""))]),
    ]) {
      const two = await calledOnce(() => post(headers, bytes));
      expect(two.answer.status).toBe(400);
      expect(two.answer.headers["x-error-code"]).toBe("MalformedXml");
      expect(two.calls).toEqual([]);
    }
  });

  it.each([
    ["no action", soap12Headers],
    [
      "an action naming no operation",
      { "content-type": `${soap12Headers["content-type"]}; action="http://tempuri.org/Nope"` },
    ],
  ])(
    "SOAP 1.2 with an empty body and %s: 500 soap:Receiver, Root element is missing.",
    async (_what, headers) => {
      const answer = await post(headers, "");
      expect(answer.status).toBe(500);
      expect(answer.headers["content-type"]).toBe("application/soap+xml; charset=utf-8");
      expect(faultOf(answer.body)).toMatchObject({
        code: "Receiver",
        reason: "Root element is missing.",
        errorCode: "MalformedXml",
      });
    },
  );

  it("SOAP 1.2 with an empty body and the action of an operation (as .NET clients send): 400, as SOAP 1.1", async () => {
    const headers = {
      "content-type": `${soap12Headers["content-type"]}; action="http://tempuri.org/GetNewsletterFilters"`,
    };
    const { answer, calls } = await calledOnce(() => post(headers, ""));
    expect(answer.status).toBe(400);
    expect(answer.headers["x-error-code"]).toBe("MalformedXml");
    expect(answer.body).toMatch(/^System\.Xml\.XmlException: Root element is missing\.$/);
    expect(calls).toEqual([]);
  });

  describe("echoed input is cut to 40 characters", () => {
    const long = "Z".repeat(8000);
    const cut = `${"Z".repeat(40)}...`;
    it("an unknown SOAPAction", async () => {
      const answer = await post({ ...soap11Headers, soapaction: `"${long}"` }, goodBody);
      expect(faultOf(answer.body).reason).toBe(
        `Server did not recognize the value of HTTP Header SOAPAction: ${cut}.`,
      );
    });
    it("an unknown Body element name, 1 MB long", async () => {
      const name = "Z".repeat(1_000_000);
      const body = `<soap:Envelope xmlns:soap="${SOAP12_NS}"><soap:Body><${name} xmlns="http://tempuri.org/" /></soap:Body></soap:Envelope>`;
      const answer = await post(soap12Headers, body);
      expect(answer.body.length).toBeLessThan(1000);
      expect(faultOf(answer.body).reason).toContain(cut);
    });
    it("an unknown operation name on HTTP GET and POST", async () => {
      const get = await rawRequest(`${server.endpointUrl}/${long}?a=1`);
      expect(get.body).toBe(`System.InvalidOperationException: ${cut} Web Service method name is not valid.`);
      const postAnswer = await rawRequest(`${server.endpointUrl}/${long}`, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: "a=1",
      });
      expect(postAnswer.body).toBe(get.body);
    });
    it("a media type the HTTP POST binding does not take", async () => {
      const answer = await rawRequest(`${server.endpointUrl}/GetNewsletterFilters`, {
        method: "POST",
        headers: { "content-type": `text/${long}` },
        body: "a=1",
      });
      expect(answer.body).toBe(
        `System.InvalidOperationException: Request format is invalid: text/${"z".repeat(35)}....`,
      );
    });
  });
});

describe("HTTP GET/POST values as .NET converts text (docs/wire.md §1a)", () => {
  const triggerQuery = (fromDate: string, triggerId = "1") =>
    new URLSearchParams({
      strUsername: "u",
      strPassword: "p",
      triggerId,
      fromDate,
      toDate: "2024-02-01T00:00:00",
    }).toString();

  async function received(
    method: "GET" | "POST",
    query: string,
  ): Promise<{ status: number; params: unknown; body: string; code: unknown }> {
    const before = server.calls.length;
    const answer =
      method === "GET"
        ? await rawRequest(`${server.endpointUrl}/GetTriggerClicks?${query}`)
        : await rawRequest(`${server.endpointUrl}/GetTriggerClicks`, {
            method: "POST",
            headers: { "content-type": "application/x-www-form-urlencoded" },
            body: query,
          });
    return {
      status: answer.status,
      params: server.calls.slice(before)[0]?.params,
      body: answer.body,
      code: answer.headers["x-error-code"],
    };
  }

  it.each([
    ["2024-01-02T03:04:05", "2024-01-02T03:04:05"],
    ["2024-01-02 03:04:05", "2024-01-02T03:04:05"],
    ["2024-01-02", "2024-01-02T00:00:00"],
    ["01/02/2024", "2024-01-02T00:00:00"],
    ["1/2/2024 3:04:05", "2024-01-02T03:04:05"],
    ["2024-01-02T03:04:05Z", "2024-01-02T03:04:05Z"],
    ["2024-01-02 03:04:05.25+02:00", "2024-01-02T03:04:05.25+02:00"],
    [" 2024-01-02T03:04 ", "2024-01-02T03:04:00"],
    ["2024-01-02T03:04:05+14:00", "2024-01-02T03:04:05+14:00"],
    ["2024-01-02T03:04:05-14:00", "2024-01-02T03:04:05-14:00"],
  ])("dateTime %j reaches the handler as %j on GET and POST", async (sent, canonical) => {
    for (const method of ["GET", "POST"] as const) {
      const answer = await received(method, triggerQuery(sent));
      expect(answer.status, `${method} ${answer.body}`).toBe(200);
      expect(answer.params).toMatchObject({ fromDate: canonical });
    }
  });

  it.each([
    ["+42", 42],
    [" 42 ", 42],
    ["-0", 0],
  ])("int %j reaches the handler as %j", async (sent, value) => {
    const answer = await received("GET", triggerQuery("2024-01-02", sent));
    expect(answer.status).toBe(200);
    expect(answer.params).toMatchObject({ triggerId: value });
  });

  it.each([
    ["year 0000", "0000-01-01T00:00:00"],
    ["year -0001", "-0001-01-01T00:00:00"],
    ["year 10000", "10000-01-01T00:00:00"],
    ["offset +14:59", "2024-01-02T03:04:05+14:59"],
    ["offset -15:00", "2024-01-02T03:04:05-15:00"],
    ["a day that does not exist", "02/30/2024"],
    ["day/month order", "13/01/2024"],
    ["a 1 MB value", "2".repeat(1_000_000)],
  ])("dateTime with %s is refused on GET/POST (InvalidType), the handler not called", async (_, sent) => {
    const answer = await received("POST", triggerQuery(sent));
    expect([answer.status, answer.code, answer.params]).toEqual([500, "InvalidType", undefined]);
    expect(answer.body.length).toBeLessThan(300);
  });

  it.each([
    ["year 0000", "0000-01-01T00:00:00"],
    ["year 10000", "10000-01-01T00:00:00"],
    ["offset +14:59", "2024-01-02T03:04:05+14:59"],
  ])("and in SOAP: dateTime with %s is a soap:Client InvalidType fault", async (_, sent) => {
    const { headers, body } = soapRequest("soap11", "GetTriggerClicks", {
      strUsername: "u",
      strPassword: "p",
      triggerId: "1",
      fromDate: sent,
      toDate: "2024-02-01T00:00:00",
    });
    const answer = await rawRequest(server.endpointUrl, { method: "POST", headers, body });
    expect(answer.status).toBe(500);
    expect(faultOf(answer.body)).toMatchObject({
      code: "Client",
      errorCode: "InvalidType",
      parameter: "fromDate",
    });
  });

  it("SOAP stays strict: 2024-01-02 03:04:05 is refused there", async () => {
    const { headers, body } = soapRequest("soap11", "GetTriggerClicks", {
      strUsername: "u",
      strPassword: "p",
      triggerId: "1",
      fromDate: "2024-01-02 03:04:05",
      toDate: "2024-02-01T00:00:00",
    });
    const answer = await rawRequest(server.endpointUrl, { method: "POST", headers, body });
    expect(faultOf(answer.body)).toMatchObject({ code: "Client", errorCode: "InvalidType" });
  });

  it.each(["GET", "POST"] as const)(
    "%s: %%-escapes that are not UTF-8 are refused naming the parameter (InvalidEncoding), not made U+FFFD",
    async (method) => {
      const query = `${triggerQuery("2024-01-02")}&strUsername=x`.replace(
        "strPassword=p",
        "strPassword=%C3%28",
      );
      const answer = await received(method, query);
      expect([answer.status, answer.code, answer.params]).toEqual([400, "InvalidEncoding", undefined]);
      expect(answer.body).toBe(
        "System.ArgumentException: The value of strPassword holds %-escapes that are not UTF-8 text.",
      );
    },
  );
});

describe("the fetch adapter answers the §1a refusals as node:http does", () => {
  const handler = createHandler(sampleImplementation([])).fetch;
  const endpoint = "http://127.0.0.1/ExternalAPIService.asmx";
  it("two UTF-8 byte order marks: 400 MalformedXml (one is read)", async () => {
    const { headers, body } = soapRequest("soap11", "GetNewsletterFilters", {
      strUsername: "u",
      strPassword: "p",
      intNewsletterId: "7",
    });
    const bom = [0xef, 0xbb, 0xbf];
    const send = (marks: number) =>
      handler(
        new Request(endpoint, {
          method: "POST",
          headers,
          body: new Uint8Array([...Array(marks).fill(bom).flat(), ...Buffer.from(body)]),
        }),
      );
    expect((await send(1)).status).toBe(200);
    const response = await send(2);
    expect(response.status).toBe(400);
    expect(response.headers.get("x-error-code")).toBe("MalformedXml");
  });
  it.each([
    [
      "a POST as text/plain",
      { method: "POST", headers: { "content-type": "text/plain" }, body: "x" },
      415,
      "",
    ],
    [
      "a SOAP 1.1 envelope as application/soap+xml",
      {
        method: "POST",
        headers: { "content-type": "application/soap+xml" },
        body: soapRequest("soap11", "GetNewsletterFilters", { strUsername: "u" }).body,
      },
      415,
      "",
    ],
    [
      "malformed XML",
      { method: "POST", headers: { "content-type": "text/xml" }, body: "<a>" },
      400,
      /^System\.InvalidOperationException: [^\n]+$/,
    ],
    [
      "a DELETE",
      { method: "DELETE" },
      405,
      "System.InvalidOperationException: The method DELETE is not allowed here.",
    ],
  ] as const)("%s", async (_, init, status, body) => {
    const response = await handler(new Request(endpoint, init));
    expect(response.status).toBe(status);
    expect(response.headers.get("content-type")).toBe("text/plain; charset=utf-8");
    expect(response.headers.get("x-content-type-options")).toBe("nosniff");
    expect(response.headers.get("x-error-code")).toBeTruthy();
    const text = await response.text();
    if (typeof body === "string") expect(text).toBe(body);
    else expect(text).toMatch(body);
  });
});
