// generated/model.ts: the client's layer of the model (ClientServiceModel: each parameter's name and type,
// the credential flag only where true, the results) as typed constants (`operations` by name, `service`
// with the namespace and endpoint), with the pieces they share (credentials, records, data sets) declared
// once and referenced; `operations` is written compactly ([params, result] by name, a string parameter as its
// bare name), and so are `records` (a record as its fields, each written as a parameter is), expanded at load
// by runtime/model-compact.ts. The model registers the client's scalar codecs
// (registerClientCodecs) and, only when needed, the extra codecs and the typed writers and readers. The record
// and data set lists are pure exports for the server's model. The Operations interface types each descriptor with its
// Params and Result (ClientOperationModel<Params, Result>) and carries the operation's doc as JSDoc: the
// client's and the server's method types are mapped from it (ClientOf, HandlersOf), so the docs reach them
// as types, never as data.
// generated/server-model.ts: the server's layer (ServiceModel: required, rules and defaults, checks, groups,
// the service's name), built on the client's records and results, so a client bundle carries no validation data.
// Exported constants carry explicit types (isolatedDeclarations); the shared pieces are module-local.

import type { StatementStructures } from "ts-morph";
import {
  headerIsAnswered,
  headerIsSent,
  type CheckModel,
  type ClientParamModel,
  type HeaderModel,
  type OperationModel,
  type ParamModel,
  type RecordModel,
  type ResultModel,
  type RuleModel,
  type ServiceModel,
  type SoapType,
  type TypeModel,
} from "../../runtime/model.js";
import type { GeneratedFile } from "../generated-file.js";
import { importSymbol, importType } from "../import-symbol.js";
import { typeScriptTypeName } from "../reserved-names.js";
import { operationTypeNames } from "../type-names.js";
import { StructureKind, TypeScriptFile, VariableDeclarationKind } from "../typescript-file.js";
import type { EmitContext } from "./context.js";
import { code, literal, propertyKey, spread, type Code } from "./literal.js";
import { EXTENSIONS_FILE } from "./extensions.js";
import { docs } from "./tsdoc.js";

const RUNTIME_MODEL = "runtime/model.ts";

/** An operation's JSDoc: what it does, then what it returns. */
function operationDoc(doc: string, result: string): string {
  return `${doc}\n\nResolves to ${result.charAt(0).toLowerCase()}${result.slice(1)}`;
}

export function emitModel(model: ServiceModel, context: Pick<EmitContext, "docs">): GeneratedFile[] {
  return [emitClientModel(model, context), emitServerModel(model)];
}

/** Declarations in order, with a blank line between them, and the two kinds of constant. */
function statementList() {
  const statements: StatementStructures[] = [];
  const gap = (): { leadingTrivia?: string } => (statements.length > 0 ? { leadingTrivia: "\n" } : {});
  /** A module-local constant, its type inferred (`as const`) and checked (`satisfies`). */
  const local = (name: string, doc: string, initializer: string, satisfies: string): void => {
    statements.push({
      kind: StructureKind.VariableStatement,
      // A blank line between declarations; prettier keeps it.
      ...gap(),
      declarationKind: VariableDeclarationKind.Const,
      docs: [doc],
      declarations: [{ name, initializer: `${initializer} as const satisfies ${satisfies}` }],
    });
  };
  /** A module-local constant whose type is its initializer's (a call's result). */
  const computed = (name: string, doc: string, initializer: string): void => {
    statements.push({
      kind: StructureKind.VariableStatement,
      ...gap(),
      declarationKind: VariableDeclarationKind.Const,
      docs: [doc],
      declarations: [{ name, initializer }],
    });
  };
  /** An exported constant with its type written out. */
  const exported = (name: string, doc: string, initializer: string, typeName: string): void => {
    statements.push({
      kind: StructureKind.VariableStatement,
      ...gap(),
      isExported: true,
      declarationKind: VariableDeclarationKind.Const,
      docs: [doc],
      declarations: [{ name, type: typeName, initializer }],
    });
  };
  return { statements, gap, local, computed, exported };
}

