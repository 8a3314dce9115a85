// The delimited-row reader of ExternalAPIService's extension module (spec/ExternalAPIService.extensions.ts),
// shared by the wire rule and the service: RFC 4180 quoting with the comma,
// physical line numbers, blank lines, and one linear pass over hostile shapes (no delimiter at all,
// thousands of quoted fields, an unclosed quote at the start).

import { describe, expect, it } from "vitest";
import { detectDelimiter, isCsvProblem, readCsvRows } from "../../spec/ExternalAPIService.extensions.js";
import { sameInputRatio } from "../fixtures/growth.js";

const rows = (text: string, delimiter = ",", quoting = delimiter === ",") => [
  ...readCsvRows(text, delimiter, quoting),
];

describe("readCsvRows", () => {
  it.each([
    {
      name: "plain rows, LF and CRLF",
      text: "a,b,c\r\nd,e,f\n",
      want: [
        { line: 1, fields: ["a", "b", "c"] },
        { line: 2, fields: ["d", "e", "f"] },
      ],
    },
    {
      name: "blank lines skipped, lines still counted",
      text: "\n  \na,b\n\nc,d",
      want: [
        { line: 3, fields: ["a", "b"] },
        { line: 5, fields: ["c", "d"] },
      ],
    },
    {
      name: "quoted delimiter and doubled quote",
      text: 'a,"b, ""c""",d',
      want: [{ line: 1, fields: ["a", 'b, "c"', "d"] }],
    },
    {
      name: "quoted line break moves the next row's line",
      text: 'a,"x\ny\nz",b\nc,d,e',
      want: [
        { line: 1, fields: ["a", "x\ny\nz", "b"] },
        { line: 4, fields: ["c", "d", "e"] },
      ],
    },
    {
      name: "quoted field at the end with CRLF",
      text: 'a,"b"\r\nc,d',
      want: [
        { line: 1, fields: ["a", "b"] },
        { line: 2, fields: ["c", "d"] },
      ],
    },
    {
      name: "empty fields",
      text: "a,,\n,b,",
      want: [
        { line: 1, fields: ["a", "", ""] },
        { line: 2, fields: ["", "b", ""] },
      ],
    },
  ])("reads $name", ({ text, want }) => {
    expect(rows(text)).toEqual(want);
  });

  it("leaves quotes alone without quoting (the pipe and the import's semicolon)", () => {
    expect(rows('a|"b|c"|d', "|")).toEqual([{ line: 1, fields: ["a", '"b', 'c"', "d"] }]);
    expect(rows('a;"b;c"', ";", false)).toEqual([{ line: 1, fields: ["a", '"b', 'c"'] }]);
  });

  it.each([
    {
      name: "a quote never closed",
      text: 'a,b\nc,"d\ne',
      want: { line: 2, problem: "a quoted field is never closed" },
    },
    {
      name: "text after the closing quote",
      text: 'a,"b"c',
      want: { line: 1, problem: "a quoted field is followed by text before the next delimiter" },
    },
    {
      name: "the line of the closing quote",
      text: 'a,"b\nc"x',
      want: { line: 2, problem: "a quoted field is followed by text before the next delimiter" },
    },
  ])("stops at $name", ({ text, want }) => {
    const all = rows(text);
    const last = all[all.length - 1]!;
    expect(isCsvProblem(last)).toBe(true);
    expect(last).toEqual(want);
  });

  it("detects the delimiter from the first non-blank row", () => {
    expect(detectDelimiter("\n a|b,c\nx,y", [",", "|"])).toBe("|");
    expect(detectDelimiter("a,b|c", [",", "|"])).toBe(",");
    expect(detectDelimiter("abc", [",", "|"])).toBeUndefined();
    expect(detectDelimiter(" \n\t", [",", "|"])).toBeUndefined();
  });

  // 100 texts against one of 100 times the input: about the same time; a reader that rescans the rest of
  // the text per field or per line would take about 100 times.
  it.each([
    { name: "lines without any delimiter", make: (n: number) => "x\n".repeat(n) },
    { name: "one line of many fields", make: (n: number) => "a,".repeat(n) },
    { name: "many quoted fields with doubled quotes", make: (n: number) => '"a""b",'.repeat(n) },
    { name: "quoted fields holding line breaks", make: (n: number) => '"a\nb",c\n'.repeat(n) },
  ])("reads $name in linear time", ({ make }) => {
    const small = make(1_600);
    const large = make(160_000);
    const count = (text: string) => {
      let n = 0;
      for (const row of readCsvRows(text, ",", true)) n += isCsvProblem(row) ? 0 : row.fields.length;
      return n;
    };
    expect(count(large)).toBeGreaterThan(count(small));
    expect(
      sameInputRatio(
        () => count(small),
        () => count(large),
      ),
    ).toBeLessThan(10);
  });

  it("refuses an unclosed quote at the start of a large text in one pass", () => {
    const text = `"${"a,b\n".repeat(200_000)}`;
    const small = `"${"a,b\n".repeat(2_000)}`;
    expect(rows(text)).toEqual([{ line: 1, problem: "a quoted field is never closed" }]);
    expect(
      sameInputRatio(
        () => rows(small),
        () => rows(text),
      ),
    ).toBeLessThan(10);
  });
});
