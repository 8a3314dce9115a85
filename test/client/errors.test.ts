// The generated client's typed errors: faults and error texts from a real generated server, unreadable
// answers from a canned server, refused connections, timeouts, caller aborts and bad input.

import type { IncomingMessage } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  ClientCallError,
  createClient,
  HttpBindingError,
  ResponseFormatError,
  SoapFaultError,
  TimeoutError,
  TransportError,
  type ClientConfig,
} from "../../generated/client.js";
import { bindingNames } from "../../generated/runtime/server/bindings.js";
import { httpErrorSide, ServiceFaultError } from "../../generated/runtime/errors.js";
import { textErrorResponse } from "../../generated/runtime/protocol/text-error.js";
import { startFixtureServer, type FixtureServer } from "../fixtures/fixture-server.js";
import { listenOnLoopback, type Listening } from "../fixtures/raw-http.js";
import { CREDENTIALS, samples } from "../fixtures/samples.js";
import type { BindingName } from "../../generated/runtime/model.js";

const soapBindings = ["soap11", "soap12"] as const;
const httpBindings = ["httpGet", "httpPost"] as const;
const BAD_FORMAT = { ...samples.InsertSubscriberSid.params, strFormat: "Bogus" as "HTML" };

/** Resolves with what `promise` rejects with; fails the test when it resolves. */
async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    const value = await promise;
    throw new Error(`expected a rejection, got ${String(value)}`);
  } catch (error) {
    return error;
  }
}

/** The fixture server, with SendSmsWithSenderName throwing an error whose text must never reach the wire. */
function startFailingSmsServer(): Promise<FixtureServer> {
  return startFixtureServer({
    log: () => {},
    override: {
      SendSmsWithSenderName: () => {
        throw new Error("database at /var/lib/x is down");
      },
    },
  });
}

describe("errors the service answers with", () => {
  let server: FixtureServer;
  beforeAll(async () => {
    server = await startFailingSmsServer();
  });
  afterAll(() => server.close());

  const client = (binding: BindingName) => createClient({ baseUrl: server.baseUrl, binding, ...CREDENTIALS });
  /** What every binding's error says about the server refusing BAD_FORMAT. */
  const refusedFormat = (binding: BindingName) => ({
    errorCode: "InvalidValue",
    reason: "strFormat must be HTML or Text.",
    binding,
    operation: "InsertSubscriberSid",
  });

  it.each(soapBindings)(
    "a client fault becomes SoapFaultError with its code and parameter (%s)",
    async (binding) => {
      const error = await rejection(client(binding).InsertSubscriberSid(BAD_FORMAT));
      expect(error).toBeInstanceOf(SoapFaultError);
      expect(error).toBeInstanceOf(ClientCallError);
      expect(error).toMatchObject({
        faultCode: binding === "soap11" ? "Client" : "Sender",
        side: "client",
        parameter: "strFormat",
        ...refusedFormat(binding),
      });
    },
  );

  it.each(soapBindings)("a server fault becomes SoapFaultError on the server side (%s)", async (binding) => {
    const error = await rejection(
      client(binding).SendSmsWithSenderName(samples.SendSmsWithSenderName.params),
    );
    expect(error).toBeInstanceOf(SoapFaultError);
    expect(error).toMatchObject({
      faultCode: binding === "soap11" ? "Server" : "Receiver",
      side: "server",
      errorCode: "InternalError",
      parameter: undefined,
    });
    expect((error as Error).message).not.toContain("/var/lib");
  });

  it.each(httpBindings)("an error text becomes HttpBindingError (%s)", async (binding) => {
    const error = await rejection(client(binding).InsertSubscriberSid(BAD_FORMAT));
    expect(error).toBeInstanceOf(HttpBindingError);
    expect(error).toMatchObject({
      status: 500,
      exceptionType: "System.ArgumentException",
      ...refusedFormat(binding),
    });
  });

  it.each(httpBindings)(
    "a failed operation becomes HttpBindingError with System.Exception (%s)",
    async (binding) => {
      const error = await rejection(
        client(binding).SendSmsWithSenderName(samples.SendSmsWithSenderName.params),
      );
      expect(error).toMatchObject({
        status: 500,
        exceptionType: "System.Exception",
        errorCode: "InternalError",
      });
    },
  );
});

