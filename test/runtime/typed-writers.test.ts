// The writers of enum, array and record values are registered by the generated model of a service whose
// parameters need them (registerTypedWriters): until then a client refuses such a parameter with a
// TypeError that says what to register, while scalars need nothing; once registered, they format.
// (A module of its own: the registration is module state, and typed-params.test.ts registers at load.)

import { describe, expect, it } from "vitest";
import { writeParams } from "../../runtime/codec/params.js";
import { registerTypedWriters, wireXml } from "../../runtime/codec/typed-xml.js";
import { typedWriters } from "../../runtime/codec/typed-xml-write.js";
import { operation, param } from "./fixtures.js";
import { registerAllClientCodecs } from "../../runtime/codec/values.js";

// The client's codecs of every scalar type (a generated model registers those its service uses).
registerAllClientCodecs();

const ints = {
  kind: "array",
  item: { kind: "scalar", type: "int" },
  itemElement: "int",
  typeName: "ArrayOfInt",
} as const;
const op = operation("Sum", [param("a", "int"), param("ids", ints)]);

describe("registerTypedWriters", () => {
  it("scalars format without it; an array parameter is refused, naming what to register", () => {
    expect(writeParams(op, { a: 1 })).toEqual(["1", undefined]);
    expect(() => writeParams(op, { a: 1, ids: [1, 2] })).toThrow(
      /no writer of array values \(registerTypedWriters with typed-xml-write\.js\)/,
    );
    expect(() => wireXml("ids", ints, ["1"], false, 0)).toThrow(TypeError);
  });

  it("once registered, arrays format and write", () => {
    registerTypedWriters(typedWriters);
    const texts = writeParams(op, { a: 1, ids: [1, 2] });
    expect(texts).toEqual(["1", ["1", "2"]]);
    expect(wireXml("ids", ints, texts[1], false, 0)).toBe("<ids><int>1</int><int>2</int></ids>");
    expect(() => writeParams(op, { a: 1, ids: [1, null] })).toThrow(
      "Sum: parameter ids[1] is null, but int items cannot be null.",
    );
  });
});
