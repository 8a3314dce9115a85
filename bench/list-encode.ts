// In-process micro-benchmark of the list answer (run alone: npx tsx bench/list-encode.ts): µs of CPU time
// per SOAP 1.1 encodeResponse of GetTriggerIdForAccount's 100 TriggerResult records, its body then made
// bytes (Buffer.byteLength + Buffer.from) as the node adapter sends it; with the generated record writers
// (generated/writers.ts, what createHandler uses) and with the writers the runtime makes from the model.
// Both run in the same process, alternately, so a busy machine slows both alike.

// The server's model: the codecs here write and read both sides.
import { serverModel as service, serverOperations as operations } from "../generated/server-model.js";
import { serverBindings } from "../generated/runtime/server/bindings.js";
import { readXml } from "../generated/runtime/xml/scan.js";
import { recordWriters } from "../generated/writers.js";
import { cpuPerOp } from "./timing.js";
import { triggerRecords } from "./wire.js";

const op = operations.GetTriggerIdForAccount;
const records = triggerRecords();
const request = { strUsername: "u", strPassword: "p" };
const generated = serverBindings.soap11(service, { readXml, recordWriters });
const fromModel = serverBindings.soap11(service, { readXml });
if (
  generated.encodeResponse(op, records, request).body !== fromModel.encodeResponse(op, records, request).body
) {
  throw new Error("the generated and the model-made writers disagree");
}
let sink = 0;
const send = (body: string): void => {
  sink += Buffer.byteLength(body, "utf8") + Buffer.from(body, "latin1").length;
};
for (let round = 1; round <= 3; round++) {
  const a = cpuPerOp(() => send(generated.encodeResponse(op, records, request).body));
  const b = cpuPerOp(() => send(fromModel.encodeResponse(op, records, request).body));
  console.log(
    `round ${round}: encodeResponse x100 + bytes: generated writers ${a.toFixed(1)} µs, model-made ${b.toFixed(1)} µs`,
  );
}
if (sink === 0) console.log("");