describe("one error base for every binding's refusal", () => {
  let server: FixtureServer;
  beforeAll(async () => {
    server = await startFailingSmsServer();
  });
  afterAll(() => server.close());

  /** The base's four facts and reason, as each binding's error carries them. */
  async function baseFields(
    binding: BindingName,
    call: (client: ReturnType<typeof createClient>) => Promise<unknown>,
  ) {
    const error = await rejection(call(createClient({ baseUrl: server.baseUrl, binding, ...CREDENTIALS })));
    expect(error, binding).toBeInstanceOf(ServiceFaultError);
    const { errorCode, side, parameter, status, reason } = error as ServiceFaultError;
    return { errorCode, side, parameter, status, reason };
  }

  it("a refused parameter reads the same on all four bindings: InvalidValue, client side, strFormat, 500", async () => {
    const seen = await Promise.all(
      bindingNames.map((binding) => baseFields(binding, (c) => c.InsertSubscriberSid(BAD_FORMAT))),
    );
    const want = {
      errorCode: "InvalidValue",
      side: "client",
      parameter: "strFormat",
      status: 500,
      reason: "strFormat must be HTML or Text.",
    };
    expect(seen).toEqual(bindingNames.map(() => want));
  });

  it("a failed operation reads the same on all four bindings: InternalError, server side, no parameter, 500", async () => {
    const seen = await Promise.all(
      bindingNames.map((binding) =>
        baseFields(binding, (c) => c.SendSmsWithSenderName(samples.SendSmsWithSenderName.params)),
      ),
    );
    const want = {
      errorCode: "InternalError",
      side: "server",
      parameter: undefined,
      status: 500,
      reason: "The server could not complete the request.",
    };
    expect(seen).toEqual(bindingNames.map(() => want));
  });

  it("transport failures are ClientCallErrors but not ServiceFaultErrors", async () => {
    const closed = await listenOnLoopback(() => {});
    await closed.close();
    const error = await rejection(
      createClient({ baseUrl: closed.origin, binding: "soap11", ...CREDENTIALS }).InsertSubscriberSid(
        BAD_FORMAT,
      ),
    );
    expect(error).toBeInstanceOf(ClientCallError);
    expect(error).not.toBeInstanceOf(ServiceFaultError);
  });
});

describe("the side of an HTTP binding's error text", () => {
  it.each([
    [500, "System.ArgumentException", "client"],
    [500, "System.ArgumentNullException", "client"],
    [500, "System.InvalidOperationException", "client"],
    [400, "System.Xml.XmlException", "client"],
    [413, "System.Web.HttpException", "client"],
    [500, "System.Exception", "server"],
    [503, "System.Web.HttpException", "server"],
    [500, "", "server"],
    [500, "System.ArgumentExceptionHelper", "server"],
  ] as const)("HTTP %i %j is the %s's fault", (status, exceptionType, side) => {
    expect(httpErrorSide(status, exceptionType)).toBe(side);
  });
});

describe("X-Error-Parameter on the HTTP error text", () => {
  const fields = {
    status: 500,
    exceptionType: "System.ArgumentException",
    message: "m",
    code: "InvalidValue",
  };
  it("carries a parameter name that is a token", () => {
    expect(textErrorResponse({ ...fields, parameter: "strFormat" }).headers["x-error-parameter"]).toBe(
      "strFormat",
    );
  });
  it.each([undefined, "", "a\r\nSet-Cookie: x=1", "p".repeat(65), "naïve"])(
    "is left off for %j",
    (parameter) => {
      expect(textErrorResponse({ ...fields, parameter }).headers).not.toHaveProperty("x-error-parameter");
    },
  );
});

interface Canned {
  status: number;
  contentType?: string;
  body: string;
}

