// CallContext.logFields: the fields of a call's request log record. The transport's caller hands one object
// over per request (info.logFields, node and fetch alike); the handler's context and onCall's event carry
// that same object, so what a handler adds reaches the caller's own log line, and calls running at once
// never see each other's fields.

import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { createClient } from "../../generated/client.js";
import type { BindingName } from "../../generated/runtime/model.js";
import { bindingNames } from "../../generated/runtime/server/bindings.js";
import { type CallEvent, createHandler, type ExternalAPIService } from "../../generated/server.js";
import { sampleImplementation, startFixtureServer, type FixtureServer } from "../fixtures/fixture-server.js";

/** InsertSubscriberSid noting the email it was given in its log fields, after a short wait of its own. */
function noting(waits: readonly number[]): Partial<ExternalAPIService> {
  let n = 0;
  return {
    InsertSubscriberSid: async (params, context) => {
      // Each call reads its fields object first, then waits: the others run (and write theirs) meanwhile.
      const fields = context.logFields;
      await new Promise((resolve) => setTimeout(resolve, waits[n++ % waits.length]));
      fields["email"] = params.strEmail;
      context.logFields["binding"] = context.binding;
      return 7n;
    },
  };
}

describe("CallContext.logFields", () => {
  let fixture: FixtureServer | undefined;
  let server: http.Server | undefined;
  afterEach(async () => {
    await fixture?.close();
    fixture = undefined;
    server?.closeAllConnections();
    await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
    server = undefined;
  });

  const call = (baseUrl: string, binding: BindingName, tag: number) =>
    createClient({
      baseUrl,
      username: "u",
      password: "p",
      binding,
      headers: { "x-test-tag": String(tag) },
    }).InsertSubscriberSid({ strEmail: `u${tag}@example.com`, strMailingListID: "1" });

  it("is the object the caller handed over with the request, and onCall's event carries it; 40 calls at once do not mix", async () => {
    const events: CallEvent[] = [];
    const handler = createHandler(sampleImplementation([], noting([9, 1, 5, 0, 3, 7])), {
      onCall: (event) => events.push(event),
    });
    const records = new Map<string, Record<string, unknown>>();
    server = http.createServer((req, res) => {
      const tag = String(req.headers["x-test-tag"]);
      const record: Record<string, unknown> = { tag };
      records.set(tag, record);
      handler(req, res, undefined, { logFields: record });
    });
    await new Promise<void>((resolve) => server!.listen(0, "127.0.0.1", resolve));
    const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

    const tags = Array.from({ length: 40 }, (_, i) => i);
    const bindingOf = (tag: number) => bindingNames[tag % bindingNames.length]!;
    expect(await Promise.all(tags.map((tag) => call(baseUrl, bindingOf(tag), tag)))).toEqual(
      tags.map(() => 7n),
    );

    expect(records.size).toBe(40);
    for (const tag of tags) {
      expect(records.get(String(tag))).toEqual({
        tag: String(tag),
        email: `u${tag}@example.com`,
        binding: bindingOf(tag),
      });
    }
    // Each event carries its own request's record (the very object), with what its handler added.
    expect(events).toHaveLength(40);
    for (const event of events) {
      const tag = event.logFields["tag"] as string;
      expect(event.logFields).toBe(records.get(tag));
      expect(event.binding).toBe(bindingOf(Number(tag)));
      expect(event.outcome).toBe("OK");
    }
  });

  it("without one handed over, is an object of the call's own, which onCall's event carries", async () => {
    const events: CallEvent[] = [];
    fixture = await startFixtureServer({
      override: noting([4, 0, 2]),
      onCall: (event) => events.push(event),
    });
    const tags = Array.from({ length: 12 }, (_, i) => i);
    await Promise.all(tags.map((tag) => call(fixture!.baseUrl, "soap11", tag)));
    expect(events.map((e) => e.logFields["email"]).sort()).toEqual(
      tags.map((tag) => `u${tag}@example.com`).sort(),
    );
    expect(new Set(events.map((e) => e.logFields)).size).toBe(12);
    // A call whose handler does not touch them still gets an (empty) object of its own.
    const client = createClient({
      baseUrl: fixture.baseUrl,
      username: "u",
      password: "p",
      binding: "soap12",
    });
    await client.GetTriggerIdForAccount();
    expect(events.at(-1)!.logFields).toEqual({});
  });

  it("reaches the handler and onCall through the fetch handler's info too", async () => {
    const events: CallEvent[] = [];
    const handler = createHandler(sampleImplementation([], noting([0])), {
      onCall: (event) => events.push(event),
    });
    const record: Record<string, unknown> = {};
    const client = createClient({
      baseUrl: "http://127.0.0.1:1",
      username: "u",
      password: "p",
      binding: "httpPost",
      fetch: ((input: string, init: RequestInit) =>
        handler.fetch(new Request(input, init), {
          remoteAddress: "192.0.2.7",
          logFields: record,
        })) as typeof fetch,
    });
    await client.InsertSubscriberSid({ strEmail: "f@example.com", strMailingListID: "1" });
    expect(record).toEqual({ email: "f@example.com", binding: "httpPost" });
    expect(events[0]!.logFields).toBe(record);
  });
});
