// CORS on the generated server (ServerOptions.cors, runtime/server/cors.ts), through both adapters: a
// preflight from an allowed origin gets 204 with the methods and SOAP's headers, every answer on the endpoint
// carries `Vary: Origin` and (to an allowed origin) Access-Control-Allow-Origin, refusals included; a refused
// origin gets no CORS header; without the option nothing changes (a preflight is 405, as in ASMX).
// The browser side (a real cross-origin call from Chromium) is test/browser/cors-chromium.test.ts.

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createHandler, type ServerOptions } from "../../generated/server.js";
import { startFixtureServer, sampleImplementation, type FixtureServer } from "../fixtures/fixture-server.js";
import { rawRequest, soapRequest } from "../fixtures/raw-http.js";
import { SOAP11_REQUEST_VALUES as SID_PARAMS } from "../fixtures/wire-samples.js";

const ALLOWED = "http://app.example.test:5173";
const REFUSED = "https://evil.example.test";

const preflightHeaders = (origin: string, method = "POST") => ({
  origin,
  "access-control-request-method": method,
  "access-control-request-headers": "content-type,soapaction",
});

const CORS_HEADER_NAMES = [
  "access-control-allow-origin",
  "access-control-allow-methods",
  "access-control-allow-headers",
  "access-control-max-age",
  "access-control-allow-credentials",
];

/** The access-control-* headers of an answer (node:http's lower-case names). */
function corsOf(headers: Readonly<Record<string, unknown>>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(headers).filter(([name]) => name.startsWith("access-control-")));
}

describe("CORS through the node:http adapter", () => {
  let server: FixtureServer;
  let plain: FixtureServer;

  beforeAll(async () => {
    server = await startFixtureServer({ cors: { origins: [ALLOWED], maxAgeSeconds: 120 } });
    plain = await startFixtureServer();
  });
  afterAll(async () => {
    await server?.close();
    await plain?.close();
  });

  it("answers a preflight from an allowed origin with 204, the methods and SOAP's headers", async () => {
    const answer = await rawRequest(server.endpointUrl, {
      method: "OPTIONS",
      headers: preflightHeaders(ALLOWED),
    });
    expect(answer.status).toBe(204);
    expect(answer.body).toBe("");
    expect(corsOf(answer.headers)).toEqual({
      "access-control-allow-origin": ALLOWED,
      "access-control-allow-methods": "GET, POST",
      "access-control-allow-headers": "Content-Type, SOAPAction",
      "access-control-max-age": "120",
    });
    expect(answer.headers.vary).toBe("Origin");
    // Below the endpoint too (HTTP GET and POST call /{Op}).
    const below = await rawRequest(`${server.endpointUrl}/InsertSubscriberSid`, {
      method: "OPTIONS",
      headers: preflightHeaders(ALLOWED, "GET"),
    });
    expect(below.status).toBe(204);
    expect(server.calls).toHaveLength(0);
  });

  it("gives a refused origin's preflight the answer it gets without CORS (405) and no CORS header", async () => {
    const refused = await rawRequest(server.endpointUrl, {
      method: "OPTIONS",
      headers: preflightHeaders(REFUSED),
    });
    const without = await rawRequest(plain.endpointUrl, {
      method: "OPTIONS",
      headers: preflightHeaders(ALLOWED),
    });
    expect(without.status).toBe(405);
    expect(refused.status).toBe(without.status);
    expect(refused.body).toBe(without.body);
    expect(corsOf(refused.headers)).toEqual({});
    expect(refused.headers.vary).toBe("Origin");
  });

  it.each([
    ["a list of origins (a repeated Origin joined)", `${ALLOWED}, ${REFUSED}`],
    ["the allowed origin with a trailing slash", `${ALLOWED}/`],
    ["the allowed origin in upper case", ALLOWED.toUpperCase()],
    ["null", "null"],
    ["a very long origin", `${ALLOWED}${"x".repeat(8000)}`],
  ])("refuses %s", async (_label, origin) => {
    const answer = await rawRequest(server.endpointUrl, {
      method: "OPTIONS",
      headers: preflightHeaders(origin),
    });
    expect(answer.status).toBe(405);
    expect(corsOf(answer.headers)).toEqual({});
  });

  it("a preflight for a method the bindings do not take, or with a body, is no preflight", async () => {
    const put = await rawRequest(server.endpointUrl, {
      method: "OPTIONS",
      headers: preflightHeaders(ALLOWED, "PUT"),
    });
    expect(put.status).toBe(405);
    expect(put.headers["access-control-allow-methods"]).toBeUndefined();
    const withBody = await rawRequest(server.endpointUrl, {
      method: "OPTIONS",
      headers: { ...preflightHeaders(ALLOWED), "content-length": 3 },
      body: "abc",
    });
    expect(withBody.status).toBe(405);
    expect(withBody.headers["access-control-allow-methods"]).toBeUndefined();
  });

  it("a call from an allowed origin is answered with Access-Control-Allow-Origin and Vary: Origin", async () => {
    const { headers, body } = soapRequest("soap11", "InsertSubscriberSid", SID_PARAMS);
    const answer = await rawRequest(server.endpointUrl, {
      method: "POST",
      headers: { ...headers, origin: ALLOWED },
      body,
    });
    expect(answer.status).toBe(200);
    expect(corsOf(answer.headers)).toEqual({ "access-control-allow-origin": ALLOWED });
    expect(answer.headers.vary).toBe("Origin");
  });

  it("a call from a refused origin is answered (the browser withholds it) with no CORS header", async () => {
    const { headers, body } = soapRequest("soap11", "InsertSubscriberSid", SID_PARAMS);
    const answer = await rawRequest(server.endpointUrl, {
      method: "POST",
      headers: { ...headers, origin: REFUSED },
      body,
    });
    expect(answer.status).toBe(200);
    expect(corsOf(answer.headers)).toEqual({});
    expect(answer.headers.vary).toBe("Origin");
  });

  it("refusals before the call (a body over the limit) carry the CORS headers too", async () => {
    const small = await startFixtureServer({ cors: { origins: [ALLOWED] }, maxBodyBytes: 100 });
    try {
      const { headers, body } = soapRequest("soap11", "InsertSubscriberSid", SID_PARAMS);
      const answer = await rawRequest(small.endpointUrl, {
        method: "POST",
        headers: { ...headers, origin: ALLOWED },
        body,
      });
      expect(answer.status).toBe(413);
      expect(answer.headers["access-control-allow-origin"]).toBe(ALLOWED);
    } finally {
      await small.close();
    }
  });

  it("without the option, no answer carries a CORS header or Vary", async () => {
    const { headers, body } = soapRequest("soap11", "InsertSubscriberSid", SID_PARAMS);
    const answer = await rawRequest(plain.endpointUrl, {
      method: "POST",
      headers: { ...headers, origin: ALLOWED },
      body,
    });
    expect(answer.status).toBe(200);
    expect(corsOf(answer.headers)).toEqual({});
    expect(answer.headers.vary).toBeUndefined();
  });

  it('origins ["*"] allows any origin with Access-Control-Allow-Origin: *', async () => {
    const any = await startFixtureServer({ cors: { origins: ["*"] } });
    try {
      const answer = await rawRequest(any.endpointUrl, {
        method: "OPTIONS",
        headers: preflightHeaders(REFUSED),
      });
      expect(answer.status).toBe(204);
      expect(answer.headers["access-control-allow-origin"]).toBe("*");
    } finally {
      await any.close();
    }
  });
});

