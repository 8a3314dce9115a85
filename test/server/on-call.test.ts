// ServerOptions.onCall: told once per operation call, with the operation, the binding, "OK" or the
// code the caller got (validation, handler and encoding failures alike), and a duration; a hook that
// throws never costs the caller its answer.

import { afterEach, describe, expect, it } from "vitest";
import { createClient, ServiceFaultError } from "../../generated/client.js";
import { type CallEvent, ServiceError } from "../../generated/server.js";
import { startFixtureServer, type FixtureServer } from "../fixtures/fixture-server.js";

describe("ServerOptions.onCall", () => {
  let server: FixtureServer | undefined;
  afterEach(async () => server?.close());

  async function withEvents(override: Parameters<typeof startFixtureServer>[0] = {}) {
    const events: CallEvent[] = [];
    server = await startFixtureServer({ ...override, onCall: (event) => events.push(event) });
    return events;
  }

  it("reports a successful call on each binding with its operation and a duration", async () => {
    const events = await withEvents();
    for (const binding of ["soap11", "soap12", "httpGet", "httpPost"] as const) {
      const client = createClient({ baseUrl: server!.baseUrl, username: "u", password: "p", binding });
      await client.InsertSubscriberSid({ strEmail: "a@b.c", strMailingListID: "1" });
    }
    expect(events.map((e) => [e.operation, e.binding, e.outcome])).toEqual([
      ["InsertSubscriberSid", "soap11", "OK"],
      ["InsertSubscriberSid", "soap12", "OK"],
      ["InsertSubscriberSid", "httpGet", "OK"],
      ["InsertSubscriberSid", "httpPost", "OK"],
    ]);
    for (const event of events) {
      expect(event.durationMs).toBeGreaterThanOrEqual(0);
      expect(event.requestId).toMatch(/\S/);
      // The node adapter hands over the IncomingMessage, so a hook can find its own request record.
      expect((event.transport as { method?: string }).method).toBe(
        event.binding === "httpGet" ? "GET" : "POST",
      );
    }
    expect(new Set(events.map((e) => e.requestId)).size).toBe(4);
  });

  it("reports the code of a validation refusal, of a handler's ServiceError and of an unexpected throw", async () => {
    const events = await withEvents({
      override: {
        UpdateMailingList: () => {
          throw new ServiceError("NotFound", "No mailing list with that strMailingListID exists.");
        },
        UpdateSubscriberData: async () => {
          throw new Error("disk on fire");
        },
      },
      log: () => undefined,
    });
    const client = createClient({
      baseUrl: server!.baseUrl,
      username: "u",
      password: "p",
      binding: "soap12",
    });
    await expect(
      client.InsertSubscriberSid({ strEmail: "a@b.c", strMailingListID: "1", strFormat: "PDF" as "HTML" }),
    ).rejects.toBeInstanceOf(ServiceFaultError);
    await expect(client.UpdateMailingList({ strMailingListID: "1" })).rejects.toBeInstanceOf(
      ServiceFaultError,
    );
    await expect(
      client.UpdateSubscriberData({ strSubscriberId: "1", strDataField: "1" }),
    ).rejects.toBeInstanceOf(ServiceFaultError);
    expect(events.map((e) => [e.operation, e.outcome])).toEqual([
      ["InsertSubscriberSid", "InvalidValue"],
      ["UpdateMailingList", "NotFound"],
      ["UpdateSubscriberData", "InternalError"],
    ]);
  });

  it("a hook that throws does not change the answer", async () => {
    server = await startFixtureServer({
      onCall: () => {
        throw new Error("hook broke");
      },
    });
    const client = createClient({
      baseUrl: server.baseUrl,
      username: "u",
      password: "p",
      binding: "httpPost",
    });
    expect(typeof (await client.InsertSubscriberSid({ strEmail: "a@b.c", strMailingListID: "1" }))).toBe(
      "bigint",
    );
  });
});
