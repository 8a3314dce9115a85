// Where the client finds the code that writes and reads SOAP headers (soap-headers.ts). The generated model
// registers it (registerHeaderCodec) only when some operation has headers, so a client of a service without
// any carries none of it (nor the generic record reader and writer it uses).

import type { ClientOperationModel } from "../model.js";
import type { XmlElement } from "../xml/tree.js";
import type { BindingName } from "../model.js";
import type { WireRequest } from "./binding.js";

export interface HeaderCodec {
  /**
   * The request with the headers a call of `op` sends: `given` (the call's or the client's) and the
   * credentials header made of its fields in `config`, in a `soap:Header` before the Body. Throws TypeError
   * for a required header missing, or for any required header on HTTP GET/POST, which carry none.
   */
  attach(
    request: WireRequest,
    op: ClientOperationModel,
    given: object | undefined,
    config: object,
    binding: BindingName,
    ns: string,
  ): WireRequest;
  /** The headers `op` answers found in an answer's envelope, by name. */
  read(op: ClientOperationModel, envelope: XmlElement, ns: string): Record<string, unknown>;
}

/** The registered codec, if any (the generated model of a service with headers registers it). */
export const headerHooks: { codec?: HeaderCodec } = {};

export function registerHeaderCodec(codec: HeaderCodec): void {
  headerHooks.codec = codec;
}
