// validate-names.ts: names that pass the schema but would break the output are refused at their line, with a
// message naming the rule; reserved-names.ts: the rename rule for records and enums, XML NCNames.

import { describe, expect, it } from "vitest";
import { isNCName, typeScriptTypeName } from "../../generator/reserved-names.js";
import { CLIENT_CONFIG_KEYS } from "../../runtime/client/core.js";
import { modelOf, SMALL_TEXT, smallSpecWith, validateText } from "./fixtures/index.js";

const F = "spec/small.yaml";
const USER = "    - { name: user, type: string, required: true, doc: User name. }";

describe("validate: names that would break the output", () => {
  it("accepts the small spec and credentials with properties", () => {
    expect(validateText(SMALL_TEXT)).toEqual([]);
    const text = smallSpecWith([
      USER,
      `${USER.replace("doc:", "property: userName, doc:")}\n    - { name: intAccount, type: int, property: accountId, doc: Account. }\n    - { name: token, type: string, doc: Optional. }`,
    ]);
    expect(validateText(text)).toEqual([]);
    const credentials = modelOf(text).operations[0]!.params.filter((p) => p.credential);
    expect(credentials.map((p) => [p.name, p.property, p.required])).toEqual([
      ["user", "userName", true],
      ["intAccount", "accountId", true],
      ["token", undefined, false],
    ]);
  });

  it.each([
    [
      "endpointUrl",
      'operation name "endpointUrl" is a member of the generated client (ShopClient.endpointUrl); rename the operation',
    ],
    [
      "constructor",
      'operation name "constructor" cannot be a method of the implementation or the client (a plain object or class cannot own it); rename the operation',
    ],
    [
      "__proto__",
      'operation name "__proto__" cannot be a method of the implementation or the client (a plain object or class cannot own it); rename the operation',
    ],
  ])("refuses an operation named %s at its line", (name, message) => {
    expect(validateText(smallSpecWith(["- name: ListItems", `- name: ${name}`]))).toEqual([
      `${F}:48:15 ${message}`,
    ]);
  });

  it("checks a MessageName's elements against the other operations' (the wire name, not the name)", () => {
    // A dotted MessageName is accepted and carried to the model.
    const dotted = smallSpecWith(["- name: ListItems", "- name: ListItems\n        messageName: Items.List"]);
    expect(validateText(dotted)).toEqual([]);
    expect(modelOf(dotted).operations.find((op) => op.name === "ListItems")?.messageName).toBe("Items.List");
    // A MessageName that is another operation's wire name: the same request element.
    expect(
      validateText(smallSpecWith(["- name: ListItems", "- name: ListItems\n        messageName: AddItem"])),
    ).toEqual([
      `${F}:49:22 the WSDL element "AddItem" of operation ListItems is also the element of operation AddItem (at 38:15); rename one of them`,
      `${F}:49:22 the WSDL element "AddItemResponse" of operation ListItems's response is also the element of operation AddItem's response (at 38:15); rename one of them`,
    ]);
    // The schema allows no colon (a path and a SOAPAction carry the name as it is).
    expect(
      validateText(
        smallSpecWith(["- name: ListItems", "- name: ListItems\n        messageName: Items:List"]),
      ),
    ).toHaveLength(1);
  });

  it("accepts an operation named toString (the server insists on a method of its own)", () => {
    expect(validateText(smallSpecWith(["- name: ListItems", "- name: toString"]))).toEqual([]);
  });

  it("refuses a service named after a global or a name the generated modules use", () => {
    expect(validateText(smallSpecWith(["name: Shop", "name: Promise"]))).toEqual([
      `${F}:4:9 service name "Promise" would name the generated server interface "Promise", which is a reserved word or a global of JavaScript or TypeScript; choose another service name`,
    ]);
    expect(validateText(smallSpecWith(["name: Shop", "name: CallContext"]))).toEqual([
      `${F}:4:9 service name "CallContext" would name the generated server interface "CallContext", which is a name the generated modules use themselves; choose another service name`,
    ]);
  });

  it("refuses credential properties that clash with the client's config, each other or cannot be keys", () => {
    const text = smallSpecWith([
      USER,
      `${USER.replace("doc:", "property: headers, doc:")}\n    - { name: a, type: string, property: x, doc: A. }\n    - { name: b, type: string, property: x, doc: B. }\n    - { name: __proto__, type: string, doc: C. }`,
    ]);
    expect(validateText(text)).toEqual([
      `${F}:9:61 property "headers" is a key the client's config uses itself (${CLIENT_CONFIG_KEYS.join(", ")}); give the credential another \`property\``,
      `${F}:11:42 duplicate credential property "x" (first at 10:15)`,
      `${F}:12:15 credential "__proto__" (its property is its name) is not a usable JavaScript property name; give the credential a \`property\``,
    ]);
  });

  it("refuses a credential that is an array or a record, and property on an operation's own parameter", () => {
    const text = smallSpecWith(
      [
        USER,
        `${USER}\n    - { name: items, type: "int[]", doc: A. }\n    - { name: item, type: Item, doc: B. }`,
      ],
      [
        "- { name: label, type: string, required: true, doc: Label. }",
        "- { name: label, type: string, required: true, property: l, doc: Label. }",
      ],
    );
    expect(validateText(text)).toEqual([
      `${F}:10:28 credential "items" is int[]: credentials are scalars or enums (they travel on every binding)`,
      `${F}:11:27 credential "item" is Item: credentials are scalars or enums (they travel on every binding)`,
      `${F}:43:68 "property" is for credentials only; parameter "label" is an operation's own`,
    ]);
  });

  it("refuses Object.prototype names as record fields and DataSet column properties", () => {
    const text = smallSpecWith(
      ["- { name: Label, type: string }", "- { name: __proto__, type: string }"],
      ["property: Extra,", "property: toString,"],
    );
    expect(validateText(text)).toEqual([
      `${F}:25:17 field "__proto__" of record Item is a name every JavaScript object inherits; records are plain objects, so rename the field`,
      `${F}:33:21 column property "toString" is a name every JavaScript object inherits; rows are plain objects, so choose another property`,
    ]);
  });

  it("refuses __proto__ as a record or data set name", () => {
    const text = smallSpecWith(
      ["  Item:", "  __proto__:"],
      ["record: Item", "record: __proto__"],
      ["  Stock:", "  __proto__:"],
      ["dataSet: Stock", "dataSet: __proto__"],
    );
    expect(validateText(text)).toEqual([
      `${F}:21:3 record name "__proto__" cannot be a key of the generated model; rename the record`,
      `${F}:27:3 data set name "__proto__" cannot be a key of the generated model; rename the data set`,
    ]);
  });

  it("refuses two WSDL elements of one name", () => {
    const text = smallSpecWith(["- name: ListItems", "- name: AddItemResponse"]);
    expect(validateText(text)).toEqual([
      `${F}:48:15 the WSDL element "AddItemResponse" of operation AddItemResponse is also the element of operation AddItem's response (at 38:15); rename one of them`,
    ]);
    expect(validateText(smallSpecWith(["- name: ListItems", "- name: int"]))).toEqual([
      `${F}:48:15 operation name "int" is the root element of a int answer on the HTTP bindings; rename the operation`,
    ]);
  });

  it("refuses an operation named like the HTTP result root of an enum or an array (Color, ArrayOfColor, ArrayOfInt)", () => {
    const withEnum = (name: string) =>
      smallSpecWith(
        ["records:\n", "enums:\n  Color: { doc: A color., values: [Red, Green] }\nrecords:\n"],
        ["- name: ListItems", `- name: ${name}`],
      );
    expect(validateText(withEnum("Color"))).toEqual([
      `${F}:21:3 enum Color is the WSDL element "Color" (the root of its result on the HTTP bindings), which operation Color (at 50:15) also uses; rename one of them`,
    ]);
    expect(validateText(withEnum("ArrayOfColor"))).toEqual([
      `${F}:21:3 the array of Color is the WSDL element "ArrayOfColor" (the root of its result on the HTTP bindings), which operation ArrayOfColor (at 50:15) also uses; rename one of them`,
    ]);
    const ints = smallSpecWith(
      [
        "result: { kind: list, record: Item, doc: Every item. }",
        'result: { type: "int[]", doc: Every count. }',
      ],
      ["- name: AddItem", "- name: ArrayOfInt"],
    );
    expect(validateText(ints)).toEqual([
      `${F}:50:25 the int[] result of ListItems answers the WSDL element "ArrayOfInt" on the HTTP bindings, which operation ArrayOfInt (at 38:15) also uses; rename the operation`,
    ]);
    // The same names without a clash are fine.
    expect(validateText(withEnum("Colors"))).toEqual([]);
  });

  it("renames a record named after a global, and refuses a rename that meets another name", () => {
    expect(validateText(smallSpecWith(["  Item:", "  Date:"], ["record: Item", "record: Date"]))).toEqual([]);
    const clash = smallSpecWith(
      ["  Item:", "  Date_:\n    doc: Taken.\n    fields: []\n  Date:"],
      ["record: Item", "record: Date"],
    );
    expect(validateText(clash)).toEqual([
      `${F}:24:3 record Date is declared in TypeScript as "Date_", as is record Date_ (at 21:3); rename one of them`,
    ]);
    expect(
      validateText(
        smallSpecWith(["  Item:", "  ShopCredentials:"], ["record: Item", "record: ShopCredentials"]),
      ),
    ).toEqual([
      `${F}:21:3 record ShopCredentials is declared in TypeScript as "ShopCredentials", as is the credentials type (at 4:9); rename one of them`,
    ]);
  });
});

describe("reserved-names", () => {
  it("appends an underscore to globals, keywords and TypeScript library names only", () => {
    expect(
      ["Date", "Promise", "Error", "Response", "Record", "delete", "string", "Item", "Date_"].map((n) =>
        typeScriptTypeName(n),
      ),
    ).toEqual(["Date_", "Promise_", "Error_", "Response_", "Record_", "delete_", "string_", "Item", "Date_"]);
  });

  it("knows XML NCNames", () => {
    for (const name of ["a", "_x", "Straße", "a-b.c", "日本"]) expect(isNCName(name), name).toBe(true);
    for (const name of ["", "1a", "a:b", "-a", "a b", "a/b"]) expect(isNCName(name), name).toBe(false);
  });
});
