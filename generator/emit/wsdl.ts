// Emits the WSDL 1.1 document in the shape an ASMX host publishes (wire/README.md §7): the .wsdl file for
// people and tools, and generated/wsdl.ts so the server can publish it with its own address per request.

import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import Handlebars from "handlebars";
import type {
  OperationModel,
  RecordModel,
  ResultModel,
  ServiceModel,
  SoapType,
} from "../../runtime/model.js";
import type { ServiceDocs } from "../../runtime/docs.js";
import type { GeneratedFile } from "../generated-file.js";
import type { EmitContext } from "./context.js";

/** The address written into generated/ExternalAPIService.wsdl; the server substitutes its own. */
const DOCUMENTED_SOAP_ADDRESS = "http://localhost/ExternalAPIService.asmx";

/** Stands for the address in the string constant of generated/wsdl.ts; survives XML escaping unchanged. */
const ADDRESS_PLACEHOLDER = "@@SOAP_ADDRESS@@";

/** soap, soap12, http:address per port; the WSDL has one port per binding. */
const PORT_COUNT = 4;

/** templates/ of this repository, for callers without an EmitContext. */
export const REPOSITORY_TEMPLATES_DIR = fileURLToPath(new URL("../../templates/", import.meta.url));

const compiled = new Map<string, HandlebarsTemplateDelegate>();

function wsdlTemplate(templatesDir: string): HandlebarsTemplateDelegate {
  let template = compiled.get(templatesDir);
  if (template === undefined) {
    template = Handlebars.create().compile(
      readFileSync(path.join(templatesDir, "wsdl.hbs"), "utf8"),
      // Every model value is escaped by the view below, so the template must not escape a second time.
      { noEscape: true, strict: true },
    );
    compiled.set(templatesDir, template);
  }
  return template;
}

export function renderWsdl(
  model: ServiceModel,
  docs: ServiceDocs,
  soapAddress: string,
  templatesDir = REPOSITORY_TEMPLATES_DIR,
): string {
  return wsdlTemplate(templatesDir)(wsdlView(model, docs, escapeXml(soapAddress)));
}

export function emitWsdl(
  model: ServiceModel,
  ctx: Pick<EmitContext, "docs"> & Partial<Pick<EmitContext, "templatesDir">>,
): GeneratedFile[] {
  const templatesDir = ctx.templatesDir ?? REPOSITORY_TEMPLATES_DIR;
  const withPlaceholder = wsdlTemplate(templatesDir)(wsdlView(model, ctx.docs, ADDRESS_PLACEHOLDER));
  const occurrences = withPlaceholder.split(ADDRESS_PLACEHOLDER).length - 1;
  if (occurrences !== PORT_COUNT) {
    throw new Error(
      `WSDL address placeholder ${ADDRESS_PLACEHOLDER} occurs ${occurrences} times, expected ${PORT_COUNT}; ` +
        "does the spec contain it?",
    );
  }
  return [
    {
      path: `${model.name}.wsdl`,
      content: renderWsdl(model, ctx.docs, DOCUMENTED_SOAP_ADDRESS, templatesDir),
      description: `WSDL 1.1 of the service, located at ${DOCUMENTED_SOAP_ADDRESS}.`,
    },
    {
      path: "wsdl.ts",
      content: wsdlModule(withPlaceholder),
      description: "wsdlFor(address): the WSDL the server publishes at ?WSDL.",
    },
  ];
}

function wsdlModule(wsdl: string): string {
  return `// The WSDL 1.1 document the server publishes at ?WSDL, with the address of the request.

const WSDL = ${templateLiteral(wsdl)};

/** The WSDL with every port located at soapAddress (XML-escaped here). */
export function wsdlFor(soapAddress: string): string {
  return WSDL.split(${JSON.stringify(ADDRESS_PLACEHOLDER)}).join(escapeXmlAttribute(soapAddress));
}

function escapeXmlAttribute(text: string): string {
  return text
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/"/g, "&quot;")
    .replace(/'/g, "&apos;");
}
`;
}

