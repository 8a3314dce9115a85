// The generated client against hostile servers on loopback: endless and dripping bodies, a gzip bomb,
// redirects to another origin, answers with too many attributes or elements, and answers in other charsets.
// Each call settles with the right typed error within the configured bounds, and memory stays far below
// what the server tried to make the client hold.

import type { IncomingMessage, ServerResponse } from "node:http";
import zlib from "node:zlib";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import {
  ClientCallError,
  createClient,
  HttpBindingError,
  RedirectError,
  ResponseFormatError,
  ResponseTooLargeError,
  TimeoutError,
  type ClientConfig,
} from "../../generated/client.js";
// The server's model: the codecs here write and read both sides.
import { serverModel as service, serverOperations as operations } from "../../generated/server-model.js";
import { bindingFactories, bindingNames } from "../fixtures/bindings.js";
import { readXmlWithFastXmlParser } from "../oracle/fxp.js";
import { readXml } from "../../generated/runtime/xml/scan.js";
import { listenOnLoopback, type Listening } from "../fixtures/raw-http.js";
import { CREDENTIALS, samples } from "../fixtures/samples.js";
import { timeRatioAsync } from "../fixtures/growth.js";
import type { BindingName } from "../../generated/runtime/model.js";

const MiB = 1024 * 1024;
const SOAP11_NS = "http://schemas.xmlsoap.org/soap/envelope/";

/** Resolves with what `promise` rejects with; fails the test when it resolves. */
async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    const value = await promise;
    throw new Error(`expected a rejection, got ${String(value)}`);
  } catch (error) {
    return error;
  }
}

/** Runs `run`, sampling RSS every few milliseconds; the growth is peak minus the RSS before, in MiB. */
async function withPeakRss<T>(
  run: () => Promise<T>,
): Promise<{ outcome: PromiseSettledResult<T>; growthMiB: number }> {
  const before = process.memoryUsage().rss;
  let peak = before;
  const sample = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().rss);
  }, 5);
  const [outcome] = await Promise.allSettled([run()]);
  clearInterval(sample);
  peak = Math.max(peak, process.memoryUsage().rss);
  return { outcome, growthMiB: (peak - before) / MiB };
}

/** What a handler of the hostile server does with one request, once its body has been read. */
type Behaviour = (req: IncomingMessage, res: ServerResponse) => void;

let behaviour: Behaviour = (_req, res) => res.end();
let hostile: Listening;
let requests = 0;
beforeAll(async () => {
  hostile = await listenOnLoopback((req, res) => {
    requests++;
    req.resume();
    req.on("end", () => behaviour(req, res));
  });
});
afterAll(() => hostile.close());

const client = (binding: BindingName, config: Partial<ClientConfig> = {}) =>
  createClient({ baseUrl: hostile.origin, binding, ...CREDENTIALS, ...config });
const callSid = (binding: BindingName, config: Partial<ClientConfig> = {}) =>
  client(binding, config).InsertSubscriberSid(samples.InsertSubscriberSid.params);

/** Writes `chunk` until the connection closes or `cap` bytes are out, honouring backpressure. */
function pour(
  res: ServerResponse,
  chunk: Buffer,
  cap: number,
): { sent: () => number; closed: Promise<void> } {
  let sent = 0;
  const closed = new Promise<void>((resolve) => res.on("close", () => resolve()));
  const pump = () => {
    while (!res.destroyed && sent < cap) {
      sent += chunk.length;
      if (!res.write(chunk)) {
        res.once("drain", pump);
        return;
      }
    }
    if (!res.destroyed) res.end();
  };
  pump();
  return { sent: () => sent, closed };
}

