import { describe, expect, it } from "vitest";
import { SMALL_TEXT, smallSpecWith, validateText } from "./fixtures/index.js";

const F = "spec/small.yaml";

interface Case {
  readonly name: string;
  readonly given: readonly (readonly [string, string])[];
  readonly want: readonly string[];
}

const cases: readonly Case[] = [
  // YAML
  {
    name: "YAML syntax error",
    given: [["  name: Shop\n", "  name: [Shop\n"]],
    want: [`${F}:5:3 YAML: Flow sequence in block collection must be sufficiently indented and end with a ]`],
  },
  {
    name: "duplicate record",
    given: [["records:\n", "records:\n  Item:\n    doc: Again.\n    fields: []\n"]],
    want: [`${F}:24:3 duplicate record "Item" (first at 21:3)`],
  },
  {
    name: "duplicate rule",
    given: [["  count:\n", "  color:\n"]],
    want: [`${F}:15:3 duplicate rule "color" (first at 11:3)`],
  },
  {
    name: "duplicate key in a map",
    given: [["{ name: quantity, type: int,", "{ name: quantity, type: int, name: amount,"]],
    want: [`${F}:43:42 duplicate key "name" (first at 43:15)`],
  },
  // JSON Schema
  {
    name: "unknown property",
    given: [["required: true, doc: User name.", "requird: true, doc: User name."]],
    want: [
      `${F}:9:35 unknown property "requird"; expected one of: name, type, required, default, rules, doc`,
    ],
  },
  {
    name: "unquoted comma in a flow map doc",
    given: [["doc: How many. }", "doc: How many, at least one. }"]],
    want: [
      `${F}:43:57 unknown property "at least one."; expected one of: name, type, required, default, rules, doc`,
    ],
  },
  {
    name: "missing property",
    given: [["    title: Items\n", ""]],
    want: [`${F}:35:5 missing required property "title"`],
  },
  {
    name: "wrong value type",
    given: [["    max: 9\n", "    max: nine\n"]],
    want: [`${F}:18:10 "max" must be an integer, not a string ("nine")`],
  },
  {
    name: "unknown SOAP type",
    given: [["{ name: Id, type: long }", "{ name: Id, type: int64 }"]],
    want: [
      `${F}:24:27 "type" must be one of: string, int, long, double, decimal, dateTime, boolean (not "int64")`,
    ],
  },
  {
    name: "unknown rule kind",
    given: [["    kind: intText\n", "    kind: integer\n"]],
    want: [
      `${F}:16:11 unknown kind "integer"; expected one of: enum, format, maxLength, intText, xmlName, url, csvSubscribers`,
    ],
  },
  {
    name: "invalid operation name",
    given: [["- name: ListItems", "- name: List Items"]],
    want: [
      `${F}:48:15 "name" "List Items" is not a valid name: use letters, digits and underscores, starting with a letter or underscore`,
    ],
  },
  {
    name: "invalid record name",
    given: [["  Item:\n", "  Item-2:\n"]],
    want: [
      `${F}:21:3 "Item-2" is not a valid name: use letters, digits and underscores, starting with a letter or underscore`,
    ],
  },
  // Semantics
  {
    name: "duplicate operation",
    given: [["- name: GetStock", "- name: AddItem"]],
    want: [`${F}:54:15 duplicate operation "AddItem" (first at 38:15)`],
  },
  {
    name: "duplicate parameter",
    given: [["{ name: digit,", "{ name: quantity,"]],
    want: [`${F}:44:21 duplicate parameter of AddItem "quantity" (first at 43:21)`],
  },
  {
    name: "duplicate record field",
    given: [["{ name: Label, type: string }", "{ name: Id, type: string }"]],
    want: [`${F}:25:17 duplicate field of record Item "Id" (first at 24:17)`],
  },
  {
    name: "parameter duplicating a credential",
    given: [["{ name: column,", "{ name: user,"]],
    want: [
      `${F}:57:21 parameter "user" duplicates a service credential (at 9:15); credentials are added to every operation`,
      `${F}:58:43 data set "Stock" names column "Extra" after parameter "column", which GetStock does not have`,
    ],
  },
  {
    name: "unknown record",
    given: [["record: Item,", "record: Itme,"]],
    want: [`${F}:50:39 unknown record "Itme"; defined records: Item`],
  },
  {
    name: "unknown data set",
    given: [["dataSet: Stock,", "dataSet: Stocks,"]],
    want: [`${F}:58:43 unknown data set "Stocks"; defined data sets: Stock`],
  },
  {
    name: "rule named like an Object.prototype member",
    given: [["rules: [count]", "rules: [toString]"]],
    want: [`${F}:44:50 unknown rule "toString"; defined rules: color, count`],
  },
  {
    name: "unknown rule",
    given: [["rules: [count]", "rules: [cnt]"]],
    want: [`${F}:44:50 unknown rule "cnt"; defined rules: color, count`],
  },
  {
    name: "rule listed twice",
    given: [["rules: [count]", "rules: [count, count]"]],
    want: [`${F}:44:57 rule "count" is listed twice`],
  },
  {
    name: "rule on a value type",
    given: [["{ name: quantity, type: int,", "{ name: quantity, type: int, rules: [count],"]],
    want: [`${F}:43:50 "quantity" is int: rules apply to string parameters only`],
  },
  {
    name: "check naming a parameter the operation lacks",
    given: [["params: [label, color]", "params: [label, colour]"]],
    want: [`${F}:46:49 check atLeastOne names "colour", which is not a parameter of AddItem`],
  },
  {
    name: "default not allowed by the enum rule",
    given: [["default: red,", "default: blue,"]],
    want: [`${F}:42:67 default "blue" fails rule "color": color must be red or green.`],
  },
  {
    name: "default not allowed by an intText rule",
    given: [["rules: [count],", 'rules: [count], default: "10",']],
    want: [`${F}:44:67 default "10" fails rule "count": digit must be a whole number from 0 to 9.`],
  },
  {
    // Every rule kind is checked by the runtime's own validator, not only enum, maxLength and intText.
    name: "default not in the form a format rule asks for",
    given: [
      ["  count:\n", "  day:\n    kind: format\n    format: date\n    doc: A day.\n  count:\n"],
      ["rules: [count],", 'rules: [day], default: "2024-02-30",'],
    ],
    want: [`${F}:48:65 default "2024-02-30" fails rule "day": digit must have the form yyyy-MM-dd and name a real date or time.`],
  },
  {
    name: "default on a required parameter",
    given: [
      [
        "{ name: label, type: string, required: true,",
        "{ name: label, type: string, required: true, default: x,",
      ],
    ],
    want: [`${F}:41:67 "label" is required, so a default would never apply`],
  },
  {
    name: "optional value type",
    given: [["{ name: quantity, type: int,", "{ name: quantity, type: int, required: false,"]],
    want: [`${F}:43:52 "quantity" is int: value types are always sent, so it cannot be optional`],
  },
  {
    name: "column with both name and nameFromParam",
    given: [
      ["{ property: Extra, nameFromParam: column,", "{ property: Extra, name: Extra, nameFromParam: column,"],
    ],
    want: [`${F}:33:9 column "Extra": give exactly one of "name" and "nameFromParam"`],
  },
  {
    name: "generated type names colliding",
    given: [
      ["  Item:\n", "  AddItemResult:\n"],
      ["record: Item,", "record: AddItemResult,"],
    ],
    want: [`${F}:38:15 duplicate generated type name "AddItemResult" (first at 21:3)`],
  },
  {
    name: "intText rule with min above max",
    given: [["    min: 0\n", "    min: 10\n"]],
    want: [`${F}:17:10 rule "count": min 10 is greater than max 9`],
  },
];

describe("validateSpec", () => {
  it("accepts the fixture", () => {
    expect(validateText(SMALL_TEXT)).toEqual([]);
  });

  it.each(cases)("$name", ({ given, want }) => {
    expect(validateText(smallSpecWith(...given))).toEqual(want);
  });

  it("reports every schema error, not just the first", () => {
    const text = smallSpecWith(
      ["    max: 9\n", "    max: nine\n"],
      ["{ name: Id, type: long }", "{ name: Id, type: int64 }"],
    );
    expect(validateText(text)).toHaveLength(2);
  });

  it("never throws for user errors", () => {
    for (const text of [
      "",
      "[]",
      "service: 1",
      "groups: [{}]",
      "- a\n- b",
      "service:\n  credentials: [1, {name: x}]",
    ]) {
      expect(() => validateText(text)).not.toThrow();
      expect(validateText(text).length).toBeGreaterThan(0);
    }
  });
});
