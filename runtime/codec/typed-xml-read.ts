// The reading half of typed-xml.ts for results the client's direct reader (result-read.ts) does not
// read itself: enums, arrays, and lists and records that are not flat (enum, array, record or nullable
// fields). The generated model registers it (registerTypedReaders) only when a result needs it, so a client
// whose results are scalars, flat records and DataSets carries none of the generic walk.

import type { TypedResultReader } from "./result-read.js";
import { resultType } from "./result.js";
import { readWire, wireOf } from "./typed-xml.js";

/** The reader for registerTypedReaders (result-read.ts): XML to wire values (wireOf), then to typed values (readWire). */
export const typedResultReader: TypedResultReader = (result, holder, ns, label) => {
  const type = resultType(result);
  return readWire(type, wireOf(type, holder, ns), label);
};
