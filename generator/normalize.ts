// A validated spec document → the ServiceModel the runtime interprets (runtime/model.ts) and the ServiceDocTexts
// holding every doc text of the spec (runtime/server/docs.ts), which the model does not carry. Pure:
// no I/O, spec order everywhere, named rules inlined into each parameter, credentials prepended to every
// operation's parameters, and a columnName check added after the spec's own checks for every parameter
// that names a column of the operation's DataSet.

import type { ServiceDocTexts } from "../runtime/server/docs.js";
import {
  type CheckModel,
  type ColumnModel,
  type DataSetModel,
  type EnumModel,
  type FieldModel,
  type HeaderModel,
  type OperationModel,
  type ParamModel,
  type RecordModel,
  type ResultModel,
  type RuleModel,
  type ServiceModel,
  type SoapShapeModel,
  type SoapType,
  type TypeModel,
  ALL_BINDINGS,
} from "../runtime/model.js";
import { isValueType } from "../runtime/codec/values.js";
import {
  parseTypeRef,
  type SpecCheck,
  type SpecColumn,
  type SpecDocument,
  type SpecHeader,
  type SpecOperation,
  type SpecParam,
  type SpecRule,
  type SpecSoapShape,
  type SpecTypeRef,
} from "./spec.js";

/** Every scalar type name a spec may write. */
export const SCALAR_TYPES: readonly SoapType[] = [
  "string",
  "boolean",
  "float",
  "double",
  "decimal",
  "dateTime",
  "byte",
  "unsignedByte",
  "short",
  "unsignedShort",
  "int",
  "unsignedInt",
  "long",
  "unsignedLong",
  "base64Binary",
  "guid",
  "char",
];

export function isScalarName(name: string): name is SoapType {
  return (SCALAR_TYPES as readonly string[]).includes(name);
}

/** The XML types (.NET's XmlElement and XmlNode: one element carried as it is). */
export const XML_TYPES: readonly string[] = ["xmlElement", "xmlNode"];

export function isXmlName(name: string): boolean {
  return XML_TYPES.includes(name);
}

/** .NET's array type name: ArrayOf and the item type's name with its first letter upper-cased. */
function arrayTypeName(itemElement: string): string {
  return `ArrayOf${itemElement.charAt(0).toUpperCase()}${itemElement.slice(1)}`;
}

/**
 * Resolves type references against the spec's enums and records, building each record's model once (a
 * record nested in several places is one object). A record may hold itself through its fields (the model
 * is then a cyclic graph); bases may not form a cycle, which validate.ts refuses before this runs.
 */
class TypeResolver {
  private readonly records = new Map<string, RecordModel>();
  private readonly enums: ReadonlyMap<string, EnumModel>;
  private readonly inProgress = new Set<string>();

  constructor(private readonly doc: SpecDocument) {
    this.enums = new Map(
      Object.entries(doc.enums ?? {}).map(([name, spec]) => [
        name,
        { name, values: [...spec.values], ...(spec.flags === true ? { flags: true as const } : {}) },
      ]),
    );
  }

  enumList(): EnumModel[] {
    return [...this.enums.values()];
  }

  recordList(): RecordModel[] {
    return Object.keys(this.doc.records ?? {}).map((name) => this.record(name));
  }

  record(name: string): RecordModel {
    if (this.records.size === 0) this.buildRecords();
    const model = this.records.get(name);
    if (!model) throw new Error(`normalize: unknown record "${name}" (was the spec validated?)`);
    return model;
  }

