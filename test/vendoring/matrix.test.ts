// The vendoring guarantee: generated/, copied into a project as it is, type-checks with zero errors under
// every strict flag at once, on TypeScript 5.9 and 7, for an ESM consumer (NodeNext and bundler resolution)
// and a CommonJS one. Each consumer is a throwaway project in a temp folder with its own copy of the
// folder; no network (the compilers and @types/node come from this repository's node_modules).

import { execFile } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { STRICT_FLAGS } from "../../generator/emit/tsconfig.js";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const GENERATED = path.join(ROOT, "generated");

/** The two compilers: TypeScript 5.9 (`typescript`) and 7 (`typescript7`, npm:typescript@7, a native binary behind a JS shim). */
const COMPILERS = {
  "5.9": path.join(ROOT, "node_modules/typescript/bin/tsc"),
  "7": path.join(ROOT, "node_modules/typescript7/bin/tsc"),
} as const;
type Compiler = keyof typeof COMPILERS;

const BASE = {
  target: "ES2022",
  lib: ["ES2022", "DOM"],
  types: ["node"],
  noEmit: true,
  // Only the .d.ts of @types/node are skipped; every .ts file of the copy is checked.
  skipLibCheck: true,
};

// The ESM consumers import both halves and use the error base; one typed statement per thing a vendor touches.
const ESM_MAIN = `import { ClientCallError, createClient, ServiceFaultError, type ClientConfig } from "./generated/client.js";
import { createHandler, ErrorCodes, ServiceError } from "./generated/server.js";

export function describeError(error: unknown): string {
  if (error instanceof ServiceFaultError) {
    return \`\${error.side} \${error.errorCode ?? "-"} \${error.parameter ?? "-"} \${error.status ?? "-"}\`;
  }
  return error instanceof ClientCallError ? error.operation : "other";
}

export function endpoint(config: ClientConfig): string {
  return createClient(config).endpointUrl;
}

export const refusal: ServiceError = new ServiceError(ErrorCodes.InvalidValue, "no");
export const handlerType: typeof createHandler = createHandler;
`;

// CommonJS under NodeNext with verbatimModuleSyntax: `import x = require()` and `export =` are the forms,
// and the ES module folder is loaded through require (TypeScript models Node's require(esm)).
const CJS_MAIN = `import client = require("./generated/client.js");
import server = require("./generated/server.js");

function describeError(error: unknown): string {
  if (error instanceof client.ServiceFaultError) {
    return \`\${error.side} \${error.errorCode ?? "-"} \${error.parameter ?? "-"} \${error.status ?? "-"}\`;
  }
  if (error instanceof server.ServiceError) return error.code;
  return error instanceof client.ClientCallError ? error.operation : "other";
}

function endpoint(config: client.ClientConfig): string {
  return client.createClient(config).endpointUrl;
}

const api: { describeError(error: unknown): string; endpoint(config: client.ClientConfig): string } = { describeError, endpoint };
export = api;
`;

interface Consumer {
  readonly name: string;
  readonly packageType: "module" | "commonjs";
  readonly compilerOptions: Readonly<Record<string, unknown>>;
  readonly files: Readonly<Record<string, string>>;
}

const CONSUMERS: readonly Consumer[] = [
  {
    name: "esm-nodenext",
    packageType: "module",
    compilerOptions: { module: "NodeNext", moduleResolution: "NodeNext" },
    files: { "src/main.ts": ESM_MAIN },
  },
  {
    name: "esm-bundler",
    packageType: "module",
    compilerOptions: { module: "Preserve", moduleResolution: "Bundler" },
    files: { "src/main.ts": ESM_MAIN },
  },
  {
    name: "cjs-nodenext",
    packageType: "commonjs",
    compilerOptions: { module: "NodeNext", moduleResolution: "NodeNext" },
    files: { "src/main.ts": CJS_MAIN, "src/also.cts": CJS_MAIN },
  },
];

let work: string;

function writeConsumer(consumer: Consumer): string {
  const dir = path.join(work, consumer.name);
  mkdirSync(path.join(dir, "src"), { recursive: true });
  cpSync(GENERATED, path.join(dir, "src/generated"), { recursive: true });
  writeFileSync(
    path.join(dir, "package.json"),
    JSON.stringify({ name: consumer.name, private: true, type: consumer.packageType }),
  );
  // The CommonJS consumer's own `import x = require()` and `export =` are not erasable syntax; the vendored
  // folder is held to erasableSyntaxOnly by the ESM consumers and run.test.ts's CommonJS program.
  const flags =
    consumer.packageType === "commonjs" ? { ...STRICT_FLAGS, erasableSyntaxOnly: false } : STRICT_FLAGS;
  const tsconfig = {
    compilerOptions: { ...BASE, ...consumer.compilerOptions, ...flags },
    include: ["src/**/*.ts", "src/**/*.cts"],
  };
  writeFileSync(path.join(dir, "tsconfig.json"), JSON.stringify(tsconfig, null, 2));
  for (const [file, text] of Object.entries(consumer.files)) writeFileSync(path.join(dir, file), text);
  return dir;
}

/** The compiler's error lines (file(line,col): error TSxxxx: ...), with the temp folder cut off; [] when clean. */
function compile(compiler: Compiler, dir: string): Promise<string[]> {
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      [COMPILERS[compiler], "-p", "tsconfig.json", "--pretty", "false"],
      { cwd: dir, maxBuffer: 64 * 1024 * 1024 },
      (error, stdout, stderr) => {
        const lines = `${stdout}\n${stderr}`.split("\n").filter((line) => /error TS\d+/.test(line));
        // A non-zero exit with no error line is a crash, not a type error: fail loudly with what it printed.
        if (error && lines.length === 0)
          reject(new Error(`tsc ${compiler} in ${dir} failed: ${error.message}\n${stdout}\n${stderr}`));
        else resolve(lines.map((line) => line.replaceAll(`${dir}${path.sep}`, "")));
      },
    );
  });
}

// tsc 5.9 over the whole folder takes a few seconds per project on a slow machine; all six run at once.
const TIMEOUT_MS = 600_000;

describe("vendored generated/ under every strict flag", () => {
  const results = new Map<string, Promise<string[]>>();

  beforeAll(() => {
    work = mkdtempSync(path.join(tmpdir(), "easgen-vendoring-"));
    // `types: ["node"]` resolves through node_modules/@types in a parent folder, as in a real project.
    mkdirSync(path.join(work, "node_modules"));
    symlinkSync(path.join(ROOT, "node_modules/@types"), path.join(work, "node_modules/@types"), "dir");
    for (const consumer of CONSUMERS) {
      const dir = writeConsumer(consumer);
      for (const compiler of Object.keys(COMPILERS) as Compiler[]) {
        const result = compile(compiler, dir);
        result.catch(() => {}); // awaited in its test; keep an early failure from being reported as unhandled
        results.set(`${consumer.name} ${compiler}`, result);
      }
    }
  });

  afterAll(async () => {
    await Promise.allSettled(results.values());
    rmSync(work, { recursive: true, force: true });
  });

  for (const consumer of CONSUMERS) {
    for (const compiler of Object.keys(COMPILERS) as Compiler[]) {
      it(
        `${consumer.name} (package type ${consumer.packageType}) type-checks with zero errors on TypeScript ${compiler}`,
        async () => {
          const errors = await results.get(`${consumer.name} ${compiler}`)!;
          expect(errors).toEqual([]);
        },
        TIMEOUT_MS,
      );
    }
  }
});
