// The reference peer's own reading of spec/ExternalAPIService.yaml: operations, parameters in wire order,
// result shapes. Deliberately independent of generator/ and generated/, so a bug there cannot hide in
// the yardstick it is measured with.

import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { parse } from "yaml";

export type RefType = "string" | "int" | "long" | "double" | "decimal" | "dateTime" | "boolean";
export type RefBinding = "soap11" | "soap12" | "httpGet" | "httpPost";
export const REF_BINDINGS: readonly RefBinding[] = ["soap11", "soap12", "httpGet", "httpPost"];

export interface RefParam {
  readonly name: string;
  readonly type: RefType;
  readonly required: boolean;
  readonly default?: string;
  readonly credential: boolean;
}

export interface RefField {
  readonly name: string;
  readonly type: RefType;
}

export interface RefColumn {
  readonly property: string;
  /** Fixed wire name, or undefined when the request parameter `nameFromParam` names the column. */
  readonly name?: string;
  readonly nameFromParam?: string;
  readonly type: RefType;
}

export type RefResult =
  | { readonly kind: "scalar"; readonly type: "int" | "long" }
  | { readonly kind: "list" | "record"; readonly record: string; readonly fields: readonly RefField[] }
  | {
      readonly kind: "dataSet";
      readonly dataSetName: string;
      readonly table: string;
      readonly columns: readonly RefColumn[];
    };

export interface RefOperation {
  readonly name: string;
  readonly namespace: string;
  readonly endpoint: string;
  /** The seed's "reading" group: operations that change nothing. */
  readonly readsOnly: boolean;
  /** Credentials first, then the operation's own parameters, in wire order. */
  readonly params: readonly RefParam[];
  readonly result: RefResult;
}

export interface RefService {
  readonly name: string;
  readonly namespace: string;
  readonly endpoint: string;
  readonly operations: ReadonlyMap<string, RefOperation>;
}

interface RawParam {
  name: string;
  type: RefType;
  required?: boolean;
  default?: string;
}
interface RawSpec {
  service: { name: string; namespace: string; endpoint: string; credentials: RawParam[] };
  records: Record<string, { fields: RefField[] }>;
  dataSets: Record<string, { dataSetName: string; table: string; columns: RefColumn[] }>;
  groups: {
    name: string;
    operations: {
      name: string;
      params: RawParam[];
      result: { kind: string; type?: "int" | "long"; record?: string; dataSet?: string };
    }[];
  }[];
}

export const SPEC_PATH = fileURLToPath(new URL("../../../spec/ExternalAPIService.yaml", import.meta.url));

function toParam(raw: RawParam, credential: boolean): RefParam {
  const param = { name: raw.name, type: raw.type, required: credential || raw.required === true, credential };
  return raw.default === undefined ? param : { ...param, default: raw.default };
}

function toResult(raw: RawSpec["groups"][number]["operations"][number]["result"], spec: RawSpec): RefResult {
  switch (raw.kind) {
    case "scalar":
      return { kind: "scalar", type: raw.type ?? "int" };
    case "list":
    case "record": {
      const record = raw.record ?? "";
      const found = spec.records[record];
      if (!found) throw new Error(`spec: unknown record ${record}`);
      return { kind: raw.kind, record, fields: found.fields.map((f) => ({ name: f.name, type: f.type })) };
    }
    case "dataSet": {
      const found = spec.dataSets[raw.dataSet ?? ""];
      if (!found) throw new Error(`spec: unknown data set ${raw.dataSet}`);
      return { kind: "dataSet", dataSetName: found.dataSetName, table: found.table, columns: found.columns };
    }
    default:
      throw new Error(`spec: unknown result kind ${raw.kind}`);
  }
}

/** Reads the spec; `namespace` overrides the service namespace (a legacy host may use another). */
export function loadReferenceService(options: { specPath?: string; namespace?: string } = {}): RefService {
  const spec = parse(readFileSync(options.specPath ?? SPEC_PATH, "utf8")) as RawSpec;
  const namespace = options.namespace ?? spec.service.namespace;
  const credentials = spec.service.credentials.map((c) => toParam(c, true));
  const operations = new Map<string, RefOperation>();
  for (const group of spec.groups) {
    for (const op of group.operations) {
      operations.set(op.name, {
        name: op.name,
        namespace,
        endpoint: spec.service.endpoint,
        readsOnly: group.name === "reading",
        params: [...credentials, ...op.params.map((p) => toParam(p, false))],
        result: toResult(op.result, spec),
      });
    }
  }
  return { name: spec.service.name, namespace, endpoint: spec.service.endpoint, operations };
}

/** The wire name of every DataSet column, given the request's wire values (ddField names one). */
export function columnNames(
  result: Extract<RefResult, { kind: "dataSet" }>,
  input: Readonly<Record<string, string>>,
): string[] {
  return result.columns.map((c) => c.name ?? input[c.nameFromParam ?? ""] ?? c.property);
}
