// What the node:http handler answers for each kind of request at (and around) the endpoint, over real
// HTTP on loopback: documents, refusals, Express/Connect mounting and next().

import type { IncomingMessage, ServerResponse } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { operations } from "../../generated/model.js";
import { createHandler, type ServiceHandler } from "../../generated/server.js";
import { sampleImplementation, startFixtureServer, type FixtureServer, type ReceivedCall } from "../fixtures/fixture-server.js";
import { listenOnLoopback, parseXml, rawRequest, wsdlAddresses, type Listening } from "../fixtures/raw-http.js";
import { SOAP11_REQUEST_BODY, SOAP11_REQUEST_HEADERS } from "../fixtures/wire-samples.js";

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
    const response = await rawRequest(`${server.endpointUrl}?wsdl`, { headers: { host: "api.example.test:8080" } });
    expect(wsdlAddresses(response.body)).toEqual(Array(4).fill("http://api.example.test:8080/ExternalAPIService.asmx"));
  });

  it("serves the help index listing every operation", async () => {
    const response = await fetch(server.endpointUrl);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("text/html; charset=utf-8");
    const html = await response.text();
    const names = Object.keys(operations);
    expect(names).toHaveLength(20);
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
    expect(await response.text()).toBe("System.InvalidOperationException: Nope Web Service method name is not valid.");
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
    const call = await fetch(`${origin}/EXTERNALAPISERVICE.ASMX/GetTriggerIdForAccount?strUsername=u&strPassword=p`);
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
    expect(await response.text()).toBe("System.InvalidOperationException: NoSuchOp Web Service method name is not valid.");
  });

  it("answers the same over HTTP POST", async () => {
    const response = await fetch(`${server.endpointUrl}/NoSuchOp`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: "strUsername=u",
    });
    expect(response.status).toBe(500);
    expect(await response.text()).toBe("System.InvalidOperationException: NoSuchOp Web Service method name is not valid.");
  });

  it.each([
    ["the endpoint", "", "GET, HEAD, POST"],
    ["an operation", "/InsertSubscriberSid", "GET, POST"],
  ])("answers PUT to %s with 405 and Allow", async (_, path, allow) => {
    const response = await fetch(server.endpointUrl + path, { method: "PUT", body: "x" });
    expect(response.status).toBe(405);
    expect(response.headers.get("allow")).toBe(allow);
    expect(response.headers.get("x-error-code")).toBe("MethodNotAllowed");
    expect(await response.text()).toMatch(/^System\.InvalidOperationException: /);
  });

  it("answers a POST to the endpoint that is neither SOAP version with 415", async () => {
    const before = server.calls.length;
    const response = await fetch(server.endpointUrl, { method: "POST", headers: { "content-type": "text/plain" }, body: "hello" });
    expect(response.status).toBe(415);
    expect(response.headers.get("x-error-code")).toBe("UnsupportedMediaType");
    expect(await response.text()).toBe("System.InvalidOperationException: Request format is unrecognized: text/plain.");
    expect(server.calls.length).toBe(before);
  });

  it("answers a wrong content type on the HTTP POST binding with the .NET 500 text", async () => {
    const response = await fetch(`${server.endpointUrl}/InsertSubscriberSid`, {
      method: "POST",
      headers: { "content-type": "text/plain" },
      body: "strUsername=u",
    });
    expect(response.status).toBe(500);
    expect(await response.text()).toBe("System.InvalidOperationException: Request format is invalid: text/plain.");
  });
});

describe("SOAP with Expect: 100-continue", () => {
  it("sends 100 Continue, then reads the body and answers", async () => {
    const response = await rawRequest(server.endpointUrl, {
      method: "POST",
      headers: { ...SOAP11_REQUEST_HEADERS, expect: "100-continue", "content-length": Buffer.byteLength(SOAP11_REQUEST_BODY) },
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
    expect(wsdlAddresses(await response.text())).toEqual(Array(4).fill(`${mounted.origin}/api/v1/ExternalAPIService.asmx`));
  });

  it("points the mounted help page's form at the full path", async () => {
    const html = await (await fetch(`${mounted.origin}/api/v1/ExternalAPIService.asmx?op=InsertSubscriberSid`)).text();
    expect(html).toContain(`action="/api/v1/ExternalAPIService.asmx/InsertSubscriberSid"`);
  });

  it("serves calls when mounted", async () => {
    const response = await fetch(`${mounted.origin}/api/v1/ExternalAPIService.asmx/GetNewsletterFilters?strUsername=u&strPassword=p&intNewsletterId=3`);
    expect(response.status).toBe(200);
    expect(calls.at(-1)?.params).toEqual({ intNewsletterId: 3 });
  });

  it("addresses the WSDL under a path prefix without a mount too", async () => {
    const response = await fetch(`${bare.origin}/legacy/ExternalAPIService.asmx?wsdl`);
    expect(wsdlAddresses(await response.text())).toEqual(Array(4).fill(`${bare.origin}/legacy/ExternalAPIService.asmx`));
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
