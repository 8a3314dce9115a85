// The server stays up and answers every request, whatever a handler throws, whatever the logger does,
// however many uploads arrive at once and whatever Host header a caller sends (issue 7, items 3-7 and 9).

import http from "node:http";
import net, { type AddressInfo } from "node:net";
import { afterEach, describe, expect, it, vi } from "vitest";
import {
  createHandler,
  createServer,
  ServiceError,
  type CallContext,
  type ExternalAPIService,
  type ServerOptions,
} from "../../generated/server.js";
import { sampleImplementation } from "../fixtures/fixture-server.js";
import {
  faultOf,
  listenOnLoopback,
  rawRequest,
  socketExchange,
  soapRequest,
  wsdlAddresses,
  type Listening,
} from "../fixtures/raw-http.js";
import { SOAP11_REQUEST_VALUES as SID_PARAMS } from "../fixtures/wire-samples.js";

const SID_FORM = new URLSearchParams(SID_PARAMS).toString();
const open: Listening[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((l) => l.close()));
  vi.restoreAllMocks();
});

async function serve(override: Partial<ExternalAPIService>, options: ServerOptions = {}): Promise<Listening> {
  const listening = await listenOnLoopback(
    createHandler(sampleImplementation([], override), { log: () => undefined, ...options }),
  );
  open.push(listening);
  return listening;
}

/** One InsertSubscriberSid call over each binding, as raw requests. */
function sidCalls(origin: string): {
  binding: string;
  send: () => Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string }>;
}[] {
  const endpoint = `${origin}/ExternalAPIService.asmx`;
  return [
    ...(["soap11", "soap12"] as const).map((version) => ({
      binding: version,
      send: () => {
        const { headers, body } = soapRequest(version, "InsertSubscriberSid", SID_PARAMS);
        return rawRequest(endpoint, { method: "POST", headers, body });
      },
    })),
    { binding: "httpGet", send: () => rawRequest(`${endpoint}/InsertSubscriberSid?${SID_FORM}`) },
    {
      binding: "httpPost",
      send: () =>
        rawRequest(`${endpoint}/InsertSubscriberSid`, {
          method: "POST",
          headers: { "content-type": "application/x-www-form-urlencoded" },
          body: SID_FORM,
        }),
    },
  ];
}

/** A ServiceError with any field set to anything, as a careless handler might build one. */
function forged(fields: Record<string, unknown>): ServiceError {
  const error = new ServiceError("Code", "message");
  for (const [key, value] of Object.entries(fields)) Object.defineProperty(error, key, { value });
  return error;
}

