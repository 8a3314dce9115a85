// generated/model.ts: the ServiceModel as a typed constant, with the pieces it shares (rules, credentials,
// records, data sets) declared once and referenced, so `operations.X` is the same object as the entry in
// `service.operations`. The Operations interface types each descriptor with its Params and Result
// (OperationModel<Params, Result>) and carries the operation's doc as JSDoc: the client's and the server's
// method types are mapped from it (ClientOf, HandlersOf), so the docs reach them as types, never as data.
// Exported constants carry explicit types (isolatedDeclarations); the shared pieces are module-local.

import type { StatementStructures } from "ts-morph";
import type {
  OperationModel,
  ParamModel,
  ResultModel,
  RuleModel,
  ServiceModel,
} from "../../runtime/model.js";
import type { GeneratedFile } from "../generated-file.js";
import { importType } from "../import-symbol.js";
import { operationTypeNames } from "../type-names.js";
import { StructureKind, TypeScriptFile, VariableDeclarationKind } from "../typescript-file.js";
import type { EmitContext } from "./context.js";
import { code, literal, propertyKey, spread, type Code } from "./literal.js";
import { docs } from "./types.js";

const RUNTIME_MODEL = "runtime/model.ts";

/** An operation's JSDoc: what it does, then what it returns. */
export function operationDoc(doc: string, result: string): string {
  return `${doc}\n\nResolves to ${result.charAt(0).toLowerCase()}${result.slice(1)}`;
}

export function emitModel(model: ServiceModel, { docs: text }: Pick<EmitContext, "docs">): GeneratedFile[] {
  const file = new TypeScriptFile("model.ts");
  const type = (name: string): string => file.use(importType(name, RUNTIME_MODEL));
  const types = (name: string): string => file.use(importType(name, "types.ts"));
  const credentials = model.operations[0]?.params.filter((p) => p.credential) ?? [];

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
  const byName = (items: readonly { readonly name: string }[], value: (item: never) => unknown): string =>
    `{ ${items.map((item) => `${propertyKey(item.name)}: ${literal(value(item as never))}`).join(", ")} }`;
  const ruleRef = (rule: RuleModel): Code => code(`rules.${rule.name}`);
  const paramValue = (param: ParamModel): unknown => ({ ...param, rules: param.rules.map(ruleRef) });
  const paramsValue = (params: readonly ParamModel[]): unknown[] => {
    const leading = params.slice(0, credentials.length);
    return credentials.length > 0 && JSON.stringify(leading) === JSON.stringify(credentials)
      ? [spread("credentials"), ...params.slice(credentials.length).map(paramValue)]
      : params.map(paramValue);
  };
  const resultValue = (result: ResultModel): unknown => {
    switch (result.kind) {
      case "scalar":
        return result;
      case "list":
      case "record":
        return { ...result, record: code(`records.${result.record.name}`) };
      case "dataSet":
        return { ...result, dataSet: code(`dataSets.${result.dataSet.name}`) };
    }
  };
  const operationValue = (op: OperationModel): unknown => ({
    ...op,
    params: paramsValue(op.params),
    result: resultValue(op.result),
  });

  local(
    "rules",
    "The named rules of the spec, each as the parameters that reference it carry it.",
    byName(usedRules(model), (rule: RuleModel) => rule),
    `Readonly<Record<string, ${type("RuleModel")}>>`,
  );
  local(
    "credentials",
    "The parameters every operation takes first.",
    literal(credentials.map(paramValue)),
    `readonly ${type("ParamModel")}[]`,
  );
  local(
    "records",
    "Result records by name.",
    byName(model.records, (r) => r),
    `Readonly<Record<string, ${type("RecordModel")}>>`,
  );
  local(
    "dataSets",
    "DataSet results by name.",
    byName(model.dataSets, (d) => d),
    `Readonly<Record<string, ${type("DataSetModel")}>>`,
  );
  const operationModel = type("OperationModel");
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
      return {
        name: propertyKey(op.name),
        isReadonly: true,
        ...(opDocs ? { docs: docs(operationDoc(opDocs.doc, opDocs.result)) } : {}),
        type: `${operationModel}<${types(names.params)}, ${types(names.result)}>`,
      };
    }),
  });
  exported(
    "operations",
    "Every operation by name: `operations.InsertSubscriberSid` is that operation's OperationModel.",
    byName(model.operations, operationValue),
    "Operations",
  );
  exported(
    "service",
    "The whole service; the codecs, the client and the server read only this.",
    literal({
      ...model,
      records: model.records.map((r) => code(`records.${r.name}`)),
      dataSets: model.dataSets.map((d) => code(`dataSets.${d.name}`)),
      operations: model.operations.map((op) => code(`operations.${op.name}`)),
    }),
    type("ServiceModel"),
  );
  file.add(statements);
  return [file.toGeneratedFile("The service model (a ServiceModel value) that the runtime interprets.")];
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
