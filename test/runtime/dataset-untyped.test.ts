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
import { ALL_TYPES, PAIRS, SHOP } from "../fixtures/dataset-samples.js";
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

const written = (value: unknown): string => {
  const out = new XmlOut(false).open("R");
  writeUntypedDataSet(out, value);
  return out.close("R").toString();
};

describe("untyped DataSets, read from Mono's answers", () => {
  it("reads one table with a column of every type (SOAP 1.1 and HTTP GET alike)", () => {
    for (const name of ["soap11-alltypes", "get-alltypes"]) {
      // Every column with its schema type (guid by msdata:DataType, char by its length-1 restriction); the
      // second row holds only Text, every other cell DBNull.
      expect(readUntypedDataSet(holder(answer(name))), name).toEqual(ALL_TYPES);
    }
  });

  it("reads every table of a DataSet with two, each with its rows", () => {
    expect(readUntypedDataSet(holder(answer("soap12-customersandorders")))).toEqual(SHOP);
  });

  it("reads an empty DataSet and a DataTable", () => {
    expect(readUntypedDataSet(holder(answer("soap11-empty")))).toEqual({
      dataSetName: "Nothing",
      tables: [],
    });
    expect(readUntypedDataSet(holder(answer("soap11-table")))).toEqual(PAIRS);
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
