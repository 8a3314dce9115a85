// generated/README.md, from templates/generated-readme.md.hbs: how to vendor the folder, its files, the value
// mapping. It lists every file, so the pipeline calls it after the other emitters.

import { readFileSync } from "node:fs";
import path from "node:path";
import Handlebars from "handlebars";
import type { ServiceModel, SoapType } from "../../runtime/model.js";
import type { GeneratedFile } from "../generated-file.js";
import type { EmitContext } from "./context.js";
import { VALUE_MAPPING } from "./value-mapping.js";

export const README = "README.md";
const TEMPLATE = "generated-readme.md.hbs";

export function emitReadme(
  model: ServiceModel,
  ctx: EmitContext,
  files: readonly GeneratedFile[],
): GeneratedFile[] {
  const handlebars = Handlebars.create();
  // Markdown, not HTML: escape only what would break a table cell.
  handlebars.registerHelper("cell", (text: unknown) =>
    String(text ?? "")
      .replace(/\|/g, "\\|")
      .replace(/\n/g, " "),
  );
  const template = handlebars.compile(readFileSync(path.join(ctx.templatesDir, TEMPLATE), "utf8"), {
    noEscape: true,
    strict: true,
  });
  const content = template({
    service: model.name,
    endpoint: model.endpoint,
    specFile: ctx.specFile,
    folderHint: kebab(model.name),
    files: files.map((file) => ({ path: file.path, description: file.description ?? "" })),
    values: (Object.keys(VALUE_MAPPING) as SoapType[]).map((soapType) => {
      const { result, param, resultNote, paramNote } = VALUE_MAPPING[soapType];
      const rule = paramNote === resultNote ? resultNote : `${resultNote} Parameters: ${paramNote}`;
      return { soapType, result, param, rule };
    }),
  });
  return [{ path: README, content, description: "This file." }];
}

function kebab(name: string): string {
  return name
    .replace(/([a-z0-9])([A-Z])/g, "$1-$2")
    .replace(/([A-Z])([A-Z][a-z])/g, "$1-$2")
    .toLowerCase();
}
