// Parameters of the issue 11 types between wire values and typed values (runtime/codec/params.ts over
// codec/typed-xml.ts): absence and nil per binding, nullable values, arrays, records; and the XML reader
// and writer of typed values on their own.

import { describe, expect, it } from "vitest";
// The float, unsignedLong, guid, char and base64Binary codecs (a generated model registers them).
import "../../runtime/codec/values-extra.js";
import type { ServiceError } from "../../runtime/errors.js";
import type { RecordModel, TypeModel } from "../../runtime/model.js";
import { readParams, writeParams, type ParamTexts, type Presence } from "../../runtime/codec/params.js";
import {
  readWire,
  recordWire,
  registerTypedWriters,
  wireOf,
  wireXml,
  type WireValue,
} from "../../runtime/codec/typed-xml.js";
import { typedWriters } from "../../runtime/codec/typed-xml-write.js";
import { readXml } from "../../runtime/xml/scan.js";
import { NS, operation, param, typeOf } from "./fixtures.js";

// The writers of array, record and enum values (a generated model with such parameters registers them).
registerTypedWriters(typedWriters);

const ints: TypeModel = { kind: "array", item: typeOf("int"), itemElement: "int", typeName: "ArrayOfInt" };
const strings: TypeModel = {
  kind: "array",
  item: typeOf("string"),
  itemElement: "string",
  typeName: "ArrayOfString",
};
const Inner: RecordModel = { name: "Inner", fields: [{ name: "N", type: typeOf("int") }] };
const Outer: RecordModel = {
  name: "Outer",
  fields: [
    { name: "S", type: typeOf("string") },
    { name: "In", type: { kind: "record", record: Inner } },
    { name: "Ns", type: ints },
    { name: "Maybe", type: typeOf("long"), nullable: true },
  ],
};
const outer: TypeModel = { kind: "record", record: Outer };

const op = operation("Op", [
  param("n", "int", { nullable: true }),
  param("ids", ints),
  param("bytes", "base64Binary"),
  param("names", strings),
  param("o", outer),
  param("s", "string", { default: "dflt" }),
]);

function refusal(run: () => unknown): ServiceError {
  try {
    run();
  } catch (error) {
    return error as ServiceError;
  }
  throw new Error("expected a refusal");
}

describe("readParams: absence and nil", () => {
  const read = (texts: ParamTexts, presence: Presence) => readParams(op, texts, presence);

  it("SOAP: an absent or nil nullable value is null; absent arrays, byte arrays and records are undefined", () => {
    expect(read([], "element")).toEqual({
      n: null,
      ids: undefined,
      bytes: undefined,
      names: undefined,
      o: undefined,
      s: "dflt",
    });
    expect(read([null, null, null, null, null, null], "element")).toEqual({
      n: null,
      ids: undefined,
      bytes: undefined,
      names: undefined,
      o: undefined,
      s: "dflt",
    });
  });

  it("HTTP: an empty nullable value is null, an absent array is empty, an absent byte array is missing", () => {
    // The HTTP bindings offer no operation with a record parameter: this one has none.
    const httpOp = operation(
      "Op",
      op.params.filter((p) => p.name !== "o"),
    );
    const readHttp = (texts: ParamTexts) => readParams(httpOp, texts, "field");
    expect(readHttp(["", undefined, "AAE=", ["a", ""], "x"])).toEqual({
      n: null,
      ids: [],
      bytes: new Uint8Array([0, 1]),
      names: ["a", ""],
      s: "x",
    });
    const error = refusal(() => readHttp(["1", undefined, undefined, undefined, "x"]));
    expect([error.code, error.parameter]).toEqual(["MissingParameter", "bytes"]);
  });

  it("a required record or array that is absent is RequiredParameter", () => {
    const required = operation("Req", [param("o", outer, { required: true })]);
    const error = refusal(() => readParams(required, [], "element"));
    expect([error.code, error.parameter, error.message]).toEqual([
      "RequiredParameter",
      "o",
      "Parameter o is required and must not be empty.",
    ]);
  });

  it("a record's value-type field absent: MissingParameter naming the path; a nullable one reads null", () => {
    const error = refusal(() =>
      read([undefined, undefined, undefined, undefined, { fields: [undefined, { fields: [] }] }], "element"),
    );
    expect([error.code, error.parameter, error.message]).toEqual([
      "MissingParameter",
      "o",
      "parameter o.In.N is missing.",
    ]);
    expect(
      read(
        [undefined, undefined, undefined, undefined, { fields: ["x", undefined, ["1"], undefined] }],
        "element",
      ).o,
    ).toEqual({
      S: "x",
      Ns: [1],
      Maybe: null,
    });
  });

  it("nil string items are null, nil int items are refused", () => {
    expect(read([undefined, undefined, undefined, ["a", null]], "element").names).toEqual(["a", null]);
    const error = refusal(() => read([undefined, ["1", null]], "element"));
    expect([error.code, error.message]).toEqual([
      "InvalidType",
      "parameter ids[1] is nil, but int items cannot be null.",
    ]);
  });
});