describe("answers the client cannot read", () => {
  let canned: Canned = { status: 200, body: "" };
  let peer: Listening;
  beforeAll(async () => {
    peer = await listenOnLoopback((req, res) => {
      req.resume();
      req.on("end", () => {
        res.writeHead(canned.status, canned.contentType ? { "content-type": canned.contentType } : {});
        res.end(canned.body);
      });
    });
  });
  afterAll(() => peer.close());

  const client = (binding: BindingName) => createClient({ baseUrl: peer.origin, binding, ...CREDENTIALS });
  const callSid = (binding: BindingName) =>
    client(binding).InsertSubscriberSid(samples.InsertSubscriberSid.params);

  const soapEnvelope = (binding: BindingName, inner: string) =>
    `<?xml version="1.0" encoding="utf-8"?><soap:Envelope xmlns:soap="${
      binding === "soap11"
        ? "http://schemas.xmlsoap.org/soap/envelope/"
        : "http://www.w3.org/2003/05/soap-envelope"
    }"><soap:Body>${inner}</soap:Body></soap:Envelope>`;
  const soapContentType = (binding: BindingName) =>
    binding === "soap11" ? "text/xml; charset=utf-8" : "application/soap+xml; charset=utf-8";
  /** A well-formed answer of `op` whose result holds `inner`, in the binding's form; `root` is the HTTP document's root. */
  const answer = (binding: BindingName, op: string, root: string, inner: string): Canned =>
    binding === "soap11" || binding === "soap12"
      ? {
          status: 200,
          contentType: soapContentType(binding),
          body: soapEnvelope(
            binding,
            `<${op}Response xmlns="http://tempuri.org/"><${op}Result>${inner}</${op}Result></${op}Response>`,
          ),
        }
      : {
          status: 200,
          contentType: "text/xml; charset=utf-8",
          body: `<?xml version="1.0" encoding="utf-8"?>\n<${root} xmlns="http://tempuri.org/">${inner}</${root}>`,
        };
  /** A well-formed answer of InsertSubscriberSid carrying `text`. */
  const sidAnswer = (binding: BindingName, text: string, root = "long") =>
    answer(binding, "InsertSubscriberSid", root, text);

  it.each(bindingNames)("reads the canned well-formed answer (%s)", async (binding) => {
    canned = sidAnswer(binding, "42");
    await expect(callSid(binding)).resolves.toBe(42n);
  });

  it.each(bindingNames)("an HTML 502 page from a proxy is a ResponseFormatError (%s)", async (binding) => {
    canned = {
      status: 502,
      contentType: "text/html",
      body: "<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>\r\n<center><h1>502 Bad Gateway</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n",
    };
    const error = await rejection(callSid(binding));
    expect(error).toBeInstanceOf(ResponseFormatError);
    expect(error).toMatchObject({ binding, operation: "InsertSubscriberSid" });
    expect((error as Error).message).toContain("502");
  });

  it.each(bindingNames)("a 200 answer that is not XML is a ResponseFormatError (%s)", async (binding) => {
    canned = { status: 200, contentType: "application/json", body: '{"result":42}' };
    expect(await rejection(callSid(binding))).toBeInstanceOf(ResponseFormatError);
  });

  it.each(bindingNames)("a truncated answer is a ResponseFormatError (%s)", async (binding) => {
    const whole = sidAnswer(binding, "42");
    canned = { ...whole, body: whole.body.slice(0, whole.body.length - 20) };
    expect(await rejection(callSid(binding))).toBeInstanceOf(ResponseFormatError);
  });

  it.each(soapBindings)(
    "a Body holding another operation's response is a ResponseFormatError (%s)",
    async (binding) => {
      canned = answer(binding, "UpdateMailingList", "int", "1");
      const error = await rejection(callSid(binding));
      expect(error).toBeInstanceOf(ResponseFormatError);
      expect((error as Error).message).toContain("InsertSubscriberSidResponse");
    },
  );

  it.each(soapBindings)(
    "an envelope of the other SOAP version is a ResponseFormatError (%s)",
    async (binding) => {
      const other = binding === "soap11" ? "soap12" : "soap11";
      canned = sidAnswer(other, "42");
      expect(await rejection(callSid(binding))).toBeInstanceOf(ResponseFormatError);
    },
  );

  it.each(httpBindings)("a wrong root element is a ResponseFormatError (%s)", async (binding) => {
    canned = sidAnswer(binding, "42", "int");
    const error = await rejection(callSid(binding));
    expect(error).toBeInstanceOf(ResponseFormatError);
    expect((error as Error).message).toContain("root is int, not long");
  });

  it.each(bindingNames)("a value that does not convert is a ResponseFormatError (%s)", async (binding) => {
    for (const text of ["abc", "9223372036854775808", ""]) {
      canned = sidAnswer(binding, text);
      const error = await rejection(callSid(binding));
      expect(error, text).toBeInstanceOf(ResponseFormatError);
    }
  });

  it.each(bindingNames)(
    "a record field that does not convert is a ResponseFormatError (%s)",
    async (binding) => {
      const fields = "<Id>x99</Id><CreditCost>1.5</CreditCost><TotalCredits>98.25</TotalCredits>";
      canned = answer(binding, "SendSmsWithSenderName", "SmsSingleMessageResult", fields);
      const error = await rejection(
        client(binding).SendSmsWithSenderName(samples.SendSmsWithSenderName.params),
      );
      expect(error).toBeInstanceOf(ResponseFormatError);
      expect((error as Error).message).toContain("Id");
    },
  );

  it.each(soapBindings)("an error status without a fault is a ResponseFormatError (%s)", async (binding) => {
    canned = { ...sidAnswer(binding, "42"), status: 500 };
    expect(await rejection(callSid(binding))).toBeInstanceOf(ResponseFormatError);
  });

  it.each(httpBindings)(
    "a .NET error text with a stack trace is an HttpBindingError without the trace (%s)",
    async (binding) => {
      canned = {
        status: 500,
        contentType: "text/plain; charset=utf-8",
        body: "System.InvalidOperationException: Missing parameter: strEmail.\r\n   at System.Web.Services.Protocols.ValueCollectionParameterReader.Read(NameValueCollection collection)\r\n",
      };
      const error = await rejection(callSid(binding));
      expect(error).toBeInstanceOf(HttpBindingError);
      expect(error).toMatchObject({
        status: 500,
        exceptionType: "System.InvalidOperationException",
        reason: "Missing parameter: strEmail.",
        errorCode: undefined,
      });
    },
  );
});

