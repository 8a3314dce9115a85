// Untyped DataSets: every table and column an answer's inline schema declares, read and written back.
// They are the spec's `result: { kind: dataSet }` without a `dataSet` (what `easgen import` makes of a
// WSDL's DataSet result, whose columns a WSDL never describes): every row of the diffgram, each cell read by
// its column's type. The server writes such a value in the same form (inline schema, then diffgram), as an
// ASMX host does.
//
// Reading refuses what it would otherwise lose: a row of a table the schema does not declare, a cell of a
// column it does not declare, columns held as XML attributes or as the row's text, nested rows. Changed
// rows' earlier versions (diffgr:before) and the schema's keys and relations are not kept. Kept out of
// dataset.ts so that a client of typed DataSets carries none of this: the generated model registers the
// reader (through typed-xml-read.ts) only for a service with such a result.

import type { XmlOut } from "../xml/out.js";
import { child, type XmlElement } from "../xml/tree.js";
import { NCNAME } from "../xml/value.js";
import { DIFFGR_NS, MSDATA_NS } from "./dataset.js";
import { formatValue, parseValue, XSD_NS as XS_NS } from "./values.js";
import type { SoapType } from "../model.js";

/** A column of an untyped DataSet's table: its name and its XML Schema type without prefix (`guid` for .NET's Guid). */
export interface UntypedColumn {
  readonly name: string;
  /**
   * `string`, `int`, `short`, `long`, `unsignedByte`, `byte`, `unsignedShort`, `unsignedInt`, `unsignedLong`,
   * `decimal`, `double`, `float`, `boolean`, `dateTime`, `base64Binary`, `guid` (an xs:string column with
   * msdata:DataType System.Guid), `char` (an xs:string of length 1: its cells are the letter), or another
   * XML Schema type such as `duration` (a TimeSpan), whose cells are their text.
   */
  readonly type: string;
}

/**
 * A cell as its column's type reads (the generated code's value mapping: number, bigint for long and
 * unsignedLong, string for decimal, dateTime and guid, Uint8Array for base64Binary); the text for other
 * types; null for DBNull (the element left out).
 */
export type UntypedCell = string | number | bigint | boolean | Uint8Array | null;

export interface UntypedTable {
  readonly name: string;
  readonly columns: readonly UntypedColumn[];
  /** Each row by column name, every column present (null for a DBNull cell). */
  readonly rows: readonly Readonly<Record<string, UntypedCell>>[];
}

/** A DataSet as its answer declares it: every table, in schema order. */
export interface UntypedDataSet {
  /** The DataSet's name (the inline schema's root element: NewDataSet for most). */
  readonly dataSetName: string;
  readonly tables: readonly UntypedTable[];
}

/** Column types whose cells are read and written by the scalar codecs (not char: a DataSet writes the letter, not its code). */
const CODEC_TYPES: ReadonlySet<string> = new Set<SoapType>([
  "string",
  "boolean",
  "float",
  "double",
  "decimal",
  "dateTime",
  "byte",
  "unsignedByte",
  "short",
  "unsignedShort",
  "int",
  "unsignedInt",
  "long",
  "unsignedLong",
  "base64Binary",
  "guid",
]);

/** Other XML Schema types a column may have: its cells are their text (a TimeSpan column is xs:duration). */
const TEXT_TYPES: ReadonlySet<string> = new Set([
  "char",
  "duration",
  "date",
  "time",
  "gYearMonth",
  "gYear",
  "gMonthDay",
  "gDay",
  "gMonth",
  "hexBinary",
  "anyURI",
  "QName",
  "normalizedString",
  "token",
  "language",
  "Name",
  "NCName",
  "integer",
  "nonNegativeInteger",
  "positiveInteger",
  "nonPositiveInteger",
  "negativeInteger",
]);

const GUID_TYPE = "System.Guid, mscorlib, Version=4.0.0.0, Culture=neutral, PublicKeyToken=b77a5c561934e089";

/** Why an untyped DataSet cannot be read; the message names the table, column or row. */
export class UntypedDataSetError extends Error {
  override name = "UntypedDataSetError";
}

const xs = (el: XmlElement | undefined, local: string): XmlElement[] =>
  el?.children.filter((c) => c.ns === XS_NS && c.local === local) ?? [];

