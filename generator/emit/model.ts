// generated/model.ts: the ServiceModel as a typed constant, with the pieces it shares (rules, credentials,
// records, data sets, operations) declared once and referenced, so `operations.X` is the same object as the
// entry in `service.operations`.

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
import { StructureKind, TypeScriptFile, VariableDeclarationKind } from "../typescript-file.js";
import { code, literal, propertyKey, spread, type Code } from "./literal.js";

const RUNTIME_MODEL = "runtime/model.ts";

export function emitModel(model: ServiceModel): GeneratedFile[] {
  const file = new TypeScriptFile("model.ts");
  const type = (name: string): string => file.use(importType(name, RUNTIME_MODEL));
  const credentials = model.operations[0]?.params.filter((p) => p.credential) ?? [];

  const statements: StatementStructures[] = [];
  const declare = (name: string, doc: string, initializer: string, satisfies: string): void => {
    statements.push({
      kind: StructureKind.VariableStatement,
      // A blank line between declarations; prettier keeps it.
      ...(statements.length > 0 ? { leadingTrivia: "\n" } : {}),
      isExported: true,
      declarationKind: VariableDeclarationKind.Const,
      docs: [doc],
      declarations: [{ name, initializer: `${initializer} as const satisfies ${satisfies}` }],
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

  declare(
    "rules",
    "The named rules of the spec, each as the parameters that reference it carry it.",
    byName(usedRules(model), (rule: RuleModel) => rule),
    `Readonly<Record<string, ${type("RuleModel")}>>`,
  );
  declare(
    "credentials",
    "The parameters every operation takes first.",
    literal(credentials.map(paramValue)),
    `readonly ${type("ParamModel")}[]`,
  );
  declare(
    "records",
    "Result records by name.",
    byName(model.records, (r) => r),
    `Readonly<Record<string, ${type("RecordModel")}>>`,
  );
  declare(
    "dataSets",
    "DataSet results by name.",
    byName(model.dataSets, (d) => d),
    `Readonly<Record<string, ${type("DataSetModel")}>>`,
  );
  declare(
    "operations",
    "Every operation by name: `operations.InsertSubscriberSid` is that operation's OperationModel.",
    byName(model.operations, operationValue),
    `Readonly<Record<string, ${type("OperationModel")}>>`,
  );
  declare(
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
