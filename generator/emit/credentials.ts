// The credentials of a service (spec `service.credentials`: the parameters every operation takes first) as
// one generated interface, {Service}Credentials in generated/types.ts: the client's config carries these
// properties (generated/client.ts ClientOptions) and a handler's context.credentials has this type
// (generated/server.ts CallContext). Each property is the credential's `property` (default: its name),
// required where the spec requires the credential, typed as a parameter of its type.

import type { InterfaceDeclarationStructure } from "ts-morph";
import type { ServiceDocTexts } from "../../runtime/server/docs.js";
import type { ParamModel, RecordModel, ServiceModel, TypeModel } from "../../runtime/model.js";
import { isValueType } from "../../runtime/codec/values.js";
import { StructureKind } from "../typescript-file.js";
import { propertyKey } from "./literal.js";
import { docs } from "./tsdoc.js";
import { tsType, VALUE_MAPPING } from "./value-mapping.js";

/** The generated interface's name: `{Service}Credentials`. */
export function credentialsTypeName(serviceName: string): string {
  return `${serviceName}Credentials`;
}

/** The service's credentials in wire order (every operation starts with them; normalize puts them there). */
function serviceCredentials(model: ServiceModel): readonly ParamModel[] {
  return model.operations[0]?.params.filter((p) => p.credential) ?? [];
}

/** A credential's key in the config and the context. */
function credentialProperty(param: Pick<ParamModel, "name" | "property">): string {
  return param.property ?? param.name;
}

/** The TypeScript type a caller gives a credential as: its scalar's parameter type, an enum's values. */
function credentialType(param: ParamModel): string {
  const type = param.type as TypeModel;
  const allowed = param.rules.flatMap((rule) => (rule.kind === "enum" ? [rule.values] : []))[0];
  const base =
    type.kind === "scalar"
      ? type.type === "string" && allowed
        ? allowed.map((value) => JSON.stringify(value)).join(" | ")
        : VALUE_MAPPING[type.type].param
      : type.kind === "enum"
        ? type.enum.values.map((value) => JSON.stringify(value)).join(" | ")
        : // validate refuses credentials of other types; never reached for a validated spec.
          "never";
  return param.nullable ? `${base} | null` : base;
}

/** Whether a caller may leave the credential out: an optional string (value types are always sent). */
function credentialOptional(param: ParamModel): boolean {
  const type = param.type as TypeModel;
  return !param.required && (param.nullable === true || (type.kind === "scalar" && type.type === "string"));
}

/** The record of the service's credentials header (spec `service.credentialsHeader`), if it has one. */
function credentialsHeader(model: ServiceModel): RecordModel | undefined {
  for (const op of model.operations) {
    const header = op.headers?.find((h) => h.credential);
    if (header !== undefined) return header.record;
  }
  return undefined;
}

/** `export interface {Service}Credentials { ... }` for generated/types.ts. */
export function credentialsInterface(
  model: ServiceModel,
  text: ServiceDocTexts,
): InterfaceDeclarationStructure {
  const header = credentialsHeader(model);
  if (header !== undefined) {
    // The header's fields, as a caller gives a parameter of their types (a string may be left out).
    return {
      kind: StructureKind.Interface,
      name: credentialsTypeName(model.name),
      isExported: true,
      docs: docs(
        `The credentials of ${model.name}, sent in the SOAP header ${header.name} (the fields of that record): ` +
          "the client's config carries them and a handler's context.credentials holds the header as received.",
      ),
      properties: header.fields.map((field) => ({
        name: propertyKey(field.name),
        isReadonly: true,
        type: field.nullable ? `${tsType(field.type, "param")} | null` : tsType(field.type, "param"),
        hasQuestionToken: !isValueType(field.type) || field.nullable === true,
        docs: docs(`The field ${field.name} of the SOAP header ${header.name}.`),
      })),
    };
  }
  const credentials = serviceCredentials(model);
  const first = model.operations[0];
  const paramDocs = first === undefined ? {} : (text.operations[first.name]?.params ?? {});
  const description =
    credentials.length === 0
      ? `${model.name} takes no credentials: its client's config has no credential keys.`
      : `The credentials every operation of ${model.name} takes first (${credentials.map((p) => p.name).join(", ")}), ` +
        "each under its property: the client's config carries them and a handler's context.credentials " +
        "holds them as received.";
  return {
    kind: StructureKind.Interface,
    name: credentialsTypeName(model.name),
    isExported: true,
    docs: docs(description),
    properties: credentials.map((param) => ({
      name: propertyKey(credentialProperty(param)),
      isReadonly: true,
      type: credentialType(param),
      hasQuestionToken: credentialOptional(param),
      docs: docs(`${paramDocs[param.name] ?? ""} Sent as the parameter ${param.name}.`.trim()),
    })),
  };
}
