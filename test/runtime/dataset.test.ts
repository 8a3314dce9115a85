import { describe, expect, it } from "vitest";
import { columnName, readDataSet, writeDataSet } from "../../runtime/codec/dataset.js";
import { XmlOut } from "../../runtime/xml/out.js";
import { readXml } from "../../runtime/xml/scan.js";
import { DATASET_COLUMNS, DATASET_DOCUMENT, XML_DECLARATION } from "../fixtures/wire-samples.js";
import { reportViews } from "./fixtures.js";
import { registerAllClientCodecs } from "../../runtime/codec/values.js";

// The client's codecs of every scalar type (a generated model registers those its service uses).
registerAllClientCodecs();

/** The `<xs:schema ...>` … `</diffgr:diffgram>` lines of the §5 sample, indented as inside `<DataSet>`. */
const INNER_LINES = DATASET_DOCUMENT.split("\n").slice(2, -1);

const REQUEST = { strUsername: "u", strPassword: "p", ddField: "DD3" };

const ROWS = [
  { SubscriberId: 7n, Email: "e@x", ViewTime: "2024-05-06T07:08:09+00:00", FieldValue: "v1" },
  { SubscriberId: 8n, Email: "f@x", ViewTime: "2024-05-06T07:08:09+00:00", FieldValue: null },
];

interface ViewRow {
  SubscriberId: bigint | null;
  Email: string | null;
  ViewTime: string | null;
  FieldValue: string | null;
}

describe("columnName", () => {
  it.each([
    { column: reportViews.columns[0], request: REQUEST, want: "SubscriberId" },
    { column: reportViews.columns[3], request: REQUEST, want: "DD3" },
    { column: reportViews.columns[3], request: { ddField: "" }, want: undefined },
    { column: reportViews.columns[3], request: {}, want: undefined },
    { column: reportViews.columns[3], request: undefined, want: undefined },
  ])("$column.property with $request -> $want", ({ column, request, want }) => {
    expect(columnName(column, request)).toBe(want);
  });
});

describe("writeDataSet", () => {
  it("writes the docs/wire.md §5 schema and diffgram from depth 1", () => {
    const out = new XmlOut(true, 1);
    writeDataSet(out, reportViews, ROWS, REQUEST);
    // XmlOut indents every line but the first: the caller's newline before it carries the indentation.
    expect(out.toString()).toBe(INNER_LINES.join("\n").slice(2));
    expect(out.toString().split("\n")).toStrictEqual([INNER_LINES[0].trimStart(), ...INNER_LINES.slice(1)]);
  });

  it("inside a <DataSet> document reproduces the docs/wire.md §5 sample byte for byte", () => {
    const out = new XmlOut(true).raw(XML_DECLARATION).open("DataSet", ' xmlns="http://tempuri.org/"');
    writeDataSet(out, reportViews, ROWS, REQUEST);
    expect(out.close("DataSet").toString()).toBe(DATASET_DOCUMENT);
  });

  it("compact, as SOAP writes it, is the same markup without whitespace", () => {
    const out = new XmlOut(false);
    writeDataSet(out, reportViews, ROWS, REQUEST);
    expect(out.toString()).toBe(INNER_LINES.map((line) => line.trimStart()).join(""));
  });

  it.each([
    { name: "empty rows", pretty: false },
    { name: "empty rows, indented", pretty: true },
  ])("$name: the diffgram is self-closing", ({ pretty }) => {
    const out = new XmlOut(pretty);
    writeDataSet(out, reportViews, [], REQUEST);
    const text = out.toString();
    expect(
      text.endsWith(
        "</xs:schema>" +
          (pretty ? "\n" : "") +
          '<diffgr:diffgram xmlns:msdata="urn:schemas-microsoft-com:xml-msdata" xmlns:diffgr="urn:schemas-microsoft-com:xml-diffgram-v1" />',
      ),
    ).toBe(true);
    expect(text).not.toContain("<NewDataSet");
  });

  it.each([
    {
      name: "null and undefined cells are omitted",
      row: { SubscriberId: null, Email: undefined, ViewTime: "2024-05-06T07:08:09", FieldValue: "" },
      want: "<ViewTime>2024-05-06T07:08:09</ViewTime><DD3 />",
    },
    {
      name: "text is escaped",
      row: { SubscriberId: 1n, Email: "a&b<c>", ViewTime: null, FieldValue: null },
      want: "<SubscriberId>1</SubscriberId><Email>a&amp;b&lt;c&gt;</Email>",
    },
    {
      name: "a Date cell is written in UTC",
      row: { SubscriberId: 9223372036854775807n, ViewTime: new Date(Date.UTC(2024, 4, 6, 7, 8, 9)) },
      want: "<SubscriberId>9223372036854775807</SubscriberId><ViewTime>2024-05-06T07:08:09Z</ViewTime>",
    },
  ])("$name", ({ row, want }) => {
    const out = new XmlOut(false);
    writeDataSet(out, reportViews, [row], REQUEST);
    const text = out.toString();
    const start = text.indexOf('diffgr:hasChanges="inserted">') + 'diffgr:hasChanges="inserted">'.length;
    expect(text.slice(start, text.indexOf("</Table>"))).toBe(want);
  });

  it("names the ddField column after its property when the request does not name it", () => {
    const out = new XmlOut(false);
    writeDataSet(out, reportViews, [{ FieldValue: "v" }], {});
    expect(out.toString()).toContain('<xs:element name="FieldValue" type="xs:string" minOccurs="0" />');
    expect(out.toString()).toContain("<FieldValue>v</FieldValue>");
  });
});

