// The WSDL 1.1 document in the shape an ASMX host publishes (easgen docs/wire.md §7): the server answers
// ?WSDL with it, located at the request's address, and the generator writes the same function's output as
// generated/{Service}.wsdl.

import type { ServiceDocTexts } from "./docs.js";
import { escapeMarkup, XML_REFERENCES } from "./markup.js";
import { soapActionFor } from "../protocol/soap-shape.js";
import { SoapShapes } from "./wsdl-shapes.js";
import {
  headerIsAnswered,
  headerIsSent,
  isBare,
  requestElementOf,
  responseElementOf,
  resultElementOf,
  type OperationModel,
  type RecordModel,
  type ResultModel,
  type ServiceModel,
  type SoapType,
  type TypeModel,
  offeredBindings,
  type BindingName,
  wireName,
} from "../model.js";
import { httpRootName, offeredOnHttp } from "../protocol/http.js";
import { isValueType } from "../codec/values.js";

/** The WSDL with every port located at soapAddress. */
export function renderWsdl(model: ServiceModel, docs: ServiceDocTexts, soapAddress: string): string {
  return renderWsdlParts(model, docs).join(xml(soapAddress));
}

/**
 * The WSDL split where the address goes (one part more than there are ports), so a server can locate it
 * at each request's address with one join. Every other text is escaped, so the split is exact.
 */
export function renderWsdlParts(model: ServiceModel, docs: ServiceDocTexts): string[] {
  // Escaped text never contains "<", so this marker cannot come from the model or the docs.
  const marker = "<@address>";
  return render(model, docs, marker).split(marker);
}

function xml(text: string): string {
  return escapeMarkup(text, XML_REFERENCES);
}

/** .NET's own schema types (guid, char), declared in a second schema when some message uses them. */
const MS_TYPES_NS = "http://microsoft.com/wsdl/types/";
const MS_TYPES_PREFIX = "s1";

const XSD_TYPES: Readonly<Record<SoapType, string>> = {
  string: "s:string",
  boolean: "s:boolean",
  float: "s:float",
  double: "s:double",
  decimal: "s:decimal",
  dateTime: "s:dateTime",
  byte: "s:byte",
  unsignedByte: "s:unsignedByte",
  short: "s:short",
  unsignedShort: "s:unsignedShort",
  int: "s:int",
  unsignedInt: "s:unsignedInt",
  long: "s:long",
  unsignedLong: "s:unsignedLong",
  base64Binary: "s:base64Binary",
  guid: `${MS_TYPES_PREFIX}:guid`,
  char: `${MS_TYPES_PREFIX}:char`,
};

/** The schema of the HTTP bindings' array parameters (soapenc arrays of strings), when there are any. */
const ABSTRACT_TYPES_PREFIX = "s2";
const MS_TYPE_DEFINITIONS: Readonly<Partial<Record<SoapType, string>>> = {
  guid:
    '      <s:simpleType name="guid">\n        <s:restriction base="s:string">\n' +
    '          <s:pattern value="[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}" />\n' +
    "        </s:restriction>\n      </s:simpleType>\n",
  char: '      <s:simpleType name="char">\n        <s:restriction base="s:unsignedShort" />\n      </s:simpleType>\n',
};

/** The namespace of the HTTP bindings' abstract types: the service's, then AbstractTypes. */
function abstractTypesNamespace(namespace: string): string {
  return namespace.endsWith("/") ? `${namespace}AbstractTypes` : `${namespace}/AbstractTypes`;
}

/** The `type` attribute of a value of the type: s:int, s1:guid, tns:Color, tns:ArrayOfInt, tns:Address. */
function typeRef(type: TypeModel): string {
  switch (type.kind) {
    case "scalar":
      return XSD_TYPES[type.type];
    case "enum":
      return `tns:${xml(type.enum.name)}`;
    case "record":
      return `tns:${xml(type.record.name)}`;
    case "array":
      return `tns:${xml(type.typeName)}`;
    case "xml":
      throw new TypeError("an XML value has an anonymous type, no type reference");
  }
}

