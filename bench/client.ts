// Client codec micro-benchmark: µs per scalar call spent in the codecs, no network (best of 5 trials).
// Per binding: binding.encodeRequest(op, writeParams(op, values)) + binding.decodeResponse(op, canned, values)
// for InsertSubscriberSid, with the reader the generated client uses by default. Target: <= 10 µs.
// Run alone: npx tsx bench/client.ts   (part of `npm run bench` otherwise)

// The server's model: the codecs here write and read both sides.
import { serverModel as service, serverOperations as operations } from "../generated/server-model.js";
import { bindingFactories } from "../test/fixtures/bindings.js";
import { writeParams, type ParamValues } from "../generated/runtime/codec/params.js";
import type { WireResponse } from "../generated/runtime/protocol/binding.js";
import { readXml } from "../generated/runtime/xml/scan.js";
import { SOAP11_REQUEST_VALUES } from "../test/fixtures/wire-samples.js";
import { table } from "./summary.js";
import { timePerOp } from "./timing.js";
import { NS, SID, SOAP11_NS, SOAP12_NS } from "./wire.js";
import type { BindingName } from "../generated/runtime/model.js";

export const CLIENT_TARGET_US = 10;

const soapResponse = (envNs: string) =>
  `<?xml version="1.0" encoding="utf-8"?><soap:Envelope xmlns:soap="${envNs}" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" ` +
  `xmlns:xsd="http://www.w3.org/2001/XMLSchema"><soap:Body><InsertSubscriberSidResponse xmlns="${NS}">` +
  `<InsertSubscriberSidResult>${SID}</InsertSubscriberSidResult></InsertSubscriberSidResponse></soap:Body></soap:Envelope>`;

const httpResponse = `<?xml version="1.0" encoding="utf-8"?>\n<long xmlns="${NS}">${SID}</long>`;

/** The answers a server sends (docs/wire.md §2, §3, §4), canned. */
const canned: Record<BindingName, WireResponse> = {
  soap11: {
    status: 200,
    headers: { "content-type": "text/xml; charset=utf-8" },
    body: soapResponse(SOAP11_NS),
  },
  soap12: {
    status: 200,
    headers: { "content-type": "application/soap+xml; charset=utf-8" },
    body: soapResponse(SOAP12_NS),
  },
  httpGet: { status: 200, headers: { "content-type": "text/xml; charset=utf-8" }, body: httpResponse },
  httpPost: { status: 200, headers: { "content-type": "text/xml; charset=utf-8" }, body: httpResponse },
};

export interface ClientBenchRow {
  readonly binding: BindingName;
  readonly encodeUs: number;
  readonly decodeUs: number;
  readonly totalUs: number;
}

export function runClientBench(minMs = 1000): ClientBenchRow[] {
  const op = operations.InsertSubscriberSid;
  const values: ParamValues = { ...SOAP11_REQUEST_VALUES };
  const rows: ClientBenchRow[] = [];
  for (const name of ["soap11", "soap12", "httpGet", "httpPost"] as const) {
    const binding = bindingFactories[name](service, { readXml });
    const response = canned[name];
    const check = binding.decodeResponse(op, response, values);
    if (check !== SID) throw new Error(`${name}: decodeResponse gave ${String(check)}, not ${SID}`);
    let sink = 0;
    const encodeUs = timePerOp(() => {
      sink += binding.encodeRequest(op, writeParams(op, values)).body.length;
    }, minMs / 3);
    const decodeUs = timePerOp(() => {
      if (binding.decodeResponse(op, response, values) !== SID) sink++;
    }, minMs / 3);
    const totalUs = timePerOp(() => {
      sink += binding.encodeRequest(op, writeParams(op, values)).body.length;
      if (binding.decodeResponse(op, response, values) !== SID) sink++;
    }, minMs / 3);
    if (sink < 0) console.log(sink);
    rows.push({ binding: name, encodeUs, decodeUs, totalUs });
  }
  return rows;
}

/** The client table as text, and whether every row meets the target. */
export function clientTable(rows: readonly ClientBenchRow[]): { text: string; pass: boolean } {
  const header = ["binding", "encode µs", "decode µs", "encode+decode µs/op", "target"];
  let pass = true;
  const body = rows.map((r) => {
    const ok = r.totalUs <= CLIENT_TARGET_US;
    pass &&= ok;
    return [
      r.binding,
      r.encodeUs.toFixed(2),
      r.decodeUs.toFixed(2),
      r.totalUs.toFixed(2),
      `<=${CLIENT_TARGET_US} µs ${ok ? "PASS" : "MISS"}`,
    ];
  });
  return {
    text: table(
      header,
      body,
      header.map((_, i) => i > 0 && i < 4),
    ),
    pass,
  };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(clientTable(runClientBench()).text);
}
