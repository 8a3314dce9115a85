// The WSDL 1.1 document in the shape an ASMX host publishes (wire/README.md §7): the server answers ?WSDL
// with it, located at the request's address, and the generator writes the same function's output as
// generated/{Service}.wsdl.

import type { ServiceDocs } from "./docs.js";
import { escapeMarkup, XML_REFERENCES } from "./markup.js";
import type { OperationModel, RecordModel, ResultModel, ServiceModel, SoapType } from "./model.js";

/** The WSDL with every port located at soapAddress. */
export function renderWsdl(model: ServiceModel, docs: ServiceDocs, soapAddress: string): string {
  return renderWsdlParts(model, docs).join(xml(soapAddress));
}

/**
 * The WSDL split where the address goes (one part more than there are ports), so a server can locate it
 * at each request's address with one join. Every other text is escaped, so the split is exact.
 */
export function renderWsdlParts(model: ServiceModel, docs: ServiceDocs): string[] {
  // Escaped text never contains "<", so this marker cannot come from the model or the docs.
  const marker = "<@address>";
  return render(model, docs, marker).split(marker);
}

function xml(text: string): string {
  return escapeMarkup(text, XML_REFERENCES);
}

const XSD_TYPES: Readonly<Record<SoapType, string>> = {
  string: "s:string",
  int: "s:int",
  long: "s:long",
  double: "s:double",
  decimal: "s:decimal",
  dateTime: "s:dateTime",
  boolean: "s:boolean",
};

/** .NET writes reference types (string) as optional and value types as required. */
function minOccurs(type: SoapType): "0" | "1" {
  return type === "string" ? "0" : "1";
}

const PORTS = [
  { suffix: "Soap", prefix: "soap" },
  { suffix: "Soap12", prefix: "soap12" },
  { suffix: "HttpGet", prefix: "http" },
  { suffix: "HttpPost", prefix: "http" },
] as const;
const SOAP_BINDINGS = PORTS.slice(0, 2);
const HTTP_BINDINGS = [
  { suffix: "HttpGet", verb: "GET", input: "        <http:urlEncoded />\n" },
  { suffix: "HttpPost", verb: "POST", input: '        <mime:content type="application/x-www-form-urlencoded" />\n' },
] as const;
const PORT_TYPES = ["Soap", "HttpGet", "HttpPost"] as const;

const ANY_SCHEMA = (indent: string): string =>
  `${indent}<s:complexType>
${indent}  <s:sequence>
${indent}    <s:element ref="s:schema" />
${indent}    <s:any />
${indent}  </s:sequence>
${indent}</s:complexType>
`;