const byName = (items: readonly { readonly name: string }[], value: (item: never) => unknown): string =>
  `{ ${items.map((item) => `${propertyKey(item.name)}: ${literal(value(item as never))}`).join(", ")} }`;

/** `[...credentials, ...the rest]` when the operation starts with the shared credentials. */
/** How an operation's parameter list starts when it begins with the credentials (see withCredentials). */
const SPREAD_CREDENTIALS = "...credentials";

function withCredentials<P>(
  params: readonly P[],
  credentials: readonly unknown[],
  value: (param: P, index: number) => unknown,
): unknown[] {
  const all = params.map((param, i) => value(param, i));
  const leading = all.slice(0, credentials.length);
  return credentials.length > 0 && JSON.stringify(leading) === JSON.stringify(credentials)
    ? [spread("credentials"), ...all.slice(credentials.length)]
    : all;
}

/** A parameter as the client writes it: the credential flag (and a credential's property) only where set. */
function clientParam({ name, type, nullable, credential, property, choice }: ParamModel): ClientParamModel {
  const typed = nullable ? { name, type, nullable } : { name, type };
  const base = choice === undefined ? typed : { ...typed, choice };
  if (!credential) return base;
  return property === undefined ? { ...base, credential } : { ...base, credential, property };
}

/** The module-local name of a record's model constant (record names have no `$`, so none collides). */
function recordConstant(name: string): string {
  return `record$${name}`;
}

/**
 * TypeModels as code: a scalar as `scalars.int` (one shared object per scalar type, declared once by
 * scalarTable), an enum as `enums.Color`, a record as its constant; an array spelled out around its item.
 * Used scalars are collected for scalarTable.
 */
function typeWriter(
  nested: ReadonlySet<string> = new Set(),
  recordModelType: () => string = () => "RecordModel",
) {
  const used = new Set<SoapType>();
  /** A record another record holds has its own constant; the others are reached through `records`. */
  const recordRef = (name: string): string => (nested.has(name) ? recordConstant(name) : `records.${name}`);
  /**
   * While the record constants are written (in dependency order), the ones declared so far; a record that
   * holds itself, directly or not, refers to a constant declared after it through a getter. Undefined once
   * every constant is declared.
   */
  let declared: Set<string> | undefined;
  const typeValue = (type: TypeModel): unknown => {
    switch (type.kind) {
      case "scalar":
        used.add(type.type);
        return code(`scalars.${type.type}`);
      case "enum":
        return { kind: "enum", enum: code(`enums.${type.enum.name}`) };
      case "record": {
        const name = type.record.name;
        if (declared !== undefined && nested.has(name) && !declared.has(name))
          return code(
            `{ kind: "record", get record(): ${recordModelType()} { return ${recordConstant(name)}; } }`,
          );
        return { kind: "record", record: code(recordRef(name)) };
      }
      case "array":
        return { ...type, item: typeValue(type.item) };
      case "xml":
        return type;
    }
  };
  /** The `scalars` table: one TypeModel per scalar type used, in a fixed order. */
  const scalarTable = (): string =>
    `{ ${[...used]
      .sort()
      .map((t) => `${t}: ${literal({ kind: "scalar", type: t })}`)
      .join(", ")} }`;
  /** Starts (a set) or ends (undefined) the writing of the record constants. */
  const declaring = (names: Set<string> | undefined): void => {
    declared = names;
  };
  return { typeValue, scalarTable, used, declaring };
}

const EXTRA_SCALARS: readonly SoapType[] = [
  "float",
  "byte",
  "unsignedByte",
  "short",
  "unsignedShort",
  "unsignedInt",
  "unsignedLong",
  "guid",
  "char",
  "base64Binary",
];

