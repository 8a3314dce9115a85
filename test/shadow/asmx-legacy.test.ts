// The shadow proxy with a real ASMX host as the legacy side: ExternalAPIService as an .asmx on Mono's ASP.NET
// (test/asmx-host/external-api.ts: the spec's 20 operations, stub bodies returning one value of every field)
// answers the callers, and our generated server, answering the same values, is compared. Every operation on
// every binding is mirrored (writes included: the stubs change nothing); the divergences reported must be
// exactly the two planted in our answers, so everything else a real host sends — its namespace prefixes, its
// DataSet schema, its HTTP answers — is read by the comparison as the same answer as ours.

import { rmSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ExternalAPIService } from "../../generated/server.js";
import { prepareExternalApi } from "../asmx-host/external-api.js";
import { type AsmxHost, startAsmxHost } from "../asmx-host/host.js";
import { loadReferenceService, type RefOperation, type RefType } from "../conformance/reference/spec.js";
import { startFixtureServer, type FixtureServer } from "../fixtures/fixture-server.js";
import { SPEC_OPERATIONS } from "../fixtures/spec-facts.js";
import { hasMono } from "../fixtures/system-component.js";
import { BINDINGS, callReads, runProxy, shadowConfig, type RunningProxy } from "./support.js";

const monoInstalled = hasMono();
const service = loadReferenceService();

/** The stubs' values (external-api.ts's C# literals) as our implementation returns them. */
const VALUES: Readonly<Record<RefType, unknown>> = {
  string: "x & <y>",
  int: 2147483647,
  long: 9007199254740993n,
  double: 1.5,
  decimal: "12.5",
  dateTime: "2024-05-06T07:08:09",
  boolean: true,
};

/**
 * A DataSet's DateTime column as .NET writes it: the stub's local time with the host's UTC offset (the Mono
 * host runs in this process's time zone). Our server writes the text it is given, so the stub gives that.
 */
function localDateTime(): string {
  const minutes = -new Date(2024, 4, 6, 7, 8, 9).getTimezoneOffset();
  const abs = Math.abs(minutes);
  const pad = (n: number) => String(n).padStart(2, "0");
  return `2024-05-06T07:08:09${minutes < 0 ? "-" : "+"}${pad(Math.floor(abs / 60))}:${pad(abs % 60)}`;
}

function stubResult(op: RefOperation, params: Record<string, unknown>): unknown {
  const result = op.result;
  const record = (fields: readonly { name: string; type: RefType }[]) =>
    Object.fromEntries(fields.map((f) => [f.name, VALUES[f.type]]));
  switch (result.kind) {
    case "scalar":
      return result.type === "int" ? 1 : result.type === "long" ? 1n : VALUES[result.type];
    case "list":
      return [record(result.fields)];
    case "record":
      return record(result.fields);
    case "dataSet":
      return {
        dataSetName: result.dataSetName,
        table: result.table,
        columns: result.columns.map((c) => ({
          name: c.name ?? String(params[c.nameFromParam ?? ""] ?? c.property),
          type: c.type,
        })),
        rows: [
          Object.fromEntries(
            result.columns.map((c) => [c.property, c.type === "dateTime" ? localDateTime() : VALUES[c.type]]),
          ),
        ],
      };
  }
}

/**
 * What our answers carry that the ASMX host's do not: the comparison must report these and nothing else (the
 * calls are the samples' calls, test/fixtures/samples.ts, sent by the generated client on each binding).
 */
const PLANTED_NAME = "renamed";
const PLANTED_ID = 2n;

function stubImplementation(): Partial<ExternalAPIService> {
  const impl: Record<string, (params: Record<string, unknown>) => Promise<unknown>> = {};
  for (const op of service.operations.values()) {
    impl[op.name] = async (params) => {
      const value = stubResult(op, params);
      if (op.name === "GetTriggerIdForAccount") return [{ ...(value as object[])[0], Name: PLANTED_NAME }];
      if (op.name === "InsertSubscriberSid") return PLANTED_ID;
      return value;
    };
  }
  return impl as unknown as Partial<ExternalAPIService>;
}

let host: AsmxHost | undefined;
let folder: string | undefined;
let ours: FixtureServer | undefined;
let run: RunningProxy | undefined;

beforeAll(async () => {
  if (!monoInstalled) return;
  folder = prepareExternalApi(service);
  host = await startAsmxHost({ services: folder });
  ours = await startFixtureServer({ override: stubImplementation() });
}, 180_000);
afterAll(async () => {
  await run?.proxy.close();
  await ours?.close();
  await host?.stop();
  if (folder) rmSync(folder, { recursive: true, force: true });
}, 30_000);

describe.runIf(monoInstalled)("mirror mode with a real ASMX host (Mono) as the legacy side", () => {
  it("reports exactly the planted divergences over every operation on every binding", async () => {
    const legacyUrl = new URL("ExternalAPIService.asmx", host!.url);
    run = await runProxy(
      shadowConfig(`mirror: all\nlegacy: ${legacyUrl.href}\nours: ${ours!.endpointUrl}\n`),
    );
    const prefix = legacyUrl.pathname.slice(0, -"/ExternalAPIService.asmx".length);
    const calls = await callReads(run.baseUrl(prefix), SPEC_OPERATIONS);
    await run.proxy.drain();
    const total = SPEC_OPERATIONS.length * BINDINGS.length;
    expect(calls).toBe(total);
    // Every call was compared: nothing dropped, no compared-host failure.
    expect(run.comparisons).toHaveLength(total);
    const listed = (outcome: string) =>
      run!.comparisons
        .filter((c) => c.verdict.outcome === outcome)
        .map((c) => `${c.operation} ${c.binding} ${c.verdict.path}: ${c.verdict.legacy} / ${c.verdict.ours}`)
        .sort();
    expect(listed("diverged")).toEqual(
      [
        ...BINDINGS.map((b) => `GetTriggerIdForAccount ${b} TriggerResult/Name: x & <y> / ${PLANTED_NAME}`),
        `InsertSubscriberSid soap11 .: 1 / ${PLANTED_ID}`,
        `InsertSubscriberSid soap12 .: 1 / ${PLANTED_ID}`,
      ].sort(),
    );
    // The samples with markup in a text value (a name, a data value) meet ASP.NET's request validation on
    // HTTP GET and POST: the host refuses them (500), we take the text; a documented deliberate difference,
    // so "explained", named, and not a divergence.
    const explained = run.comparisons
      .filter((c) => c.verdict.outcome === "explained")
      .map((c) => `${c.operation} ${c.binding} ${c.verdict.known?.id}`)
      .sort();
    expect(explained).toEqual(
      ["InsertSubscriberSid", "InsertSubscriberWithDemData", "UpdateSubscriberData"]
        .flatMap((op) => [`${op} httpGet request-validation`, `${op} httpPost request-validation`])
        .sort(),
    );
    expect(run.proxy.held()).toEqual({ queued: 0, inFlight: 0, pendingBytes: 0 });
  }, 120_000);
});
