// The server's guards and error handling over real HTTP: body size limits (declared and streamed), bulk
// bodies under the limit, hostile XML, handler errors kept off the wire, the call context, cancellation
// and the handler time limit.

import { createHash } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { CallContext, ExternalAPIService, ServerOptions } from "../../generated/server.js";
import { ServiceError } from "../../generated/server.js";
import type { LogEntry } from "../../generated/runtime/server/core.js";
import { startFixtureServer, type FixtureServer } from "../fixtures/fixture-server.js";
import {
  faultOf,
  rawRequest,
  socketExchange,
  soapRequest,
  type SoapVersionName,
} from "../fixtures/raw-http.js";
import { SOAP11_REQUEST_VALUES as SID_PARAMS } from "../fixtures/wire-samples.js";

const SID_FORM = new URLSearchParams(SID_PARAMS).toString();
const soapVersions: SoapVersionName[] = ["soap11", "soap12"];
const faultCodes = {
  soap11: { client: "Client", server: "Server" },
  soap12: { client: "Sender", server: "Receiver" },
};

/** A fixture server whose InsertSubscriberSid does whatever `behave` says, logging into `logs`. */
async function scriptedServer(options: ServerOptions = {}) {
  const logs: LogEntry[] = [];
  const script: { behave: ExternalAPIService["InsertSubscriberSid"]; runs: number } = {
    behave: () => 1n,
    runs: 0,
  };
  const server = await startFixtureServer({
    ...options,
    log: (entry) => logs.push(entry),
    override: {
      InsertSubscriberSid: (params, context) => {
        script.runs++;
        return script.behave(params, context);
      },
    },
  });
  return { server, logs, script, port: Number(new URL(server.baseUrl).port) };
}

async function postSoap(
  server: FixtureServer,
  version: SoapVersionName,
  params: Record<string, string> = SID_PARAMS,
) {
  const { headers, body } = soapRequest(version, "InsertSubscriberSid", params);
  const response = await fetch(server.endpointUrl, {
    method: "POST",
    headers,
    body,
    signal: AbortSignal.timeout(10_000),
  });
  return {
    status: response.status,
    contentType: response.headers.get("content-type"),
    body: await response.text(),
  };
}

async function postForm(server: FixtureServer, op = "InsertSubscriberSid", form = SID_FORM) {
  const response = await fetch(`${server.endpointUrl}/${op}`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: form,
    signal: AbortSignal.timeout(20_000),
  });
  return { status: response.status, headers: response.headers, body: await response.text() };
}

