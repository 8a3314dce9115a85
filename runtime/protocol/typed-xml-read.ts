// The reading half of protocol/typed-xml.ts for results the client's direct reader (result-read.ts) does not
// read itself: enums, arrays, and lists and records that are not flat (enum, array, record or nullable
// fields). The generated model registers it (registerTypedReaders) only when a result needs it, so a client
// whose results are scalars, flat records and DataSets carries none of the generic walk.

import type { TypeModel } from "../model.js";
import type { TypedResult, TypedResultReader } from "./result-read.js";
import { listType } from "./result.js";
import { readWire, wireOf } from "./typed-xml.js";

/** The type of such a result, for typed-xml. */
function resultType(result: TypedResult): TypeModel {
  switch (result.kind) {
    case "enum":
      return { kind: "enum", enum: result.enum };
    case "array":
      return result;
    case "list":
      return listType(result.record);
    case "record":
      return { kind: "record", record: result.record };
  }
}

/** The reader for registerTypedReaders (result-read.ts): XML to wire values (wireOf), then to typed values (readWire). */
export const typedResultReader: TypedResultReader = (result, holder, ns, label) => {
  const type = resultType(result);
  return readWire(type, wireOf(type, holder, ns), label);
};
