// Shapes of the output besides the default (client and server, .ts files):
//
// - clientOnly: client.ts and the files it imports, followed through every import and re-export (types
//   included, as tsc follows them), plus package.json and a client tsconfig.json. Found from the files' own
//   imports, so whatever folders the runtime is laid out in, what the client needs is what is kept. No
//   server, WSDL, help pages or doc texts: a vendor copies it into a browser app (no @types/node) or a Node
//   app without the DOM library, and it type-checks with every file included.
// - fileExtension ".mts": every TypeScript file written as .mts, its relative specifiers as .mjs, so tsc emits
//   .mjs files that Node loads as ES modules wherever they land: a CommonJS project compiling into an
//   outDir (where the folder's package.json is not copied) runs them through require(esm).

import path from "node:path";
import { ts } from "ts-morph";
import type { GeneratedFile } from "../generated-file.js";

/** The client's entry: what clientOnly keeps, with what it imports. */
const CLIENT_ENTRY = "client.ts";
/** Files that are not TypeScript and belong to every shape of the output. */
const ALWAYS = new Set(["package.json", "tsconfig.json"]);

/** The files the client needs: CLIENT_ENTRY's import closure and ALWAYS. */
export function clientOnlyFiles(files: readonly GeneratedFile[]): GeneratedFile[] {
  const byPath = new Map(files.map((file) => [file.path, file]));
  if (!byPath.has(CLIENT_ENTRY)) throw new Error(`clientOnly: no ${CLIENT_ENTRY} was emitted`);
  const keep = new Set<string>();
  const queue = [CLIENT_ENTRY];
  while (queue.length > 0) {
    const current = queue.pop()!;
    if (keep.has(current)) continue;
    keep.add(current);
    for (const specifier of relativeSpecifiers(byPath.get(current)!.content)) {
      const target = resolveTs(current, specifier);
      if (!byPath.has(target))
        throw new Error(`clientOnly: ${current} imports ${specifier}, which no emitter wrote (${target})`);
      queue.push(target);
    }
  }
  return files.filter((file) => keep.has(file.path) || ALWAYS.has(file.path));
}

/** Every relative module specifier of a TypeScript text: imports, re-exports and import() types. */
function relativeSpecifiers(content: string): string[] {
  return ts
    .preProcessFile(content, true, true)
    .importedFiles.map((file) => file.fileName)
    .filter((name) => name.startsWith("./") || name.startsWith("../"));
}

/** `./x.js` seen from `dir/file.ts` → `dir/x.ts` (the output's own files are .ts, imported as .js). */
function resolveTs(from: string, specifier: string): string {
  const joined = path.posix.normalize(path.posix.join(path.posix.dirname(from), specifier));
  return joined.replace(/\.js$/, ".ts");
}

/** Relative specifiers ending in .js, in the forms TypeScript writes them: from "…", import("…"), import "…". */
const JS_SPECIFIER = /(\bfrom\s*|\bimport\s*\(\s*|\bimport\s+)(["'])(\.{1,2}\/[^"'\n]*?)\.js\2/g;

/** The file as .mts with .mjs specifiers; other files as they are. */
export function asMts(file: GeneratedFile): GeneratedFile {
  if (!file.path.endsWith(".ts")) return file;
  return {
    ...file,
    path: `${file.path.slice(0, -3)}.mts`,
    content: file.content.replace(JS_SPECIFIER, "$1$2$3.mjs$2"),
  };
}