describe("CORS through the fetch adapter", () => {
  const handler = createHandler(sampleImplementation([]), { cors: { origins: [ALLOWED] } });
  const ENDPOINT = "https://svc.example.test/ExternalAPIService.asmx";

  it("answers an allowed preflight with 204 and a refused one without CORS headers", async () => {
    const allowed = await handler.fetch(
      new Request(ENDPOINT, { method: "OPTIONS", headers: preflightHeaders(ALLOWED) }),
    );
    expect(allowed.status).toBe(204);
    expect(allowed.headers.get("access-control-allow-origin")).toBe(ALLOWED);
    expect(allowed.headers.get("access-control-allow-headers")).toBe("Content-Type, SOAPAction");
    const refused = await handler.fetch(
      new Request(ENDPOINT, { method: "OPTIONS", headers: preflightHeaders(REFUSED) }),
    );
    expect(refused.status).toBe(405);
    expect(CORS_HEADER_NAMES.filter((name) => refused.headers.has(name))).toEqual([]);
    expect(refused.headers.get("vary")).toBe("Origin");
  });

  it("adds the headers to a call's answer", async () => {
    const { headers, body } = soapRequest("soap11", "InsertSubscriberSid", SID_PARAMS);
    const answer = await handler.fetch(
      new Request(ENDPOINT, { method: "POST", headers: { ...headers, origin: ALLOWED }, body }),
    );
    expect(answer.status).toBe(200);
    expect(answer.headers.get("access-control-allow-origin")).toBe(ALLOWED);
    expect(answer.headers.get("vary")).toBe("Origin");
  });
});

describe("cors option checks", () => {
  it.each<[string, ServerOptions["cors"], RegExp]>([
    ["a path", { origins: ["https://app.example/x"] }, /cors\.origins\[0\].*https:\/\/app\.example/],
    ["a trailing slash", { origins: ["https://app.example/"] }, /cors\.origins\[0\]/],
    ["upper case", { origins: ["https://App.example"] }, /cors\.origins\[0\].*https:\/\/app\.example/],
    ["a default port", { origins: ["https://ok.example", "https://app.example:443"] }, /cors\.origins\[1\]/],
    ["another scheme", { origins: ["file://x"] }, /http or https/],
    ["not an origin", { origins: ["app.example"] }, /cors\.origins\[0\]/],
    ["no array", { origins: "https://app.example" } as never, /cors\.origins must be an array/],
    ["a max age out of range", { origins: [], maxAgeSeconds: -1 }, /cors\.maxAgeSeconds/],
  ])("refuses %s, naming the entry", (_label, cors, message) => {
    expect(() => createHandler(sampleImplementation([]), { cors })).toThrow(message);
  });
});
