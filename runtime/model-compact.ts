// The compact form generated/model.ts writes its operation descriptors in, and clientOperations, which makes
// the descriptors (ClientOperationModel: the same objects a hand-written model holds) from it once, when the
// model is loaded. Only runtime data is compact: the Operations interface still types every descriptor with
// its Params and Result. A string parameter is its name alone, another type that is not nullable
// [name, type], anything else (credentials, nullable values) the parameter model itself.

import type { ClientOperationModel, ClientParamModel, HeaderModel, ResultModel, TypeModel } from "./model.js";

/** A parameter in the compact form. */
export type CompactParam = string | readonly [name: string, type: TypeModel] | ClientParamModel;

/**
 * An operation in the compact form: its parameters in wire order (credentials first), its result, and its
 * SOAP headers when it has any; its name is its key.
 */
export type CompactOperation =
  | readonly [params: readonly CompactParam[], result: ResultModel]
  | readonly [params: readonly CompactParam[], result: ResultModel, headers: readonly HeaderModel[]];

const STRING: TypeModel = { kind: "scalar", type: "string" };

function param(p: CompactParam): ClientParamModel {
  if (typeof p === "string") return { name: p, type: STRING };
  return "name" in p ? p : { name: p[0], type: p[1] };
}

/** The descriptors by name from their compact forms (`Ops` is the generated Operations interface). */
export function clientOperations<Ops>(compact: { readonly [Name in keyof Ops]: CompactOperation }): Ops {
  const out: Record<string, ClientOperationModel> = {};
  for (const [name, [params, result, headers]] of Object.entries<CompactOperation>(compact)) {
    out[name] = { name, params: params.map(param), result, headers };
  }
  // Every key of Ops got its descriptor; TypeScript cannot follow a loop over keys.
  return out as Ops;
}
