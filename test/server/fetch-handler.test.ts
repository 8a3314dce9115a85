// The same service through the fetch-style handler (`handler.fetch`), with no HTTP server in between:
// every binding, the documents, foreign paths and the body limit.

import { describe, expect, it } from "vitest";
import { createHandler, type CallContext } from "../../generated/server.js";
import { sampleImplementation, type ReceivedCall } from "../fixtures/fixture-server.js";
import { faultOf, parseXml, soapRequest, wsdlAddresses } from "../fixtures/raw-http.js";
import { SOAP11_REQUEST_VALUES as SID_PARAMS } from "../fixtures/wire-samples.js";

const ORIGIN = "https://svc.example.test:8443";
const ENDPOINT = `${ORIGIN}/ExternalAPIService.asmx`;

function service(options: { maxBodyBytes?: number } = {}) {
  const calls: ReceivedCall[] = [];
  return { calls, handler: createHandler(sampleImplementation(calls), options) };
}

/** The text of the `<{Op}Result>` inside a SOAP answer. */
function soapResultText(body: string): string {
  const response = parseXml(body).children.find((c) => c.local === "Body")?.children[0];
  return response?.children[0]?.text ?? "";
}

describe("fetch handler", () => {
  const { calls, handler } = service();

  it.each(["soap11", "soap12"] as const)("answers a %s call", async (version) => {
    const { headers, body } = soapRequest(version, "InsertSubscriberSid", SID_PARAMS);
    const response = await handler.fetch(new Request(ENDPOINT, { method: "POST", headers, body }), {
      remoteAddress: "192.0.2.7",
    });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe(
      version === "soap11" ? "text/xml; charset=utf-8" : "application/soap+xml; charset=utf-8",
    );
    expect(soapResultText(await response.text())).toBe("9223372036854775807");
    const call = calls.at(-1) as ReceivedCall;
    expect(call.context).toMatchObject<Partial<CallContext>>({
      binding: version,
      remoteAddress: "192.0.2.7",
      credentials: { username: "u", password: "p" },
    });
    expect(call.params).toMatchObject({ strEmail: "a@b", strMailingListID: "1" });
  });

  it("answers an HTTP GET call", async () => {
    const query = new URLSearchParams({ strUsername: "u", strPassword: "p", intNewsletterId: "12" });
    const response = await handler.fetch(new Request(`${ENDPOINT}/GetNewsletterFilters?${query}`));
    expect(response.status).toBe(200);
    expect(await response.text()).toBe(
      '<?xml version="1.0" encoding="utf-8"?>\n<ArrayOfNewsletterFilterResult xmlns:xsd="http://www.w3.org/2001/XMLSchema" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns="http://tempuri.org/" />',
    );
    expect(calls.at(-1)).toMatchObject({
      operation: "GetNewsletterFilters",
      params: { intNewsletterId: 12 },
    });
    expect(calls.at(-1)?.context.binding).toBe("httpGet");
  });

  it("answers an HTTP POST form call", async () => {
    const response = await handler.fetch(
      new Request(`${ENDPOINT}/InsertSubscriberSid`, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams(SID_PARAMS).toString(),
      }),
    );
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("text/xml; charset=utf-8");
    expect(await response.text()).toBe(
      '<?xml version="1.0" encoding="utf-8"?>\n<long xmlns="http://tempuri.org/">9223372036854775807</long>',
    );
    expect(calls.at(-1)?.context.binding).toBe("httpPost");
  });

  it("answers an HTTP error as the .NET 500 text", async () => {
    const response = await handler.fetch(new Request(`${ENDPOINT}/InsertSubscriberSid?strUsername=u`));
    expect(response.status).toBe(500);
    expect(response.headers.get("x-error-code")).toBe("MissingParameter");
    expect(await response.text()).toBe("System.InvalidOperationException: Missing parameter: strPassword.");
  });

  it("addresses the WSDL at the Request's origin and path", async () => {
    const response = await handler.fetch(new Request(`${ORIGIN}/base/ExternalAPIService.asmx?WSDL`));
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("text/xml; charset=utf-8");
    expect(wsdlAddresses(await response.text())).toEqual(
      Array(4).fill(`${ORIGIN}/base/ExternalAPIService.asmx`),
    );
  });

  it("serves the help pages, and HEAD without a body", async () => {
    const index = await handler.fetch(new Request(ENDPOINT));
    expect(index.headers.get("content-type")).toBe("text/html; charset=utf-8");
    expect(await index.text()).toContain('href="?op=SendSmsWithSenderName"');
    const page = await handler.fetch(new Request(`${ENDPOINT}?op=InsertSubscriberSid`));
    expect(await page.text()).toContain(`action="${new URL(ENDPOINT).pathname}/InsertSubscriberSid"`);
    const head = await handler.fetch(new Request(ENDPOINT, { method: "HEAD" }));
    expect(head.status).toBe(200);
    expect(await head.text()).toBe("");
  });

  it("answers 404 for a path that is not the endpoint", async () => {
    const response = await handler.fetch(new Request(`${ORIGIN}/elsewhere`));
    expect(response.status).toBe(404);
  });

  it("answers PUT with 405 and Allow", async () => {
    const response = await handler.fetch(new Request(ENDPOINT, { method: "PUT", body: "x" }));
    expect(response.status).toBe(405);
    expect(response.headers.get("allow")).toBe("GET, HEAD, POST");
  });
});

