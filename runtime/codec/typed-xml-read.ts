// The reading half of typed-xml.ts for results the client's direct reader (result-read.ts) does not
// read itself: enums, arrays, and lists and records that are not flat (enum, array, record or nullable
// fields), XML values, and DataSets whose columns the spec does not name (dataset-untyped.ts). The
// generated model registers it (registerTypedReaders) only when a result needs it, so a client whose
// results are scalars, flat records and typed DataSets carries none of the generic walk.

import { readUntypedDataSet } from "./dataset-untyped.js";
import type { TypedResultReader } from "./result-read.js";
import type { TypeModel } from "../model.js";
import { resultType } from "./result.js";
import { readWire, wireOf } from "./typed-xml.js";

/** The reader for registerTypedReaders (result-read.ts): XML to wire values (wireOf), then to typed values (readWire). */
export const typedResultReader: TypedResultReader = (result, holder, ns, label) => {
  if (result.kind === "untypedDataSet") return readUntypedDataSet(holder);
  // Out and ref parameters: the response element, read as a record of OpResult and them.
  const type: TypeModel =
    result.kind === "response" ? { kind: "record", record: result.record } : resultType(result);
  return readWire(type, wireOf(type, holder, ns), label);
};