/** The document with `address` (already escaped, or a marker) as each port's location. */
function render(model: ServiceModel, docs: ServiceDocs, address: string): string {
  const ns = xml(model.namespace);
  const service = xml(model.name);
  const out: string[] = [];
  const line = (text: string): void => {
    out.push(text, "\n");
  };

  line('<?xml version="1.0" encoding="utf-8"?>');
  line(
    `<wsdl:definitions xmlns:soap="http://schemas.xmlsoap.org/wsdl/soap/" xmlns:tm="http://microsoft.com/wsdl/mime/textMatching/" xmlns:soapenc="http://schemas.xmlsoap.org/soap/encoding/" xmlns:mime="http://schemas.xmlsoap.org/wsdl/mime/" xmlns:tns="${ns}" xmlns:s="http://www.w3.org/2001/XMLSchema" xmlns:soap12="http://schemas.xmlsoap.org/wsdl/soap12/" xmlns:http="http://schemas.xmlsoap.org/wsdl/http/" targetNamespace="${ns}" xmlns:wsdl="http://schemas.xmlsoap.org/wsdl/">`,
  );
  line("  <wsdl:types>");
  line(`    <s:schema elementFormDefault="qualified" targetNamespace="${ns}">`);
  if (model.operations.some((op) => op.result.kind === "dataSet")) {
    line('      <s:import namespace="http://www.w3.org/2001/XMLSchema" />');
  }
  const declared = new Set<string>();
  const rootElements = new Map<string, string>();
  for (const op of model.operations) {
    const name = xml(op.name);
    line(`      <s:element name="${name}">`);
    if (op.params.length > 0) {
      line("        <s:complexType>");
      line("          <s:sequence>");
      for (const p of op.params) {
        line(
          `            <s:element minOccurs="${minOccurs(p.type)}" maxOccurs="1" name="${xml(p.name)}" type="${XSD_TYPES[p.type]}" />`,
        );
      }
      line("          </s:sequence>");
      line("        </s:complexType>");
    } else {
      line("        <s:complexType />");
    }
    line("      </s:element>");
    line(`      <s:element name="${name}Response">`);
    line("        <s:complexType>");
    line("          <s:sequence>");
    if (op.result.kind === "dataSet") {
      line(`            <s:element minOccurs="0" maxOccurs="1" name="${name}Result">`);
      out.push(ANY_SCHEMA("              "));
      line("            </s:element>");
    } else {
      const result = resultElement(op.result);
      line(
        `            <s:element minOccurs="${result.minOccurs}" maxOccurs="1" name="${name}Result" type="${result.type}" />`,
      );
    }
    line("          </s:sequence>");
    line("        </s:complexType>");
    line("      </s:element>");
    // .NET writes each complex type right after the first message element that uses it.
    out.push(...complexTypesFirstUsedBy(op, declared));
    const root = httpRootElement(op.result);
    if (!rootElements.has(root.name)) rootElements.set(root.name, root.text);
  }
  out.push(...rootElements.values());
  line("    </s:schema>");
  line("  </wsdl:types>");

  for (const op of model.operations) {
    const name = xml(op.name);
    line(`  <wsdl:message name="${name}SoapIn">`);
    line(`    <wsdl:part name="parameters" element="tns:${name}" />`);
    line("  </wsdl:message>");
    line(`  <wsdl:message name="${name}SoapOut">`);
    line(`    <wsdl:part name="parameters" element="tns:${name}Response" />`);
    line("  </wsdl:message>");
  }
  for (const { suffix } of HTTP_BINDINGS) {
    for (const op of model.operations) {
      const name = xml(op.name);
      if (op.params.length > 0) {
        line(`  <wsdl:message name="${name}${suffix}In">`);
        for (const p of op.params) line(`    <wsdl:part name="${xml(p.name)}" type="s:string" />`);
        line("  </wsdl:message>");
      } else {
        line(`  <wsdl:message name="${name}${suffix}In" />`);
      }
      line(`  <wsdl:message name="${name}${suffix}Out">`);
      line(`    <wsdl:part name="Body" element="tns:${httpRootElement(op.result).name}" />`);
      line("  </wsdl:message>");
    }
  }
  for (const suffix of PORT_TYPES) {
    line(`  <wsdl:portType name="${service}${suffix}">`);
    for (const op of model.operations) {
      const name = xml(op.name);
      const doc = xml(docs.operations[op.name]?.doc ?? "");
      line(`    <wsdl:operation name="${name}">`);
      if (doc !== "") {
        line(`      <wsdl:documentation xmlns:wsdl="http://schemas.xmlsoap.org/wsdl/">${doc}</wsdl:documentation>`);
      }
      line(`      <wsdl:input message="tns:${name}${suffix}In" />`);
      line(`      <wsdl:output message="tns:${name}${suffix}Out" />`);
      line("    </wsdl:operation>");
    }
    line("  </wsdl:portType>");
  }
  for (const { suffix, prefix } of SOAP_BINDINGS) {
    line(`  <wsdl:binding name="${service}${suffix}" type="tns:${service}Soap">`);
    line(`    <${prefix}:binding transport="http://schemas.xmlsoap.org/soap/http" />`);
    for (const op of model.operations) {
      line(`    <wsdl:operation name="${xml(op.name)}">`);
      line(`      <${prefix}:operation soapAction="${xml(model.namespace + op.name)}" style="document" />`);
      line("      <wsdl:input>");
      line(`        <${prefix}:body use="literal" />`);
      line("      </wsdl:input>");
      line("      <wsdl:output>");
      line(`        <${prefix}:body use="literal" />`);
      line("      </wsdl:output>");
      line("    </wsdl:operation>");
    }
    line("  </wsdl:binding>");
  }
  for (const { suffix, verb, input } of HTTP_BINDINGS) {
    line(`  <wsdl:binding name="${service}${suffix}" type="tns:${service}${suffix}">`);
    line(`    <http:binding verb="${verb}" />`);
    for (const op of model.operations) {
      const name = xml(op.name);
      line(`    <wsdl:operation name="${name}">`);
      line(`      <http:operation location="/${name}" />`);
      line("      <wsdl:input>");
      out.push(input);
      line("      </wsdl:input>");
      line("      <wsdl:output>");
      line('        <mime:mimeXml part="Body" />');
      line("      </wsdl:output>");
      line("    </wsdl:operation>");
    }
    line("  </wsdl:binding>");
  }
  line(`  <wsdl:service name="${service}">`);
  const serviceDoc = xml(docs.doc);
  if (serviceDoc !== "") {
    line(`    <wsdl:documentation xmlns:wsdl="http://schemas.xmlsoap.org/wsdl/">${serviceDoc}</wsdl:documentation>`);
  }
  for (const { suffix, prefix } of PORTS) {
    line(`    <wsdl:port name="${service}${suffix}" binding="tns:${service}${suffix}">`);
    line(`      <${prefix}:address location="${address}" />`);
    line("    </wsdl:port>");
  }
  line("  </wsdl:service>");
  line("</wsdl:definitions>");
  return out.join("");
}

