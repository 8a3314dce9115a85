import { describe, expect, it } from "vitest";
import type { OperationModel, ParamModel } from "../../runtime/model.js";
import { docsOf, modelOf, SMALL_TEXT, smallSpecWith } from "./fixtures/index.js";

const user: ParamModel = {
  name: "user",
  type: { kind: "scalar", type: "string" },
  required: true,
  rules: [],
  credential: true,
};

describe("normalize", () => {
  const model = modelOf(SMALL_TEXT);

  it("keeps the service fields and spec order", () => {
    expect(model).toMatchObject({
      name: "Shop",
      namespace: "urn:shop",
      endpoint: "Shop.asmx",
      groups: [
        { name: "items", title: "Items", operations: ["AddItem", "ListItems"] },
        { name: "stock", title: "Stock", operations: ["GetStock"] },
      ],
    });
    expect(model.operations.map((op) => `${op.group}/${op.name}`)).toEqual([
      "items/AddItem",
      "items/ListItems",
      "stock/GetStock",
    ]);
  });

  it("prepends credentials, inlines named rules, defaults required", () => {
    const want: OperationModel = {
      name: "AddItem",
      group: "items",
      params: [
        user,
        {
          name: "label",
          type: { kind: "scalar", type: "string" },
          required: true,
          rules: [],
          credential: false,
        },
        {
          name: "color",
          type: { kind: "scalar", type: "string" },
          required: false,
          default: "red",
          rules: [{ kind: "enum", name: "color", values: ["red", "green"] }],
          credential: false,
        },
        // Value types are always sent, so they are required without saying so.
        {
          name: "quantity",
          type: { kind: "scalar", type: "int" },
          required: true,
          rules: [],
          credential: false,
        },
        {
          name: "digit",
          type: { kind: "scalar", type: "string" },
          required: false,
          rules: [{ kind: "intText", name: "count", min: 0, max: 9 }],
          credential: false,
        },
      ],
      checks: [{ kind: "atLeastOne", params: ["label", "color"] }],
      result: { kind: "scalar", type: "long" },
    };
    expect(model.operations[0]).toEqual(want);
  });

  it("gives operations without params or checks the credentials and no checks", () => {
    expect(model.operations[1]).toMatchObject({ params: [user], checks: [] });
  });

  it("resolves records and data sets to the same objects the service lists", () => {
    const [, list, dataSet] = model.operations;
    expect(list!.result).toEqual({
      kind: "list",
      record: {
        name: "Item",
        fields: [
          { name: "Id", type: { kind: "scalar", type: "long" } },
          { name: "Label", type: { kind: "scalar", type: "string" } },
        ],
      },
    });
    expect(list!.result.kind === "list" && list!.result.record).toBe(model.records[0]);
    expect(dataSet!.result.kind === "dataSet" && dataSet!.result.dataSet).toBe(model.dataSets[0]);
    expect(model.dataSets[0]).toEqual({
      name: "Stock",
      dataSetName: "NewDataSet",
      table: "Table",
      columns: [
        { property: "ItemId", name: "ItemId", type: "long" },
        { property: "Extra", nameFromParam: "column", type: "string" },
      ],
    });
  });

  it("names renamed array items' types ArrayOf{Type}1, 2, … in order of first use", () => {
    const renamed = modelOf(
      smallSpecWith([
        "{ name: Label, type: string }",
        '{ name: Label, type: "string[]", itemName: Value }\n      - { name: Tags, type: "string[]", itemName: Tag }\n      - { name: Plain, type: "string[]" }\n      - { name: Again, type: "string[]", itemName: Value }',
      ]),
    );
    const types = renamed.records[0]!.fields.slice(1).map((f) => f.type);
    expect(types.map((t) => t.kind === "array" && [t.itemElement, t.typeName])).toEqual([
      ["Value", "ArrayOfString1"],
      ["Tag", "ArrayOfString2"],
      ["string", "ArrayOfString"],
      ["Value", "ArrayOfString1"],
    ]);
  });

  it("adds a columnName check for a parameter that names a DataSet column, after the spec's checks", () => {
    expect(model.operations[2]!.checks).toEqual([
      { kind: "columnName", param: "column", reserved: ["ItemId"] },
    ]);
    const text = smallSpecWith([
      "          - { name: column, type: string, required: true, doc: Extra column name. }\n",
      "          - { name: column, type: string, required: true, doc: Extra column name. }\n" +
        "          - { name: other, type: string, doc: Another. }\n" +
        "        checks:\n" +
        "          - { kind: atLeastOne, params: [column, other] }\n",
    ]);
    expect(modelOf(text).operations[2]!.checks).toEqual([
      { kind: "atLeastOne", params: ["column", "other"] },
      { kind: "columnName", param: "column", reserved: ["ItemId"] },
    ]);
  });

  it("adds no columnName check to results without a parameter-named column", () => {
    for (const op of model.operations.slice(0, 2)) {
      expect(op.checks.filter((check) => check.kind === "columnName")).toEqual([]);
    }
    const fixedOnly = smallSpecWith([
      "      - { property: Extra, nameFromParam: column, type: string, doc: Named by the caller. }\n",
      "",
    ]);
    expect(modelOf(fixedOnly).operations[2]!.checks).toEqual([]);
  });

  it("carries an operation's effect when the spec gives one, and leaves it out otherwise", () => {
    expect(model.operations.map((op) => op.effect)).toEqual([undefined, undefined, undefined]);
    const text = smallSpecWith(
      ["        doc: Adds an item.\n", "        doc: Adds an item.\n        effect: write\n"],
      ["        doc: Lists items.\n", "        doc: Lists items.\n        effect: read\n"],
    );
    const marked = modelOf(text);
    expect(marked.operations.map((op) => [op.name, op.effect])).toEqual([
      ["AddItem", "write"],
      ["ListItems", "read"],
      ["GetStock", undefined],
    ]);
    expect(Object.hasOwn(marked.operations[2]!, "effect")).toBe(false);
  });

  it("replaces the namespace when asked", () => {
    expect(modelOf(SMALL_TEXT, "http://example.com/ns/").namespace).toBe("http://example.com/ns/");
  });

  it("keeps optional check fields only when given", () => {
    const text = smallSpecWith([
      "          - { kind: atLeastOne, params: [label, color] }\n",
      "          - { kind: extension, validator: demographicLists, params: [label, digit], text: Pairs. }\n" +
        "          - { kind: extension, validator: demographicLists, params: [label, digit], options: { maxField: 25 }, text: Lists. }\n" +
        "          - { kind: ordered, from: label, to: digit }\n",
    ]);
    // The module path is relative to the spec, named spec/small.yaml here: ExternalAPIService's module.
    const withModule = `${text}extensions: { module: ExternalAPIService.extensions.ts }\n`;
    expect(modelOf(withModule).operations[0]!.checks).toEqual([
      {
        kind: "extension",
        validator: "demographicLists",
        params: ["label", "digit"],
        options: {},
        text: "Pairs.",
      },
      {
        kind: "extension",
        validator: "demographicLists",
        params: ["label", "digit"],
        options: { maxField: 25 },
        text: "Lists.",
      },
      { kind: "ordered", from: "label", to: "digit" },
    ]);
  });

  it("is plain data: JSON round-trips it", () => {
    expect(JSON.parse(JSON.stringify(model))).toEqual(model);
  });

  it("carries no doc text: every doc of the spec is in the docs value instead", () => {
    expect(JSON.stringify(model)).not.toMatch(/"doc"/);
    expect(docsOf(SMALL_TEXT)).toEqual({
      doc: "A small shop.",
      operations: {
        AddItem: {
          doc: "Adds an item.",
          result: "The item id.",
          params: {
            user: "User name.",
            label: "Label.",
            color: "Color.",
            quantity: "How many.",
            digit: "A digit.",
          },
        },
        ListItems: { doc: "Lists items.", result: "Every item.", params: { user: "User name." } },
        GetStock: {
          doc: "Reads stock.",
          result: "The stock.",
          params: { user: "User name.", column: "Extra column name." },
        },
      },
      records: { Item: "One item." },
      dataSets: {
        Stock: { doc: "Stock per item.", columns: { ItemId: "Item id.", Extra: "Named by the caller." } },
      },
    });
  });
});
