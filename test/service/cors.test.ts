// CORS_ORIGINS on the service: the origins it names get the preflight and Access-Control-Allow-Origin on
// /ExternalAPIService.asmx (the generated server's `cors` option); another origin gets no CORS header; a
// value that is not a list of origins stops the start, naming the variable. Both engines.

import { afterAll, beforeAll, expect, it } from "vitest";
import { ServiceConfigError, readConfig } from "../../service/config.js";
import { describeEngines } from "./support/engines.js";
import { type TestService, startService } from "./support/service.js";

const APP = "http://localhost:5173";

describeEngines("CORS_ORIGINS", (engine) => {
  let svc: TestService;

  beforeAll(async () => {
    svc = await startService(engine, "cors", { CORS_ORIGINS: ` ${APP} , https://app.example ,` });
  }, 60_000);
  afterAll(async () => svc?.close());

  const preflight = (origin: string) =>
    fetch(`${svc.url}/ExternalAPIService.asmx`, {
      method: "OPTIONS",
      headers: {
        origin,
        "access-control-request-method": "POST",
        "access-control-request-headers": "content-type,soapaction",
      },
    });

  it("answers a named origin's preflight with 204 and its origin", async () => {
    const answer = await preflight(APP);
    expect(answer.status).toBe(204);
    expect(answer.headers.get("access-control-allow-origin")).toBe(APP);
    expect(answer.headers.get("access-control-allow-headers")).toBe("Content-Type, SOAPAction");
    expect(answer.headers.get("vary")).toBe("Origin");
  });

  it("gives another origin no CORS header", async () => {
    const answer = await preflight("https://evil.example");
    expect(answer.status).toBe(405);
    expect(answer.headers.get("access-control-allow-origin")).toBeNull();
  });

  it("a call from the named origin carries Access-Control-Allow-Origin", async () => {
    const answer = await fetch(`${svc.url}/ExternalAPIService.asmx?WSDL`, { headers: { origin: APP } });
    expect(answer.status).toBe(200);
    expect(answer.headers.get("access-control-allow-origin")).toBe(APP);
  });
});

it.each(["https://app.example/", "app.example", "https://app.example/path", "ftp://files.example"])(
  "CORS_ORIGINS=%s is refused, naming the variable",
  (value) => {
    expect(() => readConfig({ CORS_ORIGINS: value })).toThrow(ServiceConfigError);
    expect(() => readConfig({ CORS_ORIGINS: value })).toThrow(/^CORS_ORIGINS: /);
  },
);

it("CORS_ORIGINS is off by default and reads * and lists", () => {
  expect(readConfig({}).corsOrigins).toEqual([]);
  expect(readConfig({ CORS_ORIGINS: "*" }).corsOrigins).toEqual(["*"]);
  expect(readConfig({ CORS_ORIGINS: "https://a.example,http://127.0.0.1:3000" }).corsOrigins).toEqual([
    "https://a.example",
    "http://127.0.0.1:3000",
  ]);
});
