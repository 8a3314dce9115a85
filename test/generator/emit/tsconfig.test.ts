// generated/tsconfig.json, exactly: the strict flags a vendor may turn on, all at once.

import { describe, expect, it } from "vitest";
import { emitTsconfig, STRICT_FLAGS } from "../../../generator/emit/tsconfig.js";

describe("emitTsconfig", () => {
  it("writes tsconfig.json exactly", () => {
    expect(emitTsconfig()).toEqual([
      {
        path: "tsconfig.json",
        description:
          "Type-checks this folder on its own under every strict flag: `npx tsc -p tsconfig.json`.",
        content: `{
  "compilerOptions": {
    "target": "ES2022",
    "module": "NodeNext",
    "moduleResolution": "NodeNext",
    "lib": [
      "ES2022",
      "DOM"
    ],
    "types": [
      "node"
    ],
    "strict": true,
    "noUncheckedIndexedAccess": true,
    "exactOptionalPropertyTypes": true,
    "isolatedDeclarations": true,
    "declaration": true,
    "verbatimModuleSyntax": true,
    "isolatedModules": true,
    "noImplicitOverride": true,
    "noPropertyAccessFromIndexSignature": true,
    "erasableSyntaxOnly": true,
    "noUnusedLocals": true,
    "noUnusedParameters": true,
    "noImplicitReturns": true,
    "noFallthroughCasesInSwitch": true,
    "noUncheckedSideEffectImports": true,
    "allowUnusedLabels": false,
    "allowUnreachableCode": false,
    "noEmit": true,
    "skipLibCheck": true
  },
  "include": [
    "**/*.ts"
  ]
}
`,
      },
    ]);
  });

  it("for clientOnly, loads no @types (the client needs no Node types); for .mts, includes .mts files", () => {
    const client = JSON.parse(emitTsconfig(undefined, { clientOnly: true })[0]!.content);
    expect(client.compilerOptions.types).toEqual([]);
    expect(client.include).toEqual(["**/*.ts"]);
    const mts = JSON.parse(emitTsconfig(undefined, { fileExtension: ".mts" })[0]!.content);
    expect(mts.compilerOptions.types).toEqual(["node"]);
    expect(mts.include).toEqual(["**/*.mts"]);
  });

  it("turns on every flag of STRICT_FLAGS (the list the vendoring matrix uses)", () => {
    const options = JSON.parse(emitTsconfig()[0]!.content).compilerOptions;
    expect(options).toMatchObject(STRICT_FLAGS);
  });
});
