// Parameters between their wire form (one WireValue per parameter, in spec order: a text, a nil, the items
// of an array, the fields of a record) and typed values. The values of every type are read and formatted
// by typed-xml.ts; this module adds what only a parameter has: absence (required, defaults, the
// binding's presence rule) and the errors that name it.

import { clientError, ErrorCodes, ServiceError } from "../errors.js";
import type { ClientOperationModel, OperationModel, ParamModel, ServiceModel } from "../model.js";
import {
  choiceClash,
  isReference,
  readWire,
  setKey,
  TypedValueError,
  registeredWriters,
  type WireValue,
} from "./typed-xml.js";
import { clientFormat, ConversionError } from "./values.js";
import { validateParams } from "./rules.js";

export type { WireFields, WireValue } from "./typed-xml.js";

/**
 * The wire value per parameter, index-aligned with OperationModel.params: the text of a scalar or enum, null
 * for xsi:nil, undefined when absent, an array's items (SOAP items, or an HTTP field's repeated values),
 * a record's fields.
 */
export type ParamTexts = WireValue[];

/** Typed values keyed by parameter name (credentials included). */
export type ParamValues = Record<string, unknown>;

/** How a binding carries absence: SOAP may omit an element; HTTP GET/POST must send every field. */
export type Presence = "element" | "field";

function missing(param: ParamModel): ServiceError {
  return new ServiceError(ErrorCodes.MissingParameter, `Missing parameter: ${param.name}.`, {
    side: "client",
    exceptionType: "System.InvalidOperationException",
    parameter: param.name,
  });
}

function requiredError(param: ParamModel): ServiceError {
  return clientError(
    ErrorCodes.RequiredParameter,
    `Parameter ${param.name} is required and must not be empty.`,
    {
      parameter: param.name,
    },
  );
}

/** A value that does not read as its type, as the client error naming the parameter. */
function typedError(param: ParamModel, error: unknown): unknown {
  if (!(error instanceof TypedValueError)) return error;
  if (error.kind === "missing") {
    return new ServiceError(ErrorCodes.MissingParameter, error.message, {
      side: "client",
      exceptionType: "System.InvalidOperationException",
      parameter: param.name,
    });
  }
  return clientError(ErrorCodes.InvalidType, error.message, { parameter: param.name });
}

function readOne(param: ParamModel, wire: WireValue, presence: Presence): unknown {
  const type = param.type;
  if (type.kind === "scalar" && type.type === "string") {
    // A string: nil reads as absent; absent or empty takes the default or fails a required parameter.
    const text = typeof wire === "string" ? wire : undefined;
    if (text === undefined && presence === "field") throw missing(param);
    if (text === undefined || text === "") {
      if (param.required) throw requiredError(param);
      return param.default ?? text;
    }
    return text;
  }
  if (wire === undefined || wire === null) {
    if (isReference(type)) {
      // base64Binary, arrays and records: absent means null (left out of the handler's parameters). The
      // HTTP bindings send every field, but an empty array is no field at all (ASMX reads arrays of
      // primitives from repeated fields): an absent array is an empty one there.
      if (presence === "field") {
        if (type.kind === "array") return [];
        throw missing(param);
      }
      if (param.required) throw requiredError(param);
      return undefined;
    }
    // A value type: nil (or, in SOAP, absence) is null when it is nullable, else it is missing (ASMX would
    // pass 0: ours, easgen docs/wire.md §1a).
    if (param.nullable && (wire === null || presence === "element")) return null;
    throw missing(param);
  }
  // HTTP GET/POST cannot say nil: an empty value of a nullable value type is null.
  if (param.nullable && presence === "field" && wire === "") return null;
  try {
    return readWire(type, wire, `parameter ${param.name}`);
  } catch (error) {
    throw typedError(param, error);
  }
}

/**
 * Server side: converts wire values to typed values, applies defaults, then runs the spec's rules.
 * Throws a client-side ServiceError naming the first parameter at fault.
 */
export function readParams(op: OperationModel, texts: ParamTexts, presence: Presence): ParamValues {
  const values: ParamValues = {};
  const params = op.params;
  const clash = choiceClash(params, (i) => texts[i] !== undefined && texts[i] !== null);
  if (clash !== undefined) {
    const at = params.find((p, i) => p.choice !== undefined && texts[i] != null)!;
    throw clientError(ErrorCodes.InvalidType, `${clash}.`, { parameter: at.name });
  }
  for (let i = 0; i < params.length; i++) {
    const param = params[i]!;
    setKey(values, param.name, readOne(param, texts[i], presence));
  }
  const error = validateParams(op, values);
  if (error) throw error;
  return values;
}

/**
 * Client side: formats typed values as wire values. An absent string, byte array, array or record stays
 * undefined (the binding decides whether that means "omit" or "send empty"); an absent nullable value is
 * null (nil). Throws TypeError naming the parameter (and the item or field inside it).
 */
export function writeParams(op: ClientOperationModel, values: ParamValues): ParamTexts {
  const fail = (message: string) => new TypeError(`${op.name}: parameter ${message}.`);
  const clash = choiceClash(op.params, (i) => {
    const name = op.params[i]!.name;
    return Object.hasOwn(values, name) && values[name] !== undefined && values[name] !== null;
  });
  if (clash !== undefined) throw new TypeError(`${op.name}: ${clash}.`);
  return op.params.map((param) => {
    const value = Object.hasOwn(values, param.name) ? values[param.name] : undefined;
    if (value === undefined || value === null) {
      if (param.nullable) return null;
      if (isReference(param.type)) return undefined;
      throw fail(`${param.name} is required`);
    }
    if (param.type.kind !== "scalar")
      return registeredWriters(param.type).format(param.type, value, param.name, fail);
    // A scalar, by the client's writers (registerClientCodecs), as formatWire formats it.
    try {
      return clientFormat(param.type.type, value);
    } catch (error) {
      if (!(error instanceof ConversionError)) throw error;
      throw fail(`${param.name} ${error.message}`);
    }
  });
}

/** Parameter name -> position in OperationModel.params, per operation (the first position if a name repeats). */
export function paramIndexes(service: ServiceModel): Map<OperationModel, Map<string, number>> {
  const out = new Map<OperationModel, Map<string, number>>();
  for (const op of service.operations) {
    const index = new Map<string, number>();
    op.params.forEach((p, i) => {
      if (!index.has(p.name)) index.set(p.name, i);
    });
    out.set(op, index);
  }
  return out;
}
