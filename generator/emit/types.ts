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
  EnumModel,
  OperationModel,
  ParamModel,
  RecordModel,
  ResultModel,
  ServiceModel,
  TypeModel,
} from "../../runtime/model.js";
import { isValueType } from "../../runtime/codec/values.js";
import type { ServiceDocTexts } from "../../runtime/server/docs.js";
import type { EmitContext } from "./context.js";
import type { GeneratedFile } from "../generated-file.js";
import { importType } from "../import-symbol.js";
import { dataSetRowTypeName, operationTypeNames } from "../type-names.js";
import { StructureKind, TypeScriptFile } from "../typescript-file.js";
import { typeScriptTypeName } from "../reserved-names.js";
import { credentialsInterface } from "./credentials.js";
import { propertyKey } from "./literal.js";
import { docs } from "./tsdoc.js";
import { columnNameText, ruleText } from "./rule-text.js";
import { tsType, VALUE_MAPPING } from "./value-mapping.js";

const DATASET_MODULE = "runtime/codec/dataset.ts";
const UNTYPED_DATASET_MODULE = "runtime/codec/dataset-untyped.ts";
const XML_TREE_MODULE = "runtime/xml/tree.ts";

/** Whether a parameter, field, header or result of the model is an XML value. */
function usesXml(model: ServiceModel): boolean {
  const isXml = (type: TypeModel): boolean => type.kind === "xml";
  return (
    model.records.some((r) => r.fields.some((f) => isXml(f.type))) ||
    model.operations.some(
      (op) =>
        op.result.kind === "xml" ||
        (op.result.kind === "response" && op.result.record.fields.some((f) => isXml(f.type))) ||
        op.params.some((p) => isXml(p.type)),
    )
  );
}

export function emitTypes(model: ServiceModel, { docs: text }: Pick<EmitContext, "docs">): GeneratedFile[] {
  const file = new TypeScriptFile("types.ts");
  const dataSetResult = (untyped?: "untyped"): string =>
    untyped === undefined
      ? file.use(importType("DataSetResult", DATASET_MODULE))
      : file.use(importType("UntypedDataSet", UNTYPED_DATASET_MODULE));
  // tsType names XML values XmlElement (the runtime's tree): imported when some type is one.
  if (usesXml(model)) file.use(importType("XmlElement", XML_TREE_MODULE));
  file.add([
    ...model.enums.map((e) => enumAlias(e, text)),
    ...model.records.map((record) => recordInterface(record, text)),
    ...model.dataSets.map((dataSet) => rowInterface(dataSet, text)),
    ...model.operations.flatMap((op) => [paramsInterface(op, text), resultAlias(op, text, dataSetResult)]),
    operationTypesInterface(model, text),
    credentialsInterface(model, text),
  ]);
  return [file.toGeneratedFile("Types of every record, DataSet row, operation parameters and result.")];
}

/** What a type is on the wire, for TSDoc: `xs:int`, `the enum Color`, `ArrayOfInt (int items)`. */
function wireTypeText(type: TypeModel): string {
  switch (type.kind) {
    case "scalar":
      return `xs:${type.type}`;
    case "enum":
      return `the enum ${type.enum.name}`;
    case "record":
      return `the record ${type.record.name}`;
    case "array":
      return `${type.typeName} (${type.itemElement} items)`;
    case "xml":
      return type.mixed ? "an XML node (xs:any, mixed)" : "an XML element (xs:any)";
  }
}

function enumAlias(e: EnumModel, text: ServiceDocTexts): TypeAliasDeclarationStructure {
  return {
    kind: StructureKind.TypeAlias,
    name: typeScriptTypeName(e.name),
    isExported: true,
    docs: docs(
      text.enums?.[e.name] ??
        (e.flags ? `The flags of ${e.name}: a set of its names.` : `The enumeration ${e.name}.`),
    ),
    // A flags value is a set of the names (in XML, separated by spaces).
    type: e.flags
      ? `readonly (${e.values.map((value) => JSON.stringify(value)).join(" | ")})[]`
      : e.values.map((value) => JSON.stringify(value)).join(" | "),
  };
}

function recordInterface(record: RecordModel, text: ServiceDocTexts): InterfaceDeclarationStructure {
  return {
    kind: StructureKind.Interface,
    name: typeScriptTypeName(record.name),
    isExported: true,
    docs: docs(text.records[record.name]!),
    properties: record.fields.map((field) => ({
      name: propertyKey(field.name),
      type: field.nullable ? `${tsType(field.type, "result")} | null` : tsType(field.type, "result"),
      // .NET omits a null reference (string, byte[], record, array) from a record; value types are always
      // written (a nullable one as xsi:nil).
      hasQuestionToken: !isValueType(field.type),
      docs: docs(
        `${wireTypeText(field.type)} on the wire.` +
          (field.type.kind === "scalar" ? ` ${VALUE_MAPPING[field.type.type].resultNote}` : "") +
          (field.nullable ? " null is sent as xsi:nil." : ""),
      ),
    })),
  };
}