describe("whatever a handler throws, every binding answers and the server stays up", () => {
  const thrown: [string, () => unknown][] = [
    ["a code with CR/LF", () => forged({ code: "Bad\r\nX-Injected: 1" })],
    ["a code with non-Latin-1 characters", () => forged({ code: "Ung\u00fcltig\ud83d\ude00" })],
    ["a code with NUL", () => forged({ code: "Bad\u0000Code" })],
    ["status 0", () => forged({ status: 0 })],
    ["status 1000", () => forged({ status: 1000 })],
    ["status NaN", () => forged({ status: Number.NaN })],
    ["a message with NUL and CR/LF", () => forged({ message: "one\u0000two\r\nthree" })],
    ["an object without a prototype", () => Object.create(null)],
    [
      "a Proxy whose every trap throws",
      () =>
        new Proxy(
          {},
          new Proxy(
            {},
            {
              get: () => () => {
                throw new Error("trap");
              },
            },
          ),
        ),
    ],
    ["a Symbol", () => Symbol("thrown")],
    ["undefined", () => undefined],
  ];
  for (const [name, make] of thrown) {
    it(`${name} (sync and async)`, async () => {
      let asyncMode = false;
      const l = await serve({
        InsertSubscriberSid: () => {
          const value = make();
          if (asyncMode) return Promise.reject(value);
          throw value;
        },
      });
      for (const mode of [false, true]) {
        asyncMode = mode;
        for (const call of sidCalls(l.origin)) {
          const answer = await call.send();
          expect(answer.status, `${call.binding} ${mode ? "async" : "sync"}`).toBe(500);
          const code = call.binding.startsWith("soap")
            ? faultOf(answer.body).errorCode
            : answer.headers["x-error-code"];
          expect(code).toMatch(/^[A-Za-z0-9_.-]+$/);
          if (!call.binding.startsWith("soap")) {
            expect(answer.body).toMatch(/^[A-Za-z_][\w.]*: [^\r\n\u0000]*$/);
            expect(answer.headers["x-content-type-options"]).toBe("nosniff");
          }
        }
      }
      // Still up: a well-behaved operation on the same server answers.
      const ok = await rawRequest(
        `${l.origin}/ExternalAPIService.asmx/GetNewsletterFilters?strUsername=u&strPassword=p&intNewsletterId=1`,
      );
      expect(ok.status).toBe(200);
    });
  }

  it("a ServiceError's own valid status and code reach the wire", async () => {
    const l = await serve({
      InsertSubscriberSid: () => {
        throw new ServiceError("Throttled", "Too many calls.", { status: 429 });
      },
    });
    const answer = await sidCalls(l.origin)[2].send();
    expect(answer.status).toBe(429);
    expect(answer.headers["x-error-code"]).toBe("Throttled");
    expect(answer.body).toBe("System.Exception: Too many calls.");
  });
});

describe("a handler's parameters", () => {
  it.each(["soap11", "soap12", "httpGet", "httpPost"])(
    "over %s: own keys only, none inherited (toString, constructor, __proto__ read as absent)",
    async (binding) => {
      const seen: Record<string, unknown>[] = [];
      const l = await serve({
        InsertSubscriberSid: (params) => {
          seen.push(params as unknown as Record<string, unknown>);
          return 1n;
        },
      });
      const call = sidCalls(l.origin).find((c) => c.binding === binding)!;
      expect((await call.send()).status).toBe(200);
      const params = seen[0]!;
      expect(Object.keys(params)).toEqual([
        "strEmail",
        "strName",
        "strFormat",
        "strCountryCode",
        "strPhoneNumber",
        "strMailingListID",
      ]);
      expect(params.strMailingListID).toBe("1");
      for (const name of ["toString", "constructor", "hasOwnProperty", "__proto__", "strUsername"]) {
        expect(name in params, name).toBe(false);
        expect(params[name], name).toBeUndefined();
      }
      // A key set later is an own key like any other, __proto__ included.
      params["__proto__"] = "x";
      expect(Object.keys(params)).toContain("__proto__");
    },
  );
});

describe("logging never costs an answer", () => {
  it("the default logger describes a rejection with no prototype", async () => {
    const lines: string[] = [];
    vi.spyOn(console, "error").mockImplementation((line: unknown) => void lines.push(String(line)));
    const handler = createHandler(
      sampleImplementation([], { InsertSubscriberSid: () => Promise.reject(Object.create(null)) }),
    );
    const l = await listenOnLoopback(handler);
    open.push(l);
    for (let i = 0; i < 20; i++) expect((await sidCalls(l.origin)[2].send()).status).toBe(500);
    expect(lines).toHaveLength(20);
    expect(JSON.parse(lines[0])).toMatchObject({ level: "error", error: "[object with no prototype]" });
  });

  it("a logger that throws is ignored", async () => {
    const l = await serve(
      {
        InsertSubscriberSid: () => {
          throw new Error("boom");
        },
      },
      {
        log: () => {
          throw new Error("logger down");
        },
      },
    );
    for (const call of sidCalls(l.origin)) expect((await call.send()).status).toBe(500);
  });
});