describe("writeParams", () => {
  it("an absent nullable value is nil (null); absent arrays, byte arrays and records are left out", () => {
    expect(writeParams(op, {})).toEqual([null, undefined, undefined, undefined, undefined, undefined]);
  });

  it("formats items and fields, null string items stay null, records index-aligned", () => {
    expect(
      writeParams(op, {
        ids: [1, 2],
        names: ["a", null],
        o: { In: { N: 3 }, Ns: [], Maybe: 5n },
        bytes: new Uint8Array([255]),
      }),
    ).toEqual([
      null,
      ["1", "2"],
      "/w==",
      ["a", null],
      { fields: [undefined, { fields: ["3"] }, [], "5"] },
      undefined,
    ]);
  });

  it("refuses null int items and missing value fields, naming the path", () => {
    expect(() => writeParams(op, { ids: [1, null] })).toThrow(
      "Op: parameter ids[1] is null, but int items cannot be null.",
    );
    expect(() => writeParams(op, { o: { In: {} } })).toThrow("Op: parameter o.In.N is missing.");
    expect(() => writeParams(op, { o: [] })).toThrow("Op: parameter o is not a Outer object.");
  });
});

describe("typed XML", () => {
  const el = (xml: string) =>
    readXml(`<r xmlns="${NS}" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">${xml}</r>`);

  it("reads a record's fields by name in any order, the first of a repeated field, skipping others", () => {
    const wire = recordWire(
      Outer,
      el(
        `<Maybe>7</Maybe><S>a</S><S>b</S><Other>x</Other><Ns><int>1</int><long>2</long><int xmlns="">3</int></Ns>`,
      ),
      NS,
    );
    expect(readWire(outer, wire, "o")).toEqual({ S: "a", Ns: [1], Maybe: 7n });
  });

  it("writes what it reads, compact and indented", () => {
    const wire: WireValue = { fields: ["a&b", { fields: ["1"] }, ["1", "2"], null] };
    const compact = wireXml("o", outer, wire, false, 0);
    expect(compact).toBe(
      '<o><S>a&amp;b</S><In><N>1</N></In><Ns><int>1</int><int>2</int></Ns><Maybe xsi:nil="true" /></o>',
    );
    expect(wireXml("o", outer, wire, true, 0)).toBe(
      '<o>\n  <S>a&amp;b</S>\n  <In>\n    <N>1</N>\n  </In>\n  <Ns>\n    <int>1</int>\n    <int>2</int>\n  </Ns>\n  <Maybe xsi:nil="true" />\n</o>',
    );
    const back = wireOf(outer, el(compact).children[0]!, NS);
    expect(back).toEqual({ fields: ["a&b", { fields: ["1"] }, ["1", "2"], null] });
  });

  it("a record that holds itself: read and written as deep as the value goes, a cycle refused", () => {
    const fields: RecordModel["fields"][number][] = [{ name: "Name", type: typeOf("string") }];
    const Item: RecordModel = { name: "Item", fields };
    const items: TypeModel = {
      kind: "array",
      item: { kind: "record", record: Item },
      itemElement: "Item",
      typeName: "ArrayOfItem",
    };
    fields.push({ name: "Items", type: items });
    const item: TypeModel = { kind: "record", record: Item };
    const tree = { Name: "a", Items: [{ Name: "b", Items: [{ Name: "c" }] }, { Name: "d" }] };
    const xml = wireXml(
      "o",
      item,
      typedWriters.format(item, tree, "o", (m) => new TypeError(m)),
      false,
      0,
    );
    expect(xml).toBe(
      "<o><Name>a</Name><Items><Item><Name>b</Name><Items><Item><Name>c</Name></Item></Items></Item><Item><Name>d</Name></Item></Items></o>",
    );
    expect(readWire(item, wireOf(item, el(xml).children[0]!, NS), "o")).toEqual(tree);
    // A value that holds itself is refused with a message, never a stack overflow.
    const cyclic: { Name: string; Items: unknown[] } = { Name: "loop", Items: [] };
    cyclic.Items.push(cyclic);
    expect(() => typedWriters.format(item, cyclic, "o", (m) => new TypeError(m))).toThrow(
      /^o(\.Items(\[0\])?)+ nests arrays and records more than 64 deep \(does it hold itself\?\)$/,
    );
  });

  it("xs:choice: at most one alternative of a choice, exactly one per item of a repeated choice", () => {
    const City: RecordModel = { name: "City", fields: [{ name: "Name", type: typeOf("string") }] };
    const city: TypeModel = { kind: "record", record: City };
    // Inline: Capital | CapitalName, then an ordinary field.
    const Country: RecordModel = {
      name: "Country",
      fields: [
        { name: "Capital", type: city, choice: "Item" },
        { name: "CapitalName", type: typeOf("string"), choice: "Item" },
        { name: "Code", type: typeOf("string") },
      ],
    };
    const country: TypeModel = { kind: "record", record: Country };
    const fail = (m: string) => new TypeError(m);
    const one = { Capital: { Name: "Bern" }, Code: "CH" };
    const xml = wireXml("c", country, typedWriters.format(country, one, "c", fail), false, 0);
    expect(xml).toBe("<c><Capital><Name>Bern</Name></Capital><Code>CH</Code></c>");
    expect(readWire(country, wireOf(country, el(xml).children[0]!, NS), "c")).toEqual(one);
    expect(() => typedWriters.format(country, { ...one, CapitalName: "Bern" }, "c", fail)).toThrow(
      "c: Capital and CapitalName are alternatives of one choice (Item): at most one may be present",
    );
    const both = "<c><Capital><Name>Bern</Name></Capital><CapitalName>Bern</CapitalName></c>";
    expect(() => readWire(country, wireOf(country, el(both).children[0]!, NS), "c")).toThrow(
      "c: Capital and CapitalName are alternatives of one choice (Item): at most one may be present.",
    );
    // Parameters: the server refuses two alternatives (InvalidType naming the first), the client too.
    const op = operation("Set", [param("Capital", city, {}), param("CapitalName", "string", {})]).params.map(
      (p) => ({ ...p, choice: "Item" }),
    );
    const setOp = operation("Set", op);
    const error = refusal(() => readParams(setOp, [{ fields: ["Bern"] }, "Bern"], "element"));
    expect([error.code, error.parameter]).toEqual(["InvalidType", "Capital"]);
    expect(readParams(setOp, [undefined, "Bern"], "element")).toEqual({ CapitalName: "Bern" });
    expect(() => writeParams(setOp, { Capital: { Name: "Bern" }, CapitalName: "Bern" })).toThrow(
      "Set: Capital and CapitalName are alternatives of one choice (Item): at most one may be present.",
    );
    // A repeated choice (ArrayOfChoice1 of Town | Landmark): each item is one alternative's element.
    const Choice1: RecordModel = {
      name: "Choice1",
      choice: true,
      fields: [
        { name: "Town", type: city },
        { name: "Landmark", type: typeOf("string") },
      ],
    };
    const sights: TypeModel = {
      kind: "array",
      item: { kind: "record", record: Choice1 },
      itemElement: "Choice1",
      typeName: "ArrayOfChoice1",
    };
    const items = [{ Landmark: "Zytglogge" }, { Town: { Name: "Thun" } }];
    const list = wireXml("s", sights, typedWriters.format(sights, items, "s", fail), false, 0);
    expect(list).toBe("<s><Landmark>Zytglogge</Landmark><Town><Name>Thun</Name></Town></s>");
    expect(readWire(sights, wireOf(sights, el(list).children[0]!, NS), "s")).toEqual(items);
    expect(() => typedWriters.format(sights, [{ Landmark: "a", Town: {} }], "s", fail)).toThrow(
      "s[0] holds both Town and Landmark: exactly one is allowed",
    );
    expect(() => typedWriters.format(sights, [{}], "s", fail)).toThrow(
      "s[0] holds none of Town, Landmark: exactly one is needed",
    );
    expect(() => typedWriters.format(sights, [null], "s", fail)).toThrow(
      "s[0] is null, but an item of ArrayOfChoice1 holds one of its alternatives",
    );
    expect(() => wireOf(sights, el('<s><Town xsi:nil="true" /></s>').children[0]!, NS)).toThrow(
      "Town is nil, but an item of ArrayOfChoice1 holds one of its alternatives.",
    );
  });

  it("reads a long array in one pass (100,000 items)", () => {
    const items = "<int>7</int>".repeat(100_000);
    const started = performance.now();
    const value = readWire(ints, wireOf(ints, el(items), NS), "ids") as number[];
    expect(value).toHaveLength(100_000);
    expect(performance.now() - started).toBeLessThan(2_000);
  });
});