  /**
   * Every record's model. A record may hold itself through its fields (the models then form a cyclic
   * graph), so each model exists before any field is resolved; fields are filled bases first, each record
   * taking its base's complete list first. validate.ts refuses a cycle of bases before this runs.
   */
  private buildRecords(): void {
    const specs = this.doc.records ?? {};
    const fields = new Map<string, FieldModel[]>();
    for (const [name, spec] of Object.entries(specs)) {
      const list: FieldModel[] = [];
      fields.set(name, list);
      this.records.set(name, {
        name,
        ...(spec.base === undefined ? {} : { base: spec.base }),
        ...(spec.abstract === true ? { abstract: true as const } : {}),
        ...(spec.choice === true ? { choice: true as const } : {}),
        fields: list,
      });
    }
    const filled = new Set<string>();
    const fill = (name: string): void => {
      if (filled.has(name)) return;
      if (this.inProgress.has(name))
        throw new Error(`normalize: record "${name}" extends itself (was the spec validated?)`);
      this.inProgress.add(name);
      const spec = specs[name]!;
      const list = fields.get(name)!;
      if (spec.base !== undefined) {
        if (!fields.has(spec.base))
          throw new Error(`normalize: unknown record "${spec.base}" (was the spec validated?)`);
        fill(spec.base);
        list.push(...fields.get(spec.base)!);
      }
      for (const field of spec.fields)
        list.push({
          name: field.name,
          type: this.type(field.type, field.itemName),
          ...(field.nullable ? { nullable: true as const } : {}),
          ...(field.choice === undefined ? {} : { choice: field.choice }),
        });
      this.inProgress.delete(name);
      filled.add(name);
    };
    for (const name of fields.keys()) fill(name);
  }

  /** A base type name (no `[]`) as a TypeModel. */
  private base(name: string): Exclude<TypeModel, { kind: "array" }> {
    if (isScalarName(name)) return { kind: "scalar", type: name };
    if (name === "xmlElement") return { kind: "xml" };
    if (name === "xmlNode") return { kind: "xml", mixed: true };
    const enumModel = this.enums.get(name);
    if (enumModel) return { kind: "enum", enum: enumModel };
    return { kind: "record", record: this.record(name) };
  }

  /** `itemName`: an array's item element when not its type's name (spec `itemName`, [XmlArrayItem]). */
  type(ref: SpecTypeRef, itemName?: string): TypeModel {
    const { base, array } = parseTypeRef(ref);
    const item = this.base(base);
    if (!array) return item;
    if (item.kind === "xml") throw new Error(`normalize: arrays of ${base} (was the spec validated?)`);
    const typeElement =
      item.kind === "scalar" ? item.type : item.kind === "enum" ? item.enum.name : item.record.name;
    if (itemName === undefined || itemName === typeElement)
      return { kind: "array", item, itemElement: typeElement, typeName: arrayTypeName(typeElement) };
    return { kind: "array", item, itemElement: itemName, typeName: this.renamedArray(typeElement, itemName) };
  }

  /** Array type names of items renamed, by item type and item element. */
  private readonly renamedArrays = new Map<string, string>();

  /**
   * The WSDL type of an array whose items are named other than their type: `ArrayOf{Type}1`, `2`, … in the
   * order the spec first uses each item name, as .NET numbers them (`ArrayOf{Type}` stays the plain one's).
   */
  private renamedArray(typeElement: string, itemName: string): string {
    const key = `${typeElement} ${itemName}`;
    let name = this.renamedArrays.get(key);
    if (name === undefined) {
      const count = [...this.renamedArrays.keys()].filter((k) => k.startsWith(`${typeElement} `)).length;
      name = `${arrayTypeName(typeElement)}${count + 1}`;
      this.renamedArrays.set(key, name);
    }
    return name;
  }

  /** An operation's result: void without one, oneWay when marked so. */
  result(op: Pick<SpecOperation, "result" | "oneWay">, dataSets: readonly DataSetModel[]): ResultModel {
    if (op.oneWay) return { kind: "oneWay" };
    const spec = op.result;
    if (spec === undefined) return { kind: "void" };
    switch (spec.kind) {
      case "scalar":
        return { kind: "scalar", type: spec.type };
      case "list":
      case "record":
        return { kind: spec.kind, record: this.record(spec.record) };
      case "dataSet":
        return spec.dataSet === undefined
          ? { kind: "untypedDataSet", ...(spec.dataTable === true ? { dataTable: true as const } : {}) }
          : { kind: "dataSet", dataSet: lookup(dataSets, spec.dataSet, "data set") };
      case undefined: {
        const type = this.type(spec.type);
        const nullable = spec.nullable === true ? { nullable: true as const } : {};
        switch (type.kind) {
          case "scalar":
            return { kind: "scalar", type: type.type, ...nullable };
          case "enum":
            return { kind: "enum", enum: type.enum, ...nullable };
          case "record":
            return { kind: "record", record: type.record };
          case "xml":
            return type;
          case "array":
            return type.item.kind === "record"
              ? { kind: "list", record: type.item.record }
              : { kind: "array", item: type.item, itemElement: type.itemElement, typeName: type.typeName };
        }
      }
    }
  }
}

