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
      `${F}:9:35 unknown property "requird" (did you mean "required"?); expected one of: name, type, nullable, choice, itemName, required, default, rules, direction, property, doc`,
    ],
  },
  {
    name: "unquoted comma in a flow map doc",
    given: [["doc: How many. }", "doc: How many, at least one. }"]],
    want: [
      `${F}:43:57 unknown property "at least one."; expected one of: name, type, nullable, choice, itemName, required, default, rules, direction, property, doc; if "at least one." is part of the doc text, quote the doc (doc: "…, at least one."): in a { … } mapping a comma ends a value`,
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
      `${F}:24:27 field "Id" of record Item: unknown type "int64"; a type is one of: string, boolean, float, double, decimal, dateTime, byte, unsignedByte, short, unsignedShort, int, unsignedInt, long, unsignedLong, base64Binary, guid, char, xmlElement, xmlNode, Item (with [] for an array)`,
    ],
  },
  {
    name: "unknown rule kind",
    given: [["    kind: intText\n", "    kind: integer\n"]],
    want: [
      `${F}:16:11 unknown kind "integer"; expected one of: enum, format, maxLength, intText, xmlName, url, pattern, length, range, extension`,
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
    want: [`${F}:50:39 unknown record "Itme" (did you mean "Item"?); defined records: Item`],
  },
  {
    name: "unknown data set",
    given: [["dataSet: Stock,", "dataSet: Stocks,"]],
    want: [`${F}:58:43 unknown data set "Stocks" (did you mean "Stock"?); defined data sets: Stock`],
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
    want: [`${F}:43:50 rule "count" (intText) applies to string parameters only; "quantity" is int`],
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
    want: [
      `${F}:48:65 default "2024-02-30" fails rule "day": digit must have the form yyyy-MM-dd and name a real date or time.`,
    ],
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
    want: [
      `${F}:43:52 "quantity" is int: value types are always sent, so it cannot be optional (make it nullable instead)`,
    ],
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
  // The types of issue 11: type references, nullable, arrays, records, results, rules by type.
  {
    name: "unknown parameter type",
    given: [["{ name: quantity, type: int,", "{ name: quantity, type: Quantity,"]],
    want: [
      `${F}:43:37 parameter "quantity": unknown type "Quantity"; a type is one of: string, boolean, float, double, decimal, dateTime, byte, unsignedByte, short, unsignedShort, int, unsignedInt, long, unsignedLong, base64Binary, guid, char, xmlElement, xmlNode, Item (with [] for an array)`,
    ],
  },
  {
    name: "unknown array item type",
    given: [["{ name: Id, type: long }", '{ name: Id, type: "Thing[]" }']],
    want: [
      `${F}:24:27 field "Id" of record Item: unknown type "Thing"; a type is one of: string, boolean, float, double, decimal, dateTime, byte, unsignedByte, short, unsignedShort, int, unsignedInt, long, unsignedLong, base64Binary, guid, char, xmlElement, xmlNode, Item (with [] for an array)`,
    ],
  },
  {
    name: "unknown result type",
    given: [
      [
        "result: { kind: list, record: Item, doc: Every item. }",
        'result: { type: "Itme[]", doc: Every item. }',
      ],
    ],
    want: [
      `${F}:50:25 result of ListItems: unknown type "Itme" (did you mean "Item"?); a type is one of: string, boolean, float, double, decimal, dateTime, byte, unsignedByte, short, unsignedShort, int, unsignedInt, long, unsignedLong, base64Binary, guid, char, xmlElement, xmlNode, Item (with [] for an array)`,
    ],
  },
  {
    name: "array of arrays",
    given: [["{ name: Id, type: long }", '{ name: Id, type: "long[][]" }']],
    want: [
      `${F}:24:27 field "Id" of record Item: arrays of arrays (long[][]) are not supported; hold the inner array in a record`,
    ],
  },
  {
    name: "nullable string field",
    given: [["{ name: Label, type: string }", "{ name: Label, type: string, nullable: true }"]],
    want: [
      `${F}:25:48 field "Label" of record Item is string, a reference type (null is already its absent value): only value types (numbers, boolean, dateTime, guid, char and enums) can be nullable`,
    ],
  },
  {
    name: "itemName on a field that is not an array",
    given: [["{ name: Label, type: string }", "{ name: Label, type: string, itemName: Value }"]],
    want: [
      `${F}:25:48 field "Label" of record Item is string, not an array: itemName names the items of an array`,
    ],
  },
  {
    name: "choice of a value type, and alternatives apart",
    given: [
      [
        "{ name: Id, type: long }\n      - { name: Label, type: string }",
        "{ name: Id, type: long, choice: Item }\n      - { name: Label, type: string, choice: Item }\n      - { name: Note, type: string }\n      - { name: Other, type: string, choice: Item }",
      ],
    ],
    want: [
      `${F}:24:41 record Item: Id is an alternative of choice Item, so it is absent when another is present: it must be of a reference type (a record, string, byte array, array or XML value), not long`,
      `${F}:27:46 record Item: the alternatives of choice Item must be consecutive (Other is apart)`,
    ],
  },
  {
    name: "choice record used as a plain type",
    given: [
      [
        "records:\n",
        "records:\n  Pick:\n    doc: A pick.\n    choice: true\n    fields:\n      - { name: A, type: string }\n",
      ],
      ["{ name: Label, type: string }", "{ name: Label, type: Pick }"],
    ],
    want: [
      expect.stringMatching(
        /field "Label" of record Item: Pick is a choice record \(the items of a repeated choice\): it can only be the item type of an array \(Pick\[\]\)$/,
      ),
    ],
  },
  {
    name: "nullable array field",
    given: [["{ name: Label, type: string }", '{ name: Label, type: "int[]", nullable: true }']],
    want: [
      `${F}:25:49 field "Label" of record Item is int[], a reference type (null is already its absent value): only value types (numbers, boolean, dateTime, guid, char and enums) can be nullable`,
    ],
  },
  {
    name: "nullable record parameter",
    given: [["{ name: quantity, type: int,", "{ name: quantity, type: Item, nullable: true,"]],
    want: [
      `${F}:43:53 parameter "quantity" is Item, a reference type (null is already its absent value): only value types (numbers, boolean, dateTime, guid, char and enums) can be nullable`,
    ],
  },
  {
    name: "nullable base64Binary parameter",
    given: [["{ name: quantity, type: int,", "{ name: quantity, type: base64Binary, nullable: true,"]],
    want: [
      `${F}:43:61 parameter "quantity" is base64Binary, a reference type (null is already its absent value): only value types (numbers, boolean, dateTime, guid, char and enums) can be nullable`,
    ],
  },
  {
    name: "nullable and required",
    given: [["{ name: quantity, type: int,", "{ name: quantity, type: int, nullable: true, required: true,"]],
    want: [`${F}:43:68 "quantity" is nullable, so it cannot be required`],
  },
  {
    name: "range rule on a string",
    given: [
      ["rules:\n", "rules:\n  pct: { kind: range, min: 0, max: 100, doc: A percentage. }\n"],
      ["rules: [count]", "rules: [pct]"],
    ],
    want: [`${F}:45:50 rule "pct" (range) applies to numeric parameters only; "digit" is string`],
  },
  {
    name: "pattern rule on an int",
    given: [
      ["rules:\n", 'rules:\n  code: { kind: pattern, pattern: "^[A-Z]+$", doc: Capitals. }\n'],
      ["{ name: quantity, type: int,", "{ name: quantity, type: int, rules: [code],"],
    ],
    want: [`${F}:44:50 rule "code" (pattern) applies to string parameters only; "quantity" is int`],
  },
  {
    name: "length rule on an enum",
    given: [
      ["records:\n", "enums:\n  Size: { doc: A size., values: [S, M] }\nrecords:\n"],
      ["rules:\n", "rules:\n  short: { kind: length, max: 3, doc: Short. }\n"],
      ["{ name: quantity, type: int,", "{ name: quantity, type: Size, rules: [short],"],
    ],
    want: [`${F}:46:51 rule "short" (length) applies to string parameters only; "quantity" is Size`],
  },
  {
    name: "length rule with min above max",
    given: [["rules:\n", "rules:\n  short: { kind: length, min: 5, max: 3, doc: Short. }\n"]],
    want: [`${F}:11:31 rule "short": min 5 is greater than max 3`],
  },
  {
    name: "range rule with min above max",
    given: [["rules:\n", "rules:\n  pct: { kind: range, min: 100, max: 0, doc: A percentage. }\n"]],
    want: [`${F}:11:28 rule "pct": min 100 is greater than max 0`],
  },
  {
    name: "length rule without bounds",
    given: [["rules:\n", "rules:\n  short: { kind: length, doc: Short. }\n"]],
    want: [`${F}:11:18 rule "short" (length) needs min, max or both`],
  },
  {
    name: "pattern that does not compile",
    given: [["rules:\n", 'rules:\n  code: { kind: pattern, pattern: "^([A-Z]$", doc: Capitals. }\n']],
    want: [
      `${F}:11:35 rule "code": the pattern does not compile as a JavaScript regular expression (unicode mode): Invalid regular expression: /^([A-Z]$/u: Unterminated group`,
    ],
  },
  {
    name: "pattern with nested unbounded repetition",
    given: [["rules:\n", 'rules:\n  code: { kind: pattern, pattern: "^(a+)+$", doc: Capitals. }\n']],
    want: [
      `${F}:11:35 rule "code": the pattern can take exponential time to match (catastrophic backtracking), as on the value 'a' + 'a'.repeat(31) + '\\x00'; the parts that backtrack: a. Rewrite it so that no text can be matched in two ways (for example (\\w|\\d)+ as \\w+, [^@]+@[^@]+\\.[^@]+ as [^@]+@[^@.]+(\\.[^@.]+)+)`,
    ],
  },
  {
    // The pattern: the old check (a repeated group holding an unbounded repetition) let it pass, and
    // one 28-character value held the event loop for 15.5 s.
    name: "pattern with an alternation of overlapping classes under a repetition",
    given: [
      ["rules:\n", 'rules:\n  code: { kind: pattern, pattern: "^(\\\\w|\\\\d)+$", doc: Word characters. }\n'],
    ],
    want: [
      expect.stringMatching(
        /^spec\/small\.yaml:11:35 rule "code": the pattern can take exponential time to match \(catastrophic backtracking\), as on the value 'A' \+ '0'\.repeat\(31\) \+ '\\x00'; the parts that backtrack: \\w, \\d\. /,
      ),
    ],
  },
  {
    name: "pattern that backtracks polynomially",
    given: [
      [
        "rules:\n",
        'rules:\n  mail: { kind: pattern, pattern: "^[^@]+@[^@]+\\\\.[^@]+$", doc: An address. }\n',
      ],
    ],
    want: [
      expect.stringMatching(
        /^spec\/small\.yaml:11:35 rule "mail": the pattern can take polynomial time \(degree 2\) to match \(catastrophic backtracking\), as on the value .*repeat\(\d+\)/,
      ),
    ],
  },
  {
    name: "record holding itself (valid: a record field may be absent)",
    given: [["{ name: Label, type: string }", "{ name: Label, type: Item }"]],
    want: [],
  },
  {
    name: "records holding each other (valid)",
    given: [
      [
        "records:\n",
        'records:\n  Box:\n    doc: A box.\n    fields:\n      - { name: Items, type: "Item[]" }\n',
      ],
      ["{ name: Label, type: string }", "{ name: Label, type: Box }"],
    ],
    want: [],
  },
  {
    name: "out parameter with a rule, and out beside a DataSet result",
    given: [
      [
        "{ name: digit, type: string, rules: [count], doc: A digit. }",
        "{ name: digit, type: string, rules: [count], direction: out, doc: A digit. }",
      ],
      [
        "{ name: column, type: string, required: true, doc: Extra column name. }",
        "{ name: column, type: string, required: true, doc: Extra column name. }\n          - { name: extra, type: int, direction: inOut, doc: Extra. }",
      ],
    ],
    want: [
      `${F}:44:69 "digit" is out (answered, never sent): required, default and rules do not apply to it`,
      `${F}:58:50 GetStock returns a DataSet: out and ref parameters are not supported beside one`,
    ],
  },
  {
    name: "out parameter named as the result element, and on a oneWay operation",
    given: [
      [
        "{ name: quantity, type: int, doc: How many. }",
        "{ name: AddItemResult, type: int, direction: out, doc: How many. }",
      ],
      [
        "        doc: Lists items.\n",
        "        doc: Lists items.\n        oneWay: true\n        params:\n          - { name: n, type: int, direction: out, doc: N. }\n",
      ],
      ["        result: { kind: list, record: Item, doc: Every item. }\n", ""],
    ],
    want: [
      `${F}:43:21 out parameter "AddItemResult" has the name of AddItem's result element`,
      `${F}:52:46 ListItems is oneWay, so it answers nothing: parameter "n" can only be in`,
    ],
  },
  {
    name: "bare operation naming its wrapper elements, and a bare DataSet result",
    given: [
      [
        "        doc: Adds an item.\n",
        "        doc: Adds an item.\n        soap: { parameterStyle: bare, requestElement: AddItemIn, responseElement: AddItemOut }\n",
      ],
      ["        doc: Reads stock.\n", "        doc: Reads stock.\n        soap: { parameterStyle: bare }\n"],
    ],
    want: [
      `${F}:40:55 AddItem is bare (parameterStyle bare): it has no wrapper element to name; remove requestElement`,
      `${F}:40:83 AddItem is bare (parameterStyle bare): it has no wrapper element to name; remove responseElement`,
      `${F}:60:17 GetStock is bare (parameterStyle bare): a DataSet result is not supported in a bare message`,
    ],
  },
  {
    name: "two operations with one SOAP action, and with one request element",
    given: [
      [
        "        doc: Adds an item.\n",
        "        doc: Adds an item.\n        soap: { action: urn:shop/ListItems }\n",
      ],
      [
        "        doc: Reads stock.\n",
        "        doc: Reads stock.\n        soap: { requestElement: ListItems }\n",
      ],
    ],
    want: [
      `${F}:49:15 duplicate SOAP action "urn:shop/ListItems" (first at 40:25)`,
      `${F}:57:33 duplicate request element "{urn:shop}ListItems" (first at 49:15)`,
    ],
  },
  {
    name: "bare operations giving one element two types",
    given: [
      [
        "        doc: Adds an item.\n",
        "        doc: Adds an item.\n        soap: { parameterStyle: bare }\n",
      ],
      [
        "        doc: Lists items.\n",
        "        doc: Lists items.\n        soap: { parameterStyle: bare }\n        params:\n          - { name: label, type: int, doc: L. }\n",
      ],
    ],
    want: [
      `${F}:53:34 the bare element label of ListItems is of type int, but AddItem declares it of type string: the WSDL declares one element of one type`,
    ],
  },
  {
    name: "oneWay operation with a result",
    given: [["        doc: Adds an item.\n", "        doc: Adds an item.\n        oneWay: true\n"]],
    want: [`${F}:48:17 AddItem is oneWay, so it has no result: remove "result" or "oneWay"`],
  },
  {
    name: "effect that is neither read nor write",
    given: [["        doc: Adds an item.\n", "        doc: Adds an item.\n        effect: readonly\n"]],
    want: [`${F}:40:17 "effect" must be one of: read, write (not "readonly")`],
  },
  {
    name: "enum named like a scalar",
    given: [["records:\n", "enums:\n  int: { doc: A size., values: [S, M] }\nrecords:\n"]],
    want: [`${F}:21:3 enum "int" has the name of a scalar type`],
  },
  {
    name: "record named like an XML type",
    given: [["records:\n", "records:\n  xmlNode: { doc: A node., fields: [] }\n"]],
    want: [`${F}:21:3 record "xmlNode" has the name of a scalar type`],
  },
  {
    name: "arrays of XML values, a nullable one, an XML credential",
    given: [
      ["{ name: Label, type: string }", '{ name: Label, type: "xmlElement[]" }'],
      [
        "{ name: quantity, type: int, doc: How many. }",
        "{ name: quantity, type: xmlNode, nullable: true, doc: How many. }",
      ],
      [
        "{ name: user, type: string, required: true, doc: User name. }",
        "{ name: user, type: xmlElement, doc: User name. }",
      ],
    ],
    want: [
      `${F}:9:27 credential "user" is xmlElement: credentials are scalars or enums`,
      expect.stringMatching(
        /^spec\/small\.yaml:25:\d+ field "Label" of record Item: arrays of xmlElement \(xmlElement\[\]\) are not supported/,
      ),
      expect.stringMatching(/^spec\/small\.yaml:43:\d+ parameter "quantity" is xmlNode, a reference type/),
    ],
  },
  {
    name: "a base that is not a record, a field repeating the base's, an abstract record as a type",
    given: [
      [
        "records:\n",
        "records:\n  Shape: { doc: A shape., abstract: true, fields: [{ name: Id, type: int }] }\n  Circle: { doc: A circle., base: Shape, fields: [{ name: Id, type: long }] }\n  Odd: { doc: Odd., base: Nothing, fields: [] }\n",
      ],
      ["{ name: quantity, type: int, doc: How many. }", "{ name: quantity, type: Shape, doc: How many. }"],
    ],
    want: [
      `${F}:22:59 field "Id" of record Circle is also a field of its base Shape`,
      `${F}:23:27 record Odd: its base "Nothing" is not a record`,
      expect.stringMatching(/^spec\/small\.yaml:46:\d+ parameter "quantity": Shape is an abstract record/),
    ],
  },
  {
    name: "records extending each other",
    given: [
      [
        "records:\n",
        "records:\n  A: { doc: A., base: B, fields: [] }\n  B: { doc: B., base: A, fields: [] }\n",
      ],
    ],
    want: [`${F}:21:23 record "A" extends itself: A → B → A; bases may not form a cycle`],
  },
  {
    name: "enum without values",
    given: [["records:\n", "enums:\n  Size: { doc: A size., values: [] }\nrecords:\n"]],
    want: [`${F}:21:33 "values" must NOT have fewer than 1 items`],
  },
  {
    name: "result mixing both forms",
    given: [
      [
        "result: { kind: list, record: Item, doc: Every item. }",
        'result: { kind: list, type: "Item[]", record: Item, doc: Every item. }',
      ],
    ],
    want: [`${F}:50:31 unknown property "type"; expected one of: kind, record, doc`],
  },
  {
    name: "typed result with a kind-form property",
    given: [
      [
        "result: { kind: list, record: Item, doc: Every item. }",
        'result: { type: "Item[]", record: Item, doc: Every item. }',
      ],
    ],
    want: [`${F}:50:35 unknown property "record"; expected one of: type, nullable, doc`],
  },
  {
    name: "DataSet column of a type DataSets do not carry",
    given: [
      ["{ property: ItemId, name: ItemId, type: long,", "{ property: ItemId, name: ItemId, type: guid,"],
    ],
    want: [
      `${F}:32:49 "type" must be one of: string, int, long, double, decimal, dateTime, boolean (not "guid")`,
    ],
  },
];

describe("validateSpec", () => {
  it("accepts the fixture", () => {
    expect(validateText(SMALL_TEXT)).toEqual([]);
  });

  it.each(cases)("$name", ({ given, want }) => {
    expect(validateText(smallSpecWith(...given))).toEqual(want);
  });

  it.each([
    "^[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}$",
    "^97[89][0-9]{10}$",
    "^[a-z0-9._%+-]+@[a-z0-9.-]+\\.[a-z]{2,}$",
    "^[^@\\s]+@[^@\\s.]+(\\.[^@\\s.]+)+$",
    "^([a-z]+-)*[a-z]+$",
    "^\\d{1,3}(\\.\\d{1,3}){3}$",
  ])("accepts the linear pattern %s", { timeout: 60_000 }, (pattern) => {
    const yaml = pattern.replace(/\\/g, "\\\\");
    expect(
      validateText(
        smallSpecWith(["rules:\n", `rules:\n  code: { kind: pattern, pattern: "${yaml}", doc: A code. }\n`]),
      ),
    ).toEqual([]);
  });

  it("reports unknown properties and semantic errors in one pass, not one round each", () => {
    const text = smallSpecWith(
      ["required: true, doc: User name.", "requird: true, doc: User name."],
      ["{ name: quantity, type: int,", "{ name: quantity, type: int, rules: [cuont],"],
    );
    expect(validateText(text)).toEqual([
      expect.stringMatching(/:9:35 unknown property "requird" \(did you mean "required"\?\)/),
      expect.stringMatching(/unknown rule "cuont" \(did you mean "count"\?\)/),
    ]);
    // A wrong shape (a number for a string) still stops there: the semantic checks would misread it.
    expect(
      validateText(
        smallSpecWith(
          ["    max: 9\n", "    max: nine\n"],
          ["{ name: quantity, type: int,", "{ name: quantity, type: int, rules: [cuont],"],
        ),
      ),
    ).toHaveLength(1);
  });

  it("reports every schema error, not just the first", () => {
    const text = smallSpecWith(["    max: 9\n", "    max: nine\n"], ["    title: Items\n", ""]);
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