describe("body size limit", () => {
  const LIMIT = 4096;
  let s: Awaited<ReturnType<typeof scriptedServer>>;
  beforeAll(async () => {
    s = await scriptedServer({ maxBodyBytes: LIMIT });
  });
  afterAll(() => s.server.close());

  const targets = [
    {
      binding: "soap11",
      path: "",
      headers:
        'Content-Type: text/xml; charset=utf-8\r\nSOAPAction: "http://tempuri.org/InsertSubscriberSid"\r\n',
    },
    { binding: "soap12", path: "", headers: "Content-Type: application/soap+xml; charset=utf-8\r\n" },
    {
      binding: "httpPost",
      path: "/InsertSubscriberSid",
      headers: "Content-Type: application/x-www-form-urlencoded\r\n",
    },
  ] as const;

  function expectRefusal(
    binding: string,
    answer: {
      status: number;
      headers: Readonly<Record<string, string | string[] | undefined>>;
      body: string;
    },
  ) {
    expect(answer.status).toBe(413);
    if (binding === "httpPost") {
      expect(answer.headers["content-type"]).toBe("text/plain; charset=utf-8");
      expect(answer.headers["x-error-code"]).toBe("BodyTooLarge");
      expect(answer.body).toBe(`System.Web.HttpException: The request body is larger than ${LIMIT} bytes.`);
    } else {
      const fault = faultOf(answer.body);
      expect(fault.code).toBe(binding === "soap11" ? "Client" : "Sender");
      expect(fault.errorCode).toBe("BodyTooLarge");
      expect(fault.reason).toBe(`The request body is larger than ${LIMIT} bytes.`);
    }
  }

  it.each(targets)(
    "refuses a declared Content-Length over the limit before reading the body ($binding)",
    async (target) => {
      const before = s.script.runs;
      // 10 GB declared, 5 bytes sent: an answer can only come from the header (a server waiting for the
      // body never answers, and the test times out), however fast the machine is.
      const answer = await socketExchange(
        s.port,
        `POST /ExternalAPIService.asmx${target.path} HTTP/1.1\r\nHost: 127.0.0.1\r\n${target.headers}Content-Length: 10000000000\r\n\r\n<soap`,
      );
      expectRefusal(target.binding, answer);
      expect(answer.headers["connection"]).toBe("close");
      expect(s.script.runs).toBe(before);
    },
  );

  it.each(targets)("refuses a chunked body once it passes the limit ($binding)", async (target) => {
    const before = s.script.runs;
    const chunk = Buffer.from(`400\r\n${"x".repeat(0x400)}\r\n`);
    let chunks = 0;
    const answer = await socketExchange(
      s.port,
      `POST /ExternalAPIService.asmx${target.path} HTTP/1.1\r\nHost: 127.0.0.1\r\n${target.headers}Transfer-Encoding: chunked\r\n\r\n`,
      // At most 64 MiB: far past the limit, bounded if the server never answers.
      () => (++chunks <= 65536 ? chunk : undefined),
    );
    expectRefusal(target.binding, answer);
    // The server stopped the upload near the limit instead of taking all of it.
    expect(answer.bodyBytesSent).toBeLessThan(16 * 1024 * 1024);
    expect(s.script.runs).toBe(before);
  });

  it("refuses over fetch, as a client sees it", async () => {
    const before = s.script.runs;
    const response = await postForm(s.server, "InsertSubscriberSid", `${SID_FORM}&pad=${"x".repeat(LIMIT)}`);
    expect(response.status).toBe(413);
    expect(response.headers.get("x-error-code")).toBe("BodyTooLarge");
    expect(s.script.runs).toBe(before);
  });

  it("keeps serving after a caller goes away mid-upload", async () => {
    const before = s.script.runs;
    const { Socket } = await import("node:net");
    const socket = new Socket();
    await new Promise<void>((resolve) => socket.connect(s.port, "127.0.0.1", resolve));
    socket.write(
      `POST /ExternalAPIService.asmx/InsertSubscriberSid HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 1000\r\n\r\nstrUser`,
    );
    await new Promise((resolve) => setTimeout(resolve, 50));
    socket.destroy();
    await new Promise((resolve) => setTimeout(resolve, 50));
    const response = await postForm(s.server);
    expect(response.status).toBe(200);
    expect(s.script.runs).toBe(before + 1);
  });

  it("takes a body just under the limit", async () => {
    const form = `${SID_FORM}&pad=`;
    const before = s.script.runs;
    const response = await postForm(s.server, "InsertSubscriberSid", form + "x".repeat(LIMIT - form.length));
    expect(response.status).toBe(200);
    expect(s.script.runs).toBe(before + 1);
  });
});

