// .NET DataSet results: an inline XML Schema describing the table, then a diffgram holding the rows.
// The writer emits what an ASMX host emits; the reader trusts the schema for the columns present and the
// spec for their types, so a null cell (an omitted element) stays null.

import type { ColumnModel, DataSetModel, SoapType } from "../model.js";
import type { XmlOut } from "../xml/out.js";
import { clientParse, formatValue, XSD_NS as XS_NS } from "./values.js";
import { child, type XmlElement } from "../xml/tree.js";

export const MSDATA_NS = "urn:schemas-microsoft-com:xml-msdata";
export const DIFFGR_NS = "urn:schemas-microsoft-com:xml-diffgram-v1";

export interface DataSetColumn {
  readonly name: string;
  /** XML Schema type name without prefix: string, int, long, dateTime, ... */
  readonly type: string;
}

/** A decoded DataSet: one table, its columns as the schema declares them, and typed rows. */
export interface DataSetResult<Row> {
  readonly dataSetName: string;
  readonly table: string;
  readonly columns: readonly DataSetColumn[];
  readonly rows: readonly Row[];
}

/** What a server handler may return for a DataSet operation: the rows, or a whole DataSetResult. */
export type DataSetRows<Row> = readonly Row[] | DataSetResult<Row>;

type Row = Readonly<Record<string, unknown>>;

/** The wire name of a column: fixed, or the value of the request parameter that names it. */
export function columnName(
  column: ColumnModel,
  request: Readonly<Record<string, unknown>> | undefined,
): string | undefined {
  if (column.name !== undefined) return column.name;
  const named = column.nameFromParam === undefined ? undefined : request?.[column.nameFromParam];
  return typeof named === "string" && named !== "" ? named : undefined;
}

/** Writes the schema and diffgram elements of a DataSet into `out` (the caller writes the container). */
export function writeDataSet(
  out: XmlOut,
  model: DataSetModel,
  rows: readonly Row[],
  request: Readonly<Record<string, unknown>>,
): void {
  const columns = model.columns.map((c) => ({ model: c, name: columnName(c, request) ?? c.property }));
  const msdata = ` xmlns:msdata="${MSDATA_NS}"`;
  out
    .open("xs:schema", ` id="${model.dataSetName}" xmlns="" xmlns:xs="${XS_NS}"${msdata}`)
    .open("xs:element", ` name="${model.dataSetName}" msdata:IsDataSet="true" msdata:UseCurrentLocale="true"`)
    .open("xs:complexType")
    .open("xs:choice", ` minOccurs="0" maxOccurs="unbounded"`)
    .open("xs:element", ` name="${model.table}"`)
    .open("xs:complexType")
    .open("xs:sequence");
  for (const c of columns)
    out.empty("xs:element", ` name="${c.name}" type="xs:${c.model.type}" minOccurs="0"`);
  out
    .close("xs:sequence")
    .close("xs:complexType")
    .close("xs:element")
    .close("xs:choice")
    .close("xs:complexType")
    .close("xs:element")
    .close("xs:schema");
  const diffgramAttrs = `${msdata} xmlns:diffgr="${DIFFGR_NS}"`;
  if (rows.length === 0) {
    out.empty("diffgr:diffgram", diffgramAttrs);
    return;
  }
  out.open("diffgr:diffgram", diffgramAttrs).open(model.dataSetName, ` xmlns=""`);
  for (let i = 0; i < rows.length; i++) {
    out.open(
      model.table,
      ` diffgr:id="${model.table}${i + 1}" msdata:rowOrder="${i}" diffgr:hasChanges="inserted"`,
    );
    for (const c of columns) {
      const value = rows[i]![c.model.property];
      if (value !== null && value !== undefined) out.leaf(c.name, formatValue(c.model.type, value));
    }
    out.close(model.table);
  }
  out.close(model.dataSetName).close("diffgr:diffgram");
}

/** The children of `el` named xs:`local` (none when `el` is undefined). */
function xs(el: XmlElement | undefined, local: string): XmlElement[] {
  return el?.children.filter((c) => c.ns === XS_NS && c.local === local) ?? [];
}

/** The xs:element children of an element's xs:`group` (choice, sequence), inside its xs:complexType or directly. */
function members(el: XmlElement | undefined, group: string): XmlElement[] {
  return xs(xs(xs(el, "complexType")[0] ?? el, group)[0], "element");
}

/** An unqualified attribute's value. */
function attr(el: XmlElement, local: string): string | undefined {
  return el.attrs.find((a) => a.ns === "" && a.local === local)?.value;
}

function parseCell(type: SoapType, text: string, column: string): unknown {
  try {
    return clientParse(type, text);
  } catch (error) {
    throw new Error(`DataSet column ${column}: the value ${(error as Error).message}`);
  }
}

/**
 * Reads the DataSet held by `container` (a SOAP `<OpResult>` or the HTTP `<DataSet>` root).
 * `request` lets a column named after a request parameter (ddField) be found by its wire name.
 */
export function readDataSet<R>(
  container: XmlElement,
  model: DataSetModel,
  request?: Readonly<Record<string, unknown>>,
): DataSetResult<R> {
  const schema = xs(container, "schema")[0];
  if (!schema) throw new Error("the DataSet has no xs:schema element");
  const root = xs(schema, "element")[0];
  if (!root) throw new Error("the DataSet schema has no root element");
  // The tables the schema declares, with their columns (a type without its prefix: xs:int is int); the
  // model's table is read, else the first.
  const tables = members(root, "choice").map((el) => ({
    name: attr(el, "name") ?? "",
    columns: members(el, "sequence").map(
      (c): DataSetColumn => ({
        name: attr(c, "name") ?? "",
        type: (attr(c, "type") ?? "string").replace(/^[^:]*:/, ""),
      }),
    ),
  }));
  const table = tables.find((t) => t.name === model.table) ?? tables[0];
  const columns = table?.columns ?? [];
  // A column named by a parameter the request did not give: the first column no fixed name takes.
  const wireNames = model.columns.map(
    (c) =>
      columnName(c, request) ??
      columns.find((col) => !model.columns.some((m) => m.name === col.name))?.name ??
      c.property,
  );
  const diffgram = child(container, DIFFGR_NS, "diffgram");
  const data = diffgram?.children.find((c) => c.ns !== DIFFGR_NS);
  // The rows of the table read (none without one), each cell by its column's wire name (an absent one null).
  const rows = (data?.children ?? [])
    .filter((rowEl) => rowEl.local === table?.name)
    .map(
      (rowEl) =>
        Object.fromEntries(
          model.columns.map((c, i) => {
            const cell = rowEl.children.find((el) => el.local === wireNames[i]);
            return [c.property, cell === undefined ? null : parseCell(c.type, cell.text, wireNames[i]!)];
          }),
        ) as R,
    );
  return { dataSetName: attr(root, "name") ?? "", table: table?.name ?? model.table, columns, rows };
}
