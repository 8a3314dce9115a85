// What an ASMX host answers a successful call (docs/wire.md §2–5): a compact SOAP envelope holding
// `<{Op}Response><{Op}Result>`, or an indented HTTP document whose root is the result type; records
// omit null string fields; a DataSet is an inline schema plus a diffgram, a null cell an omitted element.

import { contentTypeOf, type ReferenceAnswer } from "./errors.js";
import { soapEnvelope, XSD_NS, XSI_NS, type WireValues } from "./request.js";
import { columnNames, type RefBinding, type RefField, type RefOperation, type RefResult } from "./spec.js";
import { compact, el, indented, leaf, XML_DECLARATION, type El } from "./xml.js";

/** One record or DataSet row as wire texts; an absent key is a null (omitted) value. */
export type WireRecord = Readonly<Record<string, string>>;
/** A scalar's text, a list of records, one record, or a DataSet's rows (keyed by wire column name). */
export type WireResult =
  | string
  | readonly WireRecord[]
  | WireRecord
  | { readonly rows: readonly WireRecord[] };

const XS = "http://www.w3.org/2001/XMLSchema";
const MSDATA = "urn:schemas-microsoft-com:xml-msdata";
const DIFFGR = "urn:schemas-microsoft-com:xml-diffgram-v1";

function recordFields(fields: readonly RefField[], record: WireRecord): El[] {
  return fields.filter((f) => record[f.name] !== undefined).map((f) => leaf(f.name, record[f.name]));
}

function dataSetChildren(
  result: Extract<RefResult, { kind: "dataSet" }>,
  rows: readonly WireRecord[],
  input: WireValues,
): El[] {
  const names = columnNames(result, input);
  const columns = names.map((name, i) =>
    el("xs:element", ` name="${name}" type="xs:${result.columns[i].type}" minOccurs="0"`),
  );
  const schema = el(
    "xs:schema",
    ` id="${result.dataSetName}" xmlns="" xmlns:xs="${XS}" xmlns:msdata="${MSDATA}"`,
    [
      el(
        "xs:element",
        ` name="${result.dataSetName}" msdata:IsDataSet="true" msdata:UseCurrentLocale="true"`,
        [
          el("xs:complexType", "", [
            el("xs:choice", ' minOccurs="0" maxOccurs="unbounded"', [
              el("xs:element", ` name="${result.table}"`, [
                el("xs:complexType", "", [el("xs:sequence", "", columns)]),
              ]),
            ]),
          ]),
        ],
      ),
    ],
  );
  const rowEls = rows.map((row, i) =>
    el(
      result.table,
      ` diffgr:id="${result.table}${i + 1}" msdata:rowOrder="${i}" diffgr:hasChanges="inserted"`,
      names.filter((n) => row[n] !== undefined).map((n) => leaf(n, row[n])),
    ),
  );
  const diffgramAttrs = ` xmlns:msdata="${MSDATA}" xmlns:diffgr="${DIFFGR}"`;
  const data = rows.length === 0 ? [] : [el(result.dataSetName, ' xmlns=""', rowEls)];
  return [schema, el("diffgr:diffgram", diffgramAttrs, data)];
}

/** The elements inside the result holder, or the scalar's text. */
function resultContent(op: RefOperation, result: WireResult, input: WireValues): El[] | string {
  const shape = op.result;
  switch (shape.kind) {
    case "scalar":
      return result as string;
    case "list":
      return (result as readonly WireRecord[]).map((r) =>
        el(shape.record, "", recordFields(shape.fields, r)),
      );
    case "record":
      return recordFields(shape.fields, result as WireRecord);
    case "dataSet":
      return dataSetChildren(shape, (result as { rows: readonly WireRecord[] }).rows, input);
  }
}

function httpRoot(result: RefResult): { name: string; typed: boolean } {
  switch (result.kind) {
    case "scalar":
      return { name: result.type, typed: false };
    case "list":
      return { name: `ArrayOf${result.record}`, typed: true };
    case "record":
      return { name: result.record, typed: true };
    case "dataSet":
      return { name: "DataSet", typed: false };
  }
}

export function referenceResponse(
  op: RefOperation,
  binding: RefBinding,
  result: WireResult,
  input: WireValues,
): ReferenceAnswer {
  const content = resultContent(op, result, input);
  const headers = { "content-type": contentTypeOf(binding, "document") };
  if (binding === "soap11" || binding === "soap12") {
    const holderName = `${op.name}Result`;
    const holder = typeof content === "string" ? leaf(holderName, content) : el(holderName, "", content);
    const response = el(`${op.name}Response`, ` xmlns="${op.namespace}"`, [holder]);
    return { status: 200, headers, body: soapEnvelope(binding, compact(response)) };
  }
  const root = httpRoot(op.result);
  const attrs = root.typed
    ? ` xmlns:xsd="${XSD_NS}" xmlns:xsi="${XSI_NS}" xmlns="${op.namespace}"`
    : ` xmlns="${op.namespace}"`;
  const doc = typeof content === "string" ? leaf(root.name, content, attrs) : el(root.name, attrs, content);
  return { status: 200, headers, body: `${XML_DECLARATION}\n${indented(doc)}` };
}
