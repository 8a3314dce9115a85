// generated/tsconfig.json: lets `tsc -p generated/tsconfig.json` type-check the folder on its own, strict,
// exactly as a repository that vendors it would compile it.

import type { GeneratedFile } from "../generated-file.js";

const TSCONFIG = {
  compilerOptions: {
    target: "ES2022",
    module: "NodeNext",
    moduleResolution: "NodeNext",
    lib: ["ES2022", "DOM"],
    // TypeScript 7 no longer loads every @types package by default; the server half uses node:http.
    types: ["node"],
    strict: true,
    noEmit: true,
    skipLibCheck: true,
  },
  include: ["**/*.ts"],
};

export function emitTsconfig(): GeneratedFile[] {
  return [
    {
      path: "tsconfig.json",
      content: `${JSON.stringify(TSCONFIG, null, 2)}\n`,
      description: "Type-checks this folder on its own: `npx tsc -p tsconfig.json`.",
    },
  ];
}