describe("calls that get no answer", () => {
  it.each(bindingNames)("a refused connection is a TransportError (%s)", async (binding) => {
    const closed = await listenOnLoopback(() => {});
    await closed.close();
    const client = createClient({ baseUrl: closed.origin, binding, ...CREDENTIALS });
    const error = await rejection(client.InsertSubscriberSid(samples.InsertSubscriberSid.params));
    expect(error).toBeInstanceOf(TransportError);
    expect(error).toMatchObject({ binding, operation: "InsertSubscriberSid" });
    expect((error as Error).cause).toBeDefined();
  });

  describe("against a server that never answers", () => {
    const pending: IncomingMessage[] = [];
    let arrived: Array<() => void> = [];
    /** Resolves when the next request reaches the server: an event, not a poll. */
    const nextArrival = () => new Promise<void>((resolve) => arrived.push(resolve));
    let silent: Listening;
    beforeAll(async () => {
      silent = await listenOnLoopback((req) => {
        pending.push(req);
        req.resume();
        const waiting = arrived;
        arrived = [];
        for (const resolve of waiting) resolve();
      });
    });
    afterAll(() => silent.close());

    it.each(bindingNames)("timeoutMs turns into a TimeoutError (%s)", async (binding) => {
      const client = createClient({ baseUrl: silent.origin, binding, ...CREDENTIALS, timeoutMs: 150 });
      const started = performance.now();
      const error = await rejection(client.InsertSubscriberSid(samples.InsertSubscriberSid.params));
      // Only a lower bound, which a slow machine cannot break: a timer never fires early (less a
      // millisecond of clock rounding). A client ignoring timeoutMs never settles and fails at the
      // test's time limit.
      expect(performance.now() - started).toBeGreaterThan(145);
      expect(error).toBeInstanceOf(TimeoutError);
      expect(error).toMatchObject({ timeoutMs: 150, binding, operation: "InsertSubscriberSid" });
    });

    it.each(bindingNames)("the caller's AbortSignal aborts the call (%s)", async (binding) => {
      const client = createClient({ baseUrl: silent.origin, binding, ...CREDENTIALS, timeoutMs: 10_000 });
      const controller = new AbortController();
      const arrival = nextArrival();
      const call = client.InsertSubscriberSid(samples.InsertSubscriberSid.params, {
        signal: controller.signal,
      });
      await arrival;
      controller.abort();
      const error = await rejection(call);
      // No bound on the elapsed time: a client that ignored the signal would end in a TimeoutError.
      expect(error).not.toBeInstanceOf(TimeoutError);
      expect((error as Error).name).toBe("AbortError");
    });

    it("a signal aborted before the call sends nothing", async () => {
      const client = createClient({ baseUrl: silent.origin, binding: "soap11", ...CREDENTIALS });
      const before = pending.length;
      const error = await rejection(
        client.InsertSubscriberSid(samples.InsertSubscriberSid.params, { signal: AbortSignal.abort() }),
      );
      expect((error as Error).name).toBe("AbortError");
      // Instead of waiting a while for nothing: a call sent afterwards arrives, and it is the only one.
      const arrival = nextArrival();
      const next = new AbortController();
      const call = client
        .InsertSubscriberSid(samples.InsertSubscriberSid.params, { signal: next.signal })
        .catch(() => undefined);
      await arrival;
      next.abort();
      await call;
      expect(pending.length).toBe(before + 1);
    });
  });
});