describe("Express/Connect: next() only for paths that are not ours", () => {
  it("answers a handler's failure itself instead of passing it to next", async () => {
    const nextCalls: unknown[] = [];
    // A code with CR/LF made writeHead throw inside the answer's promise: the request hung under Express.
    const handler = createHandler(
      sampleImplementation([], {
        InsertSubscriberSid: async () => {
          throw forged({ code: "A\r\nB" });
        },
      }),
      {
        log: () => undefined,
      },
    );
    const l = await listenOnLoopback((req, res) =>
      handler(req, res, (error?: unknown) => {
        nextCalls.push(error);
        res.writeHead(404).end();
      }),
    );
    open.push(l);
    for (const call of sidCalls(l.origin)) expect((await call.send()).status).toBe(500);
    expect(nextCalls).toEqual([]);
    expect((await rawRequest(`${l.origin}/elsewhere`)).status).toBe(404);
    expect(nextCalls).toEqual([undefined]);
  });
});

describe("fetch adapter", () => {
  it("answers a forged status with a well-formed 500", async () => {
    const handler = createHandler(
      sampleImplementation([], {
        InsertSubscriberSid: () => {
          throw forged({ status: 1000, code: "A\r\nB" });
        },
      }),
      {
        log: () => undefined,
      },
    );
    const response = await handler.fetch(
      new Request(`http://127.0.0.1/ExternalAPIService.asmx/InsertSubscriberSid?${SID_FORM}`),
    );
    expect(response.status).toBe(500);
    expect(response.headers.get("x-error-code")).toBe("AB");
  });

  it("refuses a body over the server-wide budget with 503", async () => {
    const handler = createHandler(sampleImplementation([]), { maxBufferedBytes: 1000 });
    const response = await handler.fetch(
      new Request("http://127.0.0.1/ExternalAPIService.asmx/InsertSubscriberSid", {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: `${SID_FORM}&pad=${"x".repeat(2000)}`,
      }),
    );
    expect(response.status).toBe(503);
    expect(response.headers.get("x-error-code")).toBe("ServerBusy");
  });
});

