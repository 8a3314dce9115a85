// The sample exchanges of an operation's help page, as plain text in the style of the ASMX help pages:
// real header lines, and the SOAP type names (string, int, long, dateTime) where values go.

import type {
  ColumnModel,
  DataSetModel,
  OperationModel,
  RecordModel,
  ResultModel,
  ServiceModel,
  TypeModel,
} from "../../model.js";
import { wireName } from "../../model.js";
import { offeredOnHttp } from "../../protocol/http.js";
import { soapActionOf } from "../../protocol/soap.js";

export interface SampleExchange {
  readonly id: string;
  readonly title: string;
  readonly note: string;
  readonly request: SampleRequest;
  /** Status line, headers, blank line and body. */
  readonly response: string;
}

/**
 * The request line and Host header name the endpoint, which only the server knows, so they are left to
 * the page: `{method} {endpoint path}{target} HTTP/1.1`, `Host: {host}`, then the rest.
 */
export interface SampleRequest {
  readonly method: "GET" | "POST";
  /** What follows the endpoint path: "" for SOAP, "/{Op}" and the query for HTTP GET/POST. */
  readonly target: string;
  /** Headers after Host, a blank line and the body; empty when there is no body. */
  readonly rest: string;
}

const XML_DECLARATION = '<?xml version="1.0" encoding="utf-8"?>';
const XSI_XSD =
  'xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns:xsd="http://www.w3.org/2001/XMLSchema"';
const XSD_XSI =
  'xmlns:xsd="http://www.w3.org/2001/XMLSchema" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"';
const INDENT = "  ";

/**
 * The sample exchanges of an operation: SOAP 1.1 and 1.2 always, HTTP GET and POST when the operation is
 * offered there (no record parameters).
 */
export function sampleExchanges(model: ServiceModel, op: OperationModel): SampleExchange[] {
  const exchanges = allExchanges(model, op);
  return offeredOnHttp(op) ? exchanges : exchanges.filter((e) => e.id === "soap11" || e.id === "soap12");
}

/**
 * Elements a sample may spell out (records, arrays) before showing the rest as a type name; one
 * sample's expansion is bounded whatever the nesting of the records.
 */
const MAX_EXPANDED_ELEMENTS = 400;
let budget = MAX_EXPANDED_ELEMENTS;

/**
 * One message's lines, with a budget of its own: a nested record a few levels deep, or one used in several
 * fields, would otherwise grow the page without bound, and one message must not spend another's budget.
 */
function message<T>(build: () => T): T {
  budget = MAX_EXPANDED_ELEMENTS;
  expanding.clear();
  return build();
}
/** The records being spelled out, outermost first: one met again inside itself is shown by name. */
const expanding = new Set<RecordModel>();

function allExchanges(model: ServiceModel, op: OperationModel): SampleExchange[] {
  const ns = model.namespace;
  const okXml = ["HTTP/1.1 200 OK", "Content-Type: text/xml; charset=utf-8", "Content-Length: length", ""];
  const okSoap12 = [
    "HTTP/1.1 200 OK",
    "Content-Type: application/soap+xml; charset=utf-8",
    "Content-Length: length",
    "",
  ];
  const query = message(() => op.params.flatMap((p) => queryFields(p.name, p.type)).join("&"));
  // A one-way operation has no output message: the server answers 202 with an empty body.
  const accepted = "HTTP/1.1 202 Accepted";
  const soapResponse = (head: readonly string[], prefix: string, envelopeNs: string): string =>
    op.result.kind === "oneWay"
      ? accepted
      : lines(
          ...head,
          ...soapEnvelope(
            prefix,
            envelopeNs,
            message(() => responseElement(op, ns)),
          ),
        );
  const result = op.result;
  const httpResponse =
    result.kind === "oneWay"
      ? accepted
      : result.kind === "void"
        ? "HTTP/1.1 200 OK"
        : lines(...okXml, XML_DECLARATION, ...message(() => httpAnswer(result, ns)));
  return [
    {
      id: "soap11",
      title: "SOAP 1.1",
      note: "operation chosen by the SOAPAction header",
      request: post(
        "",
        "Content-Type: text/xml; charset=utf-8",
        "Content-Length: length",
        `SOAPAction: "${soapActionOf(ns, wireName(op))}"`,
        "",
        ...soapEnvelope(
          "soap",
          "http://schemas.xmlsoap.org/soap/envelope/",
          message(() => requestElement(op, ns)),
        ),
      ),
      response: soapResponse(okXml, "soap", "http://schemas.xmlsoap.org/soap/envelope/"),
    },
    {
      id: "soap12",
      title: "SOAP 1.2",
      note: "operation chosen by the body element",
      request: post(
        "",
        "Content-Type: application/soap+xml; charset=utf-8",
        "Content-Length: length",
        "",
        ...soapEnvelope(
          "soap12",
          "http://www.w3.org/2003/05/soap-envelope",
          message(() => requestElement(op, ns)),
        ),
      ),
      response: soapResponse(okSoap12, "soap12", "http://www.w3.org/2003/05/soap-envelope"),
    },
    {
      id: "http-get",
      title: "HTTP GET",
      note: "every parameter in the query string",
      request: { method: "GET", target: `/${wireName(op)}${query === "" ? "" : `?${query}`}`, rest: "" },
      response: httpResponse,
    },
    {
      id: "http-post",
      title: "HTTP POST",
      note: "every parameter in the form body",
      request: post(
        `/${wireName(op)}`,
        "Content-Type: application/x-www-form-urlencoded",
        "Content-Length: length",
        "",
        query,
      ),
      response: httpResponse,
    },
  ];
}

