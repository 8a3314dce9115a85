// generated/tsconfig.json: lets `tsc -p generated/tsconfig.json` type-check the folder on its own, exactly as
// a repository that vendors it would compile it: under every strict flag a vendor may turn on, so
// `npm run typecheck` proves the folder compiles under them (test/vendoring/ adds TS 7 and CommonJS).

import type { GeneratedFile } from "../generated-file.js";
import type { EmitContext } from "./context.js";

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
  // What @tsconfig/strictest and Vite's templates add (issue 23 found a parameter property that broke
  // them): TypeScript 5.8+ and 7. `npm run typecheck` compiles both generated folders (ExternalAPIService,
  // and the book catalog: no credentials, no plain records) under them.
  erasableSyntaxOnly: true,
  noUnusedLocals: true,
  noUnusedParameters: true,
  noImplicitReturns: true,
  noFallthroughCasesInSwitch: true,
  noUncheckedSideEffectImports: true,
  allowUnusedLabels: false,
  allowUnreachableCode: false,
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

/**
 * The default, or for clientOnly a browser's libraries and no @types at all (the client needs neither
 * Node's types nor more than the web platform's globals); for .mts files, those.
 */
function tsconfigFor(ctx: Shape): typeof TSCONFIG {
  const compilerOptions =
    ctx.clientOnly === true ? { ...TSCONFIG.compilerOptions, types: [] } : TSCONFIG.compilerOptions;
  return { compilerOptions, include: [ctx.fileExtension === ".mts" ? "**/*.mts" : "**/*.ts"] };
}

/** What the tsconfig depends on. */
type Shape = Pick<EmitContext, "clientOnly" | "fileExtension">;

export function emitTsconfig(_model?: unknown, ctx: Shape = {}): GeneratedFile[] {
  return [
    {
      path: "tsconfig.json",
      content: `${JSON.stringify(tsconfigFor(ctx), null, 2)}\n`,
      description: "Type-checks this folder on its own under every strict flag: `npx tsc -p tsconfig.json`.",
    },
  ];
}
