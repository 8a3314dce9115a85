// wireServiceError turns whatever a handler threw into a ServiceError the wire can carry, and
// describeThrown describes any value for a log line; neither may throw, whatever it is given.

import { describe, expect, it } from "vitest";
import { ErrorCodes, ServiceError } from "../../generated/runtime/errors.js";
import { describeThrown, oneLine, wireServiceError } from "../../generated/runtime/safe-error.js";

function serviceError(fields: Record<string, unknown>): ServiceError {
  const error = new ServiceError("Placeholder", "placeholder");
  for (const [key, value] of Object.entries(fields)) Object.defineProperty(error, key, { value });
  return error;
}

const everyTrapThrows = new Proxy(
  {},
  new Proxy(
    {},
    {
      get: () => () => {
        throw new Error("trap");
      },
    },
  ),
);

describe("wireServiceError", () => {
  const cases: {
    name: string;
    given: Record<string, unknown>;
    want: Partial<Record<keyof ServiceError, unknown>>;
  }[] = [
    {
      name: "keeps a clean error as it is",
      given: { code: "InvalidCredentials", message: "Wrong password.", status: 500 },
      want: { code: "InvalidCredentials", message: "Wrong password.", status: 500 },
    },
    {
      name: "drops CR/LF from a code (a header cannot carry them)",
      given: { code: "Bad\r\nSet-Cookie: x" },
      want: { code: "BadSet-Cookiex" },
    },
    {
      name: "drops non-Latin-1 and NUL from a code",
      given: { code: "Caf\u00e9\u0000\ud83d\ude00Err" },
      want: { code: "CafErr" },
    },
    {
      name: "an empty or non-string code becomes InternalError",
      given: { code: "\u00e9\u00e9" },
      want: { code: ErrorCodes.InternalError },
    },
    { name: "cuts a 10 KB code", given: { code: "x".repeat(10_000) }, want: { code: "x".repeat(64) } },
    { name: "status 0 becomes 500", given: { status: 0 }, want: { status: 500 } },
    { name: "status 99 becomes 500", given: { status: 99 }, want: { status: 500 } },
    { name: "status 1000 becomes 500", given: { status: 1000 }, want: { status: 500 } },
    { name: "status NaN becomes 500", given: { status: Number.NaN }, want: { status: 500 } },
    {
      name: "status 200 becomes 500 (an error is not a success)",
      given: { status: 200 },
      want: { status: 500 },
    },
    { name: "status 302 becomes 500 (never a redirect)", given: { status: 302 }, want: { status: 500 } },
    { name: "keeps 404 and 503", given: { status: 503 }, want: { status: 503 } },
    {
      name: "a message becomes one line without NUL",
      given: { message: "line one\r\nline\u0000two" },
      want: { message: "line one line two" },
    },
    {
      name: "a lone surrogate in a message becomes U+FFFD",
      given: { message: "a\ud800b" },
      want: { message: "a\ufffdb" },
    },
    {
      name: "a 10 MB message is cut",
      given: { message: "m".repeat(10_000_000) },
      want: { message: `${"m".repeat(1000)}...` },
    },
    { name: "a side other than client is server", given: { side: "sideways" }, want: { side: "server" } },
    {
      name: "an exception type with markup is reduced to a type name",
      given: { exceptionType: "System.<b>Ex</b>" },
      want: { exceptionType: "System.bExb" },
    },
  ];
  for (const { name, given, want } of cases) {
    it(name, () => {
      const wire = wireServiceError(serviceError({ code: "Code", message: "m", ...given }));
      expect(wire).toBeInstanceOf(ServiceError);
      expect(wire).toMatchObject(want);
    });
  }

  it("a getter that throws leaves that field at its default", () => {
    const error = new ServiceError("Code", "m", { status: 404 });
    Object.defineProperty(error, "message", {
      get: () => {
        throw new Error("no");
      },
    });
    expect(wireServiceError(error)).toMatchObject({ code: "Code", message: "", status: 404 });
  });

  it("is undefined for anything that is not a ServiceError, without throwing", () => {
    for (const value of [
      null,
      undefined,
      0,
      "",
      "text",
      Symbol("s"),
      1n,
      Object.create(null),
      Object.freeze({}),
      new Error("e"),
      everyTrapThrows,
    ]) {
      expect(wireServiceError(value)).toBeUndefined();
    }
  });
});

describe("describeThrown", () => {
  it("describes every kind of value without throwing", () => {
    const noMessage = new Error("x");
    Object.defineProperty(noMessage, "stack", {
      get: () => {
        throw new Error("no");
      },
    });
    Object.defineProperty(noMessage, "message", {
      get: () => {
        throw new Error("no");
      },
    });
    const described = [
      null,
      undefined,
      0,
      "text",
      Symbol("s"),
      1n,
      Object.create(null),
      Object.freeze({}),
      noMessage,
      everyTrapThrows,
    ].map(describeThrown);
    expect(described).toEqual([
      "null",
      "undefined",
      "0",
      "text",
      "Symbol(s)",
      "1",
      "[object with no prototype]",
      "[object Object]",
      "Error: undefined",
      "[a value that cannot be described]",
    ]);
  });
});

describe("oneLine", () => {
  it("keeps printable text and non-ASCII as it is", () => {
    expect(oneLine("Åsa – 日本 🎉")).toBe("Åsa – 日本 🎉");
  });
  it("cuts to the given length", () => {
    expect(oneLine("abcdef", 3)).toBe("abc...");
  });
});