function lines(...text: string[]): string {
  return text.join("\n");
}

function post(target: string, ...rest: string[]): SampleRequest {
  return { method: "POST", target, rest: lines(...rest) };
}

function indent(block: readonly string[], depth = 1): string[] {
  return block.map((line) => INDENT.repeat(depth) + line);
}

function soapEnvelope(prefix: string, envelopeNs: string, body: readonly string[]): string[] {
  return [
    XML_DECLARATION,
    `<${prefix}:Envelope ${XSI_XSD} xmlns:${prefix}="${envelopeNs}">`,
    ...indent([`<${prefix}:Body>`, ...indent(body), `</${prefix}:Body>`]),
    `</${prefix}:Envelope>`,
  ];
}

function requestElement(op: OperationModel, ns: string): string[] {
  if (op.params.length === 0) return [`<${wireName(op)} xmlns="${ns}" />`];
  return [
    `<${wireName(op)} xmlns="${ns}">`,
    ...indent(op.params.flatMap((p) => valueLines(p.name, p.type))),
    `</${wireName(op)}>`,
  ];
}

/** The query or form fields of one parameter: an array repeats its name, as ASMX reads it. */
function queryFields(name: string, type: TypeModel): string[] {
  const field = encodeURIComponent(name);
  if (type.kind === "array")
    return [`${field}=${placeholder(type.item)}`, `${field}=${placeholder(type.item)}`];
  return [`${field}=${placeholder(type)}`];
}

/** What a value of the type shows in a sample: its type name, or an enum's values. */
function placeholder(type: TypeModel): string {
  switch (type.kind) {
    case "scalar":
      return type.type;
    case "enum":
      return type.enum.values.join(type.enum.flags ? " and/or " : " or ");
    case "record":
      return type.record.name;
    case "array":
      return type.typeName;
    case "xml":
      return "xml";
  }
}

/**
 * The element of one value: a leaf for a scalar or an enum, a record's fields, two items of an array
 * (one inside another array). Past the sample's budget a record or array is a leaf naming its type.
 */
function valueLines(name: string, type: TypeModel, inArray = false): string[] {
  switch (type.kind) {
    case "scalar":
    case "enum":
    case "xml":
      return [leaf(name, placeholder(type))];
    case "record": {
      // A record inside itself (Person.Reports: Person[]) is shown once, then named: its values are finite
      // only because the fields may be absent, so spelling it out would never end.
      if (--budget < 0 || expanding.has(type.record)) return [leaf(name, placeholder(type))];
      return recordElement(name, type.record);
    }
    case "array": {
      if (--budget < 0) return [leaf(name, placeholder(type))];
      const item = valueLines(type.itemElement, type.item, true);
      if (inArray) return [`<${name}>`, ...indent(item), `</${name}>`];
      // The second item is a copy: it costs the budget its lines, or the sample shows one item. An array of
      // records holding arrays would otherwise double at each level without touching the budget.
      budget -= item.length;
      return [`<${name}>`, ...indent(budget < 0 ? item : [...item, ...item]), `</${name}>`];
    }
  }
}

function responseElement(op: OperationModel, ns: string): string[] {
  const result = `${wireName(op)}Result`;
  if (op.result.kind === "void" || op.result.kind === "oneWay")
    return [`<${wireName(op)}Response xmlns="${ns}" />`];
  // Out and ref parameters: OpResult and each of them, directly in the response element.
  if (op.result.kind === "response")
    return [
      `<${wireName(op)}Response xmlns="${ns}">`,
      ...indent(op.result.record.fields.flatMap((f) => valueLines(f.name, f.type))),
      `</${wireName(op)}Response>`,
    ];
  return [
    `<${wireName(op)}Response xmlns="${ns}">`,
    ...indent(
      op.result.kind === "scalar" || op.result.kind === "enum"
        ? valueLines(
            result,
            op.result.kind === "scalar" ? { kind: "scalar", type: op.result.type } : op.result,
          )
        : [`<${result}>`, ...indent(resultContent(op.result)), `</${result}>`],
    ),
    `</${wireName(op)}Response>`,
  ];
}