describe("bad input on the client side", () => {
  function countingClient(binding: BindingName) {
    const sent: string[] = [];
    const config: ClientConfig = {
      baseUrl: "http://127.0.0.1:9",
      binding,
      ...CREDENTIALS,
      fetch: (async (input: string | URL | Request) => {
        sent.push(String(input));
        throw new Error("no request should be sent");
      }) as typeof fetch,
    };
    return { client: createClient(config), sent };
  }

  it.each(bindingNames)(
    "refuses wrong values with a TypeError naming the parameter, sending nothing (%s)",
    async (binding) => {
      const { client, sent } = countingClient(binding);
      const cases: [() => Promise<unknown>, RegExp][] = [
        [
          () => client.GetNewsletterFilters({ intNewsletterId: "5" as unknown as number }),
          /GetNewsletterFilters: parameter intNewsletterId is not a whole number/,
        ],
        [
          () => client.GetNewsletterFilters({ intNewsletterId: 2 ** 31 }),
          /parameter intNewsletterId is outside the 32-bit integer range/,
        ],
        [() => client.GetNewsletterFilters({ intNewsletterId: 1.5 }), /parameter intNewsletterId /],
        [
          () => client.GetTriggerClicks({ ...samples.GetTriggerClicks.params, triggerId: -(2 ** 31) - 1 }),
          /parameter triggerId /,
        ],
        [
          () => client.GetTriggerClicks({ ...samples.GetTriggerClicks.params, fromDate: "yesterday" }),
          /parameter fromDate /,
        ],
        [
          () =>
            client.InsertSubscriberSid({
              ...samples.InsertSubscriberSid.params,
              strEmail: 5 as unknown as string,
            }),
          /parameter strEmail is not a string/,
        ],
        [
          () => client.GetNewsletterFilters({} as { intNewsletterId: number }),
          /parameter intNewsletterId is required/,
        ],
      ];
      for (const [call, message] of cases) {
        const error = await rejection(call());
        expect(error).toBeInstanceOf(TypeError);
        expect((error as Error).message).toMatch(message);
      }
      expect(sent).toEqual([]);
    },
  );

  it.each(soapBindings)(
    "refuses a string XML cannot carry with a TypeError naming the parameter, sending nothing (%s)",
    async (binding) => {
      const { client, sent } = countingClient(binding);
      const error = await rejection(
        client.InsertSubscriberSid({ ...samples.InsertSubscriberSid.params, strName: "a\u0001b" }),
      );
      expect(error).toBeInstanceOf(TypeError);
      expect((error as Error).message).toBe(
        "InsertSubscriberSid: parameter strName String contains a character XML 1.0 does not allow (U+0001) at index 1.",
      );
      expect(sent).toEqual([]);
    },
  );
});
