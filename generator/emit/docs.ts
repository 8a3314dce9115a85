// generated/docs.ts: every doc text of the spec as one ServiceDocTexts value (runtime/server/docs.ts). Only the server's
// help pages and WSDL read it; the client and the codecs import nothing from it, so a client bundle has none.

import type { ServiceModel } from "../../runtime/model.js";
import type { GeneratedFile } from "../generated-file.js";
import { importType } from "../import-symbol.js";
import { StructureKind, TypeScriptFile, VariableDeclarationKind } from "../typescript-file.js";
import type { EmitContext } from "./context.js";
import { literal } from "./literal.js";

export function emitDocs(_model: ServiceModel, { docs }: Pick<EmitContext, "docs">): GeneratedFile[] {
  const file = new TypeScriptFile("docs.ts");
  const type = file.use(importType("ServiceDocTexts", "runtime/server/docs.ts"));
  file.add([
    {
      kind: StructureKind.VariableStatement,
      isExported: true,
      declarationKind: VariableDeclarationKind.Const,
      docs: ["The spec's doc texts, for the help pages and the WSDL."],
      declarations: [{ name: "docs", type, initializer: literal(docs) }],
    },
  ]);
  return [
    file.toGeneratedFile(
      "The doc texts of the spec (a ServiceDocTexts value) for the help pages and the WSDL.",
    ),
  ];
}
