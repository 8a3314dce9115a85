// generated/types.ts: TypeScript types for what crosses the wire: one interface per record, a row type per
// DataSet, per operation its parameters (credentials excluded) and its result, and OperationTypes tying
// each operation name to both.

import type {
  InterfaceDeclarationStructure,
  JSDocStructure,
  OptionalKind,
  TypeAliasDeclarationStructure,
} from "ts-morph";
import type {
  DataSetModel,
  OperationModel,
  ParamModel,
  RecordModel,
  ResultModel,
  ServiceModel,
} from "../../runtime/model.js";
import type { ServiceDocs } from "../../runtime/docs.js";
import type { EmitContext } from "./context.js";
import type { GeneratedFile } from "../generated-file.js";
import { importType } from "../import-symbol.js";
import { dataSetRowTypeName, operationTypeNames } from "../type-names.js";
import { StructureKind, TypeScriptFile } from "../typescript-file.js";
import { propertyKey } from "./literal.js";
import { columnNameText, ruleText } from "./rule-text.js";
import { VALUE_MAPPING } from "./value-mapping.js";

const DATASET_MODULE = "runtime/dataset.ts";
const DOC_WIDTH = 100;

export function emitTypes(model: ServiceModel, { docs: text }: Pick<EmitContext, "docs">): GeneratedFile[] {
  const file = new TypeScriptFile("types.ts");
  const dataSetResult = (): string => file.use(importType("DataSetResult", DATASET_MODULE));
  file.add([
    ...model.records.map((record) => recordInterface(record, text)),
    ...model.dataSets.map((dataSet) => rowInterface(dataSet, text)),
    ...model.operations.flatMap((op) => [paramsInterface(op, text), resultAlias(op, text, dataSetResult)]),
    operationTypesInterface(model, text),
  ]);
  return [file.toGeneratedFile("Types of every record, DataSet row, operation parameters and result.")];
}

function recordInterface(record: RecordModel, text: ServiceDocs): InterfaceDeclarationStructure {
  return {
    kind: StructureKind.Interface,
    name: record.name,
    isExported: true,
    docs: docs(text.records[record.name]!),
    properties: record.fields.map((field) => ({
      name: propertyKey(field.name),
      type: VALUE_MAPPING[field.type].result,
      // .NET omits a null string from a record; value types are always written.
      hasQuestionToken: field.type === "string",
      docs: docs(`xs:${field.type} on the wire. ${VALUE_MAPPING[field.type].resultNote}`),
    })),
  };
}

function rowInterface(dataSet: DataSetModel, text: ServiceDocs): InterfaceDeclarationStructure {
  const dataSetDocs = text.dataSets[dataSet.name]!;
  return {
    kind: StructureKind.Interface,
    name: dataSetRowTypeName(dataSet.name),
    isExported: true,
    docs: docs(`A row of ${dataSet.name}. ${dataSetDocs.doc}`),
    properties: dataSet.columns.map((column) => ({
      name: propertyKey(column.property),
      type: `${VALUE_MAPPING[column.type].result} | null`,
      docs: docs(columnDoc(column, dataSetDocs.columns[column.property]!)),
    })),
  };
}

function paramsInterface(op: OperationModel, text: ServiceDocs): InterfaceDeclarationStructure {
  const opDocs = text.operations[op.name]!;
  const credentials = op.params.filter((p) => p.credential).map((p) => p.name);
  return {
    kind: StructureKind.Interface,
    name: operationTypeNames(op.name).params,
    isExported: true,
    docs: docs(
      `Parameters of ${op.name}. ${opDocs.doc}` +
        (credentials.length > 0 ? `\n\nThe credentials (${credentials.join(", ")}) are not part of it.` : ""),
    ),
    properties: op.params
      .filter((param) => !param.credential)
      .map((param) => ({
        name: propertyKey(param.name),
        type: paramType(param),
        // A value type is always sent, so it must always be given.
        hasQuestionToken: !(param.required || param.type !== "string"),
        docs: paramDocs(param, op, opDocs.params[param.name]!),
      })),
  };
}

