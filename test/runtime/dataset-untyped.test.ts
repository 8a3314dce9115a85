// Untyped DataSets (spec `result: { kind: dataSet }` without a `dataSet`): read from what Mono's ASP.NET
// answers (test/asmx-host/recorded/constructs/DataSets/), written back in the same form and read again.

import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import {
  readUntypedDataSet,
  type UntypedDataSet,
  UntypedDataSetError,
  UntypedDataSetShapeError,
  writeUntypedDataSet,
} from "../../runtime/codec/dataset-untyped.js";
import "../../runtime/codec/values-extra.js";
import { XmlOut } from "../../runtime/xml/out.js";
import { readXml } from "../../runtime/xml/scan.js";
import type { XmlElement } from "../../runtime/xml/tree.js";

const RECORDED = path.join(
  path.dirname(fileURLToPath(import.meta.url)),
  "../asmx-host/recorded/constructs/DataSets",
);

/** The answer's body of a recorded exchange (the text after the response's blank line). */
function answer(name: string): string {
  const text = readFileSync(path.join(RECORDED, `${name}.txt`), "utf8");
  const response = text.slice(text.indexOf("<<< response"));
  return response.slice(response.indexOf("\n\n") + 2).trimEnd();
}

/** The element holding the DataSet: `<OpResult>` inside a SOAP answer, or the HTTP `<DataSet>` root. */
function holder(xml: string): XmlElement {
  let el = readXml(xml);
  if (el.local !== "Envelope") return el;
  el = el.children.find((c) => c.local === "Body")!.children[0]!.children[0]!;
  return el;
}

const ALL_TYPES_ROW = {
  Text: "héllo <&>",
  Int32: -7,
  Int16: -300,
  Int64: 9007199254740993n,
  Byte: 200,
  SByte: -5,
  UInt16: 60000,
  UInt32: 4000000000,
  UInt64: 18446744073709551615n,
  Decimal: "12.345",
  Double: 1.5,
  Single: 0.25,
  Boolean: true,
  DateTime: "2024-05-06T07:08:09+00:00",
  TimeSpan: "P1DT2H3M4S",
  Guid: "0f8fad5b-d9cb-469f-a165-70867728950e",
  Bytes: new Uint8Array([0, 1, 2, 250, 255]),
  Char: "A",
};

const written = (value: unknown): string => {
  const out = new XmlOut(false).open("R");
  writeUntypedDataSet(out, value);
  return out.close("R").toString();
};