/**
 * One member of a sequence (parameter, field): .NET writes value types as required (minOccurs="1", with
 * nillable="true" when nullable) and reference types (string, byte[], records, arrays) as optional.
 */
function memberElement(name: string, type: TypeModel, nullable: boolean | undefined, indent: string): string {
  if (type.kind === "xml") {
    // XmlElement and XmlNode: an anonymous type holding any element (mixed for XmlNode), as ASMX writes it.
    return (
      `<s:element minOccurs="0" maxOccurs="1" name="${xml(name)}">\n` +
      `${indent}  <s:complexType${type.mixed ? ' mixed="true"' : ""}>\n${indent}    <s:sequence>\n` +
      `${indent}      <s:any />\n${indent}    </s:sequence>\n${indent}  </s:complexType>\n${indent}</s:element>`
    );
  }
  const min = isValueType(type) ? "1" : "0";
  const nil = nullable ? ' nillable="true"' : "";
  return `<s:element minOccurs="${min}" maxOccurs="1" name="${xml(name)}"${nil} type="${typeRef(type)}" />`;
}

/**
 * The members of a sequence (parameters, fields), each as memberElement writes it, with the consecutive
 * alternatives of one xs:choice (spec `choice`) inside `<s:choice>`, as .NET writes a member with one
 * [XmlElement] per type. Each string starts at its first element; later lines carry `indent`.
 */
function sequenceMembers(
  members: readonly {
    readonly name: string;
    readonly type: TypeModel;
    readonly nullable?: boolean | undefined;
    readonly choice?: string | undefined;
  }[],
  indent: string,
): string[] {
  const out: string[] = [];
  for (let i = 0; i < members.length; i++) {
    const member = members[i]!;
    if (member.choice === undefined) {
      out.push(memberElement(member.name, member.type, member.nullable, indent));
      continue;
    }
    let group = "";
    for (; i < members.length && members[i]!.choice === member.choice; i++) {
      const m = members[i]!;
      group += `${indent}  ${memberElement(m.name, m.type, m.nullable, `${indent}  `)}\n`;
    }
    i--;
    out.push(`<s:choice minOccurs="1" maxOccurs="1">\n${group}${indent}</s:choice>`);
  }
  return out;
}

/** The type of an operation's result as a TypeModel; undefined for a DataSet, void and one-way. */
function resultType(result: ResultModel): TypeModel | undefined {
  switch (result.kind) {
    case "scalar":
      return { kind: "scalar", type: result.type };
    case "enum":
      return { kind: "enum", enum: result.enum };
    case "record":
      return { kind: "record", record: result.record };
    case "list":
      return {
        kind: "array",
        item: { kind: "record", record: result.record },
        itemElement: result.record.name,
        typeName: `ArrayOf${result.record.name}`,
      };
    case "array":
      return { kind: "array", item: result.item, itemElement: result.itemElement, typeName: result.typeName };
    case "xml":
      return result;
    default:
      return undefined;
  }
}

/** Every guid/char type the operations' messages use, in order of first use (records followed). */
function msTypesUsed(operations: readonly OperationModel[]): SoapType[] {
  const used = new Set<SoapType>();
  const seen = new Set<RecordModel>();
  const walk = (type: TypeModel): void => {
    if (type.kind === "scalar") {
      if (type.type === "guid" || type.type === "char") used.add(type.type);
    } else if (type.kind === "array") {
      walk(type.item);
    } else if (type.kind === "record" && !seen.has(type.record)) {
      seen.add(type.record);
      for (const field of type.record.fields) walk(field.type);
    }
  };
  for (const op of operations) {
    for (const p of op.params) walk(p.type);
    for (const h of op.headers ?? []) walk({ kind: "record", record: h.record });
    const result = resultType(op.result);
    if (result) walk(result);
    if (op.result.kind === "response") for (const f of op.result.record.fields) walk(f.type);
  }
  return [...used];
}

