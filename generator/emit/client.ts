// generated/client.ts: `createClient(config)` and the ExternalAPIServiceClient interface, one typed method
// per operation, each a thin call into the runtime client core with the operation's model.

import type { OperationModel, ServiceModel } from "../../runtime/model.js";
import type { GeneratedFile } from "../generated-file.js";
import type { EmitContext } from "./context.js";
import { importSymbol, importType } from "../import-symbol.js";
import { operationTypeNames } from "../type-names.js";
import { TypeScriptFile } from "../typescript-file.js";
import { propertyKey } from "./literal.js";
import { docs } from "./types.js";

function clientInterfaceName(model: ServiceModel): string {
  return `${model.name}Client`;
}

/** `params` is optional when the operation has no parameters besides the credentials. */
function paramsSignature(op: OperationModel, typeName: string): string {
  return op.params.some((p) => !p.credential) ? `params: ${typeName}` : `params: ${typeName} = {}`;
}

export function emitClient(model: ServiceModel, { docs: text }: Pick<EmitContext, "docs">): GeneratedFile[] {
  const file = new TypeScriptFile("client.ts");
  const source = file.source;
  const types = (name: string) => file.use(importType(name, "types.ts"));
  const callOptions = file.use(importType("CallOptions", "runtime/client.ts"));
  const config = file.use(importType("ClientConfig", "runtime/client.ts"));
  const interfaceName = clientInterfaceName(model);

  source.addInterface({
    name: interfaceName,
    isExported: true,
    docs: docs(`A client of ${model.name} over one binding. ${text.doc}`),
    properties: [{ name: "endpointUrl", type: "string", isReadonly: true, docs: docs("The address calls go to.") }],
    methods: model.operations.map((op) => {
      const names = operationTypeNames(op.name);
      const opDocs = text.operations[op.name]!;
      return {
        name: propertyKey(op.name),
        docs: docs(`${opDocs.doc}\n\nResolves to ${opDocs.result.charAt(0).toLowerCase()}${opDocs.result.slice(1)}`),
        parameters: [
          { name: "params", type: types(names.params), hasQuestionToken: !op.params.some((p) => !p.credential) },
          { name: "options", type: callOptions, hasQuestionToken: true },
        ],
        returnType: `Promise<${types(names.result)}>`,
      };
    }),
  });

  const createCore = file.use(importSymbol("createClientCore", "runtime/client.ts"));
  const clientBinding = file.use(importSymbol("clientBinding", "runtime/client-bindings.ts"));
  const readXml = file.use(importSymbol("readXml", "runtime/xml/scan.ts"));
  const service = file.use(importSymbol("service", "model.ts"));
  const operations = file.use(importSymbol("operations", "model.ts"));
  const methods = model.operations.map((op) => {
    const names = operationTypeNames(op.name);
    return (
      `${propertyKey(op.name)}: (${paramsSignature(op, types(names.params))}, options?: ${callOptions}) => ` +
      `core.call(${operations}.${op.name}, params, options) as Promise<${types(names.result)}>,`
    );
  });
  source.addFunction({
    name: "createClient",
    isExported: true,
    docs: docs(
      "Creates a client. Errors are typed: SoapFaultError, HttpBindingError, ResponseFormatError, TransportError, " +
        "TimeoutError, ResponseTooLargeError, RedirectError (runtime/errors.js), all subclasses of ClientCallError.",
    ),
    parameters: [{ name: "config", type: config }],
    returnType: interfaceName,
    statements: [
      `const core = ${createCore}(${service}, config, ${clientBinding}(config.binding), ${readXml});`,
      `return {\nendpointUrl: core.endpointUrl,\n${methods.join("\n")}\n};`,
    ],
  });

  const errorNames = ["ClientCallError", "SoapFaultError", "HttpBindingError", "ResponseFormatError", "TransportError", "TimeoutError", "ResponseTooLargeError", "RedirectError"];
  for (const name of errorNames) {
    file.use(importSymbol(name, "runtime/errors.ts"));
  }
  source.addExportDeclaration({
    namedExports: errorNames,
  });
  source.addExportDeclaration({ isTypeOnly: true, namedExports: [callOptions, config] });

  return [file.toGeneratedFile("createClient: the typed client for all four bindings, on fetch alone.")];
}
