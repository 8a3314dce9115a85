// node-soap (the `soap` package), a third-party SOAP client, loads the WSDL our server serves and calls every
// operation over SOAP 1.1 through the ExternalAPIServiceSoap port; a few also over SOAP 1.2. We assert the
// values node-soap decoded, and that the server received each call with the sample's parameters and the
// credentials. Only 127.0.0.1 is ever contacted.

import soap from "soap";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
// The defaults the server applies are in the server's model.
import { serverOperations as operations } from "../../generated/server-model.js";
import type { SoapType, TypeModel } from "../../generated/runtime/model.js";
import { startFixtureServer, type FixtureServer } from "../fixtures/fixture-server.js";
import { CREDENTIALS, LONG_MAX, samples } from "../fixtures/samples.js";

type Op = keyof typeof samples;
const opNames = Object.keys(operations) as Op[];

/**
 * How node-soap 1.13 decodes values with its default options, each named after what it loses. The type
 * conversions are in node_modules/soap/lib/wsdl/index.js (WSDL.xmlToObject, p.ontext); every entry is
 * asserted as still happening where the samples exercise it, so the test notices when node-soap changes.
 */
const NODE_SOAP_LIMITATIONS = {
  long:
    "node-soap parses xs:int/xs:long with parseInt into a JavaScript number, so a long beyond 2^53 loses " +
    "precision (9223372036854775807 arrives as 9223372036854775808); workaround: options.customDeserializer.long",
  decimal: "node-soap parses xs:decimal with Number(): a binary float, not the exact decimal text",
  doubleInf: "node-soap parses xs:double with Number(), which reads .NET's INF / -INF as NaN",
  emptyArray: "node-soap decodes an empty array (<GetNewsletterFiltersResult />) as null, not []",
  dataSet:
    "node-soap does not apply a DataSet's inline xs:schema (the result is xs:schema + xs:any): the schema comes " +
    "back as a generic object tree, cells as strings (so longs stay exact), and a single row as an object, not an array",
  httpBindings:
    "node-soap reads only SOAP bindings (lib/wsdl/elements.js DefinitionsElement.addChild keeps a binding only " +
    "for the SOAP transports), so the HttpGet/HttpPost ports are not offered",
} as const;

/** Refuses every URL not on 127.0.0.1 (the WSDL load included) and keeps axios off any proxy. */
class LoopbackHttpClient extends soap.HttpClient {
  override request(...args: Parameters<soap.HttpClient["request"]>): ReturnType<soap.HttpClient["request"]> {
    const [url, data, callback, headers, options] = args;
    check(url);
    return super.request(url, data, callback, headers, { ...options, proxy: false });
  }
  override requestStream(
    ...args: Parameters<soap.HttpClient["requestStream"]>
  ): ReturnType<soap.HttpClient["requestStream"]> {
    const [url, data, headers, options] = args;
    check(url);
    return super.requestStream(url, data, headers, { ...options, proxy: false });
  }
}
function check(url: string): void {
  if (new URL(url).hostname !== "127.0.0.1") throw new Error(`refusing non-loopback URL ${url}`);
}

type PortMethod = (args: unknown, callback: (error: unknown, result: unknown) => void) => void;

/** Calls `op` through one named port of the client, so the binding used is never in doubt. */
function callPort(client: soap.Client, port: string, op: Op, args: unknown): Promise<unknown> {
  const method = (client.ExternalAPIService as Record<string, Record<string, PortMethod>>)[port][op];
  return new Promise((resolve, reject) =>
    method(args, (error, result) => (error ? reject(error) : resolve(result))),
  );
}

function withCredentials(op: Op): Record<string, unknown> {
  return { strUsername: CREDENTIALS.username, strPassword: CREDENTIALS.password, ...samples[op].params };
}