function resultAlias(
  op: OperationModel,
  text: ServiceDocs,
  dataSetResult: () => string,
): TypeAliasDeclarationStructure {
  return {
    kind: StructureKind.TypeAlias,
    name: operationTypeNames(op.name).result,
    isExported: true,
    docs: docs(`Result of ${op.name}: ${lowerFirst(text.operations[op.name]!.result)}`),
    type: resultType(op.result, dataSetResult),
  };
}

function operationTypesInterface(model: ServiceModel, text: ServiceDocs): InterfaceDeclarationStructure {
  return {
    kind: StructureKind.Interface,
    name: "OperationTypes",
    isExported: true,
    docs: docs("Parameter and result types of every operation, by operation name."),
    properties: model.operations.map((op) => {
      const names = operationTypeNames(op.name);
      return {
        name: propertyKey(op.name),
        type: `{ params: ${names.params}; result: ${names.result} }`,
        docs: docs(text.operations[op.name]!.doc),
      };
    }),
  };
}

function paramType(param: ParamModel): string {
  const allowed = param.rules.flatMap((rule) => (rule.kind === "enum" ? [rule.values] : []))[0];
  if (param.type === "string" && allowed) return allowed.map((value) => JSON.stringify(value)).join(" | ");
  return VALUE_MAPPING[param.type].param;
}

function paramDocs(param: ParamModel, op: OperationModel, paramDoc: string): OptionalKind<JSDocStructure>[] {
  const sentences = [paramDoc];
  for (const rule of param.rules) if (rule.kind !== "enum") sentences.push(ruleText(rule));
  for (const check of op.checks) {
    if (check.kind === "columnName" && check.param === param.name) sentences.push(columnNameText(check));
  }
  if (param.type !== "string") sentences.push(VALUE_MAPPING[param.type].paramNote);
  return docs(
    sentences.join(" "),
    param.default === undefined
      ? []
      : [
          {
            tagName: "defaultValue",
            text: `${JSON.stringify(param.default)}, substituted by the server when absent or empty.`,
          },
        ],
  );
}

function resultType(result: ResultModel, dataSetResult: () => string): string {
  switch (result.kind) {
    case "scalar":
      return VALUE_MAPPING[result.type].result;
    case "list":
      return `${result.record.name}[]`;
    case "record":
      return result.record.name;
    case "dataSet":
      return `${dataSetResult()}<${dataSetRowTypeName(result.dataSet.name)}>`;
  }
}

function columnDoc(column: DataSetModel["columns"][number], columnText: string): string {
  const wireName = column.nameFromParam
    ? `The column is named after the value of parameter ${column.nameFromParam}.`
    : column.name === column.property
      ? ""
      : `Column ${column.name} on the wire.`;
  return [columnText, wireName, `xs:${column.type}; null when the row has no value.`]
    .filter(Boolean)
    .join(" ");
}

/** TSDoc from spec text: paragraphs kept, lines wrapped, optional tags such as defaultValue. */
export function docs(
  text: string,
  tags: readonly { tagName: string; text: string }[] = [],
): OptionalKind<JSDocStructure>[] {
  const description = text
    .split("\n\n")
    .map((paragraph) => wrap(paragraph, DOC_WIDTH))
    .join("\n\n");
  return [
    { description, tags: tags.map((tag) => ({ tagName: tag.tagName, text: wrap(tag.text, DOC_WIDTH) })) },
  ];
}

/** Greedy word wrap; TSDoc lines stay readable without depending on the formatter. */
export function wrap(text: string, width: number): string {
  const lines: string[] = [];
  let line = "";
  for (const word of text.split(/\s+/).filter(Boolean)) {
    if (line && line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else {
      line = line ? `${line} ${word}` : word;
    }
  }
  if (line) lines.push(line);
  return lines.join("\n");
}

function lowerFirst(text: string): string {
  return /^[A-Z][a-z]/.test(text) ? text[0]!.toLowerCase() + text.slice(1) : text;
}