function resultElement(result: Exclude<ResultModel, { kind: "dataSet" }>): { type: string; minOccurs: string } {
  switch (result.kind) {
    case "scalar":
      return { type: XSD_TYPES[result.type], minOccurs: "1" };
    case "list":
      return { type: `tns:ArrayOf${xml(result.record.name)}`, minOccurs: "0" };
    case "record":
      return { type: `tns:${xml(result.record.name)}`, minOccurs: "0" };
  }
}

/** The root element of the HTTP GET/POST answer, named after the result's .NET type, and its declaration. */
function httpRootElement(result: ResultModel): { name: string; text: string } {
  switch (result.kind) {
    case "scalar":
      return { name: result.type, text: `      <s:element name="${result.type}" type="${XSD_TYPES[result.type]}" />\n` };
    case "list": {
      const name = `ArrayOf${xml(result.record.name)}`;
      return { name, text: `      <s:element name="${name}" nillable="true" type="tns:${name}" />\n` };
    }
    case "record": {
      const name = xml(result.record.name);
      return { name, text: `      <s:element name="${name}" nillable="true" type="tns:${name}" />\n` };
    }
    case "dataSet":
      return {
        name: "DataSet",
        text: `      <s:element name="DataSet" nillable="true">\n${ANY_SCHEMA("        ")}      </s:element>\n`,
      };
  }
}

function complexTypesFirstUsedBy(op: OperationModel, declared: Set<string>): string[] {
  const result = op.result;
  if (result.kind !== "list" && result.kind !== "record") return [];
  const types: string[] = [];
  const arrayName = `ArrayOf${result.record.name}`;
  if (result.kind === "list" && !declared.has(arrayName)) {
    declared.add(arrayName);
    const name = xml(result.record.name);
    types.push(
      complexType(`ArrayOf${name}`, [
        `<s:element minOccurs="0" maxOccurs="unbounded" name="${name}" nillable="true" type="tns:${name}" />`,
      ]),
    );
  }
  if (!declared.has(result.record.name)) {
    declared.add(result.record.name);
    types.push(recordType(result.record));
  }
  return types;
}

function recordType(record: RecordModel): string {
  return complexType(
    xml(record.name),
    record.fields.map(
      (f) => `<s:element minOccurs="${minOccurs(f.type)}" maxOccurs="1" name="${xml(f.name)}" type="${XSD_TYPES[f.type]}" />`,
    ),
  );
}

function complexType(name: string, elements: readonly string[]): string {
  return (
    `      <s:complexType name="${name}">\n        <s:sequence>\n` +
    elements.map((element) => `          ${element}\n`).join("") +
    "        </s:sequence>\n      </s:complexType>\n"
  );
}