describe("bulk CSV over HTTP POST under the default limit", () => {
  let server: FixtureServer;
  let received: { length: number; sha256: string } | undefined;
  beforeAll(async () => {
    server = await startFixtureServer({
      override: {
        InsertCsvSubscribersWithDemDataUpdateOption: ({ strCsvData }) => {
          received = {
            length: strCsvData.length,
            sha256: createHash("sha256").update(strCsvData).digest("hex"),
          };
          return strCsvData.split("\n").length;
        },
      },
    });
  });
  afterAll(() => server.close());

  it("accepts 20 MB of CSV and hands it to the handler intact", async () => {
    const rows: string[] = [];
    let size = 0;
    for (let i = 0; size < 20 * 1024 * 1024; i++) {
      // Rows of about 230 bytes: 20 MB stays under the spec's 100,000-row cap (csvSubscribers maxRows).
      const row = `subscriber${i}@example.test,Subscriber ${i} Åström ${"n".repeat(160)},${i % 2 ? "HTML" : "Text"},dd${i}|x`;
      rows.push(row);
      size += row.length + 1;
    }
    const csv = rows.join("\n");
    const form = new URLSearchParams({
      strUsername: "u",
      strPassword: "p",
      strMailingListId: "1",
      strCsvData: csv,
      strUpdate: "true",
    });
    const response = await postForm(server, "InsertCsvSubscribersWithDemDataUpdateOption", form.toString());
    expect(response.status, response.body).toBe(200);
    expect(response.body).toContain(`<int xmlns="http://tempuri.org/">${rows.length}</int>`);
    expect(received).toEqual({ length: csv.length, sha256: createHash("sha256").update(csv).digest("hex") });
  });
});

describe("hostile XML", () => {
  let s: Awaited<ReturnType<typeof scriptedServer>>;
  beforeAll(async () => {
    s = await scriptedServer();
  });
  afterAll(() => s.server.close());

  // XML the reader refuses gets 400 and no fault, as ASMX answers it (docs/wire.md §1a).
  it.each(soapVersions)("refuses deep nesting with 400 TooDeep, no fault (%s)", async (version) => {
    const { headers, body } = soapRequest(version, "InsertSubscriberSid", SID_PARAMS);
    const deep = body.replace(
      "<strName>N</strName>",
      `<strName>${"<a>".repeat(500)}N${"</a>".repeat(500)}</strName>`,
    );
    const before = s.script.runs;
    const response = await fetch(s.server.endpointUrl, { method: "POST", headers, body: deep });
    expect(response.status).toBe(400);
    expect(response.headers.get("x-error-code")).toBe("TooDeep");
    expect(await response.text()).toMatch(/^System\.InvalidOperationException: [^\n]+$/);
    expect(s.script.runs).toBe(before);
  });

  it.each(soapVersions)("refuses a DOCTYPE with 400 DoctypeRefused, no fault (%s)", async (version) => {
    const { headers, body } = soapRequest(version, "InsertSubscriberSid", {
      ...SID_PARAMS,
      strName: "&lol;",
    });
    const withDoctype = body
      .replace(
        '<?xml version="1.0" encoding="utf-8"?>',
        '<?xml version="1.0"?><!DOCTYPE x [<!ENTITY lol "lol">]>',
      )
      .replace("&amp;lol;", "&lol;");
    const response = await fetch(s.server.endpointUrl, { method: "POST", headers, body: withDoctype });
    expect(response.status).toBe(400);
    expect(response.headers.get("x-error-code")).toBe("DoctypeRefused");
    expect(await response.text()).not.toContain("<");
  });
});

