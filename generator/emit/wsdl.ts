// generated/{Service}.wsdl: the WSDL 1.1 document for people and tools, rendered by the runtime function the
// server answers ?WSDL with (runtime/wsdl.ts), so the file and the served document cannot differ.

import type { ServiceModel } from "../../runtime/model.js";
import { renderWsdl } from "../../runtime/wsdl.js";
import type { GeneratedFile } from "../generated-file.js";
import type { EmitContext } from "./context.js";

/** The address written into the .wsdl file; the server writes the address of each request. */
const LOCALHOST = "http://localhost/";

export function emitWsdl(model: ServiceModel, { docs }: Pick<EmitContext, "docs">): GeneratedFile[] {
  return [
    {
      path: `${model.name}.wsdl`,
      content: renderWsdl(model, docs, LOCALHOST + model.endpoint),
      description: `WSDL 1.1 of the service, located at ${LOCALHOST}${model.endpoint}.`,
    },
  ];
}
