// The import rules of runtime/, generator/ and service/, checked by dependency-cruiser in npm test
// (test/repo/layers.test.ts): no import cycle anywhere, and the runtime's layers (docs/architecture.md,
// "The runtime's layers") imported downward only. Type-only imports count: a cycle closed by types is a
// cycle a reader still has to untangle.

/**
 * The service's folders from top to bottom (docs/architecture.md, "Service layout"): a folder imports only
 * folders below it, never one above, nor the process files at service/'s top (app.ts, main.ts; config.ts,
 * which imports nothing of the service, is open to all). console/ sits beside http/ (each a set of routes on
 * top of the operations).
 */
const SERVICE_LAYERS = [["admin"], ["console", "http"], ["workers"], ["operations"], ["delivery"], ["auth"], ["tables"], ["common"], ["db"]];
const SERVICE_RULES = SERVICE_LAYERS.map((folders, i) => ({
  name: `service-${folders.join("-")}-imports-down`,
  severity: "error",
  comment: `service/${folders.join("/, service/")}/ import only folders below them in the service layout.`,
  from: { path: `^service/(${folders.join("|")})/` },
  to: {
    path: [...SERVICE_LAYERS.slice(0, i).flat().map((above) => `^service/${above}/`), "^service/[^/]+$"],
    pathNot: "^service/config\\.ts$",
  },
}));
SERVICE_RULES.push({
  name: "service-config-alone",
  severity: "error",
  comment: "config.ts reads the environment; it imports nothing of the service.",
  from: { path: "^service/config\\.ts$" },
  to: { path: "^service/", pathNot: "^service/config\\.ts$" },
});

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: "no-circular",
      severity: "error",
      comment: "An import cycle: the modules on it can only be read (and moved) together.",
      from: {},
      to: { circular: true },
    },
    {
      name: "client-not-server",
      severity: "error",
      comment: "The client half never imports the server half: a client bundle must carry no server code.",
      from: { path: "^runtime/client/" },
      to: { path: "^runtime/server/" },
    },
    {
      name: "server-not-client",
      severity: "error",
      comment: "The server half never imports the client half; what both need belongs in the shared base.",
      from: { path: "^runtime/server/" },
      to: { path: "^runtime/client/" },
    },
    {
      name: "base-not-halves",
      severity: "error",
      comment: "The shared base (model, errors, xml/, codec/, protocol/) imports neither half.",
      from: { path: "^runtime/", pathNot: "^runtime/(client|server)/" },
      to: { path: "^runtime/(client|server)/" },
    },
    {
      name: "codec-not-protocol",
      severity: "error",
      comment: "protocol/ builds on the value codecs; codec/ never reaches back up into protocol/.",
      from: { path: "^runtime/(codec|xml)/" },
      to: { path: "^runtime/protocol/" },
    },
    {
      name: "xml-alone",
      severity: "error",
      comment: "xml/ is the bottom: the XML reader and writers import nothing else of the runtime.",
      from: { path: "^runtime/xml/" },
      to: { path: "^runtime/", pathNot: "^runtime/xml/" },
    },
    {
      name: "model-at-the-bottom",
      severity: "error",
      comment: "The top-level files (model, errors) are the lowest layer: they import no folder of the runtime.",
      from: { path: "^runtime/[^/]+$" },
      to: { path: "^runtime/[^/]+/" },
    },
    ...SERVICE_RULES,
    {
      name: "resolvable",
      severity: "error",
      comment: "Every import resolves, so no edge escapes the rules above unseen.",
      from: {},
      to: { couldNotResolve: true },
    },
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    exclude: { path: "(^|/)(generated|node_modules|dist)/" },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
  },
};