const attr = (el: XmlElement, local: string, ns = ""): string | undefined =>
  el.attrs.find((a) => a.ns === ns && a.local === local)?.value;

const stripPrefix = (qname: string): string => qname.slice(qname.indexOf(":") + 1);

/** A column's type: its type attribute, a simple type's restriction base (a char column), guid by msdata:DataType. */
function columnType(el: XmlElement): string {
  if (attr(el, "DataType", MSDATA_NS)?.startsWith("System.Guid,") === true) return "guid";
  const type = attr(el, "type");
  if (type !== undefined) return stripPrefix(type);
  const restriction = xs(xs(el, "simpleType")[0], "restriction")[0];
  if (restriction === undefined) return "string";
  const base = stripPrefix(attr(restriction, "base") ?? "string");
  // A char column: a string of length 1.
  const length = xs(restriction, "length")[0];
  return base === "string" && length !== undefined && attr(length, "value") === "1" ? "char" : base;
}

/** A table's columns from its xs:element; refuses the column mappings a row element cannot be read by. */
function tableOf(el: XmlElement): UntypedColumn[] {
  const name = attr(el, "name") ?? "";
  const type = xs(el, "complexType")[0];
  if (type === undefined)
    throw new UntypedDataSetError(`DataSet table ${name} has no complexType in the schema`);
  for (const c of type.children) {
    if (c.ns === XS_NS && (c.local === "attribute" || c.local === "simpleContent"))
      throw new UntypedDataSetError(
        `DataSet table ${name}: a column held as ${c.local === "attribute" ? `the attribute ${attr(c, "name") ?? ""}` : "the row's text"} (MappingType ${c.local === "attribute" ? "Attribute" : "SimpleContent"}) is not supported`,
      );
  }
  const columns: UntypedColumn[] = [];
  for (const c of xs(xs(type, "sequence")[0], "element")) {
    const column = attr(c, "name");
    if (column === undefined)
      throw new UntypedDataSetError(`DataSet table ${name}: a column without a name (ref= is not supported)`);
    columns.push({ name: column, type: columnType(c) });
  }
  return columns;
}

function cell(type: string, text: string, where: () => string): UntypedCell {
  if (!CODEC_TYPES.has(type)) return text;
  try {
    return parseValue(type as SoapType, text) as UntypedCell;
  } catch (error) {
    throw new UntypedDataSetError(`${where()}: the ${type} value ${(error as Error).message}`);
  }
}

/**
 * Reads the DataSet held by `container` (a SOAP `<OpResult>` or the HTTP `<DataSet>` root): every table of
 * its inline schema and every row of its diffgram. Throws UntypedDataSetError naming what it cannot keep.
 */
export function readUntypedDataSet(container: XmlElement): UntypedDataSet {
  const schema = xs(container, "schema")[0];
  if (schema === undefined) throw new UntypedDataSetError("the DataSet has no xs:schema element");
  const root = xs(schema, "element")[0];
  if (root === undefined) throw new UntypedDataSetError("the DataSet schema has no root element");
  const declared = xs(xs(xs(root, "complexType")[0], "choice")[0], "element");
  // Each table's columns, their positions by name (so a row is read in one pass) and its rows.
  const tables = new Map<
    string,
    { columns: UntypedColumn[]; byName: Map<string, number>; rows: Record<string, UntypedCell>[] }
  >();
  for (const el of declared) {
    const name = attr(el, "name") ?? "";
    if (tables.has(name)) throw new UntypedDataSetError(`DataSet table ${name} is declared twice`);
    const columns = tableOf(el);
    tables.set(name, { columns, byName: new Map(columns.map((c, i) => [c.name, i])), rows: [] });
  }
  const diffgram = child(container, DIFFGR_NS, "diffgram");
  const data = diffgram?.children.find((c) => c.ns !== DIFFGR_NS);
  for (const rowEl of data?.children ?? []) {
    const table = tables.get(rowEl.local);
    if (table === undefined)
      throw new UntypedDataSetError(`DataSet row ${rowEl.local}: the schema declares no table of that name`);
    const index = table.rows.length;
    const row: [string, UntypedCell][] = table.columns.map((c) => [c.name, null]);
    const seen = new Set<string>();
    for (const cellEl of rowEl.children) {
      const at = table.byName.get(cellEl.local);
      if (at === undefined) {
        throw new UntypedDataSetError(
          tables.has(cellEl.local)
            ? `DataSet table ${rowEl.local} row ${index + 1}: nested rows of ${cellEl.local} (a nested relation) are not supported`
            : `DataSet table ${rowEl.local} row ${index + 1}: the cell ${cellEl.local} is not a column of the schema`,
        );
      }
      const column = table.columns[at]!;
      if (seen.has(column.name))
        throw new UntypedDataSetError(
          `DataSet table ${rowEl.local} row ${index + 1}: the cell ${column.name} appears twice`,
        );
      seen.add(column.name);
      if (cellEl.children.length > 0)
        throw new UntypedDataSetError(
          `DataSet table ${rowEl.local} row ${index + 1}: the cell ${column.name} holds XML elements`,
        );
      row[at] = [
        column.name,
        cell(
          column.type,
          cellEl.text,
          () => `DataSet table ${rowEl.local} row ${index + 1} column ${column.name}`,
        ),
      ];
    }
    // Object.fromEntries defines each key as an own property (a column named __proto__ too).
    table.rows.push(Object.fromEntries(row));
  }
  return {
    dataSetName: attr(root, "name") ?? "",
    tables: [...tables].map(([name, t]) => ({ name, columns: t.columns, rows: t.rows })),
  };
}