function rowInterface(dataSet: DataSetModel, text: ServiceDocTexts): InterfaceDeclarationStructure {
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

function paramsInterface(op: OperationModel, text: ServiceDocTexts): InterfaceDeclarationStructure {
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
        // A value type is always sent (unless nullable), so it must always be given.
        hasQuestionToken: !param.required,
        docs: paramDocs(param, op, opDocs.params[param.name]!),
      })),
  };
}

function resultAlias(
  op: OperationModel,
  text: ServiceDocTexts,
  dataSetResult: (untyped?: "untyped") => string,
): TypeAliasDeclarationStructure {
  return {
    kind: StructureKind.TypeAlias,
    name: operationTypeNames(op.name).result,
    isExported: true,
    docs: docs(resultDocText(op, text.operations[op.name]!.result)),
    type: resultType(op.result, dataSetResult),
  };
}

function resultDocText(op: OperationModel, resultDoc: string): string {
  if (op.result.kind === "oneWay") return `${op.name} is one-way: the server sends no answer.`;
  if (resultDoc === "")
    return op.result.kind === "void" ? `${op.name} returns nothing.` : `Result of ${op.name}.`;
  return `Result of ${op.name}: ${lowerFirst(resultDoc)}`;
}

function operationTypesInterface(model: ServiceModel, text: ServiceDocTexts): InterfaceDeclarationStructure {
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
  const isString = param.type.kind === "scalar" && param.type.type === "string";
  const type =
    isString && allowed
      ? allowed.map((value) => JSON.stringify(value)).join(" | ")
      : tsType(param.type, "param");
  return param.nullable ? `${type} | null` : type;
}

function paramDocs(param: ParamModel, op: OperationModel, paramDoc: string): OptionalKind<JSDocStructure>[] {
  const sentences = [paramDoc];
  for (const rule of param.rules) if (rule.kind !== "enum") sentences.push(ruleText(rule));
  for (const check of op.checks) {
    if (check.kind === "columnName" && check.param === param.name) sentences.push(columnNameText(check));
  }
  if (param.type.kind === "scalar" && param.type.type !== "string")
    sentences.push(VALUE_MAPPING[param.type.type].paramNote);
  if (param.nullable) sentences.push("null is sent as xsi:nil.");
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

function resultType(result: ResultModel, dataSetResult: (untyped?: "untyped") => string): string {
  switch (result.kind) {
    // A null string or byte array is a result too: .NET leaves the result element out.
    // A nullable value type or enum (`int?`) is null when the answer is xsi:nil.
    case "scalar":
      return result.type === "string" || result.type === "base64Binary" || result.nullable === true
        ? `${VALUE_MAPPING[result.type].result} | null`
        : VALUE_MAPPING[result.type].result;
    case "enum":
      return `${typeScriptTypeName(result.enum.name)}${result.nullable === true ? " | null" : ""}`;
    case "list":
      // A nil item of a list (`<R xsi:nil="true" />`) reads as null, as in an array of records.
      return `(${typeScriptTypeName(result.record.name)} | null)[]`;
    case "array":
      return tsType(result, "result");
    // A null record is a result: .NET leaves the element out (SOAP) or writes a nil root (HTTP).
    case "record":
      return `${typeScriptTypeName(result.record.name)} | null`;
    case "dataSet":
      return `${dataSetResult()}<${dataSetRowTypeName(result.dataSet.name)}>`;
    case "untypedDataSet":
      return dataSetResult("untyped");
    // Out and ref parameters: the response element's children, as the fields of a record would be.
    case "response":
      return `{ ${result.record.fields
        .map(
          (f) =>
            `${propertyKey(f.name)}${isValueType(f.type) ? "" : "?"}: ${tsType(f.type, "result")}${f.nullable ? " | null" : ""}`,
        )
        .join("; ")} }`;
    // A null XML value is a result: .NET leaves the element out (SOAP) or answers no root (HTTP).
    case "xml":
      return "XmlElement | null";
    case "void":
    case "oneWay":
      return "void";
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

function lowerFirst(text: string): string {
  return /^[A-Z][a-z]/.test(text) ? text[0]!.toLowerCase() + text.slice(1) : text;
}
