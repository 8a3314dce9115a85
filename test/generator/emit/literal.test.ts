// literal() prints plain data as a TypeScript expression on one line (prettier lays it out later): given a
// value, want the exact text.

import { describe, expect, it } from "vitest";
import { code, literal, propertyKey, spread } from "../../../generator/emit/literal.js";

describe("literal", () => {
  it.each<{ name: string; given: unknown; want: string }>([
    { name: "a string, escaped as JSON", given: 'a"b\n</script>', want: '"a\\"b\\n</script>"' },
    { name: "true", given: true, want: "true" },
    { name: "a whole number", given: 5, want: "5" },
    { name: "a negative fraction", given: -0.5, want: "-0.5" },
    { name: "a bigint, with its n", given: 9223372036854775807n, want: "9223372036854775807n" },
    { name: "null", given: null, want: "null" },
    { name: "an array", given: [1, "x", [false]], want: '[1, "x", [false]]' },
    { name: "an empty array", given: [], want: "[]" },
    {
      name: "an object: identifier keys bare, others quoted, undefined left out",
      given: { a: 1, "b-c": 2, u: undefined },
      want: '{ a: 1, "b-c": 2 }',
    },
    { name: "an empty object (prettier tidies the spaces)", given: {}, want: "{  }" },
    { name: "a Code node, as is", given: code("rules.color"), want: "rules.color" },
    {
      name: "a spread inside an array",
      given: [spread("credentials"), { name: "x" }],
      want: '[...credentials, { name: "x" }]',
    },
    {
      name: "nested",
      given: { params: [code("a"), { rules: [] }], n: 1n },
      want: "{ params: [a, { rules: [] }], n: 1n }",
    },
  ])("$name", ({ given, want }) => {
    expect(literal(given)).toBe(want);
  });

  it.each<{ given: unknown; want: string }>([
    { given: Number.NaN, want: "literal: cannot print NaN" },
    { given: Infinity, want: "literal: cannot print Infinity" },
    { given: undefined, want: "literal: cannot print a undefined" },
    { given: () => 1, want: "literal: cannot print a function" },
    { given: Symbol("s"), want: "literal: cannot print a symbol" },
  ])("refuses $given: $want", ({ given, want }) => {
    expect(() => literal(given)).toThrow(new Error(want));
  });
});

describe("propertyKey", () => {
  it.each([
    ["a", "a"],
    ["_$1", "_$1"],
    ["1a", '"1a"'],
    ["a-b", '"a-b"'],
    ["", '""'],
    ["ü", '"ü"'],
  ])("%j -> %s", (given, want) => {
    expect(propertyKey(given)).toBe(want);
  });
});

describe("__proto__ as a key", () => {
  it("is a computed key in an object literal, so it stays a key instead of setting the prototype", () => {
    const printed = literal(
      Object.fromEntries([
        ["__proto__", "doc"],
        ["constructor", "c"],
      ]),
    );
    expect(printed).toBe('{ ["__proto__"]: "doc", constructor: "c" }');
    const value = new Function(`return ${printed};`)() as Record<string, unknown>;
    expect(Object.hasOwn(value, "__proto__")).toBe(true);
    expect(value["__proto__"]).toBe("doc");
    expect(Object.getPrototypeOf(value)).toBe(Object.prototype);
  });
});
