// A generated TypeScript module under construction: a ts-morph SourceFile plus the imports its code uses.
// Emitters never write import lines; they call use(symbol) and write the name it returns.

import { createRequire } from "node:module";
import path from "node:path";
import type { SourceFile, StatementStructures } from "ts-morph";
import type { GeneratedFile } from "./generated-file.js";
import type { ImportSymbol } from "./import-symbol.js";

// ts-morph is CommonJS; required directly it loads about 150 ms faster than through the ESM loader, which
// is a tenth of a `generate` run. Emitters take its values (StructureKind, ...) from here.
const tsMorph = createRequire(import.meta.url)("ts-morph") as typeof import("ts-morph");
export const { StructureKind, VariableDeclarationKind } = tsMorph;

export class TypeScriptFile {
  readonly source: SourceFile;
  /** Module specifier → imported name → imported for types only. */
  readonly #imports = new Map<string, Map<string, boolean>>();
  /** Imported name → module specifier, to refuse one name from two modules. */
  readonly #origins = new Map<string, string>();

  constructor(readonly path: string) {
    const project = new tsMorph.Project({ useInMemoryFileSystem: true, skipLoadingLibFiles: true });
    this.source = project.createSourceFile(path, "");
  }

  /**
   * Appends top-level statements. Every ts-morph edit re-parses the file, so pass many statements in one
   * call rather than calling source.addInterface() once per type.
   */
  add(statements: readonly StatementStructures[]): void {
    this.source.addStatements([...statements]);
  }

  /** Records that this file uses the symbol; returns the name to write in code. */
  use(symbol: ImportSymbol): string {
    const specifier = this.#specifier(symbol.from);
    const origin = this.#origins.get(symbol.name);
    if (origin !== undefined && origin !== specifier) {
      throw new Error(`${this.path}: "${symbol.name}" imported from both ${origin} and ${specifier}`);
    }
    this.#origins.set(symbol.name, specifier);
    const names = this.#imports.get(specifier) ?? new Map<string, boolean>();
    names.set(symbol.name, (names.get(symbol.name) ?? true) && symbol.typeOnly);
    this.#imports.set(specifier, names);
    return symbol.name;
  }

  /** The module text with its import declarations first, sorted by module and name. */
  toGeneratedFile(description?: string): GeneratedFile {
    const imports = [...this.#imports.entries()].sort(([a], [b]) => compare(a, b));
    this.source.insertImportDeclarations(
      0,
      imports.map(([moduleSpecifier, names]) => {
        const sorted = [...names.entries()].sort(([a], [b]) => compare(a, b));
        const allTypes = sorted.every(([, typeOnly]) => typeOnly);
        return {
          moduleSpecifier,
          isTypeOnly: allTypes,
          namedImports: sorted.map(([name, typeOnly]) => ({ name, isTypeOnly: typeOnly && !allTypes })),
        };
      }),
    );
    const content = this.source.getFullText();
    return description === undefined
      ? { path: this.path, content }
      : { path: this.path, content, description };
  }

  /** "runtime/model.ts" seen from "client/soap.ts" → "../runtime/model.js"; package names pass through. */
  #specifier(from: string): string {
    if (!from.endsWith(".ts")) return from;
    const relative = path.posix.relative(path.posix.dirname(this.path), from).replace(/\.ts$/, ".js");
    return relative.startsWith(".") ? relative : `./${relative}`;
  }
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
