// The generated client calls every operation over every binding against the generated server, over real
// HTTP on loopback, and the values arrive intact in both directions.

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createClient } from "../../generated/client.js";
// The defaults the server applies are in the server's model.
import { serverOperations as operations } from "../../generated/server-model.js";
import { bindingNames } from "../../generated/runtime/server/bindings.js";
import { readXmlWithFastXmlParser } from "../oracle/fxp.js";
import { startFixtureServer, type FixtureServer } from "../fixtures/fixture-server.js";
import { CREDENTIALS, samples } from "../fixtures/samples.js";

let server: FixtureServer;
beforeAll(async () => {
  server = await startFixtureServer();
});
afterAll(() => server.close());

const opNames = Object.keys(operations) as (keyof typeof samples)[];

/** What the server's handler should see: the sample params with the spec's defaults applied. */
function expectedParams(op: keyof typeof samples): Record<string, unknown> {
  const sent: Record<string, unknown> = { ...samples[op].params };
  for (const p of operations[op].params) {
    if (p.credential) continue;
    if (sent[p.name] instanceof Date) sent[p.name] = (sent[p.name] as Date).toISOString();
    if ((sent[p.name] === undefined || sent[p.name] === "") && "default" in p) sent[p.name] = p.default;
  }
  return sent;
}

describe.each(bindingNames)("generated client ↔ generated server over %s", (binding) => {
  it.each(opNames)("%s round-trips params and result", async (op) => {
    const client = createClient({ baseUrl: server.baseUrl, binding, ...CREDENTIALS });
    const before = server.calls.length;
    const call = client[op] as (params: unknown) => Promise<unknown>;
    const result = await call(samples[op].params);
    expect(result).toEqual(samples[op].result);
    const received = server.calls.slice(before);
    expect(received).toHaveLength(1);
    expect(received[0].operation).toBe(op);
    expect(received[0].context.binding).toBe(binding);
    expect(received[0].context.credentials.username).toBe(CREDENTIALS.username);
    expect(received[0].context.credentials.password).toBe(CREDENTIALS.password);
    const got = { ...received[0].params };
    // HTTP GET/POST send every parameter, so an absent optional string arrives as "" there.
    const want = expectedParams(op);
    for (const key of Object.keys(got)) if (!(key in want) && got[key] === "") delete got[key];
    expect(got).toEqual(want);
  });
});

describe("client reader choice", () => {
  it("reads the same answers with fast-xml-parser as with the scanner", async () => {
    for (const binding of bindingNames) {
      const client = createClient({
        baseUrl: server.baseUrl,
        binding,
        ...CREDENTIALS,
        xmlReader: readXmlWithFastXmlParser,
      });
      await expect(
        client.GetReportViewsByDateInterval(samples.GetReportViewsByDateInterval.params),
      ).resolves.toEqual(samples.GetReportViewsByDateInterval.result);
      await expect(client.SendSmsWithSenderName(samples.SendSmsWithSenderName.params)).resolves.toEqual(
        samples.SendSmsWithSenderName.result,
      );
    }
  });
});