export interface NormalizeOptions {
  /** Replaces service.namespace (easgen --namespace). */
  readonly namespace?: string;
}

export interface Normalized {
  readonly model: ServiceModel;
  readonly docs: ServiceDocTexts;
}

export function normalize(doc: SpecDocument, options: NormalizeOptions = {}): Normalized {
  return { model: normalizeModel(doc, options), docs: normalizeDocs(doc) };
}

function normalizeModel(doc: SpecDocument, options: NormalizeOptions): ServiceModel {
  const rules = new Map(Object.entries(doc.rules ?? {}).map(([name, rule]) => [name, ruleModel(name, rule)]));
  const types = new TypeResolver(doc);
  const records = types.recordList();
  const dataSets = Object.entries(doc.dataSets ?? {}).map(
    ([name, dataSet]): DataSetModel => ({
      name,
      dataSetName: dataSet.dataSetName,
      table: dataSet.table,
      columns: dataSet.columns.map(columnModel),
    }),
  );
  const param = (spec: SpecParam, credential: boolean): ParamModel => {
    const type = types.type(spec.type, spec.itemName);
    return {
      name: spec.name,
      type,
      ...(spec.nullable ? { nullable: true as const } : {}),
      ...(spec.choice === undefined ? {} : { choice: spec.choice }),
      // Value types cannot be absent on the SOAP wire (.NET writes them with minOccurs=1); a nullable one
      // may be nil.
      required: isValueType(type) && !spec.nullable ? true : (spec.required ?? false),
      ...(spec.default === undefined ? {} : { default: spec.default }),
      rules: (spec.rules ?? []).map((name) => lookup(rules, name, "rule")),
      credential,
    };
  };
  // A credential carries its property (the config and context key) only when it differs from its name.
  const credentials = (doc.service.credentials ?? []).map(
    (spec): ParamModel => ({
      ...param(spec, true),
      ...(spec.property === undefined || spec.property === spec.name ? {} : { property: spec.property }),
    }),
  );
  const credentialsHeader = doc.service.credentialsHeader;
  /**
   * An operation's headers in spec order; the credentials header (spec `service.credentialsHeader`) first,
   * in and required, unless the operation lists it itself (then as it says, marked the credential).
   */
  const headers = (specs: readonly SpecHeader[]): HeaderModel[] => {
    const listed = specs.map(
      (spec): HeaderModel => ({
        record: types.record(spec.record),
        direction: spec.direction ?? "in",
        ...(spec.required === true ? { required: true as const } : {}),
        ...(spec.record === credentialsHeader ? { credential: true as const } : {}),
      }),
    );
    if (credentialsHeader === undefined || specs.some((spec) => spec.record === credentialsHeader))
      return listed;
    return [
      { record: types.record(credentialsHeader), direction: "in", required: true, credential: true },
      ...listed,
    ];
  };
  const operations = doc.groups.flatMap((group) =>
    group.operations.map((op): OperationModel => {
      const answered = (op.params ?? []).filter((p) => (p.direction ?? "in") !== "in");
      const declared = types.result(op, dataSets);
      const opResult =
        answered.length === 0
          ? declared
          : responseResult(
              op.soap?.resultElement ?? `${op.messageName ?? op.name}Result`,
              op.name,
              declared,
              answered.map((p) => ({
                name: p.name,
                type: types.type(p.type, p.itemName),
                ...(p.nullable ? { nullable: true as const } : {}),
                ...(p.choice === undefined ? {} : { choice: p.choice }),
              })),
            );
      const opHeaders = headers(op.headers ?? []);
      return {
        name: op.name,
        ...(op.messageName === undefined || op.messageName === op.name
          ? {}
          : { messageName: op.messageName }),
        group: group.name,
        params: [
          ...credentials,
          ...(op.params ?? []).filter((p) => p.direction !== "out").map((spec) => param(spec, false)),
        ],
        checks: [...(op.checks ?? []).map(checkModel), ...columnNameChecks(opResult)],
        result: opResult,
        ...(opHeaders.length > 0 ? { headers: opHeaders } : {}),
        ...(op.soap === undefined ? {} : { soap: soapShape(op.soap) }),
        ...(op.effect === undefined ? {} : { effect: op.effect }),
      };
    }),
  );
  return {
    name: doc.service.name,
    namespace: options.namespace ?? doc.service.namespace,
    endpoint: doc.service.endpoint,
    // All four is the default and is left out, so such a service's model is as it always was.
    ...(doc.service.bindings === undefined || ALL_BINDINGS.every((b) => doc.service.bindings!.includes(b))
      ? {}
      : { bindings: ALL_BINDINGS.filter((b) => doc.service.bindings!.includes(b)) }),
    groups: doc.groups.map((group) => ({
      name: group.name,
      title: group.title,
      operations: group.operations.map((op) => op.name),
    })),
    records,
    enums: types.enumList(),
    dataSets,
    operations,
  };
}

