// Where the generator finds its own files: templates/, runtime/ (the sources it copies into the output),
// spec/service.schema.json and package.json. They sit in the package root, the nearest folder above this module
// holding a package.json: the repository when run from source (generator/paths.ts), the installed `easgen`
// package when run compiled (lib/generator/paths.js, whose runtime/ holds the TypeScript sources while the
// compiled runtime lives in lib/runtime/).

import { existsSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

/** How many folders up the package root may be (generator/ in the repository, lib/generator/ when built). */
const MAX_LEVELS = 4;

function findPackageRoot(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (let level = 0; level <= MAX_LEVELS; level++, dir = path.dirname(dir)) {
    if (existsSync(path.join(dir, "package.json"))) return dir;
  }
  throw new Error(
    `easgen: no package.json within ${MAX_LEVELS} folders above ${fileURLToPath(import.meta.url)}`,
  );
}

/** Absolute path of the folder holding the generator's package.json. */
const PACKAGE_ROOT: string = findPackageRoot();

/** Absolute paths of the generator's own files. */
export const PACKAGE_FILES = {
  packageJson: path.join(PACKAGE_ROOT, "package.json"),
  templatesDir: path.join(PACKAGE_ROOT, "templates"),
  runtimeDir: path.join(PACKAGE_ROOT, "runtime"),
  schema: path.join(PACKAGE_ROOT, "spec", "service.schema.json"),
  formatCache: path.join(PACKAGE_ROOT, "node_modules", ".cache", "easgen", "prettier.json"),
  patternCache: path.join(PACKAGE_ROOT, "node_modules", ".cache", "easgen", "recheck.json"),
} as const;
