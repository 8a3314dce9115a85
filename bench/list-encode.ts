// In-process micro-benchmark of the list answer (run alone: npx tsx bench/list-encode.ts):
// µs per SOAP 1.1 encodeResponse of GetTriggerIdForAccount's 100 TriggerResult records, plus the
// same with the body flattened to bytes (Buffer.byteLength + Buffer.from), as the server sends it.

import { operations, service } from "../generated/model.js";
import { bindingFactories } from "../generated/runtime/bindings.js";
import { readXml } from "../generated/runtime/xml/scan.js";
import { triggerRecords } from "./wire.js";

function timePerOp(fn: () => void, minMs: number): number {
  for (let i = 0; i < 5_000; i++) fn();
  let best = Infinity;
  const trialNs = (minMs / 5) * 1e6;
  for (let trial = 0; trial < 5; trial++) {
    let ops = 0;
    const start = process.hrtime.bigint();
    let elapsed = 0;
    while (elapsed < trialNs) {
      for (let i = 0; i < 100; i++) fn();
      ops += 100;
      elapsed = Number(process.hrtime.bigint() - start);
    }
    best = Math.min(best, elapsed / 1000 / ops);
  }
  return best;
}

const binding = bindingFactories.soap11(service, { readXml });
const op = operations.GetTriggerIdForAccount;
const records = triggerRecords();
const request = { strUsername: "u", strPassword: "p" };
let sink = 0;
const encode = timePerOp(() => {
  sink += (binding.encodeResponse(op, records, request).body as string).length;
}, 2000);
const encodeBytes = timePerOp(() => {
  const body = binding.encodeResponse(op, records, request).body as string;
  sink += Buffer.byteLength(body, "utf8") + Buffer.from(body, "latin1").length;
}, 2000);
console.log(`encodeResponse x100: ${encode.toFixed(2)} µs/op; + byteLength + Buffer: ${encodeBytes.toFixed(2)} µs/op (${sink > 0 ? "ok" : ""})`);