/**
 * The result of an operation with out or ref parameters: the response element as a record of
 * `{Op}Result` (unless void) and those parameters, in order (ASMX writes them after the result).
 */
function responseResult(
  element: string,
  name: string,
  result: ResultModel,
  answered: readonly FieldModel[],
): ResultModel {
  const field = ((): FieldModel | undefined => {
    switch (result.kind) {
      case "void":
        return undefined;
      case "scalar":
        return {
          name: element,
          type: { kind: "scalar", type: result.type },
          ...(result.nullable ? { nullable: true as const } : {}),
        };
      case "enum":
        return {
          name: element,
          type: { kind: "enum", enum: result.enum },
          ...(result.nullable ? { nullable: true as const } : {}),
        };
      case "record":
        return { name: element, type: { kind: "record", record: result.record } };
      case "list":
        return {
          name: element,
          type: {
            kind: "array",
            item: { kind: "record", record: result.record },
            itemElement: result.record.name,
            typeName: arrayTypeName(result.record.name),
          },
        };
      case "array":
      case "xml":
        return { name: element, type: result };
      default:
        throw new Error(`normalize: out parameters beside a ${result.kind} result (was the spec validated?)`);
    }
  })();
  return {
    kind: "response",
    record: { name: `${name}Response`, fields: [...(field === undefined ? [] : [field]), ...answered] },
  };
}

/** The runtime form of an operation's `soap` shape: its members as written, `bare` only when true. */
function soapShape(spec: SpecSoapShape): SoapShapeModel {
  const { parameterStyle, ...names } = spec;
  return { ...names, ...(parameterStyle === "bare" ? { bare: true as const } : {}) };
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
    case "pattern":
      return { kind: rule.kind, name, pattern: rule.pattern };
    case "length":
    case "range":
      return {
        kind: rule.kind,
        name,
        ...(rule.min === undefined ? {} : { min: rule.min }),
        ...(rule.max === undefined ? {} : { max: rule.max }),
      };
    case "extension":
      // The validator function itself is not data: the generated server model imports it by name.
      return {
        kind: rule.kind,
        name,
        validator: rule.validator,
        options: rule.options ?? {},
        text: rule.text,
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
function normalizeDocs(doc: SpecDocument): ServiceDocTexts {
  const credentials = (doc.service.credentials ?? []).map((param): [string, string] => [
    param.name,
    param.doc,
  ]);
  return {
    doc: doc.service.doc,
    operations: Object.fromEntries(
      doc.groups.flatMap((group) =>
        group.operations.map((op) => [
          op.name,
          {
            doc: op.doc,
            result: op.result?.doc ?? "",
            params: Object.fromEntries([
              ...credentials,
              ...(op.params ?? []).map((param): [string, string] => [param.name, param.doc]),
            ]),
          },
        ]),
      ),
    ),
    records: Object.fromEntries(
      Object.entries(doc.records ?? {}).map(([name, record]) => [name, record.doc]),
    ),
    ...(doc.enums === undefined
      ? {}
      : { enums: Object.fromEntries(Object.entries(doc.enums).map(([name, e]) => [name, e.doc])) }),
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
    case "extension":
      return {
        kind: check.kind,
        validator: check.validator,
        params: [...check.params],
        options: check.options ?? {},
        text: check.text,
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