/** Resolves when `closed` does, or fails after `ms`. */
async function within(closed: Promise<void>, ms: number, what: string): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not happen within ${ms} ms`)), ms);
  });
  try {
    await Promise.race([closed, late]);
  } finally {
    clearTimeout(timer);
  }
}

describe("answers that never end", () => {
  it.each(bindingNames)(
    "an endless body stops at maxResponseBytes and the connection is closed (%s)",
    async (binding) => {
      let stream: ReturnType<typeof pour> | undefined;
      behaviour = (_req, res) => {
        res.writeHead(200, { "content-type": "text/xml; charset=utf-8" });
        stream = pour(res, Buffer.alloc(64 * 1024, 0x20), 1024 * MiB);
      };
      const error = await rejection(callSid(binding, { maxResponseBytes: MiB }));
      expect(error).toBeInstanceOf(ResponseTooLargeError);
      expect(error).toBeInstanceOf(ClientCallError);
      expect(error).toMatchObject({ maxResponseBytes: MiB, binding, operation: "InsertSubscriberSid" });
      expect((error as Error).message).toBe(
        "InsertSubscriberSid: the answer is larger than maxResponseBytes (1048576 bytes)",
      );
      await within(stream!.closed, 5000, "closing the connection");
      // What sat in socket buffers when the client stopped, not the 1 GiB the server meant to send.
      expect(stream!.sent()).toBeLessThan(64 * MiB);
    },
  );

  it("an endless body stops at the default maxResponseBytes of 64 MiB, with RSS growth far below the 1 GiB sent", async () => {
    let stream: ReturnType<typeof pour> | undefined;
    behaviour = (_req, res) => {
      res.writeHead(200, { "content-type": "text/xml; charset=utf-8" });
      stream = pour(res, Buffer.alloc(256 * 1024, 0x20), 1024 * MiB);
    };
    const { outcome, growthMiB } = await withPeakRss(() => callSid("soap11"));
    expect(outcome.status).toBe("rejected");
    expect((outcome as PromiseRejectedResult).reason).toMatchObject({
      name: "ResponseTooLargeError",
      maxResponseBytes: 64 * MiB,
    });
    await within(stream!.closed, 5000, "closing the connection");
    expect(growthMiB).toBeLessThan(200);
  });

  it("a Content-Length above maxResponseBytes is refused before the body is read", async () => {
    let stream: ReturnType<typeof pour> | undefined;
    behaviour = (_req, res) => {
      res.writeHead(200, { "content-type": "text/xml; charset=utf-8", "content-length": String(512 * MiB) });
      stream = pour(res, Buffer.alloc(64 * 1024, 0x20), 512 * MiB);
    };
    const error = await rejection(callSid("soap12", { maxResponseBytes: 4 * MiB }));
    expect(error).toMatchObject({ name: "ResponseTooLargeError", maxResponseBytes: 4 * MiB });
    await within(stream!.closed, 5000, "closing the connection");
    expect(stream!.sent()).toBeLessThan(64 * MiB);
  });

  it.each(bindingNames)(
    "a body dripping a byte every 100 ms ends in a TimeoutError at timeoutMs (%s)",
    async (binding) => {
      let closed: Promise<void> = Promise.resolve();
      behaviour = (_req, res) => {
        res.writeHead(200, { "content-type": "text/xml; charset=utf-8" });
        closed = new Promise((resolve) => res.on("close", () => resolve()));
        const body = Buffer.from(`<?xml version="1.0" encoding="utf-8"?>${" ".repeat(10_000)}`);
        let i = 0;
        const drip = setInterval(() => {
          if (res.destroyed || i >= body.length) {
            clearInterval(drip);
            res.end();
            return;
          }
          res.write(body.subarray(i, ++i));
        }, 100);
      };
      // No upper bound on the elapsed time: the whole drip takes 1,000 s, so a time limit that did not
      // cover the body (or restarted at every byte) never settles and fails at the test's time limit.
      const error = await rejection(callSid(binding, { timeoutMs: 400 }));
      expect(error).toBeInstanceOf(TimeoutError);
      expect(error).toMatchObject({ timeoutMs: 400, binding });
      await within(closed, 5000, "closing the connection");
    },
  );
});

describe("a gzip bomb", () => {
  const DECOMPRESSED = 300 * MiB;
  let bomb: Buffer;
  beforeAll(async () => {
    // 300 MiB of spaces through real zlib, fed a MiB at a time so the test itself never holds them.
    const gzip = zlib.createGzip({ level: 9 });
    const parts: Buffer[] = [];
    gzip.on("data", (part: Buffer) => parts.push(part));
    const done = new Promise((resolve) => gzip.on("end", resolve));
    const block = Buffer.alloc(MiB, 0x20);
    for (let i = 0; i < DECOMPRESSED / MiB; i++) {
      if (!gzip.write(block)) await new Promise((resolve) => gzip.once("drain", resolve));
    }
    gzip.end();
    await done;
    bomb = Buffer.concat(parts);
  });

  it("300 KB that inflate to 300 MiB stop at maxResponseBytes, counted after decompression", async () => {
    expect(bomb.length).toBeLessThan(MiB);
    let closed: Promise<void> = Promise.resolve();
    behaviour = (_req, res) => {
      closed = new Promise((resolve) => res.on("close", () => resolve()));
      res.writeHead(200, {
        "content-type": "text/xml; charset=utf-8",
        "content-encoding": "gzip",
        "content-length": bomb.length,
      });
      res.end(bomb);
    };
    const { outcome, growthMiB } = await withPeakRss(() => callSid("soap11"));
    expect(outcome.status).toBe("rejected");
    const error = (outcome as PromiseRejectedResult).reason;
    expect(error).toBeInstanceOf(ResponseTooLargeError);
    expect(error).toMatchObject({ maxResponseBytes: 64 * MiB });
    expect(growthMiB).toBeLessThan(200);
    await within(closed, 5000, "closing the connection");
  });

  it("a small maxResponseBytes stops the bomb after a few MiB", async () => {
    behaviour = (_req, res) => {
      res.writeHead(200, { "content-type": "text/xml; charset=utf-8", "content-encoding": "gzip" });
      res.end(bomb);
    };
    const { outcome, growthMiB } = await withPeakRss(() =>
      callSid("httpPost", { maxResponseBytes: 2 * MiB }),
    );
    expect((outcome as PromiseRejectedResult).reason).toMatchObject({
      name: "ResponseTooLargeError",
      maxResponseBytes: 2 * MiB,
    });
    expect(growthMiB).toBeLessThan(100);
  });
});

describe("redirects", () => {
  let elsewhere: Listening;
  let elsewhereRequests = 0;
  beforeAll(async () => {
    elsewhere = await listenOnLoopback((req, res) => {
      elsewhereRequests++;
      req.resume();
      res.writeHead(200, { "content-type": "text/xml; charset=utf-8" }).end();
    });
  });
  afterAll(() => elsewhere.close());

  const redirectTo =
    (status: number, location: string | undefined): Behaviour =>
    (_req, res) => {
      res.writeHead(status, location === undefined ? {} : { location }).end("moved");
    };

  it.each(bindingNames)(
    "a 307 to another origin is a RedirectError and the other origin gets nothing (%s)",
    async (binding) => {
      behaviour = redirectTo(307, `${elsewhere.origin}/steal/ExternalAPIService.asmx`);
      const before = requests;
      const error = await rejection(callSid(binding));
      expect(error).toBeInstanceOf(RedirectError);
      expect(error).toBeInstanceOf(ClientCallError);
      expect(error).toMatchObject({
        status: 307,
        targetOrigin: elsewhere.origin,
        binding,
        operation: "InsertSubscriberSid",
      });
      expect((error as Error).message).toBe(
        `InsertSubscriberSid: the answer is HTTP 307 to ${elsewhere.origin}, which the client does not follow`,
      );
      expect(requests - before).toBe(1);
      expect(elsewhereRequests).toBe(0);
    },
  );

  it.each([301, 302, 303, 308])("a %i is not followed either", async (status) => {
    behaviour = redirectTo(status, `${elsewhere.origin}/ExternalAPIService.asmx`);
    expect(await rejection(callSid("soap11"))).toMatchObject({
      name: "RedirectError",
      status,
      targetOrigin: elsewhere.origin,
    });
    expect(elsewhereRequests).toBe(0);
  });

  it("a redirect to the same origin is not followed (one request) and names that origin", async () => {
    behaviour = redirectTo(302, "/other/ExternalAPIService.asmx");
    const before = requests;
    expect(await rejection(callSid("httpGet"))).toMatchObject({ status: 302, targetOrigin: hostile.origin });
    expect(requests - before).toBe(1);
  });

  it("a 3xx without a readable Location is a RedirectError without a target", async () => {
    behaviour = redirectTo(301, "http://[bad");
    expect(await rejection(callSid("soap11"))).toMatchObject({
      name: "RedirectError",
      status: 301,
      targetOrigin: undefined,
    });
    behaviour = redirectTo(300, undefined);
    expect(await rejection(callSid("soap11"))).toMatchObject({
      name: "RedirectError",
      status: 300,
      targetOrigin: undefined,
    });
  });

  it("a browser's opaque redirect is a RedirectError without status or target, and fetch is asked not to follow", async () => {
    const inits: RequestInit[] = [];
    const opaque = {
      type: "opaqueredirect",
      status: 0,
      headers: new Headers(),
      body: null,
    } as unknown as Response;
    const fetch = (async (_input: string | URL | Request, init?: RequestInit) => {
      inits.push(init ?? {});
      return opaque;
    }) as typeof globalThis.fetch;
    const error = await rejection(callSid("soap12", { fetch }));
    expect(error).toMatchObject({ name: "RedirectError", status: undefined, targetOrigin: undefined });
    expect((error as Error).message).toBe(
      "InsertSubscriberSid: the answer is a redirect, which the client does not follow",
    );
    expect(inits.map((init) => init.redirect)).toEqual(["manual"]);
  });
});

describe("answers too big to parse", () => {
  const soapAnswer = (open: string, inner: string) =>
    `<?xml version="1.0" encoding="utf-8"?><soap:Envelope xmlns:soap="${SOAP11_NS}"><soap:Body>` +
    `${open}<InsertSubscriberSidResult>42</InsertSubscriberSidResult>${inner}</InsertSubscriberSidResponse></soap:Body></soap:Envelope>`;
  const serve =
    (body: string): Behaviour =>
    (_req, res) => {
      res.writeHead(200, { "content-type": "text/xml; charset=utf-8" }).end(body);
    };
  const readers = [
    ["the scanner", undefined],
    ["fast-xml-parser", readXmlWithFastXmlParser],
  ] as const;

  /** An answer as long as `body` that reads without refusal: whitespace between the response's elements. */
  const plainAnswerAsLongAs = (body: string) => {
    const short = soapAnswer('<InsertSubscriberSidResponse xmlns="http://tempuri.org/">', "");
    return soapAnswer(
      '<InsertSubscriberSidResponse xmlns="http://tempuri.org/">',
      " ".repeat(body.length - short.length),
    );
  };

  it.each(readers)("100,000 attributes on one element are refused quickly (%s)", async (_, xmlReader) => {
    const attributes = Array.from({ length: 100_000 }, (_, i) => ` a${i}="1"`).join("");
    const hostileBody = soapAnswer(
      `<InsertSubscriberSidResponse xmlns="http://tempuri.org/"${attributes}>`,
      "",
    );
    const plainBody = plainAnswerAsLongAs(hostileBody);
    behaviour = serve(hostileBody);
    const error = await rejection(callSid("soap11", { xmlReader }));
    expect(error).toBeInstanceOf(ResponseFormatError);
    expect((error as Error).cause).toMatchObject({ name: "XmlRefusal", reason: "attributes" });
    // Quickly, against a plain answer of the same 1.1 MB in the same run rather than in milliseconds:
    // ~1 time measured; the old reader took 13 s for 0.6 MB, hundreds of times a plain read. The scanner
    // only: fast-xml-parser reads the plain answer's whitespace slowly, so the ratio says nothing there.
    if (xmlReader !== undefined) return;
    const ratio = await timeRatioAsync(
      () => ((behaviour = serve(plainBody)), callSid("soap11", { xmlReader })),
      () => ((behaviour = serve(hostileBody)), callSid("soap11", { xmlReader }).catch(() => undefined)),
    );
    expect(ratio).toBeLessThan(10);
  });

  it.each(readers)(
    "2,000,000 elements are refused at maxElements, without the tree (%s)",
    async (_, xmlReader) => {
      const hostileBody = soapAnswer(
        '<InsertSubscriberSidResponse xmlns="http://tempuri.org/">',
        "<a/>".repeat(2_000_000),
      );
      behaviour = serve(hostileBody);
      // No time bound: that the readers refuse at the limit without reading further is shown exactly in
      // test/runtime/xml/limits.test.ts; here, that the client keeps no tree of the rest.
      const { outcome, growthMiB } = await withPeakRss(() => callSid("soap11", { xmlReader }));
      const error = (outcome as PromiseRejectedResult).reason;
      expect(error).toBeInstanceOf(ResponseFormatError);
      expect((error as Error).cause).toMatchObject({ name: "XmlRefusal", reason: "elements" });
      expect(growthMiB).toBeLessThan(300);
    },
  );

  it("maxElements in the config bounds an answer; the default reads a list of 20 records", async () => {
    const trigger = (i: number) => ({
      Id: i,
      Name: `t${i}`,
      Created: "2024-05-06T07:08:09",
      MailinglistId: 5,
      MailinglistName: "L",
    });
    const records = Array.from({ length: 20 }, (_, i) => trigger(i));
    const answer = bindingFactories
      .soap11(service, { readXml })
      .encodeResponse(operations.GetTriggerIdForAccount, records, {});
    behaviour = serve(answer.body);
    const list = await client("soap11").GetTriggerIdForAccount({});
    expect(list).toHaveLength(20);
    const error = await rejection(client("soap11", { maxElements: 50 }).GetTriggerIdForAccount({}));
    expect(error).toBeInstanceOf(ResponseFormatError);
    expect((error as Error).cause).toMatchObject({ reason: "elements" });
  });
});

describe("answers in other charsets", () => {
  const RECORD = {
    Id: 1,
    Name: "café",
    Created: "2024-05-06T07:08:09",
    MailinglistId: 5,
    MailinglistName: "Löfgren",
  };

  /** The answer of GetTriggerIdForAccount with RECORD, as the binding writes it, and its content type's media type. */
  function wellFormed(binding: BindingName): { body: string; media: string } {
    const answer = bindingFactories[binding](service, { readXml }).encodeResponse(
      operations.GetTriggerIdForAccount,
      [RECORD],
      {},
    );
    return { body: answer.body, media: (answer.headers["content-type"] ?? "").split(";")[0] };
  }
  const serveBytes =
    (contentType: string, bytes: Uint8Array): Behaviour =>
    (_req, res) => {
      res.writeHead(200, { "content-type": contentType }).end(bytes);
    };
  const latin1 = (text: string) => Buffer.from(text, "latin1");
  const call = (binding: BindingName) => client(binding).GetTriggerIdForAccount({});

  it.each(bindingNames)(
    "an iso-8859-1 answer (Content-Type charset) reads é correctly (%s)",
    async (binding) => {
      const { body, media } = wellFormed(binding);
      behaviour = serveBytes(
        `${media}; charset=iso-8859-1`,
        latin1(body.replace('encoding="utf-8"', 'encoding="iso-8859-1"')),
      );
      const [record] = await call(binding);
      expect(record).toMatchObject({ Name: "café", MailinglistName: "Löfgren" });
    },
  );

  it.each(bindingNames)(
    "an iso-8859-1 answer named only by its XML declaration reads é correctly (%s)",
    async (binding) => {
      const { body, media } = wellFormed(binding);
      behaviour = serveBytes(media, latin1(body.replace('encoding="utf-8"', 'encoding="ISO-8859-1"')));
      const [record] = await call(binding);
      expect(record).toMatchObject({ Name: "café", MailinglistName: "Löfgren" });
    },
  );

  it.each(bindingNames)("a UTF-16 answer with a byte order mark is read (%s)", async (binding) => {
    const { body, media } = wellFormed(binding);
    const text = `\ufeff${body.replace('encoding="utf-8"', 'encoding="utf-16"')}`;
    behaviour = serveBytes(`${media}; charset=utf-16`, Buffer.from(text, "utf16le"));
    const [record] = await call(binding);
    expect(record).toMatchObject({ Name: "café", MailinglistName: "Löfgren" });
  });

  it.each(bindingNames)(
    "an answer with invalid UTF-8 is a ResponseFormatError, not U+FFFD in a value (%s)",
    async (binding) => {
      const { body, media } = wellFormed(binding);
      const [before, after] = body.split("café");
      behaviour = serveBytes(
        `${media}; charset=utf-8`,
        Buffer.concat([Buffer.from(before), Buffer.from([0x63, 0x61, 0x66, 0xc3]), Buffer.from(after)]),
      );
      const error = await rejection(call(binding));
      expect(error).toBeInstanceOf(ResponseFormatError);
      expect((error as Error).message).toBe(
        "GetTriggerIdForAccount: HTTP 200: the answer cannot be read as text (The body is not valid UTF-8.)",
      );
    },
  );

  it("a charset the client does not read is a ResponseFormatError naming it", async () => {
    const { body } = wellFormed("soap11");
    behaviour = serveBytes("text/xml; charset=shift_jis", Buffer.from(body));
    const error = await rejection(call("soap11"));
    expect(error).toBeInstanceOf(ResponseFormatError);
    expect((error as Error).message).toContain('The charset "shift_jis" is not supported.');
  });

  it("an HTTP binding's iso-8859-1 error text is read in its charset", async () => {
    behaviour = (_req, res) => {
      res
        .writeHead(500, { "content-type": "text/plain; charset=iso-8859-1" })
        .end(latin1("System.Exception: Fermé à clé."));
    };
    const error = await rejection(call("httpGet"));
    expect(error).toBeInstanceOf(HttpBindingError);
    expect(error).toMatchObject({ exceptionType: "System.Exception", reason: "Fermé à clé." });
  });
});

describe("client defaults and limits", () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  /** A fetch that answers only by rejecting when its signal aborts. */
  const hangingFetch = (async (_input: string | URL | Request, init?: RequestInit) =>
    new Promise<Response>((_, reject) => {
      init?.signal?.addEventListener("abort", () => reject(init.signal?.reason));
    })) as typeof fetch;

  it("times a call out after 100 s by default, as .NET's client does", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    let settled: unknown = "pending";
    const call = callSid("soap11", { fetch: hangingFetch }).catch((error: unknown) => (settled = error));
    await vi.advanceTimersByTimeAsync(99_999);
    expect(settled).toBe("pending");
    await vi.advanceTimersByTimeAsync(1);
    await call;
    expect(settled).toBeInstanceOf(TimeoutError);
    expect(settled).toMatchObject({ timeoutMs: 100_000 });
  });

  it.each([0, Infinity])("timeoutMs %s means no time limit", async (timeoutMs) => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    const controller = new AbortController();
    let settled: unknown = "pending";
    const call = client("soap11", { fetch: hangingFetch, timeoutMs })
      .InsertSubscriberSid(samples.InsertSubscriberSid.params, { signal: controller.signal })
      .catch((error: unknown) => (settled = error));
    await vi.advanceTimersByTimeAsync(30 * 24 * 3600 * 1000);
    expect(settled).toBe("pending");
    controller.abort();
    await call;
    expect((settled as Error).name).toBe("AbortError");
  });

  it("a timeoutMs beyond the longest timer still waits (it does not fire at once)", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    let settled: unknown = "pending";
    const call = callSid("soap11", { fetch: hangingFetch, timeoutMs: 1e12 }).catch(
      (error: unknown) => (settled = error),
    );
    await vi.advanceTimersByTimeAsync(24 * 3600 * 1000);
    expect(settled).toBe("pending");
    await vi.advanceTimersByTimeAsync(2 ** 31);
    await call;
    expect(settled).toBeInstanceOf(TimeoutError);
  });

  it("the time limit covers the body even with a fetch that ignores the signal once the headers are in", async () => {
    let cancelled = false;
    const stalled = new ReadableStream<Uint8Array>({
      start: (controller) => controller.enqueue(new TextEncoder().encode("<?xml")),
      cancel: () => {
        cancelled = true;
      },
    });
    const fetch = (async () =>
      new Response(stalled, { headers: { "content-type": "text/xml" } })) as typeof globalThis.fetch;
    const error = await rejection(callSid("soap11", { fetch, timeoutMs: 100 }));
    expect(error).toBeInstanceOf(TimeoutError);
    expect(cancelled).toBe(true);
  });

  it.each([
    [{ timeoutMs: -1 }, "timeoutMs must be a non-negative number; got -1."],
    [{ timeoutMs: Number.NaN }, "timeoutMs must be a non-negative number; got NaN."],
    [{ maxResponseBytes: 0 }, "maxResponseBytes must be a positive number; got 0."],
    [{ maxElements: -5 }, "maxElements must be a positive number; got -5."],
    [{ maxElements: Number.NaN }, "maxElements must be a positive number; got NaN."],
    [{ maxResponseBytes: "64" as unknown as number }, "maxResponseBytes must be a positive number; got 64."],
  ])("refuses the config %j with a TypeError", (config, message) => {
    expect(() => client("soap11", config)).toThrow(new TypeError(message));
  });

  it.each([0, Infinity])("takes timeoutMs %s as no time limit", async (timeoutMs) => {
    const answer =
      '<?xml version="1.0" encoding="utf-8"?><soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/"><soap:Body>' +
      '<InsertSubscriberSidResponse xmlns="http://tempuri.org/"><InsertSubscriberSidResult>42</InsertSubscriberSidResult></InsertSubscriberSidResponse></soap:Body></soap:Envelope>';
    const fetch = (async () =>
      new Response(answer, {
        headers: { "content-type": "text/xml; charset=utf-8" },
      })) as typeof globalThis.fetch;
    expect(await callSid("soap11", { fetch, timeoutMs })).toBe(42n);
  });
});
