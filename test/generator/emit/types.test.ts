import { describe, expect, it } from "vitest";
import { emitTypes } from "../../../generator/emit/types.js";
import { docsOf, modelOf, SMALL_TEXT } from "../fixtures/index.js";

describe("emitTypes", () => {
  const docs = docsOf(SMALL_TEXT);
  const [file] = emitTypes(modelOf(SMALL_TEXT), { docs });
  const text = file!.content;

  const cases: { name: string; want: string }[] = [
    {
      name: "imports DataSetResult from the runtime",
      want: 'import type { DataSetResult } from "./runtime/dataset.js";',
    },
    { name: "record: optional strings, long as bigint", want: "export interface Item {" },
    { name: "record long field", want: "Id: bigint;" },
    { name: "record string field", want: "Label?: string;" },
    { name: "row cells are nullable", want: "ItemId: bigint | null;" },
    { name: "row named after the data set", want: "export interface StockRow {" },
    { name: "required string", want: "label: string;" },
    { name: "enum union, optional", want: 'color?: "red" | "green";' },
    { name: "value type always required", want: "quantity: number;" },
    { name: "optional string", want: "digit?: string;" },
    {
      name: "default as TSDoc",
      want: '@defaultValue "red", substituted by the server when absent or empty.',
    },
    { name: "rule as TSDoc", want: "/** A digit. A whole number from 0 to 9, as text. */" },
    {
      name: "derived columnName check as TSDoc",
      want: "Extra column name. column must not name a fixed column of the result (ItemId), compared ignoring",
    },
    { name: "scalar result", want: "export type AddItemResult = bigint;" },
    { name: "list result", want: "export type ListItemsResult = Item[];" },
    { name: "data set result", want: "export type GetStockResult = DataSetResult<StockRow>;" },
    { name: "operation table", want: "AddItem: { params: AddItemParams; result: AddItemResult };" },
  ];

  it.each(cases)("$name", ({ want }) => {
    expect(text).toContain(want);
  });

  it("leaves the credentials out of the params", () => {
    expect(text).not.toMatch(/\buser\??:/);
  });

  it("maps dateTime parameters to string | Date and record dateTimes to string", () => {
    const text = (
      SMALL_TEXT.replace(
        "{ name: quantity, type: int,",
        "{ name: when, type: dateTime, doc: When. }\n          - { name: quantity, type: int,",
      ).replace(
        "{ name: Label, type: string }",
        "{ name: Label, type: string }\n      - { name: At, type: dateTime }",
      )
    );
    const [typed] = emitTypes(modelOf(text), { docs: docsOf(text) });
    expect(typed!.content).toContain("when: string | Date;");
    expect(typed!.content).toContain("At: string;");
  });
});