describe("server-wide budget", () => {
  /** A server whose InsertCsvSubscribersWithDemDataUpdateOption waits until `release` is called. */
  async function blockingServer(options: ServerOptions) {
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const entered: string[] = [];
    const waiting: Array<{ count: number; resolve: () => void }> = [];
    /** Resolves once `count` handlers have started: an event, not a poll. */
    const whenEntered = (count: number) =>
      new Promise<void>((resolve) =>
        entered.length >= count ? resolve() : waiting.push({ count, resolve }),
      );
    const l = await serve(
      {
        InsertCsvSubscribersWithDemDataUpdateOption: async (params) => {
          entered.push(params.strMailingListId);
          for (const w of waiting) if (entered.length >= w.count) w.resolve();
          await gate;
          return 1;
        },
      },
      options,
    );
    return { l, entered, whenEntered, release: () => release() };
  }

  function csvPost(origin: string, list: string, size: number) {
    const csv = `a@b.example,N,HTML\n${"c@d.example,M,Text\n".repeat(Math.ceil(size / 19))}`
      .slice(0, size)
      .replace(/\n[^\n]*$/, "");
    return rawRequest(`${origin}/ExternalAPIService.asmx/InsertCsvSubscribersWithDemDataUpdateOption`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({
        strUsername: "u",
        strPassword: "p",
        strMailingListId: list,
        strCsvData: csv,
        strUpdate: "false",
      }).toString(),
    });
  }

  it("answers 503 at once when buffered bodies would pass maxBufferedBytes, and gives the bytes back", async () => {
    const s = await blockingServer({ maxBufferedBytes: 300_000 });
    const first = csvPost(s.l.origin, "1", 200_000);
    await s.whenEntered(1);
    expect(s.entered).toEqual(["1"]);
    const second = await csvPost(s.l.origin, "2", 200_000);
    expect(second.status).toBe(503);
    expect(second.headers["retry-after"]).toBe("1");
    expect(second.headers["x-error-code"]).toBe("ServerBusy");
    s.release();
    expect((await first).status).toBe(200);
    // The first upload's bytes were given back: the same size fits again.
    expect((await csvPost(s.l.origin, "3", 200_000)).status).toBe(200);
  });

  it("answers 503 when maxConcurrentCalls requests are in progress", async () => {
    const s = await blockingServer({ maxConcurrentCalls: 2 });
    const held = [csvPost(s.l.origin, "1", 100), csvPost(s.l.origin, "2", 100)];
    await s.whenEntered(2);
    expect(s.entered).toHaveLength(2);
    const third = await csvPost(s.l.origin, "3", 100);
    expect(third.status).toBe(503);
    s.release();
    expect((await Promise.all(held)).map((r) => r.status)).toEqual([200, 200]);
    expect((await csvPost(s.l.origin, "4", 100)).status).toBe(200);
  });

  it("never says 100 Continue to a body the budget cannot take", async () => {
    const server = createServer(sampleImplementation([]), { maxBufferedBytes: 1000 });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      const body = `${SID_FORM}&pad=${"x".repeat(5000)}`;
      const answer = await rawRequest(`${origin}/ExternalAPIService.asmx/InsertSubscriberSid`, {
        method: "POST",
        headers: {
          "content-type": "application/x-www-form-urlencoded",
          expect: "100-continue",
          "content-length": body.length,
        },
        body,
        waitForContinue: true,
      });
      expect(answer.status).toBe(503);
      expect(answer.continued).toBe(false);
      const small = await rawRequest(`${origin}/ExternalAPIService.asmx/InsertSubscriberSid`, {
        method: "POST",
        headers: {
          "content-type": "application/x-www-form-urlencoded",
          expect: "100-continue",
          "content-length": SID_FORM.length,
        },
        body: SID_FORM,
        waitForContinue: true,
      });
      expect(small.status).toBe(200);
      expect(small.continued).toBe(true);
    } finally {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });

  // The node adapter gives a request's share back when the answer is handed to Node, or when the
  // connection closes first (one close watcher per connection, no listener per request).
  /** The server side of the next connection, and a promise of its close. */
  function nextServerSocket(l: Listening): Promise<{ closed: Promise<void> }> {
    return new Promise((resolve) =>
      l.server.once("connection", (socket: net.Socket) =>
        resolve({ closed: new Promise<void>((done) => socket.once("close", () => done())) }),
      ),
    );
  }

  it("gives each request's share back as it is answered (maxConcurrentCalls 1, 20 calls on one kept-alive connection)", async () => {
    const l = await serve({}, { maxConcurrentCalls: 1 });
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    let connections = 0;
    l.server.on("connection", () => connections++);
    const statuses: number[] = [];
    try {
      for (let k = 0; k < 20; k++) {
        statuses.push(
          await new Promise<number>((resolve, reject) => {
            const req = http.get(
              `${l.origin}/ExternalAPIService.asmx/InsertSubscriberSid?${SID_FORM}`,
              { agent },
              (res) => {
                res.resume();
                res.on("end", () => resolve(res.statusCode ?? 0));
              },
            );
            req.on("error", reject);
          }),
        );
      }
    } finally {
      agent.destroy();
    }
    expect(statuses).toEqual(Array.from({ length: 20 }, () => 200));
    expect(connections).toBe(1);
  });

  it("gives a request's bytes back when its caller hangs up in the middle of the body", async () => {
    // A request holds the body bytes that have arrived (not its call slot, taken once the body is in).
    const l = await serve({}, { maxBufferedBytes: 2000 });
    const serverSide = nextServerSocket(l);
    const socket = net.connect(l.port, "127.0.0.1");
    socket.write(
      "POST /ExternalAPIService.asmx/InsertSubscriberSid HTTP/1.1\r\nHost: 127.0.0.1\r\n" +
        `Content-Type: application/x-www-form-urlencoded\r\nContent-Length: 1900\r\n\r\nstrUsername=u&pad=${"x".repeat(1480)}`,
    );
    const { closed } = await serverSide;
    const padded = () =>
      rawRequest(`${l.origin}/ExternalAPIService.asmx/InsertSubscriberSid`, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: `${SID_FORM}&pad=${"y".repeat(800 - SID_FORM.length)}`,
      });
    // The half-sent request's 1,493 bytes leave no room for 800 more (a poll of bounded length: the bytes
    // reach the server after its connection does).
    let busy = 0;
    for (let k = 0; k < 50 && busy === 0; k++) {
      const answer = await padded();
      if (answer.status === 503) busy++;
      else await new Promise((resolve) => setTimeout(resolve, 10));
    }
    expect(busy).toBe(1);
    socket.destroy();
    await closed;
    expect((await padded()).status).toBe(200);
  });

  it("gives the shares of pipelined requests back when their caller hangs up before they are answered", async () => {
    const s = await blockingServer({ maxConcurrentCalls: 2 });
    const serverSide = nextServerSocket(s.l);
    const socket = net.connect(s.l.port, "127.0.0.1");
    const request = (list: string) => {
      const body = new URLSearchParams({
        strUsername: "u",
        strPassword: "p",
        strMailingListId: list,
        strCsvData: "a@b.example,N,HTML",
        strUpdate: "false",
      }).toString();
      return (
        `POST /ExternalAPIService.asmx/InsertCsvSubscribersWithDemDataUpdateOption HTTP/1.1\r\nHost: 127.0.0.1\r\n` +
        `Content-Type: application/x-www-form-urlencoded\r\nContent-Length: ${body.length}\r\n\r\n${body}`
      );
    };
    socket.write(request("1") + request("2"));
    const { closed } = await serverSide;
    await s.whenEntered(2);
    expect((await csvPost(s.l.origin, "3", 100)).status).toBe(503);
    socket.destroy();
    await closed;
    // Both handlers are still waiting at the gate, but their caller is gone: the calls are free again.
    const fourth = csvPost(s.l.origin, "4", 100);
    await s.whenEntered(3);
    s.release();
    expect((await fourth).status).toBe(200);
  });
});

