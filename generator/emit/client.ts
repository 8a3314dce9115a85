// generated/client.ts: the ExternalAPIServiceClient interface (mapped from the typed descriptors in
// model.ts, so each method's types and JSDoc come from there), createClientWith(binding, options) with the
// four client bindings and the two XML readers as values (a bundler keeps the ones used), and
// createClient(config) naming the binding as a string (all four bundled, the scanner by default).

import { ALL_BINDINGS, headerIsSent, type ServiceModel, offeredBindings } from "../../runtime/model.js";
import { typeScriptTypeName } from "../reserved-names.js";
import { propertyKey } from "./literal.js";
import type { GeneratedFile } from "../generated-file.js";
import { importSymbol, importType } from "../import-symbol.js";
import { TypeScriptFile, VariableDeclarationKind } from "../typescript-file.js";
import type { EmitContext } from "./context.js";
import { credentialsTypeName } from "./credentials.js";
import { docs } from "./tsdoc.js";

/** The client binding values createClientWith takes: exported name, runtime module, runtime export. */
const CLIENT_BINDINGS = [
  { name: "soap11", label: "SOAP 1.1", module: "runtime/client/soap11.ts", symbol: "soap11Client" },
  { name: "soap12", label: "SOAP 1.2", module: "runtime/client/soap12.ts", symbol: "soap12Client" },
  { name: "httpGet", label: "HTTP GET", module: "runtime/client/http-get.ts", symbol: "httpGetClient" },
  { name: "httpPost", label: "HTTP POST", module: "runtime/client/http-post.ts", symbol: "httpPostClient" },
] as const;

/** The error classes the client re-exports from runtime/errors.ts; ClientCallError, the base of all, first. */
const CLIENT_ERRORS = [
  "ClientCallError",
  "ServiceFaultError",
  "SoapFaultError",
  "HttpBindingError",
  "ResponseFormatError",
  "TransportError",
  "TimeoutError",
  "ResponseTooLargeError",
  "RedirectError",
];

