// In-process micro-benchmark of the list answer (run alone: npx tsx bench/list-encode.ts):
// µs per SOAP 1.1 encodeResponse of GetTriggerIdForAccount's 100 TriggerResult records, plus the
// same with the body flattened to bytes (Buffer.byteLength + Buffer.from), as the server sends it.

import { operations, service } from "../generated/model.js";
import { bindingFactories } from "../test/fixtures/bindings.js";
import { readXml } from "../generated/runtime/xml/scan.js";
import { timePerOp } from "./timing.js";
import { triggerRecords } from "./wire.js";

const binding = bindingFactories.soap11(service, { readXml });
const op = operations.GetTriggerIdForAccount;
const records = triggerRecords();
const request = { strUsername: "u", strPassword: "p" };
let sink = 0;
const encode = timePerOp(() => {
  sink += (binding.encodeResponse(op, records, request).body as string).length;
}, 2000, 100);
const encodeBytes = timePerOp(() => {
  const body = binding.encodeResponse(op, records, request).body as string;
  sink += Buffer.byteLength(body, "utf8") + Buffer.from(body, "latin1").length;
}, 2000, 100);
console.log(`encodeResponse x100: ${encode.toFixed(2)} µs/op; + byteLength + Buffer: ${encodeBytes.toFixed(2)} µs/op (${sink > 0 ? "ok" : ""})`);