describe("handler errors", () => {
  let s: Awaited<ReturnType<typeof scriptedServer>>;
  beforeAll(async () => {
    s = await scriptedServer();
  });
  afterAll(() => s.server.close());

  const credentialsError = () => {
    throw new ServiceError("InvalidCredentials", "The user name or password is wrong.", { side: "client" });
  };
  const secretError = () => {
    throw new Error("secret /etc/passwd at line 3");
  };

  it.each(soapVersions)("a ServiceError becomes a client fault with its code (%s)", async (version) => {
    s.script.behave = credentialsError;
    const response = await postSoap(s.server, version);
    expect(response.status).toBe(500);
    expect(faultOf(response.body)).toEqual({
      code: faultCodes[version].client,
      reason: "The user name or password is wrong.",
      errorCode: "InvalidCredentials",
      parameter: undefined,
    });
  });

  it("a ServiceError becomes a 500 text with x-error-code over HTTP", async () => {
    s.script.behave = credentialsError;
    const response = await postForm(s.server);
    expect(response.status).toBe(500);
    expect(response.headers.get("content-type")).toBe("text/plain; charset=utf-8");
    expect(response.headers.get("x-error-code")).toBe("InvalidCredentials");
    expect(response.body).toBe("System.ArgumentException: The user name or password is wrong.");
  });

  function expectNoLeak(body: string) {
    for (const leak of ["secret", "/etc/passwd", "line 3", "at ", ".ts", "node_modules", "Error:"]) {
      expect(body).not.toContain(leak);
    }
  }

  it.each(soapVersions)(
    "an unexpected error becomes a generic server fault and a log entry (%s)",
    async (version) => {
      s.script.behave = secretError;
      s.logs.length = 0;
      const response = await postSoap(s.server, version);
      expect(response.status).toBe(500);
      expectNoLeak(response.body);
      const fault = faultOf(response.body);
      expect(fault.code).toBe(faultCodes[version].server);
      expect(fault.errorCode).toBe("InternalError");
      expect(fault.reason).toBe("The server could not complete the request.");
      expect(s.logs).toHaveLength(1);
      expect(s.logs[0]).toMatchObject({ level: "error", operation: "InsertSubscriberSid" });
      expect((s.logs[0].error as Error).message).toBe("secret /etc/passwd at line 3");
      expect(s.logs[0].requestId).toMatch(/\S/);
    },
  );

  it("an unexpected error becomes a generic 500 text over HTTP", async () => {
    s.script.behave = secretError;
    s.logs.length = 0;
    const response = await postForm(s.server);
    expect(response.status).toBe(500);
    expect(response.headers.get("x-error-code")).toBe("InternalError");
    expect(response.body).toBe("System.Exception: The server could not complete the request.");
    expectNoLeak(response.body);
    expect(s.logs).toHaveLength(1);
  });

  it.each([
    ["a string for a long", "not a number"],
    ["an object for a long", { id: 1 }],
    ["nothing", undefined],
  ])("a wrongly shaped result (%s) becomes InternalError", async (_, value) => {
    s.script.behave = () => value as never;
    s.logs.length = 0;
    for (const version of soapVersions) {
      const fault = faultOf((await postSoap(s.server, version)).body);
      expect(fault.code).toBe(faultCodes[version].server);
      expect(fault.errorCode).toBe("InternalError");
    }
    const http = await postForm(s.server);
    expect(http.status).toBe(500);
    expect(http.headers.get("x-error-code")).toBe("InternalError");
    expect(s.logs.map((l) => l.message)).toEqual(
      Array(3).fill(expect.stringContaining("result of InsertSubscriberSid")),
    );
  });
});