/**
 * The scalar types of runtime/codec/values-extra.ts the service uses anywhere (parameters, record fields,
 * results), in a fixed order; a service without them leaves that module out of its bundles.
 */
function extraScalarsUsed(model: ServiceModel): SoapType[] {
  const used = new Set<SoapType>();
  const walk = (type: TypeModel): void => {
    if (type.kind === "scalar") used.add(type.type);
    else if (type.kind === "array") walk(type.item);
  };
  for (const record of model.records) for (const field of record.fields) walk(field.type);
  for (const op of model.operations) {
    for (const param of op.params) walk(param.type);
    // An untyped DataSet's cells may be of any type.
    if (op.result.kind === "untypedDataSet") return [...EXTRA_SCALARS];
    if (op.result.kind === "scalar") used.add(op.result.type);
    if (op.result.kind === "array") walk(op.result.item);
    if (op.result.kind === "response") for (const f of op.result.record.fields) walk(f.type);
  }
  return EXTRA_SCALARS.filter((type) => used.has(type));
}

/**
 * Whether a parameter has an enum, array or record type: the client then formats it with the writers of
 * runtime/codec/typed-xml-write.ts, which the model registers; a service of scalar parameters leaves
 * that module out of its client bundles (the server's result writers import it themselves).
 */
function paramsNeedTypedWriters(model: ServiceModel): boolean {
  // SOAP headers are records, written by the same writers.
  return model.operations.some(
    (op) => op.headers !== undefined || op.params.some((param) => param.type.kind !== "scalar"),
  );
}

/** The core scalar types' readers and writers in runtime/codec/values.ts (the others are values-extra.ts's). */
const CORE_CODECS: Readonly<Partial<Record<SoapType, { readonly parse: string; readonly format: string }>>> =
  {
    boolean: { parse: "parseBoolean", format: "formatBoolean" },
    dateTime: { parse: "clientParseDateTime", format: "clientFormatDateTime" },
    decimal: { parse: "parseDecimal", format: "formatDecimal" },
    double: { parse: "parseDouble", format: "formatDouble" },
    int: { parse: "parseInt32", format: "formatInt32" },
    long: { parse: "parseInt64", format: "formatInt64" },
    string: { parse: "parseString", format: "formatString" },
  };

/**
 * The core scalar types the client reads directly (scalar results, the fields of result records, DataSet
 * columns) and writes directly (scalar parameters), in a fixed order: the generated model registers just
 * their codecs for the client (registerClientCodecs), so a client bundle carries no other. Enum, array and
 * nested record values go through typed-xml, which uses every codec.
 */
function clientCodecsUsed(model: ServiceModel): { parse: SoapType[]; format: SoapType[] } {
  const parse = new Set<SoapType>();
  const format = new Set<SoapType>();
  for (const op of model.operations) {
    for (const param of op.params) if (param.type.kind === "scalar") format.add(param.type.type);
    const result = op.result;
    if (result.kind === "scalar") parse.add(result.type);
    if (result.kind === "list" || result.kind === "record") {
      for (const field of result.record.fields) if (field.type.kind === "scalar") parse.add(field.type.type);
    }
    if (result.kind === "dataSet") for (const column of result.dataSet.columns) parse.add(column.type);
  }
  const core = (used: Set<SoapType>): SoapType[] =>
    [...used].filter((type) => CORE_CODECS[type] !== undefined).sort();
  return { parse: core(parse), format: core(format) };
}

/**
 * Whether a result is an enum, an array, or a list or record with a field that is not a scalar or is
 * nullable: the client then reads it with the generic reader of runtime/codec/typed-xml-read.ts, which
 * the model registers; a service of scalar, flat record and DataSet results leaves it out of its client
 * bundles (runtime/codec/result-read.ts reads those directly).
 */