describe("fetch handler body limit", () => {
  const LIMIT = 1000;
  const { calls, handler } = service({ maxBodyBytes: LIMIT });

  /** An HTTP POST call of InsertSubscriberSid carrying `body` (a stream needs `duplex: "half"`). */
  function postForm(body: string | ReadableStream<Uint8Array>, headers: Record<string, string> = {}) {
    const request = new Request(`${ENDPOINT}/InsertSubscriberSid`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", ...headers },
      body,
      duplex: "half",
    } as RequestInit);
    return handler.fetch(request);
  }

  it("refuses a body over the limit in the SOAP binding's fault form", async () => {
    const { headers, body } = soapRequest("soap12", "InsertSubscriberSid", {
      ...SID_PARAMS,
      strName: "x".repeat(LIMIT),
    });
    const response = await handler.fetch(new Request(ENDPOINT, { method: "POST", headers, body }));
    expect(response.status).toBe(413);
    const fault = faultOf(await response.text());
    expect(fault).toMatchObject({ code: "Sender", errorCode: "BodyTooLarge" });
    expect(calls).toHaveLength(0);
  });

  it("refuses a declared Content-Length over the limit without reading the body", async () => {
    let pulls = 0;
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        pulls++;
        controller.enqueue(new Uint8Array(10));
      },
    });
    const response = await postForm(stream, { "content-length": "5000000000" });
    expect(response.status).toBe(413);
    expect(response.headers.get("x-error-code")).toBe("BodyTooLarge");
    expect(await response.text()).toBe(
      `System.Web.HttpException: The request body is larger than ${LIMIT} bytes.`,
    );
    // A ReadableStream pulls ahead to fill its queue; the handler itself read nothing.
    expect(pulls).toBeLessThanOrEqual(1);
    expect(calls).toHaveLength(0);
  });

  it("stops reading an endless streamed body soon after the limit", async () => {
    let pulled = 0;
    let cancelled = false;
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        pulled += 100;
        controller.enqueue(new Uint8Array(100).fill(0x78));
      },
      cancel() {
        cancelled = true;
      },
    });
    const response = await postForm(stream);
    expect(response.status).toBe(413);
    expect(response.headers.get("x-error-code")).toBe("BodyTooLarge");
    expect(pulled).toBeLessThan(LIMIT + 1000);
    expect(cancelled).toBe(true);
    expect(calls).toHaveLength(0);
  });

  it("takes a body at the limit", async () => {
    const form = `${new URLSearchParams(SID_PARAMS)}&pad=`;
    const response = await postForm(form + "x".repeat(LIMIT - form.length));
    expect(response.status).toBe(200);
    expect(calls).toHaveLength(1);
  });
});