describe("Host header", () => {
  const wsdlWith = (l: Listening, host: string, extra: Record<string, string> = {}) =>
    socketExchange(
      l.port,
      `GET /ExternalAPIService.asmx?WSDL HTTP/1.1\r\nHost: ${host}\r\n${Object.entries(extra)
        .map(([k, v]) => `${k}: ${v}\r\n`)
        .join("")}\r\n`,
    );

  it("publicUrl is the WSDL's address whatever Host says", async () => {
    const l = await serve({}, { publicUrl: "https://api.example/soap/" });
    const answer = await wsdlWith(l, "evil.example", { "x-forwarded-host": "evil.example" });
    expect(
      wsdlAddresses(answer.body).every((a) => a === "https://api.example/soap/ExternalAPIService.asmx"),
    ).toBe(true);
  });

  it("a Host with user info is not used; the listening address is", async () => {
    const l = await serve({});
    const answer = await wsdlWith(l, "good.example@evil.example");
    expect(answer.status).toBe(200);
    expect(new Set(wsdlAddresses(answer.body))).toEqual(
      new Set([`http://127.0.0.1:${l.port}/ExternalAPIService.asmx`]),
    );
  });

  it("a Host outside allowedHosts is not used", async () => {
    const l = await serve({}, { allowedHosts: ["good.example"] });
    expect(new Set(wsdlAddresses((await wsdlWith(l, "evil.example")).body))).toEqual(
      new Set([`http://127.0.0.1:${l.port}/ExternalAPIService.asmx`]),
    );
    expect(new Set(wsdlAddresses((await wsdlWith(l, "good.example")).body))).toEqual(
      new Set(["http://good.example/ExternalAPIService.asmx"]),
    );
  });

  it("a Host the URL parser refuses still gets a whole answer on the help pages", async () => {
    const l = await serve({});
    for (const path of [
      "/ExternalAPIService.asmx",
      "/ExternalAPIService.asmx?op=InsertSubscriberSid",
      "/ExternalAPIService.asmx?WSDL",
    ]) {
      const answer = await socketExchange(l.port, `GET ${path} HTTP/1.1\r\nHost: [bad\r\n\r\n`);
      expect(answer.status, path).toBe(200);
      expect(answer.body.length).toBeGreaterThan(100);
      expect(answer.body).not.toContain("[bad");
    }
  });

  it("the help page's test form posts to a path, never to the Host the page was asked under", async () => {
    const l = await serve({});
    const page = await socketExchange(
      l.port,
      "GET /ExternalAPIService.asmx?op=InsertSubscriberSid HTTP/1.1\r\nHost: evil.example\r\n\r\n",
    );
    const action = /<form[^>]* action="([^"]*)"/.exec(page.body)?.[1];
    expect(action).toBe("/ExternalAPIService.asmx/InsertSubscriberSid");
  });
});