type ContentResult = Extract<
  ResultModel,
  { kind: "list" | "record" | "dataSet" | "untypedDataSet" | "array" | "xml" }
>;

/** The children of {Op}Result, which are also the children of the HTTP bindings' root element. */
function resultContent(result: ContentResult): string[] {
  switch (result.kind) {
    case "list": {
      const item = recordElement(result.record.name, result.record, true);
      return [...item, ...item];
    }
    case "record":
      return recordFields(result.record);
    case "dataSet":
      return dataSetContent(result.dataSet);
    case "untypedDataSet":
      // Tables and columns are the answer's own: the schema, then the rows (as .NET's help page shows a DataSet).
      return [`<xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema">schema</xs:schema>`, "xml"];
    case "array": {
      const item = valueLines(result.itemElement, result.item, true);
      return [...item, ...item];
    }
    case "xml":
      return ["xml"];
  }
}

function httpAnswer(result: Exclude<ResultModel, { kind: "void" | "oneWay" }>, ns: string): string[] {
  switch (result.kind) {
    case "response":
      // Never shown: an operation with out or ref parameters is not offered on HTTP GET/POST.
      return [];
    case "scalar":
      return [`<${result.type} xmlns="${ns}">${result.type}</${result.type}>`];
    case "enum":
      return [`<${result.enum.name} xmlns="${ns}">${placeholder(result)}</${result.enum.name}>`];
    case "list":
      return wrap(`ArrayOf${result.record.name}`, `${XSD_XSI} xmlns="${ns}"`, resultContent(result));
    case "array":
      return wrap(result.typeName, `${XSD_XSI} xmlns="${ns}"`, resultContent(result));
    case "record":
      return wrap(result.record.name, `${XSD_XSI} xmlns="${ns}"`, resultContent(result));
    case "dataSet":
    case "untypedDataSet":
      return wrap("DataSet", `xmlns="${ns}"`, resultContent(result));
    case "xml":
      return ["xml"];
  }
}

function wrap(name: string, attributes: string, content: readonly string[]): string[] {
  return [`<${name} ${attributes}>`, ...indent(content), `</${name}>`];
}

function recordElement(name: string, record: RecordModel, inArray = false): string[] {
  return [`<${name}>`, ...indent(recordFields(record, inArray)), `</${name}>`];
}

/** The record's fields, with the record marked as being spelled out while they are. */
function recordFields(record: RecordModel, inArray = false): string[] {
  expanding.add(record);
  try {
    return record.fields.flatMap((f) => valueLines(f.name, f.type, inArray));
  } finally {
    expanding.delete(record);
  }
}

function leaf(name: string, placeholder: string): string {
  return `<${name}>${placeholder}</${name}>`;
}

/** An inline schema followed by a diffgram, as a .NET DataSet is written (easgen docs/wire.md §5). */
function dataSetContent(dataSet: DataSetModel): string[] {
  const cells = dataSet.columns.flatMap((c) => cell(c));
  return [
    `<xs:schema id="${dataSet.dataSetName}" xmlns="" xmlns:xs="http://www.w3.org/2001/XMLSchema" xmlns:msdata="urn:schemas-microsoft-com:xml-msdata">schema</xs:schema>`,
    '<diffgr:diffgram xmlns:msdata="urn:schemas-microsoft-com:xml-msdata" xmlns:diffgr="urn:schemas-microsoft-com:xml-diffgram-v1">',
    ...indent([
      `<${dataSet.dataSetName} xmlns="">`,
      ...indent([
        `<${dataSet.table} diffgr:id="${dataSet.table}1" msdata:rowOrder="0" diffgr:hasChanges="inserted">`,
        ...indent(cells),
        `</${dataSet.table}>`,
      ]),
      `</${dataSet.dataSetName}>`,
    ]),
    "</diffgr:diffgram>",
  ];
}

function cell(column: ColumnModel): string[] {
  if (column.name !== undefined) return [leaf(column.name, column.type)];
  // The real element name is only known per request; show the property name and say where it comes from.
  return [
    `<!-- element named by the value of ${column.nameFromParam ?? "a parameter"} -->`,
    leaf(column.property, column.type),
  ];
}
