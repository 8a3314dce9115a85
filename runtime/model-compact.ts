// The compact form generated/model.ts writes its operation descriptors in, and clientOperations, which makes
// the descriptors (ClientOperationModel: the same objects a hand-written model holds) from it once, when the
// model is loaded. Only runtime data is compact: the Operations interface still types every descriptor with
// its Params and Result. A string parameter is its name alone, another type that is not nullable
// [name, type], anything else (credentials, nullable values) the parameter model itself; the fields of a
// record likewise (clientRecords).

import type {
  ClientOperationModel,
  ClientParamModel,
  FieldModel,
  HeaderModel,
  RecordModel,
  ResultModel,
  SoapShapeModel,
  TypeModel,
} from "./model.js";

/** A parameter in the compact form. */
export type CompactParam = string | readonly [name: string, type: TypeModel] | ClientParamModel;

/** A record field in the compact form: as a parameter (a nullable one the field model itself). */
export type CompactField = string | readonly [name: string, type: TypeModel] | FieldModel;

/**
 * A record in the compact form: its fields in wire order (its name is its key), or the record model itself
 * (a record with a base, an abstract one, or one other records hold, which the model declares on its own).
 */
export type CompactRecord = readonly CompactField[] | RecordModel;

/**
 * An operation in the compact form: its parameters in wire order (credentials first), its result, its
 * SOAP headers when it has any, its MessageName when its name on the wire is not its key, and its SOAP shape
 * when it has one (the slots before it then undefined when empty).
 */
export type CompactOperation =
  | readonly [params: readonly CompactParam[], result: ResultModel]
  | readonly [params: readonly CompactParam[], result: ResultModel, headers: readonly HeaderModel[]]
  | readonly [
      params: readonly CompactParam[],
      result: ResultModel,
      headers: readonly HeaderModel[] | undefined,
      messageName: string | undefined,
      soap?: SoapShapeModel,
    ];

const STRING: TypeModel = { kind: "scalar", type: "string" };

function param(p: CompactParam | CompactField): ClientParamModel {
  if (typeof p === "string") return { name: p, type: STRING };
  return "name" in p ? p : { name: p[0], type: p[1] };
}

/**
 * The descriptors by name from their compact forms (`Ops` is the generated Operations interface).
 *
 * @codegen generated code imports it (test/repo/knip.test.ts)
 */
export function clientOperations<Ops>(compact: { readonly [Name in keyof Ops]: CompactOperation }): Ops {
  const out: Record<string, ClientOperationModel> = {};
  for (const [name, [params, result, headers, messageName, soap]] of Object.entries<CompactOperation>(
    compact,
  )) {
    const op: { -readonly [K in keyof ClientOperationModel]: ClientOperationModel[K] } = {
      name,
      params: params.map(param),
      result,
      headers,
    };
    if (messageName !== undefined) op.messageName = messageName;
    if (soap !== undefined) op.soap = soap;
    out[name] = op;
  }
  // Every key of Ops got its descriptor; TypeScript cannot follow a loop over keys.
  return out as Ops;
}

/**
 * The records by name from their compact forms (fields as parameters are written); a record model given
 * as itself is kept.
 *
 * @codegen generated code imports it (test/repo/knip.test.ts)
 */
export function clientRecords<const Compact extends { readonly [name: string]: CompactRecord }>(
  compact: Compact,
): { readonly [Name in keyof Compact]: RecordModel } {
  const out: Record<string, RecordModel> = {};
  for (const [name, record] of Object.entries<CompactRecord>(compact)) {
    out[name] = Array.isArray(record) ? { name, fields: record.map(param) } : (record as RecordModel);
  }
  // Every key of Compact got its record; TypeScript cannot follow a loop over keys.
  return out as { readonly [Name in keyof Compact]: RecordModel };
}