describe("untyped DataSets, read from Mono's answers", () => {
  it("reads one table with a column of every type (SOAP 1.1 and HTTP GET alike)", () => {
    for (const name of ["soap11-alltypes", "get-alltypes"]) {
      const ds = readUntypedDataSet(holder(answer(name)));
      expect(ds.dataSetName).toBe("AllTypesSet");
      expect(ds.tables.map((t) => t.name)).toEqual(["Values"]);
      const [values] = ds.tables;
      expect(values!.columns.map((c) => `${c.name}:${c.type}`)).toEqual([
        "Text:string",
        "Int32:int",
        "Int16:short",
        "Int64:long",
        "Byte:unsignedByte",
        "SByte:byte",
        "UInt16:unsignedShort",
        "UInt32:unsignedInt",
        "UInt64:unsignedLong",
        "Decimal:decimal",
        "Double:double",
        "Single:float",
        "Boolean:boolean",
        "DateTime:dateTime",
        "TimeSpan:duration",
        "Guid:guid",
        "Bytes:base64Binary",
        "Char:char",
      ]);
      expect(values!.rows[0]).toEqual(ALL_TYPES_ROW);
      // The second row holds only Text: every other cell is DBNull.
      expect(values!.rows[1]).toEqual(
        Object.fromEntries(Object.keys(ALL_TYPES_ROW).map((k) => [k, k === "Text" ? "only text" : null])),
      );
    }
  });

  it("reads every table of a DataSet with two, each with its rows", () => {
    const ds = readUntypedDataSet(holder(answer("soap12-customersandorders")));
    expect(ds).toEqual({
      dataSetName: "Shop",
      tables: [
        {
          name: "Customers",
          columns: [
            { name: "CustomerId", type: "int" },
            { name: "Name", type: "string" },
          ],
          rows: [
            { CustomerId: 1, Name: "Alice" },
            { CustomerId: 2, Name: "Bob" },
          ],
        },
        {
          name: "Orders",
          columns: [
            { name: "OrderId", type: "int" },
            { name: "CustomerId", type: "int" },
            { name: "Total", type: "decimal" },
          ],
          rows: [
            { OrderId: 10, CustomerId: 1, Total: "9.99" },
            { OrderId: 11, CustomerId: 1, Total: "20" },
            { OrderId: 12, CustomerId: 2, Total: "5.5" },
          ],
        },
      ],
    });
  });

  it("reads an empty DataSet and a DataTable", () => {
    expect(readUntypedDataSet(holder(answer("soap11-empty")))).toEqual({
      dataSetName: "Nothing",
      tables: [],
    });
    expect(readUntypedDataSet(holder(answer("soap11-table")))).toEqual({
      dataSetName: "NewDataSet",
      tables: [
        {
          name: "Pairs",
          columns: [
            { name: "Key", type: "string" },
            { name: "Value", type: "int" },
          ],
          rows: [
            { Key: "a", Value: 1 },
            { Key: "b", Value: 2 },
          ],
        },
      ],
    });
  });

  it("writes what it read so that it reads the same; an empty one as the host writes it", () => {
    for (const name of ["soap11-alltypes", "soap12-customersandorders", "soap11-table", "get-alltypes"]) {
      const ds = readUntypedDataSet(holder(answer(name)));
      expect(readUntypedDataSet(readXml(written(ds))), name).toEqual(ds);
    }
    // Byte for byte as the host wrote them: one table of every column type, and an empty DataSet.
    const inner = (name: string, op: string): string => {
      const text = answer(name);
      return text.slice(text.indexOf(`<${op}Result>`) + op.length + 8, text.indexOf(`</${op}Result>`));
    };
    const allTypes = readUntypedDataSet(holder(answer("soap11-alltypes")));
    expect(written(allTypes)).toBe(`<R>${inner("soap11-alltypes", "AllTypes")}</R>`);
    expect(written({ dataSetName: "Nothing", tables: [] })).toBe(`<R>${inner("soap11-empty", "Empty")}</R>`);
  });

  it("refuses what it would lose, naming the table, row and column", () => {
    const alltypes = answer("soap11-alltypes");
    const cases: [string, RegExp][] = [
      [
        alltypes.replace("<Text>only text</Text>", "<Text>x</Text><Extra>1</Extra>"),
        /table Values row 2: the cell Extra is not a column/,
      ],
      [
        alltypes.replace(/<Values (diffgr:id="Values2"[^>]*>.*?)<\/Values>/, "<Other $1</Other>"),
        /DataSet row Other: the schema declares no table/,
      ],
      [
        alltypes.replace("<Int32>-7</Int32>", "<Int32>seven</Int32>"),
        /table Values row 1 column Int32: the int value/,
      ],
      [
        alltypes.replace("<Int32>-7</Int32>", "<Int32>-7</Int32><Int32>8</Int32>"),
        /the cell Int32 appears twice/,
      ],
      [
        alltypes
          .replace('<xs:element name="Text" type="xs:string" minOccurs="0" />', "")
          .replace(
            "</xs:sequence></xs:complexType></xs:element></xs:choice>",
            '</xs:sequence><xs:attribute name="Text" type="xs:string" /></xs:complexType></xs:element></xs:choice>',
          ),
        /column held as the attribute Text/,
      ],
    ];
    for (const [xml, message] of cases) {
      expect(() => readUntypedDataSet(holder(xml))).toThrow(UntypedDataSetError);
      expect(() => readUntypedDataSet(holder(xml))).toThrow(message);
    }
  });

  it("refuses a handler's value that is not one, before writing anything", () => {
    const table = { name: "T", columns: [{ name: "A", type: "int" }], rows: [{ A: 1 }] };
    const ok: UntypedDataSet = { dataSetName: "D", tables: [table] };
    expect(written(ok)).toContain(
      '<T diffgr:id="T1" msdata:rowOrder="0" diffgr:hasChanges="inserted"><A>1</A></T>',
    );
    const cases: [unknown, RegExp][] = [
      [null, /the DataSet result is not an object/],
      [{ tables: {} }, /tables is not an array/],
      [{ dataSetName: "a b", tables: [] }, /dataSetName is not an XML name/],
      [{ tables: [{ ...table, name: 'x"><y' }] }, /name of table 1 is not an XML name/],
      [{ tables: [table, table] }, /table T appears twice/],
      [
        {
          tables: [
            {
              ...table,
              columns: [
                { name: "A", type: "int" },
                { name: "a", type: "string" },
              ],
            },
          ],
        },
        /column a appears twice/,
      ],
      [{ tables: [{ ...table, columns: [{ name: "A", type: "xmlNode" }] }] }, /the type xmlNode is not/],
      [
        { tables: [{ ...table, columns: [{ name: "A", type: "char" }], rows: [{ A: "ab" }] }] },
        /a char cell is one UTF-16 unit/,
      ],
      [{ tables: [{ ...table, rows: [{ A: 1, B: 2 }] }] }, /row 1: B is not one of its columns/],
      [{ tables: [{ ...table, rows: [{ A: "one" }] }] }, /row 1 column A: the int value/],
      [
        { tables: [{ ...table, columns: [{ name: "A", type: "duration" }], rows: [{ A: 5 }] }] },
        /a cell of type duration is its text/,
      ],
    ];
    for (const [value, message] of cases) {
      const out = new XmlOut(false);
      expect(() => writeUntypedDataSet(out, value)).toThrow(UntypedDataSetShapeError);
      expect(() => writeUntypedDataSet(out, value)).toThrow(message);
      expect(out.toString()).toBe("");
    }
  });
});
