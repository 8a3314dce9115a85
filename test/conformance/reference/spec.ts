// The reference peer's view of spec/ExternalAPIService.yaml: operations, parameters in wire order, result
// shapes. The spec is read by the generator's loader and normalizer (the one reading of docs/spec.md's
// forms, current and older); everything the reference puts on the wire or reads off it (request.ts,
// response.ts, shape.ts, values.ts) is its own, independent of generator/ and generated/, so a bug in
// the emitted code cannot hide in the yardstick it is measured with.

import { fileURLToPath } from "node:url";
import { loadModel } from "../../../generator/generate.js";
import type { OperationModel, RecordModel, TypeModel } from "../../../runtime/model.js";

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
  | { readonly kind: "scalar"; readonly type: RefType }
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

/** The types the reference renders and converts (reference/values.ts), by their spec names. */
const REF_TYPES: readonly RefType[] = ["string", "int", "long", "double", "decimal", "dateTime", "boolean"];

export const SPEC_PATH = fileURLToPath(new URL("../../../spec/ExternalAPIService.yaml", import.meta.url));

/** The spec's reading of a type, if it is one the reference covers; `where` names it in the error. */
function refType(type: TypeModel, nullable: boolean | undefined, where: string): RefType {
  if (type.kind === "scalar" && !nullable && (REF_TYPES as readonly string[]).includes(type.type)) {
    return type.type as RefType;
  }
  const name =
    type.kind === "scalar" ? type.type : type.kind === "array" ? `${type.itemElement}[]` : type.kind;
  throw new Error(
    `conformance reference: ${where} is ${nullable ? "nullable " : ""}${name}; the reference covers ` +
      `${REF_TYPES.join(", ")} (extend test/conformance/reference/ to cover more)`,
  );
}

function toResult(op: OperationModel): RefResult {
  const result = op.result;
  const fields = (record: RecordModel): RefField[] =>
    record.fields.map((f) => ({
      name: f.name,
      type: refType(f.type, f.nullable, `${record.name}.${f.name}`),
    }));
  switch (result.kind) {
    case "scalar":
      return { kind: "scalar", type: refType(result, false, `${op.name}'s result`) };
    case "list":
    case "record":
      return { kind: result.kind, record: result.record.name, fields: fields(result.record) };
    case "dataSet": {
      const { dataSetName, table, columns } = result.dataSet;
      return {
        kind: "dataSet",
        dataSetName,
        table,
        columns: columns.map((c) => ({
          property: c.property,
          ...(c.name === undefined ? {} : { name: c.name }),
          ...(c.nameFromParam === undefined ? {} : { nameFromParam: c.nameFromParam }),
          type: refType({ kind: "scalar", type: c.type }, false, `${op.name}'s column ${c.property}`),
        })),
      };
    }
    default:
      throw new Error(
        `conformance reference: ${op.name}'s result is ${result.kind === "array" ? `${result.itemElement}[]` : result.kind}; ` +
          "the reference renders scalar, record, list (record[]) and DataSet results (extend test/conformance/reference/)",
      );
  }
}

/**
 * Reads the spec as the generator does (load, validate, normalize: every result form of docs/spec.md,
 * current and older, means the same), then keeps what the wire needs; `namespace` overrides the service
 * namespace (a legacy host may use another). Throws with the validator's messages for a spec it refuses.
 */
export function loadReferenceService(options: { specPath?: string; namespace?: string } = {}): RefService {
  const loaded = loadModel({
    spec: options.specPath ?? SPEC_PATH,
    ...(options.namespace === undefined ? {} : { namespace: options.namespace }),
  });
  if (!loaded.ok) {
    throw new Error(
      `conformance reference: the spec does not validate:\n${loaded.diagnostics
        .map((d) => `${d.file}:${d.line}:${d.col} ${d.message}`)
        .join("\n")}`,
    );
  }
  const model = loaded.model;
  const operations = new Map<string, RefOperation>();
  for (const op of model.operations) {
    operations.set(op.name, {
      name: op.name,
      namespace: model.namespace,
      endpoint: model.endpoint,
      readsOnly: op.group === "reading",
      params: op.params.map((p) => ({
        name: p.name,
        type: refType(p.type, p.nullable, `${op.name}'s parameter ${p.name}`),
        required: p.required,
        credential: p.credential,
        ...(p.default === undefined ? {} : { default: p.default }),
      })),
      result: toResult(op),
    });
  }
  return { name: model.name, namespace: model.namespace, endpoint: model.endpoint, operations };
}

/** The wire name of every DataSet column, given the request's wire values (ddField names one). */
export function columnNames(
  result: Extract<RefResult, { kind: "dataSet" }>,
  input: Readonly<Record<string, string>>,
): string[] {
  return result.columns.map((c) => c.name ?? input[c.nameFromParam ?? ""] ?? c.property);
}