/**
 * The named types of the schema (enums, records, arrays), each written once, right after the message
 * element that first uses it, container before contents, as .NET's schema exporter orders them.
 */
class SchemaTypes {
  private readonly declared = new Set<string>();
  /** The records some operation uses as a SOAP header (their types end with anyAttribute, as SoapHeader's). */
  private readonly headers: ReadonlySet<RecordModel>;
  /** The service's records by name, for the bases of derived records. */
  private readonly records: ReadonlyMap<string, RecordModel>;

  constructor(headers: ReadonlySet<RecordModel> = new Set(), records: readonly RecordModel[] = []) {
    this.headers = headers;
    this.records = new Map(records.map((r) => [r.name, r]));
  }

  /** The definitions `type` needs that are not written yet, in order. */
  definitions(type: TypeModel, out: string[]): void {
    switch (type.kind) {
      case "scalar":
      case "xml":
        return;
      case "enum": {
        if (!this.claim(type.enum.name)) return;
        // A flags enum is a list of the enumeration, as .NET writes a [Flags] enum.
        const flags = type.enum.flags === true;
        const pad = flags ? "    " : "";
        out.push(
          `      <s:simpleType name="${xml(type.enum.name)}">\n` +
            (flags ? "        <s:list>\n          <s:simpleType>\n" : "") +
            `${pad}        <s:restriction base="s:string">\n` +
            type.enum.values.map((v) => `${pad}          <s:enumeration value="${xml(v)}" />\n`).join("") +
            `${pad}        </s:restriction>\n` +
            (flags ? "          </s:simpleType>\n        </s:list>\n" : "") +
            "      </s:simpleType>\n",
        );
        return;
      }
      case "record": {
        const record = type.record;
        if (!this.claim(record.name)) return;
        const base = record.base === undefined ? undefined : this.records.get(record.base);
        if (record.base !== undefined && base === undefined)
          throw new TypeError(
            `record ${record.name}: its base ${record.base} is not a record of the service`,
          );
        if (base === undefined) {
          out.push(
            complexType(
              xml(record.name),
              sequenceMembers(record.fields, "          "),
              this.headers.has(record),
              record.abstract,
            ),
          );
        } else {
          // A derived record: its own fields (after the base's) in an extension of the base, as .NET writes
          // a subclass; then the base's definition.
          out.push(derivedType(record, base));
          this.definitions({ kind: "record", record: base }, out);
        }
        for (const field of record.fields) this.definitions(field.type, out);
        return;
      }
      case "array": {
        if (!this.claim(type.typeName)) return;
        if (type.item.kind === "record" && type.item.record.choice) {
          // A repeated choice: each item one of the alternatives, as .NET writes several [XmlArrayItem].
          const fields = type.item.record.fields;
          out.push(
            `      <s:complexType name="${xml(type.typeName)}">\n        <s:choice minOccurs="0" maxOccurs="unbounded">\n` +
              fields
                .map(
                  (f) =>
                    `          <s:element minOccurs="1" maxOccurs="1" name="${xml(f.name)}"${isValueType(f.type) ? "" : ' nillable="true"'} type="${typeRef(f.type)}" />\n`,
                )
                .join("") +
              "        </s:choice>\n      </s:complexType>\n",
          );
          for (const f of fields) this.definitions(f.type, out);
          return;
        }
        // Items that can be null (strings, byte arrays, records) are nillable; value types are not.
        const nil = isValueType(type.item) ? "" : ' nillable="true"';
        out.push(
          complexType(xml(type.typeName), [
            `<s:element minOccurs="0" maxOccurs="unbounded" name="${xml(type.itemElement)}"${nil} type="${typeRef(type.item)}" />`,
          ]),
        );
        this.definitions(type.item, out);
        return;
      }
    }
  }

