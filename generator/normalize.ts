// A validated spec document → the ServiceModel the runtime interprets (runtime/model.ts) and the ServiceDocs
// holding every doc text of the spec (runtime/docs.ts), which the model does not carry. Pure:
// no I/O, spec order everywhere, named rules inlined into each parameter, credentials prepended to every
// operation's parameters, and a columnName check added after the spec's own checks for every parameter
// that names a column of the operation's DataSet.

import type { ServiceDocs } from "../runtime/docs.js";
import type {
  CheckModel,
  ColumnModel,
  DataSetModel,
  OperationModel,
  ParamModel,
  RecordModel,
  ResultModel,
  RuleModel,
  ServiceModel,
} from "../runtime/model.js";
import type { SpecCheck, SpecColumn, SpecDocument, SpecParam, SpecResult, SpecRule } from "./spec.js";

export interface NormalizeOptions {
  /** Replaces service.namespace (easgen --namespace). */
  readonly namespace?: string;
}

export interface Normalized {
  readonly model: ServiceModel;
  readonly docs: ServiceDocs;
}

export function normalize(doc: SpecDocument, options: NormalizeOptions = {}): Normalized {
  return { model: normalizeModel(doc, options), docs: normalizeDocs(doc) };
}

function normalizeModel(doc: SpecDocument, options: NormalizeOptions): ServiceModel {
  const rules = new Map(Object.entries(doc.rules ?? {}).map(([name, rule]) => [name, ruleModel(name, rule)]));
  const records = Object.entries(doc.records ?? {}).map(([name, record]): RecordModel => ({
    name,
    fields: record.fields.map((field) => ({ name: field.name, type: field.type })),
  }));
  const dataSets = Object.entries(doc.dataSets ?? {}).map(([name, dataSet]): DataSetModel => ({
    name,
    dataSetName: dataSet.dataSetName,
    table: dataSet.table,
    columns: dataSet.columns.map(columnModel),
  }));
  const param = (spec: SpecParam, credential: boolean): ParamModel => ({
    name: spec.name,
    type: spec.type,
    // Value types cannot be absent on the SOAP wire (.NET writes them with minOccurs=1).
    required: spec.type === "string" ? (spec.required ?? false) : true,
    ...(spec.default === undefined ? {} : { default: spec.default }),
    rules: (spec.rules ?? []).map((name) => lookup(rules, name, "rule")),
    credential,
  });
  const credentials = (doc.service.credentials ?? []).map((spec) => param(spec, true));
  const result = (spec: SpecResult): ResultModel => {
    switch (spec.kind) {
      case "scalar":
        return { kind: "scalar", type: spec.type };
      case "list":
      case "record":
        return { kind: spec.kind, record: lookup(records, spec.record, "record") };
      case "dataSet":
        return { kind: "dataSet", dataSet: lookup(dataSets, spec.dataSet, "data set") };
    }
  };
  const operations = doc.groups.flatMap((group) =>
    group.operations.map((op): OperationModel => {
      const opResult = result(op.result);
      return {
        name: op.name,
        group: group.name,
        params: [...credentials, ...(op.params ?? []).map((spec) => param(spec, false))],
        checks: [...(op.checks ?? []).map(checkModel), ...columnNameChecks(opResult)],
        result: opResult,
      };
    }),
  );
  return {
    name: doc.service.name,
    namespace: options.namespace ?? doc.service.namespace,
    endpoint: doc.service.endpoint,
    groups: doc.groups.map((group) => ({
      name: group.name,
      title: group.title,
      operations: group.operations.map((op) => op.name),
    })),
    records,
    dataSets,
    operations,
  };
}

/** The runtime form of one named rule. */
export function ruleModel(name: string, rule: SpecRule): RuleModel {
  switch (rule.kind) {
    case "enum":
      return { kind: rule.kind, name, values: [...rule.values] };
    case "format":
      return { kind: rule.kind, name, format: rule.format };
    case "maxLength":
      return { kind: rule.kind, name, max: rule.max };
    case "intText":
      return { kind: rule.kind, name, min: rule.min, max: rule.max };
    case "xmlName":
      return { kind: rule.kind, name, max: rule.max };
    case "url":
      return { kind: rule.kind, name, schemes: [...rule.schemes] };
    case "csvSubscribers":
      return {
        kind: rule.kind,
        name,
        delimiters: [...rule.delimiters],
        maxDemographicFields: rule.maxDemographicFields,
      };
  }
}

function columnModel(column: SpecColumn): ColumnModel {
  return {
    property: column.property,
    ...(column.name === undefined ? {} : { name: column.name }),
    ...(column.nameFromParam === undefined ? {} : { nameFromParam: column.nameFromParam }),
    type: column.type,
  };
}

/** Every doc text of the spec by the name of what it documents; credentials are among each operation's params. */
function normalizeDocs(doc: SpecDocument): ServiceDocs {
  const credentials = (doc.service.credentials ?? []).map((param): [string, string] => [param.name, param.doc]);
  return {
    doc: doc.service.doc,
    operations: Object.fromEntries(
      doc.groups.flatMap((group) =>
        group.operations.map((op) => [
          op.name,
          {
            doc: op.doc,
            result: op.result.doc,
            params: Object.fromEntries([
              ...credentials,
              ...(op.params ?? []).map((param): [string, string] => [param.name, param.doc]),
            ]),
          },
        ]),
      ),
    ),
    records: Object.fromEntries(Object.entries(doc.records ?? {}).map(([name, record]) => [name, record.doc])),
    dataSets: Object.fromEntries(
      Object.entries(doc.dataSets ?? {}).map(([name, dataSet]) => [
        name,
        {
          doc: dataSet.doc,
          columns: Object.fromEntries(dataSet.columns.map((column) => [column.property, column.doc])),
        },
      ]),
    ),
  };
}

function checkModel(check: SpecCheck): CheckModel {
  switch (check.kind) {
    case "atLeastOne":
      return { kind: check.kind, params: [...check.params] };
    case "ordered":
      return { kind: check.kind, from: check.from, to: check.to };
    case "demographicLists":
      return {
        kind: check.kind,
        fields: check.fields,
        values: check.values,
        maxField: check.maxField,
        ...(check.splitLength === undefined ? {} : { splitLength: check.splitLength }),
      };
  }
}

/**
 * Decision: a parameter whose value names a DataSet column (nameFromParam) must not name one of the
 * DataSet's fixed columns, or the table would have two columns of one name (.NET compares them ignoring
 * case). Derived here from the columns rather than written in the spec, so it cannot drift from them.
 */
function columnNameChecks(result: ResultModel): CheckModel[] {
  if (result.kind !== "dataSet") return [];
  const columns = result.dataSet.columns;
  const reserved = columns.flatMap((column) => (column.name === undefined ? [] : [column.name]));
  const params = columns.flatMap((column) =>
    column.nameFromParam === undefined ? [] : [column.nameFromParam],
  );
  if (reserved.length === 0) return [];
  return [...new Set(params)].map((param) => ({ kind: "columnName", param, reserved }));
}

function lookup<T extends { readonly name: string }>(
  items: ReadonlyMap<string, T> | readonly T[],
  name: string,
  what: string,
): T {
  const found =
    items instanceof Map ? items.get(name) : (items as readonly T[]).find((item) => item.name === name);
  // validate.ts rejects unknown references; reaching this is a generator bug, not a user error.
  if (!found) throw new Error(`normalize: unknown ${what} "${name}" (was the spec validated?)`);
  return found;
}