function resultsNeedTypedReaders(model: ServiceModel): boolean {
  return model.operations.some(({ result }) => {
    if (result.kind === "enum" || result.kind === "array" || result.kind === "xml") return true;
    // Its cells are of whatever scalar type the answer's schema says.
    if (result.kind === "untypedDataSet") return true;
    // The response element read as a record (out and ref parameters).
    if (result.kind === "response") return true;
    if (result.kind !== "list" && result.kind !== "record") return false;
    return result.record.fields.some((field) => field.type.kind !== "scalar" || field.nullable === true);
  });
}

/**
 * The HeaderTypes of an operation's headers: `in`, those it takes (the credentials header aside: the
 * client's config and the handler's context.credentials carry it), required ones not optional; `out`,
 * those it answers, each optional (a header left unset is not sent).
 */
function headerTypes(headers: readonly HeaderModel[], typeName: (name: string) => string): string {
  const entry = (header: HeaderModel, optional: boolean): string =>
    `${propertyKey(header.record.name)}${optional ? "?" : ""}: ${typeName(typeScriptTypeName(header.record.name))}`;
  const taken = headers.filter((h) => headerIsSent(h) && !h.credential).map((h) => entry(h, !h.required));
  const answered = headers.filter(headerIsAnswered).map((h) => entry(h, true));
  // None at all is Record<string, never>, so that a header given there anyway is an error ({} takes anything).
  const object = (entries: readonly string[]): string =>
    entries.length === 0 ? "Record<string, never>" : `{ ${entries.join("; ")} }`;
  return `{ in: ${object(taken)}; out: ${object(answered)} }`;
}

/** The records some other record holds (as a field or an array item). */
function nestedRecords(records: readonly RecordModel[]): Set<string> {
  const nested = new Set<string>();
  for (const record of records) {
    for (const field of record.fields) {
      const type = field.type.kind === "array" ? field.type.item : field.type;
      if (type.kind === "record") nested.add(type.record.name);
    }
  }
  return nested;
}

/** Records with the ones they hold first, so each constant is declared before it is referenced. */
function recordsInDependencyOrder(records: readonly RecordModel[]): RecordModel[] {
  const ordered: RecordModel[] = [];
  const placed = new Set<string>();
  const place = (record: RecordModel): void => {
    if (placed.has(record.name)) return;
    placed.add(record.name);
    for (const field of record.fields) {
      const type = field.type.kind === "array" ? field.type.item : field.type;
      if (type.kind === "record") place(type.record);
    }
    ordered.push(record);
  };
  records.forEach(place);
  return ordered;
}

