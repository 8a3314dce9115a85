// `npm run build:easgen`: the installable `easgen` package in dist/easgen/, run with plain node.
//
//   lib/        generator/ and runtime/ compiled by tsc (TypeScript 7's native compiler: about 2 s), with .d.ts
//   runtime/    the runtime's TypeScript sources, which `generate` copies into every output folder
//   templates/  the handlebars templates; spec/service.schema.json, the schema specs are validated against
//   package.json  name easgen, the repository's version, bin easgen → lib/generator/bin.js, exports → the
//                 programmatic API (lib/generator/index.js), and only the dependencies the compiled code
//                 imports, pinned to the versions the repository's package.json pins
//   README.md   packages/easgen/README.md
//
// Then `cd dist/easgen && npm pack` makes the tarball. Exit 1 (naming the file or import) when the code does
// not type-check or imports a package the repository has only as a devDependency.

import { spawnSync } from "node:child_process";
import {
  cpSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const REPO = fileURLToPath(new URL("../../", import.meta.url));
export const OUT = path.join(REPO, "dist", "easgen");

interface RootPackage {
  version: string;
  engines?: Record<string, string>;
  dependencies: Record<string, string>;
  devDependencies?: Record<string, string>;
}

export interface BuildResult {
  readonly dir: string;
  readonly files: number;
  readonly bytes: number;
  readonly ms: number;
  readonly dependencies: Readonly<Record<string, string>>;
}

/** Builds the package into `dir` (default dist/easgen/, emptied first). */
export function buildEasgen(log: (line: string) => void = console.log, dir: string = OUT): BuildResult {
  const started = performance.now();
  const root = JSON.parse(readFileSync(path.join(REPO, "package.json"), "utf8")) as RootPackage;
  rmSync(dir, { recursive: true, force: true });

  const tsc = path.join(REPO, "node_modules", "typescript7", "bin", "tsc");
  const lib = path.join(dir, "lib");
  const config = path.join(REPO, "tsconfig.build.json");
  const compiled = spawnSync(process.execPath, [tsc, "-p", config, "--outDir", lib], {
    cwd: REPO,
    encoding: "utf8",
  });
  if (compiled.status !== 0) {
    throw new Error(`easgen build: tsc -p tsconfig.build.json failed:\n${compiled.stdout}${compiled.stderr}`);
  }

  cpSync(path.join(REPO, "templates"), path.join(dir, "templates"), { recursive: true });
  cpSync(path.join(REPO, "runtime"), path.join(dir, "runtime"), {
    recursive: true,
    filter: (source) =>
      statSync(source).isDirectory() || (source.endsWith(".ts") && !source.endsWith(".test.ts")),
  });
  mkdirSync(path.join(dir, "spec"), { recursive: true });
  cpSync(path.join(REPO, "spec", "service.schema.json"), path.join(dir, "spec", "service.schema.json"));
  cpSync(path.join(REPO, "packages", "easgen", "README.md"), path.join(dir, "README.md"));

  const dependencies = importedPackages(lib, root, dir);
  const manifest = {
    name: "easgen",
    version: root.version,
    description:
      "Generates a typed TypeScript client, server skeleton, XML codecs, WSDL and help pages for an ASMX-style " +
      "web service (SOAP 1.1, SOAP 1.2, HTTP GET, HTTP POST) from a YAML spec.",
    keywords: ["asmx", "soap", "wsdl", "codegen", "typescript"],
    type: "module",
    engines: { node: root.engines?.["node"] ?? ">=20.19" },
    bin: { easgen: "./lib/generator/bin.js" },
    exports: {
      ".": { types: "./lib/generator/index.d.ts", default: "./lib/generator/index.js" },
      "./package.json": "./package.json",
    },
    main: "./lib/generator/index.js",
    types: "./lib/generator/index.d.ts",
    files: ["lib/", "runtime/", "templates/", "spec/service.schema.json", "README.md"],
    dependencies,
  };
  writeFileSync(path.join(dir, "package.json"), `${JSON.stringify(manifest, null, 2)}\n`);

  const all = listFiles(dir);
  const bytes = all.reduce((sum, file) => sum + statSync(file).size, 0);
  const ms = Math.round(performance.now() - started);
  log(
    `easgen build: ${path.relative(process.cwd(), dir) || "."}/ (${all.length} files, ${(bytes / 1024).toFixed(0)} KiB) in ${ms} ms; ` +
      `dependencies: ${Object.entries(dependencies)
        .map(([name, version]) => `${name}@${version}`)
        .join(", ")}`,
  );
  return { dir, files: all.length, bytes, ms, dependencies };
}

/** The package name of a bare import specifier ("prettier/package.json" → prettier, "@a/b/c" → @a/b). */
function packageName(specifier: string): string {
  const parts = specifier.split("/");
  return specifier.startsWith("@") ? parts.slice(0, 2).join("/") : parts[0]!;
}

const IMPORT = /(?:\bfrom\s+|\bimport\(\s*|\brequire\(\s*|\)\(\s*)"([^"./][^"]*)"/g;

/** Every package the compiled code imports, with the version the repository pins; refuses devDependencies. */
function importedPackages(lib: string, root: RootPackage, dir: string): Record<string, string> {
  const found = new Map<string, string>();
  for (const file of listFiles(lib)) {
    if (!file.endsWith(".js")) continue;
    for (const match of readFileSync(file, "utf8").matchAll(IMPORT)) {
      const name = packageName(match[1]!);
      if (name.startsWith("node:") || found.has(name)) continue;
      // Only real packages count (a string such as "client/soap.ts" in a comment is not one).
      if (!existsSync(path.join(REPO, "node_modules", name, "package.json"))) continue;
      const version = root.dependencies[name];
      if (version === undefined) {
        throw new Error(
          `easgen build: ${path.relative(dir, file)} imports "${name}", which package.json lists ` +
            `${root.devDependencies?.[name] === undefined ? "nowhere" : "only under devDependencies"}; ` +
            "move it to dependencies",
        );
      }
      found.set(name, version);
    }
  }
  return Object.fromEntries([...found].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

function listFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    return entry.isDirectory() ? listFiles(full) : [full];
  });
}

if (process.argv[1] !== undefined && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  try {
    buildEasgen();
  } catch (error) {
    console.error((error as Error).message);
    process.exitCode = 1;
  }
}
