// generated/extensions.ts: the spec's extension module (top-level `extensions: { module }`), the service's own
// rule and check validators, copied into the output. Only server-model.ts imports it, so client bundles do
// not carry it; it imports nothing, so it type-checks wherever it lands.

import { readFileSync } from "node:fs";
import type { GeneratedFile } from "../generated-file.js";
import type { EmitContext } from "./context.js";

/** The path of the copy in the output folder; server-model.ts imports the validators from it. */
export const EXTENSIONS_FILE = "extensions.ts";

export function emitExtensions(_model: unknown, ctx: EmitContext): GeneratedFile[] {
  if (ctx.extensions === undefined) return [];
  return [
    {
      path: EXTENSIONS_FILE,
      content: readFileSync(ctx.extensions.path, "utf8"),
      description: `The service's own rule and check validators, copied from ${ctx.extensions.module} (next to the spec).`,
    },
  ];
}