/** Why a handler's untyped DataSet cannot be written (the server's ResultShapeError wraps the message). */
export class UntypedDataSetShapeError extends Error {
  override name = "UntypedDataSetShapeError";
}

function record(value: unknown, what: string): Readonly<Record<string, unknown>> {
  if (typeof value !== "object" || value === null || Array.isArray(value))
    throw new UntypedDataSetShapeError(`${what} is not an object`);
  return value as Readonly<Record<string, unknown>>;
}

function list(value: unknown, what: string): readonly unknown[] {
  if (!Array.isArray(value)) throw new UntypedDataSetShapeError(`${what} is not an array`);
  return value;
}

function xmlName(value: unknown, what: string): string {
  if (typeof value !== "string" || !NCNAME.test(value))
    throw new UntypedDataSetShapeError(`${what} is not an XML name (an NCName)`);
  return value;
}

interface CheckedTable {
  readonly name: string;
  readonly columns: readonly UntypedColumn[];
  /** Each row's cells as text, in column order (undefined for DBNull). */
  readonly rows: readonly (string | undefined)[][];
}

/** The handler's value checked and formatted before anything is written: a bad value writes nothing. */
function checked(value: unknown): { dataSetName: string; tables: CheckedTable[] } {
  const ds = record(value, "the DataSet result");
  const dataSetName = xmlName(ds["dataSetName"] ?? "NewDataSet", "the DataSet's dataSetName");
  const names = new Set<string>();
  const tables = list(ds["tables"], "the DataSet's tables").map((t, i): CheckedTable => {
    const table = record(t, `table ${i + 1}`);
    const name = xmlName(table["name"], `the name of table ${i + 1}`);
    if (names.has(name)) throw new UntypedDataSetShapeError(`table ${name} appears twice`);
    names.add(name);
    const columnNames = new Set<string>();
    const columns = list(table["columns"], `the columns of table ${name}`).map((c, j): UntypedColumn => {
      const column = record(c, `column ${j + 1} of table ${name}`);
      const columnName = xmlName(column["name"], `the name of column ${j + 1} of table ${name}`);
      if (columnNames.has(columnName.toLowerCase()))
        throw new UntypedDataSetShapeError(
          `table ${name}: column ${columnName} appears twice (DataSet column names ignore case)`,
        );
      columnNames.add(columnName.toLowerCase());
      const type = column["type"];
      if (typeof type !== "string" || !(CODEC_TYPES.has(type) || TEXT_TYPES.has(type)))
        throw new UntypedDataSetShapeError(
          `table ${name} column ${columnName}: the type ${String(type)} is not an XML Schema type a DataSet column has`,
        );
      return { name: columnName, type };
    });
    const known = new Set(columns.map((c) => c.name));
    const rows = list(table["rows"], `the rows of table ${name}`).map((r, k) => {
      const row = record(r, `row ${k + 1} of table ${name}`);
      for (const key of Object.keys(row))
        if (!known.has(key))
          throw new UntypedDataSetShapeError(`table ${name} row ${k + 1}: ${key} is not one of its columns`);
      return columns.map((c) => {
        const v = Object.hasOwn(row, c.name) ? row[c.name] : undefined;
        if (v === null || v === undefined) return undefined;
        if (!CODEC_TYPES.has(c.type)) {
          if (typeof v !== "string")
            throw new UntypedDataSetShapeError(
              `table ${name} row ${k + 1} column ${c.name}: a cell of type ${c.type} is its text, a string`,
            );
          if (c.type === "char" && v.length !== 1)
            throw new UntypedDataSetShapeError(
              `table ${name} row ${k + 1} column ${c.name}: a char cell is one UTF-16 unit`,
            );
          return v;
        }
        try {
          return formatValue(c.type as SoapType, v);
        } catch (error) {
          throw new UntypedDataSetShapeError(
            `table ${name} row ${k + 1} column ${c.name}: the ${c.type} value ${(error as Error).message}`,
          );
        }
      });
    });
    return { name, columns, rows };
  });
  return { dataSetName, tables };
}

