// The endpoint URL the WSDL and the help pages name: a forged Host header must never become the address
// clients are told to send credentials to.

import { describe, expect, it } from "vitest";
import {
  checkPublicUrl,
  isAcceptedHost,
  resolveEndpointUrl,
  type EndpointUrlOptions,
} from "../../generated/runtime/server/endpoint-url.js";

const LOCAL = "127.0.0.1:8080";

function resolve(
  headers: Record<string, string>,
  options: EndpointUrlOptions = {},
  publicEndpoint?: string,
): string {
  return resolveEndpointUrl(
    { headers, scheme: "http", basePath: "/api/Service.asmx", localHost: LOCAL },
    options,
    publicEndpoint,
  );
}

describe("resolveEndpointUrl", () => {
  const cases: {
    name: string;
    headers: Record<string, string>;
    options?: EndpointUrlOptions;
    want: string;
  }[] = [
    {
      name: "a plain Host is used",
      headers: { host: "api.example:8443" },
      want: "http://api.example:8443/api/Service.asmx",
    },
    {
      name: "an IPv6 Host is used",
      headers: { host: "[::1]:8080" },
      want: "http://[::1]:8080/api/Service.asmx",
    },
    {
      name: "user info in Host is not a host: the local address is used",
      headers: { host: "good.example@evil.example" },
      want: `http://${LOCAL}/api/Service.asmx`,
    },
    {
      name: "a Host with a path is refused",
      headers: { host: "evil.example/x" },
      want: `http://${LOCAL}/api/Service.asmx`,
    },
    {
      name: "a Host with markup is refused",
      headers: { host: '"><script>' },
      want: `http://${LOCAL}/api/Service.asmx`,
    },
    { name: "an empty Host is refused", headers: { host: "" }, want: `http://${LOCAL}/api/Service.asmx` },
    { name: "no Host at all", headers: {}, want: `http://${LOCAL}/api/Service.asmx` },
    {
      name: "a Host outside allowedHosts is ignored",
      headers: { host: "evil.example" },
      options: { allowedHosts: ["good.example"] },
      want: `http://${LOCAL}/api/Service.asmx`,
    },
    {
      name: "a listed name allows any port",
      headers: { host: "Good.Example:81" },
      options: { allowedHosts: ["good.example"] },
      want: "http://Good.Example:81/api/Service.asmx",
    },
    {
      name: "forwarded headers are ignored without trustProxy",
      headers: { host: "a.example", "x-forwarded-host": "evil.example", "x-forwarded-proto": "https" },
      want: "http://a.example/api/Service.asmx",
    },
    {
      name: "forwarded headers are used with trustProxy (first value)",
      headers: {
        host: "a.example",
        "x-forwarded-host": "b.example, c.example",
        "x-forwarded-proto": "https",
      },
      options: { trustProxy: true },
      want: "https://b.example/api/Service.asmx",
    },
    {
      name: "a forwarded proto other than http(s) is ignored",
      headers: { host: "a.example", "x-forwarded-proto": "javascript" },
      options: { trustProxy: true },
      want: "http://a.example/api/Service.asmx",
    },
    {
      name: "a forged forwarded host is still checked",
      headers: { host: "a.example", "x-forwarded-host": "x@evil.example" },
      options: { trustProxy: true },
      want: `http://${LOCAL}/api/Service.asmx`,
    },
  ];
  for (const { name, headers, options, want } of cases)
    it(name, () => expect(resolve(headers, options)).toBe(want));

  it("publicUrl wins over every header", () => {
    expect(
      resolve(
        { host: "evil.example", "x-forwarded-host": "evil.example" },
        { trustProxy: true },
        "https://api.example/Service.asmx",
      ),
    ).toBe("https://api.example/Service.asmx");
  });

  it("a path with characters that need escaping is escaped", () => {
    const url = resolveEndpointUrl(
      { headers: { host: "a.example" }, scheme: "http", basePath: '/a b"<x>/S.asmx', localHost: LOCAL },
      {},
      undefined,
    );
    expect(url).toBe("http://a.example/a%20b%22%3Cx%3E/S.asmx");
  });
});

describe("isAcceptedHost", () => {
  it("refuses a host longer than any real one", () => {
    expect(isAcceptedHost(`${"a".repeat(60)}.`.repeat(6), undefined)).toBe(false);
  });
});

describe("checkPublicUrl", () => {
  it("keeps origin and path without a trailing slash", () => {
    expect(checkPublicUrl("https://api.example/x/")).toBe("https://api.example/x");
  });
  const bad = [
    ["not a URL", "api.example/x", /absolute URL/],
    ["another scheme", "ftp://api.example/", /http: or https:/],
    ["user info", "https://u:p@api.example/", /user name or password/],
    ["a query", "https://api.example/?a=1", /query or fragment/],
  ] as const;
  for (const [name, value, message] of bad)
    it(`refuses ${name}`, () => expect(() => checkPublicUrl(value)).toThrow(message));
});

describe("isAcceptedHost ports", () => {
  it("refuses a port no URL can hold (found by the attack suite: the help page failed on it)", () => {
    expect(isAcceptedHost("evil.example:99999", undefined)).toBe(false);
    expect(isAcceptedHost("good.example:65535", undefined)).toBe(true);
  });
});