  private claim(name: string): boolean {
    if (this.declared.has(name)) return false;
    this.declared.add(name);
    return true;
  }
}

const PORTS = [
  { binding: "soap11", suffix: "Soap", prefix: "soap" },
  { binding: "soap12", suffix: "Soap12", prefix: "soap12" },
  { binding: "httpGet", suffix: "HttpGet", prefix: "http" },
  { binding: "httpPost", suffix: "HttpPost", prefix: "http" },
] as const satisfies readonly { binding: BindingName; suffix: string; prefix: string }[];
const SOAP_BINDINGS = PORTS.slice(0, 2);
const HTTP_BINDINGS = [
  { binding: "httpGet", suffix: "HttpGet", verb: "GET", input: "        <http:urlEncoded />\n" },
  {
    binding: "httpPost",
    suffix: "HttpPost",
    verb: "POST",
    input: '        <mime:content type="application/x-www-form-urlencoded" />\n',
  },
] as const satisfies readonly { binding: BindingName; suffix: string; verb: string; input: string }[];
/** The port types: the two SOAP bindings share one. */
const PORT_TYPES = [
  { suffix: "Soap", bindings: ["soap11", "soap12"] },
  { suffix: "HttpGet", bindings: ["httpGet"] },
  { suffix: "HttpPost", bindings: ["httpPost"] },
] as const satisfies readonly { suffix: string; bindings: readonly BindingName[] }[];

const ANY_SCHEMA = (indent: string): string =>
  `${indent}<s:complexType>
${indent}  <s:sequence>
${indent}    <s:element ref="s:schema" />
${indent}    <s:any />
${indent}  </s:sequence>
${indent}</s:complexType>
`;

/** A DataTable's anonymous type, as .NET's DataTable.GetDataTableSchema (and Mono) write it. */
const DATA_TABLE_SCHEMA = (indent: string): string =>
  `${indent}<s:complexType>
${indent}  <s:sequence>
${indent}    <s:any minOccurs="0" maxOccurs="unbounded" namespace="http://www.w3.org/2001/XMLSchema" processContents="lax" />
${indent}    <s:any minOccurs="1" namespace="urn:schemas-microsoft-com:xml-diffgram-v1" processContents="lax" />
${indent}  </s:sequence>
${indent}</s:complexType>
`;

/** The anonymous type of a DataSet (or DataTable) result's element. */
const dataSetSchema = (result: ResultModel, indent: string): string =>
  result.kind === "untypedDataSet" && result.dataTable === true
    ? DATA_TABLE_SCHEMA(indent)
    : ANY_SCHEMA(indent);

