// Why the record writers build strings (run alone: npx tsx bench/string-vs-bytes.ts): the 100-record list's
// 17,784 bytes, the same pieces (markup made once, the record values) written three ways, then held as bytes:
// stored into a Uint8Array from JavaScript byte by byte; the markup copied with TypedArray.set and the values
// byte by byte; concatenated as a string and encoded once (what the server does). No validation or escaping
// in any of them: only the cost of putting the bytes together. CPU time, best of 7 trials.

import { cpuPerOp } from "./timing.js";
import { TRIGGER_MARKUP, triggerRecords } from "./wire.js";

const records = triggerRecords();
const between = TRIGGER_MARKUP;
const encoder = new TextEncoder();
const markup = between.map((m) => encoder.encode(m));

class Bytes {
  buf = new Uint8Array(32 * 1024);
  pos = 0;
  copyLoop(b: Uint8Array): void {
    const buf = this.buf;
    let p = this.pos;
    for (let i = 0; i < b.length; i++) buf[p++] = b[i]!;
    this.pos = p;
  }
  copySet(b: Uint8Array): void {
    this.buf.set(b, this.pos);
    this.pos += b.length;
  }
  ascii(s: string): void {
    const buf = this.buf;
    let p = this.pos;
    for (let i = 0; i < s.length; i++) buf[p++] = s.charCodeAt(i);
    this.pos = p;
  }
}

let sink = 0;
function bytesWith(copy: "copyLoop" | "copySet"): () => void {
  return () => {
    const out = new Bytes();
    for (const r of records) {
      out[copy](markup[0]!);
      out.ascii(String(r.Id));
      out[copy](markup[1]!);
      out.ascii(r.Name);
      out[copy](markup[2]!);
      out.ascii(r.Created);
      out[copy](markup[3]!);
      out.ascii(String(r.MailinglistId));
      out[copy](markup[4]!);
      out.ascii(r.MailinglistName);
      out[copy](markup[5]!);
    }
    sink += out.buf.subarray(0, out.pos).length;
  };
}
const string = (): void => {
  const parts = new Array<string>(records.length);
  for (let i = 0; i < records.length; i++) {
    const r = records[i]!;
    parts[i] =
      between[0]! +
      r.Id +
      between[1] +
      r.Name +
      between[2] +
      r.Created +
      between[3] +
      r.MailinglistId +
      between[4] +
      r.MailinglistName +
      between[5];
  }
  sink += Buffer.from(parts.join(""), "latin1").length;
};
for (let round = 1; round <= 3; round++) {
  const loop = cpuPerOp(bytesWith("copyLoop"));
  const set = cpuPerOp(bytesWith("copySet"));
  const str = cpuPerOp(string);
  console.log(
    `round ${round}: bytes stored one by one ${loop.toFixed(1)} µs, markup by TypedArray.set ${set.toFixed(1)} µs, string + one encode ${str.toFixed(1)} µs`,
  );
}
if (sink === 0) console.log("");
