// generated/tsconfig.json: lets `tsc -p generated/tsconfig.json` type-check the folder on its own, exactly as
// a repository that vendors it would compile it: under every strict flag a vendor may turn on, so
// `npm run typecheck` proves the folder compiles under them (test/vendoring/ adds TS 7 and CommonJS).

import type { GeneratedFile } from "../generated-file.js";

/** The strict flags generated/ compiles under, all at once; the vendoring matrix test uses the same list. */
export const STRICT_FLAGS = {
  strict: true,
  noUncheckedIndexedAccess: true,
  exactOptionalPropertyTypes: true,
  // isolatedDeclarations applies only where declarations are emitted (noEmit still checks it).
  isolatedDeclarations: true,
  declaration: true,
  verbatimModuleSyntax: true,
  isolatedModules: true,
  noImplicitOverride: true,
  noPropertyAccessFromIndexSignature: true,
} as const;

const TSCONFIG = {
  compilerOptions: {
    target: "ES2022",
    module: "NodeNext",
    moduleResolution: "NodeNext",
    lib: ["ES2022", "DOM"],
    // TypeScript 7 no longer loads every @types package by default; the server half uses node:http.
    types: ["node"],
    ...STRICT_FLAGS,
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
      description: "Type-checks this folder on its own under every strict flag: `npx tsc -p tsconfig.json`.",
    },
  ];
}