/**
 * Writes an untyped DataSet (a handler's UntypedDataSet) as an ASMX host does: the inline schema of every
 * table, then the diffgram with every table's rows in turn; a DataTable (`dataTable`) as one table marked
 * msdata:MainDataTable, its rows in DocumentElement. Throws UntypedDataSetShapeError, before writing
 * anything, for a value that is not one.
 */
export function writeUntypedDataSet(out: XmlOut, value: unknown, dataTable = false): void {
  const { dataSetName, tables } = checked(value);
  if (dataTable && tables.length !== 1)
    throw new UntypedDataSetShapeError(`a DataTable result holds one table, not ${tables.length}`);
  const msdata = ` xmlns:msdata="${MSDATA_NS}"`;
  // A DataTable names itself the main table of its DataSet, whose rows are in DocumentElement.
  const main = dataTable ? ` msdata:MainDataTable="${tables[0]!.name}"` : "";
  const rowsRoot = dataTable ? "DocumentElement" : dataSetName;
  out
    .open("xs:schema", ` id="${dataSetName}" xmlns="" xmlns:xs="${XS_NS}"${msdata}`)
    .open(
      "xs:element",
      ` name="${dataSetName}" msdata:IsDataSet="true"${main} msdata:UseCurrentLocale="true"`,
    )
    .open("xs:complexType");
  if (tables.length === 0) out.empty("xs:choice", ` minOccurs="0" maxOccurs="unbounded"`);
  else {
    out.open("xs:choice", ` minOccurs="0" maxOccurs="unbounded"`);
    for (const table of tables) {
      out.open("xs:element", ` name="${table.name}"`).open("xs:complexType").open("xs:sequence");
      for (const c of table.columns) {
        if (c.type === "char") {
          out
            .open("xs:element", ` name="${c.name}" minOccurs="0"`)
            .open("xs:simpleType")
            .open("xs:restriction", ` base="xs:string"`)
            .empty("xs:length", ` value="1"`)
            .close("xs:restriction")
            .close("xs:simpleType")
            .close("xs:element");
          continue;
        }
        const type =
          c.type === "guid" ? ` msdata:DataType="${GUID_TYPE}" type="xs:string"` : ` type="xs:${c.type}"`;
        out.empty("xs:element", ` name="${c.name}"${type} minOccurs="0"`);
      }
      out.close("xs:sequence").close("xs:complexType").close("xs:element");
    }
    out.close("xs:choice");
  }
  out.close("xs:complexType").close("xs:element").close("xs:schema");
  const diffgramAttrs = `${msdata} xmlns:diffgr="${DIFFGR_NS}"`;
  if (tables.every((t) => t.rows.length === 0)) {
    out.empty("diffgr:diffgram", diffgramAttrs);
    return;
  }
  out.open("diffgr:diffgram", diffgramAttrs).open(rowsRoot, ` xmlns=""`);
  for (const table of tables) {
    for (let i = 0; i < table.rows.length; i++) {
      out.open(
        table.name,
        ` diffgr:id="${table.name}${i + 1}" msdata:rowOrder="${i}" diffgr:hasChanges="inserted"`,
      );
      const cells = table.rows[i]!;
      for (let j = 0; j < cells.length; j++) {
        const text = cells[j];
        if (text !== undefined) out.leaf(table.columns[j]!.name, text);
      }
      out.close(table.name);
    }
  }
  out.close(rowsRoot).close("diffgr:diffgram");
}