export function emitClient(model: ServiceModel, { docs: text }: Pick<EmitContext, "docs">): GeneratedFile[] {
  const file = new TypeScriptFile("client.ts");
  const source = file.source;
  const interfaceName = `${model.name}Client`;
  const operationsType = file.use(importType("Operations", "model.ts"));
  const clientOf = file.use(importType("ClientOf", "runtime/client/core.ts"));
  const credentials = file.use(importType(credentialsTypeName(model.name), "types.ts"));
  const offered = offeredBindings(model);
  const bindings = CLIENT_BINDINGS.filter((binding) => offered.includes(binding.name));
  const bindingUnion = bindings.map((binding) => JSON.stringify(binding.name)).join(" | ");
  // The SOAP headers a client's config may send with every call: those some operation takes.
  const taken = new Map<string, string>();
  for (const op of model.operations)
    for (const h of op.headers ?? [])
      if (headerIsSent(h) && !h.credential)
        taken.set(h.record.name, file.use(importType(typeScriptTypeName(h.record.name), "types.ts")));
  const soapHeaders =
    taken.size === 0
      ? ""
      : `, { ${[...taken].map(([name, type]) => `${propertyKey(name)}: ${type}`).join("; ")} }`;
  // The config types of this service: the runtime's, with its credentials (and its bindings) filled in.
  const typeAlias = (name: string, docText: string, type: string): string => {
    source.addTypeAlias({ name, isExported: true, docs: docs(docText), type });
    return name;
  };
  typeAlias(
    "ClientOptions",
    `A client's options: the address, limits and hooks, and the credentials (${credentials}).`,
    `${file.use(importType("ClientOptionsOf", "runtime/client/core.ts"))}<${credentials}${soapHeaders}>`,
  );
  const withOptions = typeAlias(
    "ClientWithOptions",
    "createClientWith's options: the client's options and the platform.",
    `${file.use(importType("ClientWithOptionsOf", "runtime/client/core.ts"))}<${credentials}${soapHeaders}>`,
  );
  const config = typeAlias(
    "ClientConfig",
    `createClient's config: the client's options and the binding by name (${bindings.map((b) => b.name).join(", ")}).`,
    `${file.use(importType("ClientConfigOf", "runtime/client/core.ts"))}<${credentials}, ${bindingUnion}${soapHeaders}>`,
  );
  const callOptions = file.use(importType("CallOptions", "runtime/client/core.ts"));
  const factory = file.use(importType("ClientBindingFactory", "runtime/protocol/binding.ts"));

  source.addInterface({
    name: interfaceName,
    isExported: true,
    docs: docs(`A client of ${model.name} over one binding. ${text.doc}`),
    extends: [`${clientOf}<${operationsType}>`],
    properties: [
      { name: "endpointUrl", type: "string", isReadonly: true, docs: docs("The address calls go to.") },
    ],
  });

  for (const binding of bindings) {
    source.addVariableStatement({
      isExported: true,
      declarationKind: VariableDeclarationKind.Const,
      docs: docs(`The ${binding.label} binding, for createClientWith.`),
      declarations: [
        {
          name: binding.name,
          type: factory,
          initializer: file.use(importSymbol(binding.symbol, binding.module)),
        },
      ],
    });
  }

  const errors =
    `Errors are typed: ${CLIENT_ERRORS.slice(1).join(", ")} (runtime/errors.js), all subclasses of ClientCallError; ` +
    "ServiceFaultError is the service's refusal on any binding.";
  // A spec that offers every binding gets the core without the check of the binding against them.
  const createCore = file.use(
    importSymbol(
      offered.length === ALL_BINDINGS.length ? "createAnyBindingClientCore" : "createClientCore",
      "runtime/client/core.ts",
    ),
  );
  const bindOperations = file.use(importSymbol("bindOperations", "runtime/client/core.ts"));
  const readXml = file.use(importSymbol("readXml", "runtime/xml/scan.ts"));
  const standard = file.use(importSymbol("standard", "runtime/client/platform/standard.ts"));
  const platformType = file.use(importType("ClientPlatform", "runtime/client/core.ts"));
  const service = file.use(importSymbol("service", "model.ts"));
  const operations = file.use(importSymbol("operations", "model.ts"));
  source.addFunction({
    name: "createClientWith",
    isExported: true,
    docs: docs(
      `Creates a client over the binding given as a value (${bindings.map((b) => b.name).join(", ")}) ` +
        "and the platform named in `options.platform` (browser: the browser's DOMParser and TextDecoder; " +
        "standard: the strict scanner and .NET's charsets, anywhere): a bundler keeps that binding's and that " +
        `platform's code alone. ${errors}`,
    ),
    parameters: [
      { name: "binding", type: factory },
      { name: "options", type: withOptions },
    ],
    returnType: interfaceName,
    statements: [
      `const core = ${createCore}(${service}, options, binding);`,
      `return { endpointUrl: core.endpointUrl, ...${bindOperations}(${operations}, core) };`,
    ],
  });

  const clientBinding = file.use(importSymbol("clientBinding", "runtime/client/bindings.ts"));
  source.addFunction({
    name: "createClient",
    isExported: true,
    docs: docs(
      "Creates a client over the binding named in `config.binding`, reading answers on the standard platform " +
        "(with `config.xmlReader` instead of readXml when given). A bundle carries every binding's client " +
        `code and the scanner; createClientWith(${bindings[0]?.name ?? "soap11"}, { ...options, platform: browser }) carries one binding ` +
        `and the browser's parser. ${errors}`,
    ),
    parameters: [{ name: "config", type: config }],
    returnType: interfaceName,
    statements: [
      `const platform: ${platformType} = config.xmlReader === undefined ? ${standard} : { ...${standard}, readXml: config.xmlReader };`,
      `return createClientWith(${clientBinding}(config.binding), { ...config, platform });`,
    ],
  });

  // The two platforms for createClientWith, and the two readers (createClient's xmlReader, or a platform of one's own).
  const browser = file.use(importSymbol("browser", "runtime/client/platform/browser.ts"));
  const readXmlDom = file.use(importSymbol("readXmlDom", "runtime/xml/dom.ts"));
  source.addExportDeclaration({ namedExports: [browser, standard, readXml, readXmlDom] });

  // ErrorCodes too: callers compare errorCode with ErrorCodes.InvalidValue and the like.
  const errorValues = [...CLIENT_ERRORS, "ErrorCodes"].map((name) =>
    file.use(importSymbol(name, "runtime/errors.ts")),
  );
  const errorTypes = ["ErrorCode", "FaultSide"].map((name) =>
    file.use(importType(name, "runtime/errors.ts")),
  );
  source.addExportDeclaration({ namedExports: errorValues });
  source.addExportDeclaration({
    isTypeOnly: true,
    namedExports: [callOptions, credentials, platformType, ...errorTypes],
  });

  return [file.toGeneratedFile("createClient and createClientWith: the typed client, on fetch alone.")];
}