/** A value of `type` as node-soap decodes it by default; an absent value is an absent property. */
function nodeSoapValue(type: SoapType, value: unknown): unknown {
  if (value === null || value === undefined) return undefined;
  switch (type) {
    case "int":
    case "long":
    case "decimal":
      return Number(value); // NODE_SOAP_LIMITATIONS.long / .decimal
    case "double":
      return Number.isFinite(value) ? value : NaN; // NODE_SOAP_LIMITATIONS.doubleInf
    case "dateTime":
      // Representation only: node-soap gives new Date(text), one instant (a zone-less value read in this
      // process's local zone, as .NET reads it as the server's local clock); we build the same from the text.
      return new Date(value as string);
    default:
      return value;
  }
}

function nodeSoapRecord(
  fields: readonly { name: string; type: TypeModel }[],
  record: Record<string, unknown>,
) {
  const out: Record<string, unknown> = {};
  for (const f of fields) {
    const v = nodeSoapValue((f.type as { readonly type: SoapType }).type, record[f.name]);
    if (v !== undefined) out[f.name] = v;
  }
  return out;
}

/** The DataSet as node-soap gives it, reduced to columns and rows of wire text. */
function dataSetView(result: unknown): {
  columns: { name: string; type: string }[];
  rows: Record<string, unknown>[];
} {
  const r = result as {
    schema: {
      element: { complexType: { choice: { element: { complexType: { sequence: { element: unknown } } } } } };
    };
    diffgram: { NewDataSet?: { Table: unknown } };
  };
  const columnNodes = [r.schema.element.complexType.choice.element.complexType.sequence.element].flat() as {
    attributes: { name: string; type: string };
  }[];
  const table = r.diffgram.NewDataSet?.Table;
  const rows = (table === undefined ? [] : [table].flat()) as Record<string, unknown>[];
  return {
    columns: columnNodes.map((c) => ({ name: c.attributes.name, type: c.attributes.type })),
    rows: rows.map(({ attributes: _diffgramAttributes, ...cells }) => cells),
  };
}

/** What node-soap should give for the sample result of `op`: `{ <Op>Result: value }`. */
function expectedFromNodeSoap(op: Op): unknown {
  const model = operations[op].result;
  const result: unknown = samples[op].result;
  let value: unknown;
  switch (model.kind) {
    case "scalar":
      value = nodeSoapValue(model.type, result);
      break;
    case "record":
      value = nodeSoapRecord(model.record.fields, result as Record<string, unknown>);
      break;
    case "list": {
      const records = (result as Record<string, unknown>[]).map((r) =>
        nodeSoapRecord(model.record.fields, r),
      );
      value = records.length === 0 ? null : { [model.record.name]: records }; // NODE_SOAP_LIMITATIONS.emptyArray
      break;
    }
    case "dataSet":
      throw new Error("DataSets are compared through dataSetView");
  }
  return { [`${op}Result`]: value };
}

/** A DataSet sample as wire text: node-soap leaves the cells as the server wrote them. */
function expectedDataSet(op: "GetReportViewsByDateInterval" | "GetSubscriberMailingLists") {
  const model = operations[op].result;
  const set = samples[op].result;
  const properties = model.kind === "dataSet" ? model.dataSet.columns.map((c) => c.property) : [];
  return {
    columns: set.columns.map((c) => ({ name: c.name, type: `xs:${c.type}` })),
    rows: set.rows.map((row) => {
      const cells: Record<string, string> = {};
      set.columns.forEach((c, i) => {
        const v = (row as unknown as Record<string, unknown>)[properties[i]];
        if (v !== null && v !== undefined) cells[c.name] = String(v);
      });
      return cells;
    }),
  };
}

/** What the server's handler should see: the sample params with the spec's defaults applied. */
function expectedParams(op: Op): Record<string, unknown> {
  const sent: Record<string, unknown> = { ...samples[op].params };
  for (const p of operations[op].params) {
    if (p.credential) continue;
    if ((sent[p.name] === undefined || sent[p.name] === "") && "default" in p) sent[p.name] = p.default;
  }
  return sent;
}

let server: FixtureServer;
let client: soap.Client;

beforeAll(async () => {
  server = await startFixtureServer();
  client = await soap.createClientAsync(`${server.endpointUrl}?WSDL`, {
    forceSoap12Headers: false,
    httpClient: new LoopbackHttpClient(),
    disableCache: true, // node-soap shares a cached WSDL, options included, between clients of one URL
  });
}, 60_000);
afterAll(() => server?.close());

