// A symbol one generated file imports from another, or from a package. Emitters ask a TypeScriptFile to
// use() a symbol and write the returned name; the file writes the import declarations itself.

export interface ImportSymbol {
  readonly name: string;
  /** A generated module as a path in the output folder ("runtime/model.ts"), or a package name. */
  readonly from: string;
  /** Import with `import type`; a symbol used both ways is imported as a value. */
  readonly typeOnly: boolean;
}

export function importSymbol(name: string, from: string, options: { typeOnly?: boolean } = {}): ImportSymbol {
  return { name, from, typeOnly: options.typeOnly ?? false };
}

export function importType(name: string, from: string): ImportSymbol {
  return importSymbol(name, from, { typeOnly: true });
}
