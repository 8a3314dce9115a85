// Emits generated/help.ts: the HTML help pages an ASMX endpoint serves (the operation list, and one page per
// operation with its parameters, sample messages and a test form), pre-rendered here so the server needs no
// template engine. The endpoint address is only known per request, so the pages carry slot markers that
// the emitted functions fill in.

import { readFileSync } from "node:fs";
import path from "node:path";
import Handlebars from "handlebars";
import type {
  CheckModel,
  OperationModel,
  ParamModel,
  ResultModel,
  ServiceModel,
  SoapType,
} from "../../runtime/model.js";
import type { ServiceDocs } from "../../runtime/docs.js";
import type { GeneratedFile } from "../generated-file.js";
import type { EmitContext } from "./context.js";
import { sampleExchanges, type SampleRequest } from "./help-samples.js";
import { listInWords } from "../../runtime/rules.js";
import { textFormatShape } from "../../runtime/values.js";
import { columnNameText, ruleText } from "./rule-text.js";
import { REPOSITORY_TEMPLATES_DIR, templateLiteral } from "./wsdl.js";

/**
 * Markers the emitted functions replace. Model text reaches the page HTML-escaped, so a "<" never comes
 * from the spec and no spec text can forge a marker.
 */
const SLOTS = {
  style: "<!--@style-->",
  baseUrl: "<!--@base-url-->",
  host: "<!--@host-->",
  path: "<!--@path-->",
} as const;

interface HelpTemplates {
  readonly index: HandlebarsTemplateDelegate;
  readonly operation: HandlebarsTemplateDelegate;
  /** The stylesheet both pages share; emitted once and put into each page when it is served. */
  readonly style: HandlebarsTemplateDelegate;
}

function helpTemplates(templatesDir = REPOSITORY_TEMPLATES_DIR): HelpTemplates {
  const handlebars = Handlebars.create();
  // Default escaping: every {{value}} is HTML-escaped; {{{ }}} only takes slot markers and escaped samples.
  const compile = (name: string) =>
    handlebars.compile(readFileSync(path.join(templatesDir, name), "utf8"), { strict: true });
  return {
    index: compile("help-index.hbs"),
    operation: compile("help-operation.hbs"),
    style: compile("help-style.hbs"),
  };
}

export function emitHelp(
  model: ServiceModel,
  ctx: Pick<EmitContext, "docs"> & Partial<Pick<EmitContext, "templatesDir">>,
): GeneratedFile[] {
  const templates = helpTemplates(ctx.templatesDir);
  const pages = model.operations.map((op) => [op.name, renderOperationPage(model, ctx.docs, op, templates)] as const);
  return [
    {
      path: "help.ts",
      content: helpModule(templates.style({}), renderIndexPage(model, ctx.docs, templates), pages),
      description: "helpIndexHtml and helpOperationHtml: the HTML help pages of the endpoint.",
    },
  ];
}

/** The operation list, with slot markers where the served page has the stylesheet and the address. */
function renderIndexPage(model: ServiceModel, docs: ServiceDocs, templates = helpTemplates()): string {
  return templates.index({
    style: SLOTS.style,
    endpoint: SLOTS.baseUrl,
    serviceName: model.name,
    serviceDoc: docs.doc,
    namespace: model.namespace,
    groups: model.groups.map((group) => ({
      title: group.title,
      operations: group.operations.map((name) => ({ name, doc: docs.operations[name]?.doc ?? "" })),
    })),
  });
}

/** One operation's page, with slot markers where the served page has the stylesheet and the address. */
function renderOperationPage(
  model: ServiceModel,
  docs: ServiceDocs,
  op: OperationModel,
  templates = helpTemplates(),
): string {
  const group = model.groups.find((g) => g.name === op.group);
  const opDocs = docs.operations[op.name]!;
  return templates.operation({
    style: SLOTS.style,
    serviceName: model.name,
    groupTitle: group?.title ?? op.group,
    name: op.name,
    doc: opDocs.doc,
    params: op.params.map((param) => paramView(param, opDocs.params[param.name]!)),
    checks: op.checks.map(checkInWords),
    result: resultView(op.result, opDocs.result, docs),
    // A path, not an absolute URL: the form posts to the origin the page was loaded from, so a forged
    // Host header cannot send the credentials typed into it anywhere else.
    formAction: `${SLOTS.path}/${escapeHtml(op.name)}`,
    samples: sampleExchanges(model, op).map((sample) => ({
      ...sample,
      request: requestHtml(sample.request),
      response: escapeHtml(sample.response),
    })),
  });
}

function requestHtml(request: SampleRequest): string {
  const head = `${request.method} ${SLOTS.path}${escapeHtml(request.target)} HTTP/1.1\nHost: ${SLOTS.host}`;
  return request.rest === "" ? head : `${head}\n${escapeHtml(request.rest)}`;
}

