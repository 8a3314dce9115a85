// Parameters between their wire text (one slot per parameter, in spec order) and typed values.

import { clientError, ErrorCodes, ServiceError } from "./errors.js";
import type { ClientOperationModel, OperationModel, ParamModel, ServiceModel } from "./model.js";
import { validateParams } from "./rules.js";
import { oneLine } from "./safe-error.js";
import { ConversionError, dotNetTypeName, formatValue, parseValue } from "./values.js";

/** Wire text per parameter, index-aligned with OperationModel.params; undefined = absent. */
export type ParamTexts = (string | undefined)[];

/** Typed values keyed by parameter name (credentials included). */
export type ParamValues = Record<string, unknown>;

/** How a binding carries absence: SOAP may omit an element; HTTP GET/POST must send every field. */
export type Presence = "element" | "field";

/** A value for a message: one line, at most 40 characters and "..." (a 1 MB value is not reflected). */
function shown(text: string): string {
  return oneLine(text, 40);
}

function missing(param: ParamModel): ServiceError {
  return new ServiceError(ErrorCodes.MissingParameter, `Missing parameter: ${param.name}.`, {
    side: "client",
    exceptionType: "System.InvalidOperationException",
    parameter: param.name,
  });
}

function readOne(param: ParamModel, text: string | undefined, presence: Presence): unknown {
  if (text === undefined) {
    if (presence === "field" || param.type !== "string") throw missing(param);
  } else if (param.type !== "string") {
    try {
      return parseValue(param.type, text);
    } catch (error) {
      if (!(error instanceof ConversionError)) throw error;
      throw clientError(
        ErrorCodes.InvalidType,
        `Cannot convert '${shown(text)}' to ${dotNetTypeName[param.type]} for parameter ${param.name}: the value ${error.message}.`,
        { parameter: param.name },
      );
    }
  }
  if (text === undefined || text === "") {
    if (param.required) {
      throw clientError(ErrorCodes.RequiredParameter, `Parameter ${param.name} is required and must not be empty.`, {
        parameter: param.name,
      });
    }
    return param.default ?? text;
  }
  return text;
}

/**
 * Server side: converts wire texts to typed values, applies defaults, then runs the spec's rules.
 * Throws a client-side ServiceError naming the first parameter at fault.
 */
export function readParams(op: OperationModel, texts: ParamTexts, presence: Presence): ParamValues {
  const values: ParamValues = {};
  const params = op.params;
  for (let i = 0; i < params.length; i++) {
    const param = params[i]!;
    values[param.name] = readOne(param, texts[i], presence);
  }
  const error = validateParams(op, values);
  if (error) throw error;
  return values;
}

/**
 * Client side: formats typed values as wire texts. An absent optional value stays undefined (the
 * binding decides whether that means "omit" or "send empty"). Throws TypeError naming the parameter.
 */
export function writeParams(op: ClientOperationModel, values: ParamValues): ParamTexts {
  const texts: ParamTexts = new Array(op.params.length);
  for (let i = 0; i < op.params.length; i++) {
    const param = op.params[i]!;
    const value = values[param.name];
    if (value === undefined || value === null) {
      if (param.type !== "string") throw new TypeError(`${op.name}: parameter ${param.name} is required.`);
      texts[i] = undefined;
      continue;
    }
    try {
      texts[i] = formatValue(param.type, value);
    } catch (error) {
      if (!(error instanceof ConversionError)) throw error;
      throw new TypeError(`${op.name}: parameter ${param.name} ${error.message}.`);
    }
  }
  return texts;
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