/** Calls `op` and returns node-soap's result and the one call the server recorded for it. */
async function callAndReceive(c: soap.Client, port: string, op: Op, binding: string) {
  const before = server.calls.length;
  const result = await callPort(c, port, op, withCredentials(op));
  const received = server.calls.slice(before);
  expect(received).toHaveLength(1);
  expect(received[0].operation).toBe(op);
  expect(received[0].context.binding).toBe(binding);
  expect(received[0].context.credentials.username).toBe(CREDENTIALS.username);
  expect(received[0].context.credentials.password).toBe(CREDENTIALS.password);
  expect(received[0].params).toEqual(expectedParams(op));
  return result;
}

describe("node-soap over SOAP 1.1 (port ExternalAPIServiceSoap)", () => {
  it(`offers the two SOAP ports only: ${NODE_SOAP_LIMITATIONS.httpBindings}`, () => {
    const description = client.describe() as Record<string, Record<string, Record<string, unknown>>>;
    expect(Object.keys(description.ExternalAPIService)).toEqual([
      "ExternalAPIServiceSoap",
      "ExternalAPIServiceSoap12",
    ]);
    expect(Object.keys(description.ExternalAPIService.ExternalAPIServiceSoap).sort()).toEqual(
      [...opNames].sort(),
    );
  });

  it.each(opNames.filter((op) => operations[op].result.kind !== "dataSet"))(
    "%s: node-soap decodes the answer and the server got the call",
    async (op) => {
      const result = await callAndReceive(client, "ExternalAPIServiceSoap", op, "soap11");
      expect(result).toEqual(expectedFromNodeSoap(op));
    },
  );

  it.each(["GetReportViewsByDateInterval", "GetSubscriberMailingLists"] as const)(
    `%s: node-soap returns the DataSet's columns and rows as wire text (${NODE_SOAP_LIMITATIONS.dataSet})`,
    async (op) => {
      const result = (await callAndReceive(client, "ExternalAPIServiceSoap", op, "soap11")) as Record<
        string,
        unknown
      >;
      expect(dataSetView(result[`${op}Result`])).toEqual(expectedDataSet(op));
    },
  );
});

describe("node-soap's known limitations still hold", () => {
  it(`long: ${NODE_SOAP_LIMITATIONS.long}`, async () => {
    const result = (await callPort(
      client,
      "ExternalAPIServiceSoap",
      "InsertSubscriberSid",
      withCredentials("InsertSubscriberSid"),
    )) as {
      InsertSubscriberSidResult: unknown;
    };
    expect(typeof result.InsertSubscriberSidResult).toBe("number");
    expect(BigInt(result.InsertSubscriberSidResult as number)).not.toBe(LONG_MAX);
    expect(BigInt(result.InsertSubscriberSidResult as number)).toBe(LONG_MAX + 1n);
  });

  it(`decimal: ${NODE_SOAP_LIMITATIONS.decimal}`, async () => {
    const result = (await callPort(
      client,
      "ExternalAPIServiceSoap",
      "SendSmsWithSenderName",
      withCredentials("SendSmsWithSenderName"),
    )) as {
      SendSmsWithSenderNameResult: { TotalCredits: unknown };
    };
    expect(result.SendSmsWithSenderNameResult.TotalCredits).toBe(98.25);
  });

  it(`double: ${NODE_SOAP_LIMITATIONS.doubleInf}`, async () => {
    expect(samples.GetRoiResults.result[1]?.Value).toBe(Infinity);
    const result = (await callPort(
      client,
      "ExternalAPIServiceSoap",
      "GetRoiResults",
      withCredentials("GetRoiResults"),
    )) as {
      GetRoiResultsResult: { RoiResult: { Value: number }[] };
    };
    expect(result.GetRoiResultsResult.RoiResult[1].Value).toBeNaN();
  });

  it(`empty array: ${NODE_SOAP_LIMITATIONS.emptyArray}`, async () => {
    expect(samples.GetNewsletterFilters.result).toEqual([]);
    const result = await callPort(
      client,
      "ExternalAPIServiceSoap",
      "GetNewsletterFilters",
      withCredentials("GetNewsletterFilters"),
    );
    expect(result).toEqual({ GetNewsletterFiltersResult: null });
  });

  it("DataSet: a single row is an object, not an array", async () => {
    expect(samples.GetSubscriberMailingLists.result.rows).toHaveLength(1);
    const result = (await callPort(
      client,
      "ExternalAPIServiceSoap",
      "GetSubscriberMailingLists",
      withCredentials("GetSubscriberMailingLists"),
    )) as {
      GetSubscriberMailingListsResult: { diffgram: { NewDataSet: { Table: unknown } } };
    };
    expect(Array.isArray(result.GetSubscriberMailingListsResult.diffgram.NewDataSet.Table)).toBe(false);
  });
});