describe("absolute-form request targets (RFC 9112 §3.2.2) and hosts only the URL parser refuses", () => {
  const get = (l: Listening, target: string, host = "good.example") =>
    socketExchange(l.port, `GET ${target} HTTP/1.1\r\nHost: ${host}\r\n\r\n`);
  const listening = (l: Listening) => `http://127.0.0.1:${l.port}/ExternalAPIService.asmx`;

  it("the target's authority replaces Host in the WSDL's address; the target is never appended to a host", async () => {
    const l = await serve({});
    for (const [target, want] of [
      ["https://x.example/ExternalAPIService.asmx?WSDL", "http://x.example/ExternalAPIService.asmx"],
      ["http://x.example:8080/ExternalAPIService.asmx?wsdl", "http://x.example:8080/ExternalAPIService.asmx"],
      ["HTTP://x.example/base/ExternalAPIService.asmx?WSDL", "http://x.example/base/ExternalAPIService.asmx"],
      // An authority that is not a plain host[:port] is not used, as a Host would not be: the listening address is.
      ["http://good.example@evil.example/ExternalAPIService.asmx?WSDL", listening(l)],
      ["http://x.example:99999/ExternalAPIService.asmx?WSDL", listening(l)],
      ["http://[::1/ExternalAPIService.asmx?WSDL", listening(l)],
      ["http://1.2.3.256/ExternalAPIService.asmx?WSDL", listening(l)],
    ] as const) {
      const answer = await get(l, target);
      expect(answer.status, target).toBe(200);
      expect(new Set(wsdlAddresses(answer.body)), target).toEqual(new Set([want]));
    }
  });

  it("allowedHosts and publicUrl apply to the target's authority as to a Host", async () => {
    const allowed = await serve({}, { allowedHosts: ["good.example"] });
    const evil = await get(allowed, "http://evil.example/ExternalAPIService.asmx?WSDL", "good.example");
    expect(new Set(wsdlAddresses(evil.body))).toEqual(new Set([listening(allowed)]));
    const good = await get(allowed, "http://good.example/ExternalAPIService.asmx?WSDL", "evil.example");
    expect(new Set(wsdlAddresses(good.body))).toEqual(
      new Set(["http://good.example/ExternalAPIService.asmx"]),
    );
    const fixed = await serve({}, { publicUrl: "https://api.example/soap" });
    const answer = await get(fixed, "http://evil.example/ExternalAPIService.asmx?WSDL");
    expect(new Set(wsdlAddresses(answer.body))).toEqual(
      new Set(["https://api.example/soap/ExternalAPIService.asmx"]),
    );
  });

  it("serves the help pages and calls at an absolute-form target; the form posts to the path", async () => {
    const l = await serve({});
    const page = await get(l, "https://x.example/ExternalAPIService.asmx?op=InsertSubscriberSid");
    expect(page.status).toBe(200);
    expect(/<form[^>]* action="([^"]*)"/.exec(page.body)?.[1]).toBe(
      "/ExternalAPIService.asmx/InsertSubscriberSid",
    );
    const index = await get(l, "http://x.example/ExternalAPIService.asmx");
    expect(index.status).toBe(200);
    expect(index.body).not.toContain("good.example");
    const call = await get(l, `http://x.example/ExternalAPIService.asmx/InsertSubscriberSid?${SID_FORM}`);
    expect(call.status).toBe(200);
    const { headers, body } = soapRequest("soap11", "InsertSubscriberSid", SID_PARAMS);
    const soap = await socketExchange(
      l.port,
      `POST http://x.example/ExternalAPIService.asmx HTTP/1.1\r\nHost: good.example\r\n${Object.entries(
        headers,
      )
        .map(([k, v]) => `${k}: ${v}\r\n`)
        .join("")}` + `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
    );
    expect(soap.status).toBe(200);
    // Not the endpoint's path: not ours (404 without a next()).
    expect((await get(l, "http://x.example/elsewhere")).status).toBe(404);
  });

  it("answers a Host (or an authority) only the URL parser refuses with the listening address, never 500, never a log line", async () => {
    const lines: unknown[] = [];
    const l = await serve({}, { log: (entry) => void lines.push(entry) });
    for (const host of ["[:::::]", "[1.2.3.4]", "1.2.3.256", "example.123"]) {
      for (const page of ["", "?op=InsertSubscriberSid", "?WSDL"]) {
        for (const [target, hostHeader] of [
          [`/ExternalAPIService.asmx${page}`, host],
          [`http://${host}/ExternalAPIService.asmx${page}`, "good.example"],
        ]) {
          const answer = await get(l, target, hostHeader);
          expect(answer.status, `${target} Host: ${hostHeader}`).toBe(200);
          expect(answer.body, target).not.toContain(host);
        }
      }
    }
    expect(lines).toEqual([]);
  });

  it("the same through Connect-style mounting (the mount stripped from an absolute-form req.url)", async () => {
    const handler = createHandler(sampleImplementation([]), { log: () => undefined });
    const l = await listenOnLoopback((req, res) => {
      const original = req.url ?? "/";
      // Express keeps the scheme and authority and strips the mount path after them.
      const m = /^(https?:\/\/[^/]*)\/api(\/.*)$/i.exec(original);
      if (m) {
        (req as { originalUrl?: string }).originalUrl = original;
        req.url = `${m[1]}${m[2]}`;
      }
      handler(req, res, () => res.writeHead(404).end());
    });
    open.push(l);
    const answer = await get(l, "http://x.example/api/ExternalAPIService.asmx?WSDL");
    expect(answer.status).toBe(200);
    expect(new Set(wsdlAddresses(answer.body))).toEqual(
      new Set(["http://x.example/api/ExternalAPIService.asmx"]),
    );
  });
});