/** The document with `address` (already escaped, or a marker) as each port's location. */
function render(model: ServiceModel, docs: ServiceDocTexts, address: string): string {
  const offered = new Set(offeredBindings(model));
  const http = offered.has("httpGet") || offered.has("httpPost");
  const soap = offered.has("soap11") || offered.has("soap12");
  // The SOAP messages' and portType's suffix: Soap, or Soap12 when SOAP 1.2 is the only SOAP binding (ASMX).
  const soapSuffix = offered.has("soap11") ? "Soap" : "Soap12";
  /** The operations each HTTP binding carries: those whose parameters travel as form fields. */
  const httpOperations = model.operations.filter(offeredOnHttp);
  const msTypes = msTypesUsed(model.operations);
  const abstractTypes = http && httpOperations.some((op) => op.params.some((p) => p.type.kind === "array"));
  const ns = xml(model.namespace);
  const service = xml(model.name);
  const out: string[] = [];
  // Where `line` writes: `out`, or the schema of an operation's own namespace (soap.namespace) while its
  // request and response elements are written.
  let sink = out;
  const line = (text: string): void => {
    sink.push(text, "\n");
  };
  const shapes = new SoapShapes(model, {
    memberElement,
    resultType,
    definitions: (type, into) => types.definitions(type, into),
  });

  line('<?xml version="1.0" encoding="utf-8"?>');
  line(
    `<wsdl:definitions xmlns:soap="http://schemas.xmlsoap.org/wsdl/soap/" xmlns:tm="http://microsoft.com/wsdl/mime/textMatching/" xmlns:soapenc="http://schemas.xmlsoap.org/soap/encoding/" xmlns:mime="http://schemas.xmlsoap.org/wsdl/mime/" xmlns:tns="${ns}"${shapes.declarations()}${msTypes.length > 0 ? ` xmlns:${MS_TYPES_PREFIX}="${MS_TYPES_NS}"` : ""} xmlns:s="http://www.w3.org/2001/XMLSchema" xmlns:soap12="http://schemas.xmlsoap.org/wsdl/soap12/"${abstractTypes ? ` xmlns:${ABSTRACT_TYPES_PREFIX}="${xml(abstractTypesNamespace(model.namespace))}"` : ""} xmlns:http="http://schemas.xmlsoap.org/wsdl/http/" targetNamespace="${ns}" xmlns:wsdl="http://schemas.xmlsoap.org/wsdl/">`,
  );
  line("  <wsdl:types>");
  line(`    <s:schema elementFormDefault="qualified" targetNamespace="${ns}">`);
  if (model.operations.some((op) => op.result.kind === "dataSet" || op.result.kind === "untypedDataSet")) {
    line('      <s:import namespace="http://www.w3.org/2001/XMLSchema" />');
  }
  if (msTypes.length > 0) line(`      <s:import namespace="${MS_TYPES_NS}" />`);
  const headerRecords = new Set(model.operations.flatMap((op) => (op.headers ?? []).map((h) => h.record)));
  const types = new SchemaTypes(headerRecords, model.records);
  const headerElements = new Set<RecordModel>();
  const rootElements = new Map<string, string>();
  const onHttp = new Set(httpOperations);
  for (const op of model.operations) {
    if (isBare(op)) {
      shapes.bareElements(op, out);
      afterElements(op);
      continue;
    }
    const name = xml(requestElementOf(op));
    sink = shapes.schemaOf(op) ?? out;
    line(`      <s:element name="${name}">`);
    if (op.params.length > 0) {
      line("        <s:complexType>");
      line("          <s:sequence>");
      for (const member of sequenceMembers(op.params, "            ")) line(`            ${member}`);
      line("          </s:sequence>");
      line("        </s:complexType>");
    } else {
      line("        <s:complexType />");
    }
    line("      </s:element>");
    // .NET writes each named type right after the message element that first uses it.
    for (const p of op.params) types.definitions(p.type, out);
    // A one-way operation has no output message, so no response element.
    if (op.result.kind === "oneWay") {
      sink = out;
      continue;
    }
    line(`      <s:element name="${xml(responseElementOf(op))}">`);
    const result = resultType(op.result);
    if (op.result.kind === "void") {
      line("        <s:complexType />");
    } else if (op.result.kind === "response") {
      // Out and ref parameters: OpResult (unless void) and then each of them, in the response element.
      const fields = op.result.record.fields;
      line("        <s:complexType>");
      line("          <s:sequence>");
      for (const member of sequenceMembers(fields, "            ")) line(`            ${member}`);
      line("          </s:sequence>");
      line("        </s:complexType>");
      line("      </s:element>");
      for (const f of fields) types.definitions(f.type, out);
    } else {
      line("        <s:complexType>");
      line("          <s:sequence>");
      if (result === undefined) {
        line(`            <s:element minOccurs="0" maxOccurs="1" name="${xml(resultElementOf(op))}">`);
        out.push(dataSetSchema(op.result, "              "));
        line("            </s:element>");
      } else {
        // A nullable value type or enum result is nillable="true" (minOccurs="1"), as .NET's `int?`.
        const nullable =
          (op.result.kind === "scalar" || op.result.kind === "enum") && op.result.nullable === true;
        line(`            ${memberElement(resultElementOf(op), result, nullable, "            ")}`);
      }
      line("          </s:sequence>");
      line("        </s:complexType>");
    }
    if (op.result.kind !== "response") line("      </s:element>");
    sink = out;
    if (result) types.definitions(result, out);
    afterElements(op);
  }
  /** After an operation's elements: its headers' and its HTTP answer's root element, first use first. */
  function afterElements(op: OperationModel): void {
    // Each header's global element and its type, after the first operation that uses it, as ASMX.
    for (const header of op.headers ?? []) {
      if (headerElements.has(header.record)) continue;
      headerElements.add(header.record);
      const headerName = xml(header.record.name);
      line(`      <s:element name="${headerName}" type="tns:${headerName}" />`);
      types.definitions({ kind: "record", record: header.record }, out);
    }
    if (http && onHttp.has(op)) {
      const root = httpRootElement(op.result);
      if (root !== undefined && root.name !== "" && !rootElements.has(root.name))
        rootElements.set(root.name, root.text);
    }
  }
  out.push(...rootElements.values());
  line("    </s:schema>");
  // The schemas of the operations' own namespaces, after the service's, as ASMX.
  for (const [namespace, elements] of shapes.schemas) {
    line(`    <s:schema elementFormDefault="qualified" targetNamespace="${xml(namespace)}">`);
    out.push(...elements);
    line("    </s:schema>");
  }
  if (abstractTypes) {
    line(`    <s:schema targetNamespace="${xml(abstractTypesNamespace(model.namespace))}">`);
    line('      <s:import namespace="http://schemas.xmlsoap.org/soap/encoding/" />');
    line('      <s:complexType name="StringArray">');
    line('        <s:complexContent mixed="false">');
    line('          <s:restriction base="soapenc:Array">');
    line("            <s:sequence>");
    line('              <s:element minOccurs="0" maxOccurs="unbounded" name="String" type="s:string" />');
    line("            </s:sequence>");
    line("          </s:restriction>");
    line("        </s:complexContent>");
    line("      </s:complexType>");
    line("    </s:schema>");
  }
  if (msTypes.length > 0) {
    line(`    <s:schema elementFormDefault="qualified" targetNamespace="${MS_TYPES_NS}">`);
    for (const type of msTypes) out.push(MS_TYPE_DEFINITIONS[type]!);
    line("    </s:schema>");
  }
  line("  </wsdl:types>");

  for (const op of soap ? model.operations : []) {
    const name = xml(wireName(op));
    if (op.soap !== undefined) {
      shapes.messages(op, out, soapSuffix);
    } else {
      line(`  <wsdl:message name="${name}${soapSuffix}In">`);
      line(`    <wsdl:part name="parameters" element="tns:${name}" />`);
      line("  </wsdl:message>");
      if (op.result.kind !== "oneWay") {
        line(`  <wsdl:message name="${name}${soapSuffix}Out">`);
        line(`    <wsdl:part name="parameters" element="tns:${name}Response" />`);
        line("  </wsdl:message>");
      }
    }
    // One message per header of the operation, its part named after the header's type (ASMX).
    for (const header of op.headers ?? []) {
      const headerName = xml(header.record.name);
      line(`  <wsdl:message name="${name}${headerName}">`);
      line(`    <wsdl:part name="${headerName}" element="tns:${headerName}" />`);
      line("  </wsdl:message>");
    }
  }
  for (const { suffix } of HTTP_BINDINGS.filter((b) => offered.has(b.binding))) {
    for (const op of httpOperations) {
      const name = xml(wireName(op));
      if (op.params.length > 0) {
        line(`  <wsdl:message name="${name}${suffix}In">`);
        for (const p of op.params) {
          // An array travels as repeated fields: a soapenc array of strings in the abstract types.
          const partType = p.type.kind === "array" ? `${ABSTRACT_TYPES_PREFIX}:StringArray` : "s:string";
          line(`    <wsdl:part name="${xml(p.name)}" type="${partType}" />`);
        }
        line("  </wsdl:message>");
      } else {
        line(`  <wsdl:message name="${name}${suffix}In" />`);
      }
      const root = httpRootElement(op.result);
      if (root === undefined) {
        // void and one-way: the answer has no body.
        line(`  <wsdl:message name="${name}${suffix}Out" />`);
      } else {
        line(`  <wsdl:message name="${name}${suffix}Out">`);
        line(
          root.name === ""
            ? '    <wsdl:part name="Body" />'
            : `    <wsdl:part name="Body" element="tns:${root.name}" />`,
        );
        line("  </wsdl:message>");
      }
    }
  }
  for (const portType of PORT_TYPES.filter((t) => t.bindings.some((b) => offered.has(b)))) {
    const isSoap = portType.suffix === "Soap";
    const suffix = isSoap ? soapSuffix : portType.suffix;
    line(`  <wsdl:portType name="${service}${suffix}">`);
    for (const op of isSoap ? model.operations : httpOperations) {
      const name = xml(wireName(op));
      const doc = xml(docs.operations[op.name]?.doc ?? "");
      const named = messageNameAttr(op);
      line(`    <wsdl:operation name="${xml(op.name)}">`);
      if (doc !== "") {
        line(
          `      <wsdl:documentation xmlns:wsdl="http://schemas.xmlsoap.org/wsdl/">${doc}</wsdl:documentation>`,
        );
      }
      line(`      <wsdl:input${named} message="tns:${name}${suffix}In" />`);
      // A one-way operation has no output message on SOAP; over HTTP it answers an empty body.
      if (!(isSoap && op.result.kind === "oneWay"))
        line(`      <wsdl:output${named} message="tns:${name}${suffix}Out" />`);
      line("    </wsdl:operation>");
    }
    line("  </wsdl:portType>");
  }
  for (const { suffix, prefix } of SOAP_BINDINGS.filter((b) => offered.has(b.binding))) {
    line(`  <wsdl:binding name="${service}${suffix}" type="tns:${service}${soapSuffix}">`);
    line(`    <${prefix}:binding transport="http://schemas.xmlsoap.org/soap/http" />`);
    for (const op of model.operations) {
      line(`    <wsdl:operation name="${xml(op.name)}">`);
      line(
        `      <${prefix}:operation soapAction="${xml(soapActionFor(model.namespace, op))}" style="document" />`,
      );
      const headerLines = (answered: boolean): void => {
        for (const header of op.headers ?? []) {
          if ((answered ? headerIsAnswered : headerIsSent)(header)) {
            const headerName = xml(header.record.name);
            line(
              `        <${prefix}:header message="tns:${xml(wireName(op))}${headerName}" part="${headerName}" use="literal" />`,
            );
          }
        }
      };
      const named = messageNameAttr(op);
      line(`      <wsdl:input${named}>`);
      line(`        <${prefix}:body use="literal" />`);
      headerLines(false);
      line("      </wsdl:input>");
      if (op.result.kind !== "oneWay") {
        line(`      <wsdl:output${named}>`);
        line(`        <${prefix}:body use="literal" />`);
        headerLines(true);
        line("      </wsdl:output>");
      }
      line("    </wsdl:operation>");
    }
    line("  </wsdl:binding>");
  }
  for (const { suffix, verb, input } of HTTP_BINDINGS.filter((b) => offered.has(b.binding))) {
    line(`  <wsdl:binding name="${service}${suffix}" type="tns:${service}${suffix}">`);
    line(`    <http:binding verb="${verb}" />`);
    for (const op of httpOperations) {
      const named = messageNameAttr(op);
      line(`    <wsdl:operation name="${xml(op.name)}">`);
      line(`      <http:operation location="/${xml(wireName(op))}" />`);
      line(`      <wsdl:input${named}>`);
      out.push(input);
      line("      </wsdl:input>");
      if (httpRootElement(op.result) === undefined) {
        line(`      <wsdl:output${named} />`);
      } else {
        line(`      <wsdl:output${named}>`);
        line('        <mime:mimeXml part="Body" />');
        line("      </wsdl:output>");
      }
      line("    </wsdl:operation>");
    }
    line("  </wsdl:binding>");
  }
  line(`  <wsdl:service name="${service}">`);
  const serviceDoc = xml(docs.doc);
  if (serviceDoc !== "") {
    line(
      `    <wsdl:documentation xmlns:wsdl="http://schemas.xmlsoap.org/wsdl/">${serviceDoc}</wsdl:documentation>`,
    );
  }
  for (const { suffix, prefix } of PORTS.filter((p) => offered.has(p.binding))) {
    line(`    <wsdl:port name="${service}${suffix}" binding="tns:${service}${suffix}">`);
    line(`      <${prefix}:address location="${address}" />`);
    line("    </wsdl:port>");
  }
  line("  </wsdl:service>");
  line("</wsdl:definitions>");
  return out.join("");
}