describe("node-soap with customDeserializer reads the exact values off our wire", () => {
  it("long, decimal, double and dateTime arrive as the server wrote them", async () => {
    const exact = await soap.createClientAsync(`${server.endpointUrl}?WSDL`, {
      httpClient: new LoopbackHttpClient(),
      disableCache: true,
      customDeserializer: {
        long: (text: string) => BigInt(text),
        decimal: (text: string) => text,
        double: (text: string) => ({ INF: Infinity, "-INF": -Infinity, NaN: NaN })[text] ?? Number(text),
        dateTime: (text: string) => text,
      },
    });
    const port = "ExternalAPIServiceSoap";
    await expect(
      callPort(exact, port, "InsertSubscriberSid", withCredentials("InsertSubscriberSid")),
    ).resolves.toEqual({
      InsertSubscriberSidResult: LONG_MAX,
    });
    await expect(
      callPort(exact, port, "InsertSubscriberWithDemData", withCredentials("InsertSubscriberWithDemData")),
    ).resolves.toEqual({
      InsertSubscriberWithDemDataResult: -9223372036854775808n,
    });
    await expect(
      callPort(exact, port, "SendSmsWithSenderName", withCredentials("SendSmsWithSenderName")),
    ).resolves.toEqual({
      SendSmsWithSenderNameResult: { Id: 99n, CreditCost: "1.5", TotalCredits: "98.25" },
    });
    const roi = (await callPort(exact, port, "GetRoiResults", withCredentials("GetRoiResults"))) as {
      GetRoiResultsResult: { RoiResult: { Value: number }[] };
    };
    expect(roi.GetRoiResultsResult.RoiResult.map((r) => r.Value)).toEqual(
      samples.GetRoiResults.result.map((r) => r?.Value),
    );
    const clicks = (await callPort(exact, port, "GetTriggerClicks", withCredentials("GetTriggerClicks"))) as {
      GetTriggerClicksResult: { TriggerSubscriberClicksResult: { ClickTime: string }[] };
    };
    expect(clicks.GetTriggerClicksResult.TriggerSubscriberClicksResult.map((r) => r.ClickTime)).toEqual(
      samples.GetTriggerClicks.result.map((r) => r?.ClickTime),
    );
  });
});

describe("node-soap over SOAP 1.2 (forceSoap12Headers, port ExternalAPIServiceSoap12)", () => {
  let client12: soap.Client;
  beforeAll(async () => {
    client12 = await soap.createClientAsync(`${server.endpointUrl}?WSDL`, {
      forceSoap12Headers: true,
      httpClient: new LoopbackHttpClient(),
      disableCache: true,
    });
  }, 60_000);

  it.each([
    "InsertSubscriberSid",
    "GetTriggerIdForAccount",
    "SendSmsWithSenderName",
    "UpdateMailingList",
  ] as const)("%s: node-soap decodes the answer and the server got a SOAP 1.2 call", async (op) => {
    const result = await callAndReceive(client12, "ExternalAPIServiceSoap12", op, "soap12");
    expect(result).toEqual(expectedFromNodeSoap(op));
  });
});
