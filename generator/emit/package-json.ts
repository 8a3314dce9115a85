// generated/package.json: `{"type": "module"}`, so the folder's .ts files are ES modules wherever it is
// vendored. Without it a CommonJS consumer (its own package.json without "type", or "commonjs") compiles
// them as CommonJS under NodeNext, and verbatimModuleSyntax refuses every `import` in them.

import type { GeneratedFile } from "../generated-file.js";

export function emitPackageJson(): GeneratedFile[] {
  return [
    {
      path: "package.json",
      content: `${JSON.stringify({ type: "module" }, null, 2)}\n`,
      description:
        'Declares the folder ES modules (`"type": "module"`), for CommonJS projects that vendor it.',
    },
  ];
}
