// The generated record writers (generated/writers.ts) against the runtime's writers made from the model
// (recordWrite): the same text in every layout and the same refusal, for every record of the service.

import { describe, expect, it } from "vitest";
import { serverModel as service } from "../../generated/server-model.js";
import { recordWriters } from "../../generated/writers.js";
import type { RecordModel, SoapType } from "../../runtime/model.js";
import { recordLayout, recordWrite, type RecordWrite } from "../../runtime/codec/result.js";

/** A small deterministic generator (no Math.random: a failure must reproduce). */
function random(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

const SAMPLES: { readonly [T in SoapType]: readonly unknown[] } = {
  string: ["", "plain", 'a & <b> "q"', "Å 日本 😀", "line\r\nnext", null, undefined, "bell\u0007", 7],
  int: [0, -1, 2147483647, -2147483648, 2 ** 31, 1.5, "5", null, undefined],
  long: [0n, 9223372036854775807n, -5, 2 ** 53, 1.5, null, "x"],
  double: [0, -0, 1.5, 1e21, 1.5e-7, NaN, Infinity, "1", null],
  decimal: ["1.5", "98.25", 12n, "x", null, 3],
  dateTime: [
    "2024-05-06T07:08:09",
    "2024-05-06T07:08:09.123+02:00",
    new Date(Date.UTC(2024, 4, 6)),
    "2023-02-29T00:00:00",
    null,
    5,
  ],
  boolean: [true, false, "true", null],
  float: [0, 1.5, 3.4028234663852886e38, 1e39, "1", null],
  byte: [0, -128, 127, 128, null],
  unsignedByte: [0, 255, 256, -1, null],
  short: [0, -32768, 32767, 32768, null],
  unsignedShort: [0, 65535, 65536, null],
  unsignedInt: [0, 4294967295, 4294967296, -1, null],
  unsignedLong: [0n, 18446744073709551615n, -1n, null],
  base64Binary: [new Uint8Array([1, 2]), new Uint8Array(0), "AAH/", null],
  guid: ["d3b07384-d9a0-4c9e-8b1a-2f0c6e1d7f11", "x", null],
  char: ["A", "", "ab", null],
};

function sampleRecord(record: RecordModel, next: () => number): Record<string, unknown> {
  const value: Record<string, unknown> = {};
  for (const field of record.fields) {
    // Flat records only (generated writers exist for no other): every field is a scalar.
    const samples = SAMPLES[(field.type as { readonly type: SoapType }).type];
    // Mostly valid values (the first three or four of each list), so most records write through.
    const pick =
      next() < 0.9 ? Math.floor(next() * Math.min(4, samples.length)) : Math.floor(next() * samples.length);
    value[field.name] = samples[pick];
  }
  return value;
}

function outcome(write: RecordWrite, value: unknown, layout: ReturnType<typeof recordLayout>): string {
  try {
    return `ok ${write(value, layout)}`;
  } catch (error) {
    return `${(error as Error).name}: ${(error as Error).message}`;
  }
}

const LAYOUTS = [
  { name: "compact list item", pretty: false, depth: 0, tags: true },
  { name: "compact record result", pretty: false, depth: 0, tags: false },
  { name: "indented list item", pretty: true, depth: 1, tags: true },
  { name: "indented record result", pretty: true, depth: 1, tags: false },
];

describe("generated record writers", () => {
  it("exist for exactly the service's records", () => {
    expect(Object.keys(recordWriters).sort()).toEqual(service.records.map((r) => r.name).sort());
  });

  describe.each(service.records.map((record) => ({ record, name: record.name })))("$name", ({ record }) => {
    it.each(LAYOUTS)(
      "write what the model-made writer writes, refusals included: $name",
      ({ pretty, depth, tags }) => {
        const layout = recordLayout(record, pretty, depth, tags);
        const generated = recordWriters[record.name]!;
        const fromModel = recordWrite(record);
        const next = random(record.fields.length * 7919 + depth);
        const values: unknown[] = [null, 7, "x", {}];
        for (let i = 0; i < 300; i++) values.push(sampleRecord(record, next));
        let written = 0;
        for (const value of values) {
          const want = outcome(fromModel, value, layout);
          expect(
            outcome(generated, value, layout),
            JSON.stringify(value, (_k, v: unknown) => (typeof v === "bigint" ? `${v}n` : v)),
          ).toBe(want);
          if (want.startsWith("ok ")) written++;
        }
        // The comparison covered records that were written, not only refusals.
        expect(written).toBeGreaterThan(20);
      },
    );
  });
});