/**
 * ` name="…"` for an operation's wsdl:input and wsdl:output when its name on the wire is its MessageName,
 * as ASMX writes them (the wsdl:operation keeps the method's name); "" otherwise.
 */
function messageNameAttr(op: OperationModel): string {
  return op.messageName === undefined ? "" : ` name="${xml(op.messageName)}"`;
}

/**
 * The root element of the HTTP GET/POST answer, named after the result's .NET type, and its declaration;
 * undefined for void and one-way operations, whose HTTP answer has no body.
 */
function httpRootElement(result: ResultModel): { name: string; text: string } | undefined {
  // An XML result is the whole answer, whatever its name: the part names no element (ASMX's `<wsdl:part
  // name="Body" />`).
  if (result.kind === "xml") return { name: "", text: "" };
  if (result.kind === "dataSet" || result.kind === "untypedDataSet") {
    const name = httpRootName(result);
    return {
      name,
      text: `      <s:element name="${name}" nillable="true">\n${dataSetSchema(result, "        ")}      </s:element>\n`,
    };
  }
  const type = resultType(result);
  if (type === undefined || type.kind === "xml") return undefined;
  const name = xml(
    type.kind === "scalar"
      ? type.type
      : type.kind === "enum"
        ? type.enum.name
        : type.kind === "record"
          ? type.record.name
          : type.typeName,
  );
  // A reference type's root may be nil (a null result); a value type's never is.
  const nil = isValueType(type) ? "" : ' nillable="true"';
  return { name, text: `      <s:element name="${name}"${nil} type="${typeRef(type)}" />\n` };
}