describe("pipelined requests whose caller goes away", () => {
  for (const count of [2, 50]) {
    it(`aborts the signal of every one of ${count} pipelined calls`, async () => {
      const aborted: string[] = [];
      const started: string[] = [];
      // Events, not polls: the first handler starting, and every started handler's signal aborting.
      let firstStarted!: () => void;
      const oneStarted = new Promise<void>((resolve) => (firstStarted = resolve));
      let allAborted!: () => void;
      const startedAborted = new Promise<void>((resolve) => (allAborted = resolve));
      const l = await serve({
        GetRoiResults: (params, context: CallContext) =>
          new Promise((resolve) => {
            started.push(params.strSendQueueId);
            firstStarted();
            context.signal.addEventListener("abort", () => {
              aborted.push(params.strSendQueueId);
              if (aborted.length === started.length) allAborted();
              resolve([]);
            });
          }),
      });
      const socket = net.connect(l.port, "127.0.0.1");
      await new Promise<void>((resolve) => socket.once("connect", () => resolve()));
      let requests = "";
      for (let i = 0; i < count; i++) {
        requests += `GET /ExternalAPIService.asmx/GetRoiResults?strUsername=u&strPassword=p&strSendQueueId=${i} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`;
      }
      socket.write(requests);
      // Node runs pipelined requests one at a time: the first handler starts, the rest wait in line.
      await oneStarted;
      socket.destroy();
      await startedAborted;
      // Requests that never reached a handler cannot be aborted; every one that did was.
      expect(new Set(aborted)).toEqual(new Set(started));
    });
  }
});