describe("readDataSet", () => {
  it.each([
    { name: "with the request", request: REQUEST },
    { name: "without the request (the ddField column is found in the schema)", request: undefined },
  ])("reads the docs/wire.md §5 sample $name", ({ request }) => {
    const result = readDataSet<ViewRow>(readXml(DATASET_DOCUMENT), reportViews, request);
    expect(result).toStrictEqual({
      dataSetName: "NewDataSet",
      table: "Table",
      columns: DATASET_COLUMNS,
      rows: ROWS,
    });
    expect(typeof result.rows[0].SubscriberId).toBe("bigint");
  });

  it("reads the SOAP form: schema and diffgram directly inside <OpResult>", () => {
    const out = new XmlOut(false).open("GetReportViewsByDateIntervalResult");
    writeDataSet(out, reportViews, ROWS, REQUEST);
    const holder = readXml(
      `<r xmlns="http://tempuri.org/">${out.close("GetReportViewsByDateIntervalResult")}</r>`,
    ).children[0];
    expect(readDataSet(holder, reportViews, REQUEST).rows).toStrictEqual(ROWS);
  });

  it("maps cells by name when the schema orders the columns differently", () => {
    const doc = [
      '<DataSet xmlns="http://tempuri.org/">',
      '<xs:schema id="NewDataSet" xmlns="" xmlns:xs="http://www.w3.org/2001/XMLSchema" xmlns:msdata="urn:schemas-microsoft-com:xml-msdata">',
      '<xs:element name="NewDataSet" msdata:IsDataSet="true"><xs:complexType><xs:choice minOccurs="0" maxOccurs="unbounded">',
      '<xs:element name="Table"><xs:complexType><xs:sequence>',
      '<xs:element name="DD3" type="xs:string" minOccurs="0" />',
      '<xs:element name="ViewTime" type="xs:dateTime" minOccurs="0" />',
      '<xs:element name="Email" type="xs:string" minOccurs="0" />',
      '<xs:element name="SubscriberId" type="xs:long" minOccurs="0" />',
      "</xs:sequence></xs:complexType></xs:element></xs:choice></xs:complexType></xs:element></xs:schema>",
      '<diffgr:diffgram xmlns:msdata="urn:schemas-microsoft-com:xml-msdata" xmlns:diffgr="urn:schemas-microsoft-com:xml-diffgram-v1">',
      '<NewDataSet xmlns=""><Table diffgr:id="Table1" msdata:rowOrder="0">',
      "<DD3>v1</DD3><ViewTime>2024-05-06T07:08:09Z</ViewTime><Email>e@x</Email><SubscriberId>9223372036854775807</SubscriberId>",
      "</Table></NewDataSet></diffgr:diffgram></DataSet>",
    ].join("");
    for (const request of [REQUEST, undefined]) {
      const result = readDataSet<ViewRow>(readXml(doc), reportViews, request);
      expect(result.columns.map((c) => c.name)).toStrictEqual(["DD3", "ViewTime", "Email", "SubscriberId"]);
      expect(result.rows).toStrictEqual([
        {
          SubscriberId: 9223372036854775807n,
          Email: "e@x",
          ViewTime: "2024-05-06T07:08:09Z",
          FieldValue: "v1",
        },
      ]);
    }
  });

  it("reads a self-closing diffgram as no rows", () => {
    const out = new XmlOut(false).open("DataSet", ' xmlns="http://tempuri.org/"');
    writeDataSet(out, reportViews, [], REQUEST);
    const result = readDataSet(readXml(out.close("DataSet").toString()), reportViews, REQUEST);
    expect(result.rows).toStrictEqual([]);
    expect(result.columns).toStrictEqual(DATASET_COLUMNS);
  });

  it("round-trips escaped text, empty strings and extreme longs", () => {
    const rows = [
      {
        SubscriberId: -9223372036854775808n,
        Email: "a&b<c>\"'",
        ViewTime: "2024-05-06T07:08:09.1234567",
        FieldValue: "",
      },
      { SubscriberId: null, Email: null, ViewTime: null, FieldValue: "ÅÄÖ 😀" },
    ];
    for (const pretty of [false, true]) {
      const out = new XmlOut(pretty).open("DataSet", ' xmlns="http://tempuri.org/"');
      writeDataSet(out, reportViews, rows, REQUEST);
      expect(readDataSet(readXml(out.close("DataSet").toString()), reportViews, REQUEST).rows).toStrictEqual(
        rows,
      );
    }
  });

  it.each([
    { name: "no schema", doc: '<DataSet xmlns="http://tempuri.org/" />', message: /no xs:schema/ },
    {
      name: "a cell that does not convert",
      doc: DATASET_DOCUMENT.replace("<SubscriberId>7</SubscriberId>", "<SubscriberId>seven</SubscriberId>"),
      message: /DataSet column SubscriberId: the value is not a whole number/,
    },
  ])("refuses $name", ({ doc, message }) => {
    expect(() => readDataSet(readXml(doc), reportViews, REQUEST)).toThrow(message);
  });
});
