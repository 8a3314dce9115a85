// µs per read: the hand-written scanner against the fast-xml-parser reader; and, when the garbage
// collector is exposed, the heap the scanner's tree holds per input code unit for the shapes that
// cost the most (the figures tree.ts documents).
// Run: npx tsx bench/xml-read.ts            (timing only)
//      node --expose-gc --import tsx bench/xml-read.ts
import { readXml } from "../runtime/xml/scan.js";
import { readXmlWithFastXmlParser } from "../test/oracle/fxp.js";
import type { XmlElement } from "../runtime/xml/tree.js";
import { DATASET_DOCUMENT, SOAP11_REQUEST_BODY } from "../test/fixtures/wire-samples.js";

type Reader = (text: string) => XmlElement;

let sink = 0;

/** Median of five timed runs of `iterations` reads each, in µs per read, after a warm-up. */
function measure(read: Reader, doc: string, iterations: number): number {
  for (let n = 0; n < iterations; n++) sink += read(doc).children.length;
  const runs: number[] = [];
  for (let run = 0; run < 5; run++) {
    const start = process.hrtime.bigint();
    for (let n = 0; n < iterations; n++) sink += read(doc).children.length;
    runs.push(Number(process.hrtime.bigint() - start) / 1000 / iterations);
  }
  runs.sort((a, b) => a - b);
  return runs[2];
}

const docs: Array<[string, string, number]> = [
  ["SOAP 1.1 InsertSubscriberSid (§2)", SOAP11_REQUEST_BODY, 20_000],
  ["DataSet schema + diffgram (§5)", DATASET_DOCUMENT, 5_000],
];

const rows = docs.map(([name, doc, iterations]) => {
  const scan = measure(readXml, doc, iterations);
  const fxp = measure(readXmlWithFastXmlParser, doc, Math.ceil(iterations / 10));
  return {
    document: name,
    bytes: Buffer.byteLength(doc),
    "readXml µs": scan.toFixed(2),
    "fast-xml-parser reader µs": fxp.toFixed(2),
    ratio: `${(fxp / scan).toFixed(1)}x`,
  };
});
console.table(rows);

const gc = (globalThis as { gc?: () => void }).gc;
if (gc !== undefined) {
  /** 64 attributes with the shortest distinct names. */
  const widest = (): string => {
    let tag = "<a";
    for (let k = 0; k < 64; k++)
      tag += ` ${String.fromCharCode(k < 26 ? 97 + k : k < 52 ? 39 + k : 65)}${k < 52 ? "" : k}=""`;
    return `${tag}/>`;
  };
  const shapes: Array<[string, string]> = [
    ["<a/> (shared leaves)", "<a/>"],
    ['<a b=""/> (worst)', '<a b=""/>'],
    ['<a x="1"/>', '<a x="1"/>'],
    ["<a>t</a>", "<a>t</a>"],
    ['<a b="" c=""/>', '<a b="" c=""/>'],
    ["64 attributes per element", widest()],
    ["x<!----> (text pieces)", "x<!---->"],
  ];
  const memory = shapes.map(([name, unit]) => {
    const doc = `<r>${unit.repeat(Math.floor(4_000_000 / unit.length))}</r>`;
    doc.charCodeAt(0); // flat before measuring
    gc();
    const before = process.memoryUsage().heapUsed;
    const root = readXml(doc, { maxElements: 10_000_000 });
    gc();
    const grown = process.memoryUsage().heapUsed - before;
    sink += root.children.length;
    return {
      shape: name,
      "input code units": doc.length,
      "heap bytes per unit": (grown / doc.length).toFixed(1),
    };
  });
  console.table(memory);
}
if (sink === 0) console.log("(unreachable)");