describe("request body charsets", () => {
  async function echoServer() {
    const seen: string[] = [];
    const l = await serve({
      InsertSubscriberSid: (params) => {
        seen.push(params.strName ?? "");
        return 1n;
      },
    });
    return { l, seen };
  }
  const soapBody = (name: string, declaration = '<?xml version="1.0" encoding="utf-8"?>') =>
    `${declaration}<soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/"><soap:Body><InsertSubscriberSid xmlns="http://tempuri.org/"><strUsername>u</strUsername><strPassword>p</strPassword><strEmail>a@b.example</strEmail><strName>${name}</strName><strMailingListID>1</strMailingListID></InsertSubscriberSid></soap:Body></soap:Envelope>`;
  const soapHeaders = (contentType: string) => ({
    "content-type": contentType,
    soapaction: '"http://tempuri.org/InsertSubscriberSid"',
  });

  it("reads an iso-8859-1 body as Latin-1", async () => {
    const { l, seen } = await echoServer();
    const body = Buffer.from(soapBody("Jos\u00e9", '<?xml version="1.0" encoding="iso-8859-1"?>'), "latin1");
    const answer = await rawRequest(`${l.origin}/ExternalAPIService.asmx`, {
      method: "POST",
      headers: soapHeaders("text/xml; charset=iso-8859-1"),
      body,
    });
    expect(answer.status).toBe(200);
    expect(seen).toEqual(["Jos\u00e9"]);
  });

  it("reads a UTF-16 body with a byte order mark, as .NET clients can send it", async () => {
    const { l, seen } = await echoServer();
    const body = Buffer.concat([
      Buffer.from([0xff, 0xfe]),
      Buffer.from(soapBody("\u65e5\u672c", '<?xml version="1.0" encoding="utf-16"?>'), "utf16le"),
    ]);
    const answer = await rawRequest(`${l.origin}/ExternalAPIService.asmx`, {
      method: "POST",
      headers: soapHeaders("text/xml; charset=utf-16"),
      body,
    });
    expect(answer.status).toBe(200);
    expect(seen).toEqual(["\u65e5\u672c"]);
  });

  it("refuses invalid UTF-8 instead of passing U+FFFD to the handler", async () => {
    const { l, seen } = await echoServer();
    const [head, tail] = soapBody("@@").split("@@");
    const body = Buffer.concat([Buffer.from(head), Buffer.from([0xc3, 0x28]), Buffer.from(tail)]);
    const answer = await rawRequest(`${l.origin}/ExternalAPIService.asmx`, {
      method: "POST",
      headers: soapHeaders("text/xml; charset=utf-8"),
      body,
    });
    expect(answer.status).toBe(400);
    expect(seen).toEqual([]);
  });

  it("refuses invalid UTF-8 in an HTTP POST body", async () => {
    const { l, seen } = await echoServer();
    const body = Buffer.concat([Buffer.from(`${SID_FORM}&strName=`), Buffer.from([0xff, 0xfe, 0x41])]);
    const answer = await rawRequest(`${l.origin}/ExternalAPIService.asmx/InsertSubscriberSid`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body,
    });
    expect(answer.status).toBe(400);
    expect(answer.headers["x-error-code"]).toBe("InvalidEncoding");
    expect(seen).toEqual([]);
  });

  it("answers 415 for a charset it does not support", async () => {
    const { l, seen } = await echoServer();
    const answer = await rawRequest(`${l.origin}/ExternalAPIService.asmx`, {
      method: "POST",
      headers: soapHeaders("text/xml; charset=x-klingon"),
      body: soapBody("N"),
    });
    expect(answer.status).toBe(415);
    expect(seen).toEqual([]);
  });
});