describe("call context", () => {
  let s: Awaited<ReturnType<typeof scriptedServer>>;
  beforeAll(async () => {
    s = await scriptedServer();
  });
  afterAll(() => s.server.close());

  it("tells the handler who called, how, and under which request id", async () => {
    const contexts: CallContext[] = [];
    s.script.behave = (_, context) => {
      contexts.push(context);
      return 1n;
    };
    await postSoap(s.server, "soap11");
    await postSoap(s.server, "soap12");
    await postForm(s.server);
    await fetch(`${s.server.endpointUrl}/InsertSubscriberSid?${SID_FORM}`);
    expect(contexts.map((c) => c.binding)).toEqual(["soap11", "soap12", "httpPost", "httpGet"]);
    for (const c of contexts) {
      expect(c.operation).toBe("InsertSubscriberSid");
      expect(c.remoteAddress).toBe("127.0.0.1");
      expect(c.credentials).toEqual({ username: "u", password: "p" });
      expect(c.requestId).toMatch(/^\S+$/);
      expect(c.signal.aborted).toBe(false);
    }
    expect(new Set(contexts.map((c) => c.requestId)).size).toBe(4);
  });

  it("gives the handler the request id its log entry carries, however late the handler reads it", async () => {
    const contexts: CallContext[] = [];
    s.script.behave = (_, context) => {
      contexts.push(context);
      throw new Error("unexpected");
    };
    s.logs.length = 0;
    await postSoap(s.server, "soap11");
    await postForm(s.server);
    expect(s.logs).toHaveLength(2);
    // Read only now, after the call was answered and logged: made on first read, the same id.
    expect(contexts.map((c) => c.requestId)).toEqual(s.logs.map((l) => l.requestId));
    expect(contexts.map((c) => c.requestId)).toEqual(contexts.map((c) => c.requestId));
  });

  it("aborts the handler's signal when the caller disconnects mid-call", async () => {
    let context: CallContext | undefined;
    let entered!: () => void;
    const inHandler = new Promise<void>((resolve) => (entered = resolve));
    let abortSeen!: Promise<unknown>;
    s.script.behave = async (_, c) => {
      context = c;
      abortSeen = new Promise((resolve) => c.signal.addEventListener("abort", resolve));
      entered();
      await abortSeen;
      return 1n;
    };
    const caller = new AbortController();
    const { headers, body } = soapRequest("soap11", "InsertSubscriberSid", SID_PARAMS);
    const call = fetch(s.server.endpointUrl, { method: "POST", headers, body, signal: caller.signal });
    await inHandler;
    expect(context?.signal.aborted).toBe(false);
    caller.abort();
    await expect(call).rejects.toThrow();
    // The abort event itself, not a poll; a signal never aborted fails at the test's time limit.
    await abortSeen;
    expect(context?.signal.aborted).toBe(true);
  });
});

describe("handler time limit", () => {
  let s: Awaited<ReturnType<typeof scriptedServer>>;
  beforeAll(async () => {
    s = await scriptedServer({ handlerTimeoutMs: 150 });
  });
  afterAll(() => s.server.close());

  it.each(soapVersions)(
    "answers a fault when the handler overruns, and aborts its signal (%s)",
    async (version) => {
      let context: CallContext | undefined;
      // A handler that ignores its signal and never finishes.
      s.script.behave = (_, c) => {
        context = c;
        return new Promise<never>(() => {});
      };
      // No bound on the elapsed time: a handler that never finishes gets an answer only from the 150 ms
      // limit (postSoap gives up after 10 s, far short of the 120 s default), and the fault names it.
      const response = await postSoap(s.server, version);
      expect(response.status).toBe(500);
      const fault = faultOf(response.body);
      expect(fault.code).toBe(faultCodes[version].server);
      expect(fault.errorCode).toBe("RequestTimeout");
      expect(context?.signal.aborted).toBe(true);
    },
  );

  it("answers a 500 text over HTTP when a handler that heeds its signal overruns", async () => {
    let context: CallContext | undefined;
    s.script.behave = async (_, c) => {
      context = c;
      await new Promise((resolve) => c.signal.addEventListener("abort", resolve));
      return 1n;
    };
    const response = await postForm(s.server);
    expect(response.status).toBe(500);
    expect(response.headers.get("x-error-code")).toBe("RequestTimeout");
    expect(context?.signal.aborted).toBe(true);
  });

  it("lets a handler that finishes in time answer", async () => {
    s.script.behave = () => 5n;
    const response = await postForm(s.server);
    expect(response.status).toBe(200);
    expect(response.body).toContain(">5</long>");
  });
});

// Raw node:http, to check the client side of a declared-length refusal as .NET clients see it.
describe("a declared oversize body over node:http", () => {
  it("gets the 413 answer", async () => {
    const s = await scriptedServer({ maxBodyBytes: 100 });
    try {
      const response = await rawRequest(`${s.server.endpointUrl}/InsertSubscriberSid`, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded", "content-length": 1000 },
        body: "x".repeat(1000),
      });
      expect(response.status).toBe(413);
      expect(response.headers["x-error-code"]).toBe("BodyTooLarge");
    } finally {
      await s.server.close();
    }
  });
});
