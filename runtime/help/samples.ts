// The sample exchanges of an operation's help page, as plain text in the style of the ASMX help pages:
// real header lines, and the SOAP type names (string, int, long, dateTime) where values go.

import type {
  ColumnModel,
  DataSetModel,
  FieldModel,
  OperationModel,
  ResultModel,
  ServiceModel,
} from "../model.js";

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
const XSI_XSD = 'xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns:xsd="http://www.w3.org/2001/XMLSchema"';
const XSD_XSI = 'xmlns:xsd="http://www.w3.org/2001/XMLSchema" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"';
const INDENT = "  ";

export function sampleExchanges(model: ServiceModel, op: OperationModel): SampleExchange[] {
  const ns = model.namespace;
  const okXml = ["HTTP/1.1 200 OK", "Content-Type: text/xml; charset=utf-8", "Content-Length: length", ""];
  const okSoap12 = [
    "HTTP/1.1 200 OK",
    "Content-Type: application/soap+xml; charset=utf-8",
    "Content-Length: length",
    "",
  ];
  const query = op.params.map((p) => `${encodeURIComponent(p.name)}=${p.type}`).join("&");
  return [
    {
      id: "soap11",
      title: "SOAP 1.1",
      note: "operation chosen by the SOAPAction header",
      request: post(
        "",
        "Content-Type: text/xml; charset=utf-8",
        "Content-Length: length",
        `SOAPAction: "${ns}${op.name}"`,
        "",
        ...soapEnvelope("soap", "http://schemas.xmlsoap.org/soap/envelope/", requestElement(op, ns)),
      ),
      response: lines(
        ...okXml,
        ...soapEnvelope("soap", "http://schemas.xmlsoap.org/soap/envelope/", responseElement(op, ns)),
      ),
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
        ...soapEnvelope("soap12", "http://www.w3.org/2003/05/soap-envelope", requestElement(op, ns)),
      ),
      response: lines(
        ...okSoap12,
        ...soapEnvelope("soap12", "http://www.w3.org/2003/05/soap-envelope", responseElement(op, ns)),
      ),
    },
    {
      id: "http-get",
      title: "HTTP GET",
      note: "every parameter in the query string",
      request: { method: "GET", target: `/${op.name}${query === "" ? "" : `?${query}`}`, rest: "" },
      response: lines(...okXml, XML_DECLARATION, ...httpAnswer(op.result, ns)),
    },
    {
      id: "http-post",
      title: "HTTP POST",
      note: "every parameter in the form body",
      request: post(
        `/${op.name}`,
        "Content-Type: application/x-www-form-urlencoded",
        "Content-Length: length",
        "",
        query,
      ),
      response: lines(...okXml, XML_DECLARATION, ...httpAnswer(op.result, ns)),
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
  if (op.params.length === 0) return [`<${op.name} xmlns="${ns}" />`];
  return [`<${op.name} xmlns="${ns}">`, ...indent(op.params.map((p) => leaf(p.name, p.type))), `</${op.name}>`];
}

function responseElement(op: OperationModel, ns: string): string[] {
  const result = `${op.name}Result`;
  return [
    `<${op.name}Response xmlns="${ns}">`,
    ...indent(
      op.result.kind === "scalar"
        ? [leaf(result, op.result.type)]
        : [`<${result}>`, ...indent(resultContent(op.result)), `</${result}>`],
    ),
    `</${op.name}Response>`,
  ];
}

/** The children of {Op}Result, which are also the children of the HTTP bindings' root element. */
function resultContent(result: Exclude<ResultModel, { kind: "scalar" }>): string[] {
  switch (result.kind) {
    case "list": {
      const item = recordElement(result.record.name, result.record.fields);
      return [...item, ...item];
    }
    case "record":
      return result.record.fields.map((f) => leaf(f.name, f.type));
    case "dataSet":
      return dataSetContent(result.dataSet);
  }
}

function httpAnswer(result: ResultModel, ns: string): string[] {
  switch (result.kind) {
    case "scalar":
      return [`<${result.type} xmlns="${ns}">${result.type}</${result.type}>`];
    case "list":
      return wrap(`ArrayOf${result.record.name}`, `${XSD_XSI} xmlns="${ns}"`, resultContent(result));
    case "record":
      return wrap(result.record.name, `${XSD_XSI} xmlns="${ns}"`, resultContent(result));
    case "dataSet":
      return wrap("DataSet", `xmlns="${ns}"`, resultContent(result));
  }
}

function wrap(name: string, attributes: string, content: readonly string[]): string[] {
  return [`<${name} ${attributes}>`, ...indent(content), `</${name}>`];
}

function recordElement(name: string, fields: readonly FieldModel[]): string[] {
  return [`<${name}>`, ...indent(fields.map((f) => leaf(f.name, f.type))), `</${name}>`];
}

function leaf(name: string, placeholder: string): string {
  return `<${name}>${placeholder}</${name}>`;
}

/** An inline schema followed by a diffgram, as a .NET DataSet is written (wire/README.md §5). */
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
