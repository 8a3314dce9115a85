// generated/{Service}.wsdl: the WSDL 1.1 document for people and tools, rendered by the runtime function the
// server answers ?WSDL with (runtime/server/wsdl.ts), so the file and the served document cannot differ.

import type { ServiceModel } from "../../runtime/model.js";
import { renderWsdl } from "../../runtime/server/wsdl.js";
import type { GeneratedFile } from "../generated-file.js";
import type { EmitContext } from "./context.js";

/**
 * The base address written into the .wsdl file unless the config's `wsdlAddress` (--wsdl-address) names the
 * service's real one; the server writes the address of each request (or its publicUrl) instead.
 */
const DEFAULT_WSDL_ADDRESS = "http://localhost/";

export function emitWsdl(
  model: ServiceModel,
  { docs, wsdlAddress = DEFAULT_WSDL_ADDRESS }: Pick<EmitContext, "docs" | "wsdlAddress">,
): GeneratedFile[] {
  const address = wsdlAddress + model.endpoint;
  const where =
    wsdlAddress === DEFAULT_WSDL_ADDRESS
      ? `with the placeholder address ${address} (set wsdlAddress in easgen.config.json for the real one; ?WSDL on a running server names its own)`
      : `located at ${address}`;
  return [
    {
      path: `${model.name}.wsdl`,
      content: renderWsdl(model, docs, address),
      description: `WSDL 1.1 of the service, ${where}.`,
    },
  ];
}
