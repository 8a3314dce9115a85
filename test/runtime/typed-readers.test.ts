// The generic reader of enum, array and nested record results is registered by the generated model of a
// service whose results need it (registerTypedReaders): until then the client's direct reader
// (result-read.ts) reads scalars, flat records, lists of them and DataSets alone and refuses the other
// results with a TypeError that says what to register; once registered, they read.
// (A module of its own: the registration is module state.)

import { describe, expect, it } from "vitest";
import { readResult, registerTypedReaders } from "../../runtime/codec/result-read.js";
import { typedResultReader } from "../../runtime/codec/typed-xml-read.js";
import { readXml } from "../../runtime/xml/scan.js";
import { NS, operation } from "./fixtures.js";
import { registerAllClientCodecs } from "../../runtime/codec/values.js";

// The client's codecs of every scalar type (a generated model registers those its service uses).
registerAllClientCodecs();

const ints = {
  kind: "array",
  item: { kind: "scalar", type: "int" },
  itemElement: "int",
  typeName: "ArrayOfInt",
} as const;
const arrayOp = operation("Ids", [], ints);
const holder = (xml: string) => readXml(xml);

describe("registerTypedReaders", () => {
  it("scalars and flat records read without it; an array result is refused, naming what to register", () => {
    const intOp = operation("Count", [], { kind: "scalar", type: "int" });
    expect(readResult(intOp, holder(`<r xmlns="${NS}"> 7 </r>`), NS, {})).toBe(7);
    expect(() => readResult(arrayOp, holder(`<r xmlns="${NS}"><int>1</int></r>`), NS, {})).toThrow(
      "no reader of array results (registerTypedReaders with typed-xml-read.js)",
    );
  });

  it("once registered, arrays read", () => {
    registerTypedReaders(typedResultReader);
    expect(readResult(arrayOp, holder(`<r xmlns="${NS}"><int>1</int><int>2</int></r>`), NS, {})).toEqual([
      1, 2,
    ]);
    expect(() => readResult(arrayOp, holder(`<r xmlns="${NS}"><int>x</int></r>`), NS, {})).toThrow(
      "IdsResult[0]",
    );
  });
});
