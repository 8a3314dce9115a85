// A few slow or idle peers must not starve the others: a request holds only the body bytes that have
// arrived (not the Content-Length it announces), takes its call slot (maxConcurrentCalls) once its body is
// in, and is cut (408, connection closed) when its body stops arriving at minBodyBytesPerSecond over
// bodyTimeoutMs. Node adapter over loopback, and the fetch adapter.

import net from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import type { AddressInfo } from "node:net";
import { createHandler, createServer, type ServerOptions } from "../../generated/server.js";
import { sampleImplementation } from "../fixtures/fixture-server.js";
import { listenOnLoopback, rawRequest, soapRequest, type Listening } from "../fixtures/raw-http.js";
import { SOAP11_REQUEST_VALUES as SID_PARAMS } from "../fixtures/wire-samples.js";

const open: Listening[] = [];
const sockets: net.Socket[] = [];
afterEach(async () => {
  for (const s of sockets.splice(0)) s.destroy();
  await Promise.all(open.splice(0).map((l) => l.close()));
});

async function serve(options: ServerOptions): Promise<Listening> {
  const l = await listenOnLoopback(
    createHandler(sampleImplementation([]), { log: () => undefined, ...options }),
  );
  open.push(l);
  return l;
}

/** A SOAP call that must be answered (the probe). */
function probe(l: Listening) {
  const { headers, body } = soapRequest("soap11", "InsertSubscriberSid", SID_PARAMS);
  return rawRequest(`${l.origin}/ExternalAPIService.asmx`, { method: "POST", headers, body });
}

interface Peer {
  readonly socket: net.Socket;
  /** Everything the server sent, once it closed the connection. */
  readonly closed: Promise<string>;
}

/** A peer announcing a body of `length` bytes and sending `first` of it; the head is in once this resolves. */
async function slowPeer(l: Listening, length: number, first: string): Promise<Peer> {
  const socket = net.connect(l.port, "127.0.0.1");
  sockets.push(socket);
  let text = "";
  socket.on("data", (c: Buffer) => (text += c.toString("latin1")));
  socket.on("error", () => undefined);
  const closed = new Promise<string>((resolve) => socket.on("close", () => resolve(text)));
  await new Promise<void>((resolve) => socket.on("connect", () => resolve()));
  socket.write(
    `POST /ExternalAPIService.asmx HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: text/xml; charset=utf-8\r\n` +
      `SOAPAction: "http://tempuri.org/InsertSubscriberSid"\r\nContent-Length: ${length}\r\n\r\n${first}`,
  );
  // The server has read the head once a request after it on another connection is answered.
  await probe(l);
  return { socket, closed };
}

/** Far past the limits the tests set (a few hundred ms), far short of the 10 s default: no bound on speed. */
const WITHIN_MS = 8_000;

function within<T>(promise: Promise<T>, what: string): Promise<T> {
  return Promise.race([
    promise,
    new Promise<T>((_, reject) =>
      setTimeout(() => reject(new Error(`${what} not within ${WITHIN_MS} ms`)), WITHIN_MS).unref(),
    ),
  ]);
}