function complexType(
  name: string,
  elements: readonly string[],
  anyAttribute = false,
  abstract = false,
): string {
  return (
    `      <s:complexType name="${name}"${abstract ? ' abstract="true"' : ""}>\n        <s:sequence>\n` +
    elements.map((element) => `          ${element}\n`).join("") +
    "        </s:sequence>\n" +
    (anyAttribute ? "        <s:anyAttribute />\n" : "") +
    "      </s:complexType>\n"
  );
}

/** A derived record's complexType: an extension of its base holding its own fields. */
function derivedType(record: RecordModel, base: RecordModel): string {
  const own = record.fields.slice(base.fields.length);
  const head =
    `      <s:complexType name="${xml(record.name)}"${record.abstract ? ' abstract="true"' : ""}>\n` +
    '        <s:complexContent mixed="false">\n';
  const tail = "        </s:complexContent>\n      </s:complexType>\n";
  if (own.length === 0) return `${head}          <s:extension base="tns:${xml(base.name)}" />\n${tail}`;
  return (
    `${head}          <s:extension base="tns:${xml(base.name)}">\n            <s:sequence>\n` +
    sequenceMembers(own, "              ")
      .map((member) => `              ${member}\n`)
      .join("") +
    `            </s:sequence>\n          </s:extension>\n${tail}`
  );
}
