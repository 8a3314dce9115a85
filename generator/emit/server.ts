// generated/server.ts: the {Service} interface a server implements (one handler per operation,
// mapped from the typed descriptors in model.ts) and createHandler(impl), which serves all four bindings,
// the WSDL and the help pages.

import { type ServiceModel, offeredBindings } from "../../runtime/model.js";
import type { GeneratedFile } from "../generated-file.js";
import { importSymbol, importType } from "../import-symbol.js";
import { TypeScriptFile } from "../typescript-file.js";
import { credentialsTypeName } from "./credentials.js";
import { docs } from "./tsdoc.js";

const RUNTIME_ERRORS = "runtime/errors.ts";

export function emitServer(model: ServiceModel): GeneratedFile[] {
  const file = new TypeScriptFile("server.ts");
  const source = file.source;
  const credentials = file.use(importType(credentialsTypeName(model.name), "types.ts"));
  source.addTypeAlias({
    name: "CallContext",
    isExported: true,
    docs: docs(
      `What a handler of ${model.name} learns about the call besides its parameters: the operation, the binding, ` +
        `the credentials (context.credentials, a ${credentials}), the request id, the caller's address and the signal.`,
    ),
    type: `${file.use(importType("CallContextOf", "runtime/server/core.ts"))}<${credentials}>`,
  });
  const serverOptions = file.use(importType("ServerOptions", "runtime/server/core.ts"));

  const handlersOf = file.use(importType("HandlersOf", "runtime/server/core.ts"));
  const received = file.use(importType("Received", "runtime/server/core.ts"));
  const operations = file.use(importType("Operations", "model.ts"));
  source.addInterface({
    name: model.name,
    isExported: true,
    docs: docs(
      `What a server of ${model.name} implements. Parameters arrive converted and validated against the spec ` +
        "(defaults applied, credentials in context.credentials). Throw a ServiceError to choose the fault or 500 text " +
        "the caller gets; any other error becomes a generic Server fault and a log line. One handler per " +
        "operation, typed from its descriptor in model.ts (a DataSet result may be returned as its rows alone).",
    ),
    extends: [`${handlersOf}<${operations}, ${credentials}>`],
  });

  const nodeHandler = file.use(importType("NodeHandler", "runtime/server/node.ts"));
  const fetchHandler = file.use(importType("FetchHandler", "runtime/server/fetch.ts"));
  source.addTypeAlias({
    name: "ServiceHandler",
    isExported: true,
    docs: docs(
      "A node:http request listener that is also Express/Connect middleware (it calls next() for paths that are " +
        "not the endpoint), with a fetch-style handler for the same service as `fetch`.",
    ),
    type: `${nodeHandler} & { readonly fetch: ${fetchHandler} }`,
  });

  const createCore = file.use(importSymbol("createServiceCore", "runtime/server/core.ts"));
  const createNode = file.use(importSymbol("createNodeHandler", "runtime/server/node.ts"));
  const createFetch = file.use(importSymbol("createFetchHandler", "runtime/server/fetch.ts"));
  const factories = file.use(importSymbol("serverBindings", "runtime/server/bindings.ts"));
  const readXml = file.use(importSymbol("readXml", "runtime/xml/scan.ts"));
  const service = file.use(importSymbol("serverModel", "server-model.ts"));
  const serviceDocs = file.use(importSymbol("docs", "docs.ts"));
  const createDocuments = file.use(importSymbol("createDocuments", "runtime/server/documents.ts"));
  const recordWriters = file.use(importSymbol("recordWriters", "writers.ts"));
  source.addFunction({
    name: "createHandler",
    isExported: true,
    docs: docs(
      `Serves ${model.name} at any path ending in /${model.endpoint}: ${servedBindings(model)}, ?WSDL, the help page and ?op= pages.`,
    ),
    parameters: [
      { name: "implementation", type: model.name },
      { name: "options", type: serverOptions, initializer: "{}" },
    ],
    returnType: "ServiceHandler",
    statements: [
      `const documents = ${createDocuments}(${service}, ${serviceDocs});`,
      `const core = ${createCore}(${service}, implementation, documents, ${factories}, ${readXml}, options, ${recordWriters});`,
      `return Object.assign(${createNode}(core), { fetch: ${createFetch}(core) });`,
    ],
  });

  const limits = file.use(importType("TransportLimits", "runtime/server/listen.ts"));
  const createNodeServer = file.use(importSymbol("createNodeServer", "runtime/server/listen.ts"));
  const httpServer = file.use(importType("Server", "node:http"));
  source.addFunction({
    name: "createServer",
    isExported: true,
    docs: docs(
      "A node:http server running createHandler(implementation), with the transport time limits set " +
        "(headersTimeoutMs default 20 s, requestTimeoutMs default 300 s). Call listen() on it.",
    ),
    parameters: [
      { name: "implementation", type: model.name },
      { name: "options", type: `${serverOptions} & ${limits}`, initializer: "{}" },
    ],
    returnType: httpServer,
    statements: [`return ${createNodeServer}(createHandler(implementation, options), options);`],
  });

  const reexports = ["ServiceError", "ErrorCodes", "clientError"];
  for (const name of reexports) file.use(importSymbol(name, RUNTIME_ERRORS));
  source.addExportDeclaration({ namedExports: reexports });
  const callEvent = file.use(importType("CallEvent", "runtime/server/core.ts"));
  source.addExportDeclaration({
    isTypeOnly: true,
    namedExports: [credentials, callEvent, serverOptions, limits, received],
  });

  return [file.toGeneratedFile(`createHandler and the ${model.name} interface a server implements.`)];
}

/** The bindings createHandler answers on, in words. */
function servedBindings(model: ServiceModel): string {
  const offered = offeredBindings(model);
  const soap = [offered.includes("soap11") ? "1.1" : "", offered.includes("soap12") ? "1.2" : ""].filter(
    Boolean,
  );
  const http = [offered.includes("httpGet") ? "GET" : "", offered.includes("httpPost") ? "POST" : ""].filter(
    Boolean,
  );
  return [
    soap.length > 0 ? `SOAP ${soap.join(" and ")} (POST to the endpoint)` : "",
    http.length > 0 ? `HTTP ${http.join(" and ")} (endpoint/Operation)` : "",
  ]
    .filter(Boolean)
    .join(", ");
}