describe("node adapter: slow and idle bodies", () => {
  it("two idle peers announcing 48 MiB each (over the 96 MiB budget together) do not block SOAP calls", async () => {
    const l = await serve({});
    await slowPeer(l, 48 * 1024 * 1024, "<");
    await slowPeer(l, 48 * 1024 * 1024, "<");
    for (let i = 0; i < 5; i++) expect((await probe(l)).status).toBe(200);
  });

  it("two peers announcing 48 MiB that send two pieces and idle (an upload's buffer is made at its second) do not block calls", async () => {
    const l = await serve({});
    for (let k = 0; k < 2; k++) {
      const peer = await slowPeer(l, 48 * 1024 * 1024, "<");
      peer.socket.write("?xml");
      await probe(l);
    }
    for (let i = 0; i < 5; i++) expect((await probe(l)).status).toBe(200);
  });

  it("holds only the bytes that arrived: an announced 900 KB with 1 byte sent leaves room for a 600 KB call", async () => {
    const l = await serve({ maxBufferedBytes: 1_000_000 });
    await slowPeer(l, 900_000, "<");
    const { headers, body } = soapRequest("soap11", "InsertSubscriberSid", {
      ...SID_PARAMS,
      strName: "n".repeat(600_000),
    });
    expect(
      (await rawRequest(`${l.origin}/ExternalAPIService.asmx`, { method: "POST", headers, body })).status,
    ).toBe(200);
  });

  it("more idle peers than maxConcurrentCalls do not take the call slots", async () => {
    const l = await serve({ maxConcurrentCalls: 3 });
    for (let i = 0; i < 6; i++) await slowPeer(l, 1000, "<");
    for (let i = 0; i < 5; i++) expect((await probe(l)).status).toBe(200);
  });

  it("still refuses at once, before 100 Continue, a body the budget has no room for now (createServer)", async () => {
    const server = createServer(sampleImplementation([]), { maxBufferedBytes: 1000 });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    try {
      const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const answer = await rawRequest(`${origin}/ExternalAPIService.asmx/InsertSubscriberSid`, {
        method: "POST",
        headers: {
          "content-type": "application/x-www-form-urlencoded",
          expect: "100-continue",
          "content-length": 5000,
        },
        body: "x".repeat(5000),
        waitForContinue: true,
      });
      expect([answer.status, answer.continued]).toEqual([503, false]);
    } finally {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });

  it("cuts a body that stops arriving: 408, connection closed, within twice bodyTimeoutMs", async () => {
    const l = await serve({ bodyTimeoutMs: 200 });
    const peer = await slowPeer(l, 1000, "<");
    const started = performance.now();
    const text = await within(peer.closed, "the cut");
    expect(text).toMatch(/^HTTP\/1\.1 408 /);
    expect(text.toLowerCase()).toContain("x-error-code: requesttimeout");
    expect(performance.now() - started).toBeGreaterThanOrEqual(150);
    expect((await probe(l)).status).toBe(200);
  });

  it("cuts a body trickling under minBodyBytesPerSecond, not one arriving above it", async () => {
    const l = await serve({ bodyTimeoutMs: 300, minBodyBytesPerSecond: 1000 });
    const { body } = soapRequest("soap11", "InsertSubscriberSid", SID_PARAMS);
    const padded = body.replace("<strName>N</strName>", `<strName>N</strName><pad>${" ".repeat(3000)}</pad>`);
    // 10 bytes every 100 ms: 100 B/s, a tenth of the minimum.
    const slow = await slowPeer(l, Buffer.byteLength(padded), padded.slice(0, 10));
    let at = 10;
    const drip = setInterval(() => {
      if (at < padded.length && !slow.socket.destroyed) slow.socket.write(padded.slice(at, (at += 10)));
    }, 100);
    try {
      expect(await within(slow.closed, "the cut")).toMatch(/^HTTP\/1\.1 408 /);
    } finally {
      clearInterval(drip);
    }
    // 400 bytes every 100 ms: 4,000 B/s, four times the minimum, over about a second (three windows).
    const fair = await slowPeer(l, Buffer.byteLength(padded), padded.slice(0, 400));
    let sent = 400;
    const answer = new Promise<string>((resolve) => {
      let text = "";
      fair.socket.on("data", (c: Buffer) => {
        text += c.toString("latin1");
        if (/\r\n\r\n[^]*<\/soap:Envelope>/.test(text)) resolve(text);
      });
    });
    const steady = setInterval(() => {
      if (sent < padded.length) fair.socket.write(padded.slice(sent, (sent += 400)));
    }, 100);
    try {
      expect(await within(answer, "the answer")).toMatch(/^HTTP\/1\.1 200 /);
    } finally {
      clearInterval(steady);
    }
  });

  it("refuses bodyTimeoutMs and minBodyBytesPerSecond that are not numbers of the right range, naming them", () => {
    expect(() => createHandler(sampleImplementation([]), { bodyTimeoutMs: 0 })).toThrow(/bodyTimeoutMs/);
    // A timer past 2^31 - 1 ms fires after 1 ms: Infinity would cut every body (or time out every handler) at once.
    expect(() =>
      createHandler(sampleImplementation([]), { bodyTimeoutMs: Number.POSITIVE_INFINITY }),
    ).toThrow(/bodyTimeoutMs/);
    expect(() => createHandler(sampleImplementation([]), { handlerTimeoutMs: 2 ** 31 })).toThrow(
      /handlerTimeoutMs/,
    );
    expect(() => createHandler(sampleImplementation([]), { minBodyBytesPerSecond: -1 })).toThrow(
      /minBodyBytesPerSecond/,
    );
    expect(() => createHandler(sampleImplementation([]), { minBodyBytesPerSecond: Number.NaN })).toThrow(
      /minBodyBytesPerSecond/,
    );
    expect(() => createHandler(sampleImplementation([]), { minBodyBytesPerSecond: 0 })).not.toThrow();
  });
});

describe("fetch adapter: slow and idle bodies", () => {
  /** A request whose body sends `first` and then nothing more (until cancelled). */
  function stalled(first: string, length?: number): Request {
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new TextEncoder().encode(first));
      },
    });
    const { headers } = soapRequest("soap11", "InsertSubscriberSid", SID_PARAMS);
    return new Request("http://127.0.0.1/ExternalAPIService.asmx", {
      method: "POST",
      headers: { ...headers, ...(length === undefined ? {} : { "content-length": String(length) }) },
      body,
      duplex: "half",
    } as RequestInit);
  }

  function call(handler: ReturnType<typeof createHandler>): Promise<Response> {
    const { headers, body } = soapRequest("soap11", "InsertSubscriberSid", SID_PARAMS);
    return handler.fetch(
      new Request("http://127.0.0.1/ExternalAPIService.asmx", { method: "POST", headers, body }),
    );
  }

  it("a stalled body takes no call slot and is answered 408 after bodyTimeoutMs", async () => {
    const handler = createHandler(sampleImplementation([]), {
      maxConcurrentCalls: 1,
      bodyTimeoutMs: 200,
      log: () => undefined,
    });
    const pending = handler.fetch(stalled("<", 1000));
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect((await call(handler)).status).toBe(200);
    const response = await within(pending, "the 408");
    expect(response.status).toBe(408);
    expect(response.headers.get("x-error-code")).toBe("RequestTimeout");
  });

  it("a stalled body announcing more than the byte budget holds only what arrived", async () => {
    const handler = createHandler(sampleImplementation([]), {
      maxBufferedBytes: 10_000,
      bodyTimeoutMs: 300,
      log: () => undefined,
    });
    const pending = handler.fetch(stalled("<", 9_000));
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect((await call(handler)).status).toBe(200);
    expect((await within(pending, "the 408")).status).toBe(408);
  });
});