/** A TypeScript template literal that evaluates to text, kept multi-line so diffs stay readable. */
export function templateLiteral(text: string): string {
  return "`" + text.replace(/\\/g, "\\\\").replace(/`/g, "\\`").replace(/\$\{/g, "\\${") + "`";
}

function escapeXml(text: string): string {
  return text
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/"/g, "&quot;")
    .replace(/'/g, "&apos;");
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

interface ElementView {
  name: string;
  type: string;
  minOccurs: string;
  maxOccurs: string;
  nillable: boolean;
}

interface ComplexTypeView {
  name: string;
  elements: ElementView[];
}

interface RootElementView {
  name: string;
  type: string;
  nillable: boolean;
  dataSet: boolean;
}

function wsdlView(model: ServiceModel, docs: ServiceDocs, address: string) {
  const ns = escapeXml(model.namespace);
  const declaredTypes = new Set<string>();
  const rootElements = new Map<string, RootElementView>();

  const operations = model.operations.map((op) => {
    const root = httpRootElement(op.result);
    if (!rootElements.has(root.name)) rootElements.set(root.name, root);
    return {
      name: escapeXml(op.name),
      doc: escapeXml(docs.operations[op.name]!.doc),
      soapAction: escapeXml(model.namespace + op.name),
      params: op.params.map((p) => ({
        name: escapeXml(p.name),
        type: XSD_TYPES[p.type],
        minOccurs: minOccurs(p.type),
      })),
      result: resultView(op.result),
      // .NET writes each complex type right after the first message element that uses it.
      complexTypes: complexTypesFirstUsedBy(op, declaredTypes),
      httpBody: root.name,
    };
  });

  return {
    namespace: ns,
    serviceName: escapeXml(model.name),
    serviceDoc: escapeXml(docs.doc),
    address,
    importXmlSchema: model.operations.some((op) => op.result.kind === "dataSet"),
    operations,
    rootElements: [...rootElements.values()],
    portTypes: [{ suffix: "Soap" }, { suffix: "HttpGet" }, { suffix: "HttpPost" }],
    soapBindings: [
      { suffix: "Soap", prefix: "soap" },
      { suffix: "Soap12", prefix: "soap12" },
    ],
    httpBindings: [
      { suffix: "HttpGet", verb: "GET", urlEncoded: true },
      { suffix: "HttpPost", verb: "POST", urlEncoded: false },
    ],
    ports: [
      { suffix: "Soap", prefix: "soap" },
      { suffix: "Soap12", prefix: "soap12" },
      { suffix: "HttpGet", prefix: "http" },
      { suffix: "HttpPost", prefix: "http" },
    ],
  };
}

function resultView(result: ResultModel): { dataSet: boolean; type: string; minOccurs: string } {
  switch (result.kind) {
    case "scalar":
      return { dataSet: false, type: XSD_TYPES[result.type], minOccurs: "1" };
    case "list":
      return { dataSet: false, type: `tns:ArrayOf${escapeXml(result.record.name)}`, minOccurs: "0" };
    case "record":
      return { dataSet: false, type: `tns:${escapeXml(result.record.name)}`, minOccurs: "0" };
    case "dataSet":
      return { dataSet: true, type: "", minOccurs: "0" };
  }
}

/** The root element of the HTTP GET/POST answer: named after the result's .NET type. */
function httpRootElement(result: ResultModel): RootElementView {
  switch (result.kind) {
    case "scalar":
      return { name: result.type, type: XSD_TYPES[result.type], nillable: false, dataSet: false };
    case "list": {
      const name = `ArrayOf${escapeXml(result.record.name)}`;
      return { name, type: `tns:${name}`, nillable: true, dataSet: false };
    }
    case "record": {
      const name = escapeXml(result.record.name);
      return { name, type: `tns:${name}`, nillable: true, dataSet: false };
    }
    case "dataSet":
      return { name: "DataSet", type: "", nillable: true, dataSet: true };
  }
}

function complexTypesFirstUsedBy(op: OperationModel, declared: Set<string>): ComplexTypeView[] {
  const result = op.result;
  if (result.kind !== "list" && result.kind !== "record") return [];
  const types: ComplexTypeView[] = [];
  const arrayName = `ArrayOf${result.record.name}`;
  if (result.kind === "list" && !declared.has(arrayName)) {
    declared.add(arrayName);
    types.push(arrayOfType(result.record));
  }
  if (!declared.has(result.record.name)) {
    declared.add(result.record.name);
    types.push(recordType(result.record));
  }
  return types;
}

function arrayOfType(record: RecordModel): ComplexTypeView {
  const name = escapeXml(record.name);
  return {
    name: `ArrayOf${name}`,
    elements: [{ name, type: `tns:${name}`, minOccurs: "0", maxOccurs: "unbounded", nillable: true }],
  };
}

function recordType(record: RecordModel): ComplexTypeView {
  return {
    name: escapeXml(record.name),
    elements: record.fields.map((f) => ({
      name: escapeXml(f.name),
      type: XSD_TYPES[f.type],
      minOccurs: minOccurs(f.type),
      maxOccurs: "1",
      nillable: false,
    })),
  };
}