function escapeHtml(text: string): string {
  return text
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/"/g, "&quot;")
    .replace(/'/g, "&#39;");
}

function paramView(param: ParamModel, doc: string) {
  const required = param.required || param.type !== "string";
  return {
    name: param.name,
    type: param.type,
    use: required ? "required" : "optional",
    default: param.default ?? "",
    rules: [...typeInWords(param.type), ...param.rules.map(ruleText)],
    doc,
    placeholder: param.default === undefined ? valueHint(param) : `${valueHint(param)} (default ${param.default})`,
  };
}

/** What to type into the test form: the allowed values or the format, else the SOAP type. */
function valueHint(param: ParamModel): string {
  for (const rule of param.rules) {
    if (rule.kind === "enum") return rule.values.join(" | ");
    if (rule.kind === "format") return textFormatShape(rule.format);
  }
  return param.type === "dateTime" ? "yyyy-MM-ddTHH:mm:ss" : param.type;
}

function typeInWords(type: SoapType): string[] {
  switch (type) {
    case "string":
      return [];
    case "int":
      return ["Whole number from -2147483648 to 2147483647."];
    case "long":
      return ["Whole number from -9223372036854775808 to 9223372036854775807."];
    case "double":
      return ["Number with . as decimal point; INF, -INF and NaN allowed."];
    case "decimal":
      return ["Exact decimal number with . as decimal point, such as 98.25."];
    case "dateTime":
      return ["Date and time as yyyy-MM-ddTHH:mm:ss, optionally with fractions and a zone (Z or +02:00)."];
    case "boolean":
      return ["true or false."];
  }
}

function checkInWords(check: CheckModel): string {
  switch (check.kind) {
    case "atLeastOne":
      return `At least one of ${listInWords(check.params, "and")} must be given.`;
    case "ordered":
      return `${check.from} must not be later than ${check.to}.`;
    case "demographicLists": {
      const lists =
        `${check.fields} names fields DD1 to DD${check.maxField}, delimited by ; or | (one of them, not both); ` +
        `${check.values} holds as many values, in the same order.`;
      return check.splitLength === undefined
        ? lists
        : `${lists} A value longer than ${check.splitLength} characters continues in the following fields.`;
    }
    case "columnName":
      return columnNameText(check);
  }
}


interface MemberView {
  name: string;
  type: string;
  doc: string;
}

function resultView(
  result: ResultModel,
  resultDoc: string,
  docs: ServiceDocs,
): {
  type: string;
  doc: string;
  memberKind: string;
  membersNote: string;
  members: MemberView[];
} {
  switch (result.kind) {
    case "scalar":
      return { type: result.type, doc: resultDoc, memberKind: "", membersNote: "", members: [] };
    case "list":
    case "record": {
      const record = result.record;
      const recordDoc = docs.records[record.name]!;
      return {
        type: result.kind === "list" ? `ArrayOf${record.name}` : record.name,
        doc: resultDoc,
        memberKind: "Field",
        membersNote:
          result.kind === "list"
            ? `Zero or more ${record.name} elements: ${recordDoc} A string field without a value is left out.`
            : `${recordDoc} A string field without a value is left out.`,
        members: record.fields.map((f) => ({ name: f.name, type: f.type, doc: "" })),
      };
    }
    case "dataSet": {
      const dataSet = result.dataSet;
      const dataSetDocs = docs.dataSets[dataSet.name]!;
      return {
        type: "DataSet",
        doc: resultDoc,
        memberKind: "Column",
        membersNote:
          `An inline XML schema, then a diffgram with one ${dataSet.table} element per row inside ` +
          `${dataSet.dataSetName}. A null cell is left out. ${dataSetDocs.doc}`,
        members: dataSet.columns.map((c) => ({
          name: c.name ?? `(value of ${c.nameFromParam ?? c.property})`,
          type: c.type,
          doc: dataSetDocs.columns[c.property]!,
        })),
      };
    }
  }
}

function helpModule(style: string, index: string, pages: ReadonlyArray<readonly [string, string]>): string {
  const entries = pages.map(([name, html]) => `  [${JSON.stringify(name)}, ${templateLiteral(html)}],`).join("\n");
  return `// The HTML help pages of the endpoint: the operation list and one page per operation.

const STYLE = ${templateLiteral(style)};

const INDEX = ${templateLiteral(index)};

const OPERATION_PAGES: ReadonlyMap<string, string> = new Map([
${entries}
]);

/** The page listing the operations. baseUrl is the endpoint address as clients see it (…/Service.asmx). */
export function helpIndexHtml(baseUrl: string): string {
  return fillSlots(INDEX, baseUrl);
}

/** The page of one operation, or undefined when the service has no operation of that name. */
export function helpOperationHtml(op: string, baseUrl: string): string | undefined {
  const page = OPERATION_PAGES.get(op);
  return page === undefined ? undefined : fillSlots(page, baseUrl);
}

function fillSlots(page: string, baseUrl: string): string {
  const base = baseUrl.replace(/\\/+$/, "");
  const url = parseAddress(base);
  // Escaped values contain no "<", so no substitution can create a marker for the next one.
  return page
    .split(${JSON.stringify(SLOTS.style)}).join(STYLE)
    .split(${JSON.stringify(SLOTS.baseUrl)}).join(escapeHtml(base))
    .split(${JSON.stringify(SLOTS.host)}).join(escapeHtml(url.host))
    .split(${JSON.stringify(SLOTS.path)}).join(escapeHtml(url.pathname));
}

/** A relative address still yields the path for the sample header lines. */
function parseAddress(address: string): URL {
  try {
    return new URL(address);
  } catch {
    return new URL(address, "http://localhost");
  }
}

function escapeHtml(text: string): string {
  return text
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/"/g, "&quot;")
    .replace(/'/g, "&#39;");
}
`;
}
