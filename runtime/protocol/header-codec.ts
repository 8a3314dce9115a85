// Where the client finds the code that writes and reads SOAP headers (soap-headers.ts). The generated model
// registers it (registerHeaderCodec) only when some operation has headers, so a client of a service without
// any carries none of it (nor the generic record reader and writer it uses).

import type { ClientOperationModel } from "../model.js";
import type { XmlElement } from "../xml/tree.js";
import type { BindingName } from "../model.js";
import type { WireRequest } from "./binding.js";

/** A call's SOAP headers: those the call's options give, else the client's config's. */
export interface HeaderCallOptions {
  readonly soapHeaders?: object | undefined;
  /** Told the headers the answer carries, by name. */
  readonly onSoapHeaders?: ((headers: Record<string, unknown>) => void) | undefined;
}

/**
 * A call's SOAP headers, in one call from the client core: the request with the headers a call of `op`
 * sends (the call's `soapHeaders`, else the config's, and the credentials header made of its fields in
 * `config`, in a `soap:Header` before the Body), and, when the call asks for the answer's headers
 * (`onSoapHeaders`), the reader of the answer's envelope that hands them over. Throws TypeError for a
 * required header missing, or for any required header on HTTP GET/POST, which carry none.
 */
export type HeaderCodec = (
  request: WireRequest,
  op: ClientOperationModel,
  options: HeaderCallOptions,
  config: HeaderCallOptions,
  binding: BindingName,
  ns: string,
) => readonly [request: WireRequest, onEnvelope: ((envelope: XmlElement) => void) | undefined];

/** The registered codec, if any (the generated model of a service with headers registers it). */
export const headerHooks: { codec?: HeaderCodec } = {};

/** @codegen generated code imports it (test/repo/knip.test.ts) */
export function registerHeaderCodec(codec: HeaderCodec): void {
  headerHooks.codec = codec;
}