function emitClientModel(model: ServiceModel, { docs: text }: Pick<EmitContext, "docs">): GeneratedFile {
  const file = new TypeScriptFile("model.ts");
  const type = (name: string): string => file.use(importType(name, RUNTIME_MODEL));
  const types = (name: string): string => file.use(importType(name, "types.ts"));
  const nested = nestedRecords(model.records);
  const { typeValue, scalarTable, used, declaring } = typeWriter(nested, () => type("RecordModel"));
  const clientParamValue = (param: ParamModel): unknown => {
    const client = clientParam(param);
    return { ...client, type: typeValue(client.type) };
  };
  const credentials = (model.operations[0]?.params.filter((p) => p.credential) ?? []).map(clientParamValue);
  const { statements, gap, local, computed, exported } = statementList();
  const resultValue = (result: ResultModel): unknown => {
    switch (result.kind) {
      case "scalar":
        // A nullable one as it is; the others by the scalars table's model of the type (the same shape).
        return result.nullable === true ? result : typeValue(result);
      case "void":
      case "oneWay":
      case "xml":
        return result;
      case "enum":
        return { ...result, enum: code(`enums.${result.enum.name}`) };
      case "array":
        return { ...result, item: typeValue(result.item) };
      case "list":
      case "record":
        return { ...result, record: code(`records.${result.record.name}`) };
      case "dataSet":
        return { ...result, dataSet: code(`dataSets.${result.dataSet.name}`) };
      case "untypedDataSet":
        return result;
      case "response":
        // The response's own record, never declared as a type: written here, its fields' types by reference.
        return {
          kind: "response",
          record: {
            name: result.record.name,
            fields: result.record.fields.map((f) => ({ ...f, type: typeValue(f.type) })),
          },
        };
    }
  };
  // The compact form (runtime/model-compact.ts): a string parameter or field by its name, another type that
  // is not nullable as [name, type], the rest (credentials, nullable values) as the parameter or field model.
  const compactValue = (name: string, type: TypeModel): unknown =>
    type.kind === "scalar" && type.type === "string" ? name : [name, typeValue(type)];
  const compactParamValue = (param: ParamModel): unknown => {
    const client = clientParam(param);
    if (client.credential || client.nullable || client.choice !== undefined) return clientParamValue(param);
    return compactValue(client.name, client.type);
  };
  // A header: its record by reference, its direction, and the flags only where set.
  const headerValue = (header: HeaderModel): unknown => ({
    ...header,
    record: (typeValue({ kind: "record", record: header.record }) as { record: unknown }).record,
  });
  // The compact slots: parameters, result, then headers, MessageName and SOAP shape while any is left
  // (runtime/model-compact.ts CompactOperation), undefined for an empty slot before a filled one.
  const operationValue = (op: OperationModel): unknown => {
    const params = withCredentials(op.params, credentials, compactParamValue);
    const headers = op.headers?.map(headerValue);
    if (op.soap !== undefined)
      return [
        params,
        resultValue(op.result),
        headers ?? code("undefined"),
        op.messageName ?? code("undefined"),
        op.soap,
      ];
    if (op.messageName !== undefined)
      return [params, resultValue(op.result), headers ?? code("undefined"), op.messageName];
    return headers === undefined
      ? [params, resultValue(op.result)]
      : [params, resultValue(op.result), headers];
  };
  // Printed before the scalars table: printing them collects the scalar types used.
  const recordValue = (record: RecordModel): string =>
    literal({ ...record, fields: record.fields.map((f) => ({ ...f, type: typeValue(f.type) })) });
  const declared = new Set<string>();
  declaring(declared);
  const recordStatements = recordsInDependencyOrder(model.records)
    .filter((record) => nested.has(record.name))
    .map((record) => {
      const initializer = recordValue(record);
      declared.add(record.name);
      return { name: recordConstant(record.name), initializer };
    });
  declaring(undefined);
  // A record by its fields in the compact form, unless it has a base, is abstract or is held by others.
  const compactRecordValue = (record: RecordModel): string => {
    if (nested.has(record.name)) return recordConstant(record.name);
    if (record.base !== undefined || record.abstract || record.choice) return recordValue(record);
    return literal(
      record.fields.map((f) =>
        f.nullable || f.choice !== undefined
          ? { ...f, type: typeValue(f.type) }
          : compactValue(f.name, f.type),
      ),
    );
  };
  const recordsLiteral = `{ ${model.records
    .map((r) => `${propertyKey(r.name)}: ${compactRecordValue(r)}`)
    .join(", ")} }`;
  const operationsLiteral = byName(model.operations, operationValue);
  const credentialsLiteral = literal(credentials);

  // Only where something refers to it (a string parameter or field is its name alone): noUnusedLocals.
  if (used.size > 0) {
    local(
      "scalars",
      "One type model per scalar type, shared by every parameter and field of that type.",
      scalarTable(),
      `Readonly<Record<string, ${type("TypeModel")}>>`,
    );
  }
  if (model.enums.length > 0) {
    local(
      "enums",
      "Enumerations by name.",
      byName(model.enums, (e) => e),
      `Readonly<Record<string, ${type("EnumModel")}>>`,
    );
  }
  // Only where an operation spreads it: a spec without credentials compiles under noUnusedLocals.
  if (operationsLiteral.includes(SPREAD_CREDENTIALS)) {
    local(
      "credentials",
      "The parameters every operation takes first.",
      credentialsLiteral,
      `readonly ${type("ClientParamModel")}[]`,
    );
  }
  for (const record of recordStatements) {
    local(
      record.name,
      `The record ${record.name.slice("record$".length)}, held by other records.`,
      record.initializer,
      type("RecordModel"),
    );
  }
  computed(
    "records",
    "Records by name (written compactly: a record by its fields, each as a parameter is written; see runtime/model-compact.ts).",
    `/* @__PURE__ */ ${file.use(importSymbol("clientRecords", "runtime/model-compact.ts"))}(${recordsLiteral})`,
  );
  local(
    "dataSets",
    "DataSet results by name.",
    byName(model.dataSets, (d) => d),
    `Readonly<Record<string, ${type("DataSetModel")}>>`,
  );
  const operationModel = type("ClientOperationModel");
  statements.push({
    kind: StructureKind.Interface,
    ...gap(),
    isExported: true,
    name: "Operations",
    docs: docs(
      "Every operation's descriptor by name, typed with its parameters and result. The client's methods " +
        "(ClientOf) and the server's handlers (HandlersOf) are mapped from it and carry its docs.",
    ),
    properties: model.operations.map((op) => {
      const names = operationTypeNames(op.name);
      const opDocs = text.operations[op.name];
      const headers = op.headers === undefined ? "" : `, ${headerTypes(op.headers, types)}`;
      return {
        name: propertyKey(op.name),
        isReadonly: true,
        ...(opDocs ? { docs: docs(operationDoc(opDocs.doc, opDocs.result)) } : {}),
        type: `${operationModel}<${types(names.params)}, ${types(names.result)}${headers}>`,
      };
    }),
  });
  const compact = file.use(importSymbol("clientOperations", "runtime/model-compact.ts"));
  exported(
    "operations",
    `Every operation by name: \`operations.${model.operations[0]?.name ?? "<Operation>"}\` is that operation's descriptor ` +
      "(written compactly: [params, result], a string parameter by its name; see runtime/model-compact.ts).",
    `/* @__PURE__ */ ${compact}<Operations>(${operationsLiteral})`,
    "Operations",
  );
  exported(
    "recordModels",
    "Every result record in spec order, for the server's model (pure: a client bundle leaves it out).",
    "/* @__PURE__ */ Object.values(records)",
    `readonly ${type("RecordModel")}[]`,
  );
  exported(
    "enumModels",
    "Every enumeration in spec order, for the server's model (pure: a client bundle leaves it out).",
    model.enums.length > 0 ? "/* @__PURE__ */ Object.values(enums)" : "[]",
    `readonly ${type("EnumModel")}[]`,
  );
  exported(
    "dataSetModels",
    "Every DataSet result in spec order, for the server's model (pure: a client bundle leaves it out).",
    "/* @__PURE__ */ Object.values(dataSets)",
    `readonly ${type("DataSetModel")}[]`,
  );
  exported(
    "service",
    "The service as the client reads it (the server's model, server-model.ts, adds the validation).",
    literal({ namespace: model.namespace, endpoint: model.endpoint, bindings: model.bindings }),
    type("ClientServiceModel"),
  );
  file.add(statements);
  const extra = extraScalarsUsed(model);
  if (extra.length > 0) {
    const register = file.use(importSymbol("registerScalarCodecs", "runtime/codec/values.ts"));
    const codecs = file.use(importSymbol("extraScalarCodecs", "runtime/codec/values-extra.ts"));
    file.source.addStatements(
      `\n/** The codecs of ${extra.join(", ")}, which this service uses (runtime/codec/values-extra.ts). */\n` +
        `${register}(${codecs});\n`,
    );
  }
  const codecs = clientCodecsUsed(model);
  if (codecs.parse.length > 0 || codecs.format.length > 0) {
    const register = file.use(importSymbol("registerClientCodecs", "runtime/codec/values.ts"));
    const table = (types: SoapType[], direction: "parse" | "format"): string =>
      `{ ${types.map((t) => `${t}: ${file.use(importSymbol(CORE_CODECS[t]![direction], "runtime/codec/values.ts"))}`).join(", ")} }`;
    file.source.addStatements(
      `\n/** The client's codecs (runtime/codec/values.ts): the readers of the results' scalar types, the writers of the parameters'. */\n` +
        `${register}(${table(codecs.parse, "parse")}, ${table(codecs.format, "format")});\n`,
    );
  }
  if (paramsNeedTypedWriters(model)) {
    const register = file.use(importSymbol("registerTypedWriters", "runtime/codec/typed-xml.ts"));
    const writers = file.use(importSymbol("typedWriters", "runtime/codec/typed-xml-write.ts"));
    file.source.addStatements(
      `\n/** The writers of enum, array and record parameters (runtime/codec/typed-xml-write.ts). */\n${register}(${writers});\n`,
    );
  }
  if (model.operations.some((op) => op.soap !== undefined)) {
    const register = file.use(importSymbol("registerSoapShapeCodec", "runtime/protocol/shape-hook.ts"));
    const codec = file.use(importSymbol("soapShapeCodec", "runtime/protocol/soap-shape.ts"));
    file.source.addStatements(
      `\n/** The writing and reading of SOAP messages shaped otherwise than ASMX's default (runtime/protocol/soap-shape.ts), which some operation's are. */\n${register}(${codec});\n`,
    );
  }
  if (model.operations.some((op) => op.headers !== undefined)) {
    const register = file.use(importSymbol("registerHeaderCodec", "runtime/protocol/header-codec.ts"));
    const codec = file.use(importSymbol("soapHeaderCodec", "runtime/protocol/soap-headers.ts"));
    file.source.addStatements(
      `\n/** The writer and reader of SOAP headers (runtime/protocol/soap-headers.ts), which some operation has. */\n${register}(${codec});\n`,
    );
  }
  if (resultsNeedTypedReaders(model)) {
    const register = file.use(importSymbol("registerTypedReaders", "runtime/codec/result-read.ts"));
    const reader = file.use(importSymbol("typedResultReader", "runtime/codec/typed-xml-read.ts"));
    file.source.addStatements(
      `\n/** The reader of enum, array and nested record results (runtime/codec/typed-xml-read.ts). */\n${register}(${reader});\n`,
    );
  }
  return file.toGeneratedFile(
    "The client's service model (a ClientServiceModel value): names, types, results.",
  );
}

function emitServerModel(model: ServiceModel): GeneratedFile {
  const file = new TypeScriptFile("server-model.ts");
  const type = (name: string): string => file.use(importType(name, RUNTIME_MODEL));
  const credentials = model.operations[0]?.params.filter((p) => p.credential) ?? [];
  const { statements, local, exported } = statementList();
  const client = file.use(importSymbol("service", "model.ts"));
  const clientOperations = file.use(importSymbol("operations", "model.ts"));
  const ruleRef = (rule: RuleModel): Code => code(`rules.${rule.name}`);
  // Extension rules and checks get their validator from the spec's extension module, imported whole as
  // `extensions` (one name that cannot collide with a validator's), by this file only.
  let usesExtensions = false;
  const validatorRef = (validator: string): Code => {
    usesExtensions = true;
    return code(`extensions.${validator}`);
  };
  const ruleValue = (rule: RuleModel): unknown =>
    rule.kind === "extension" ? { ...rule, validate: validatorRef(rule.validator) } : rule;
  const checkValue = (check: CheckModel): unknown =>
    check.kind === "extension" ? { ...check, validate: validatorRef(check.validator) } : check;
  // The type of parameter i of an operation: the client descriptor's (the same object), or for a scalar
  // the local table's (smaller to print; the runtime compares kinds and names, never identities).
  const { typeValue, scalarTable, used } = typeWriter();
  const firstOp = model.operations[0]?.name;
  const paramValue =
    (opName: string) =>
    (param: ParamModel, i: number): unknown => ({
      ...param,
      type:
        param.type.kind === "scalar"
          ? typeValue(param.type)
          : code(
              `${clientOperations}.${param.credential && firstOp !== undefined ? firstOp : opName}.params[${i}]!.type`,
            ),
      rules: param.rules.map(ruleRef),
    });
  const operationValue = (op: OperationModel): unknown => ({
    name: op.name,
    ...(op.messageName === undefined ? {} : { messageName: op.messageName }),
    group: op.group,
    params: withCredentials(op.params, credentials.map(paramValue(firstOp ?? "")), paramValue(op.name)),
    checks: op.checks.map(checkValue),
    // The client's result model: the same records and data sets; its headers likewise.
    result: code(`${clientOperations}.${op.name}.result`),
    ...(op.headers === undefined ? {} : { headers: code(`${clientOperations}.${op.name}.headers`) }),
    ...(op.soap === undefined ? {} : { soap: code(`${clientOperations}.${op.name}.soap`) }),
    ...(op.effect === undefined ? {} : { effect: op.effect }),
  });

  const operationsLiteral = byName(model.operations, operationValue);
  const credentialsLiteral = literal(credentials.map(paramValue(firstOp ?? "")));
  if (used.size > 0) {
    local(
      "scalars",
      "One type model per scalar type, shared by every parameter of that type.",
      scalarTable(),
      `Readonly<Record<string, ${type("TypeModel")}>>`,
    );
  }
  const rules = usedRules(model);
  if (rules.length > 0) {
    local(
      "rules",
      "The named rules of the spec, each as the parameters that reference it carry it.",
      byName(rules, ruleValue),
      `Readonly<Record<string, ${type("RuleModel")}>>`,
    );
  }
  if (operationsLiteral.includes(SPREAD_CREDENTIALS)) {
    local(
      "credentials",
      "The parameters every operation takes first.",
      credentialsLiteral,
      `readonly ${type("ParamModel")}[]`,
    );
  }
  const operationsType = file.use(importType("Operations", "model.ts"));
  exported(
    "serverOperations",
    "Every operation as the server reads it: parameter rules and defaults, checks, group.",
    operationsLiteral,
    `{ readonly [Name in keyof ${operationsType}]: ${type("OperationModel")} }`,
  );
  exported(
    "serverModel",
    "The service as the server, the WSDL and the help pages read it.",
    literal({
      name: model.name,
      namespace: code(`${client}.namespace`),
      endpoint: code(`${client}.endpoint`),
      bindings: model.bindings === undefined ? undefined : code(`${client}.bindings`),
      groups: model.groups,
      records: code(file.use(importSymbol("recordModels", "model.ts"))),
      enums: code(file.use(importSymbol("enumModels", "model.ts"))),
      dataSets: code(file.use(importSymbol("dataSetModels", "model.ts"))),
      operations: model.operations.map((op) => code(`serverOperations.${op.name}`)),
    }),
    type("ServiceModel"),
  );
  file.add(statements);
  if (usesExtensions) {
    file.source.insertImportDeclaration(0, {
      moduleSpecifier: `./${EXTENSIONS_FILE.replace(/\.ts$/, ".js")}`,
      namespaceImport: "extensions",
    });
  }
  return file.toGeneratedFile(
    "The server's service model (a ServiceModel value): the client's, with rules, checks, defaults and groups.",
  );
}

/** Every rule some parameter carries, in order of first use. */
function usedRules(model: ServiceModel): RuleModel[] {
  const rules = new Map<string, RuleModel>();
  for (const op of model.operations) {
    for (const param of op.params)
      for (const rule of param.rules) if (!rules.has(rule.name)) rules.set(rule.name, rule);
  }
  return [...rules.values()];
}
