// `npm run build:easgen`: the installable `easgen` package in dist/easgen/, run with plain node.
//
//   lib/        generator/ and runtime/ compiled by tsc (TypeScript 7's native compiler: about 2 s), with .d.ts
//   runtime/    the runtime's TypeScript sources, which `generate` copies into every output folder
//   templates/  the handlebars templates; spec/service.schema.json, the schema specs are validated against
//   package.json  the workspace's packages/easgen/package.json (name, version, description, engines and its
//                 dependencies, which are exactly the packages the compiled code imports), without its
//                 scripts, devDependencies and `private`, plus bin easgen → lib/generator/bin.js and exports →
//                 the programmatic API (lib/generator/index.js)
//   README.md   packages/easgen/README.md
//   docs/       the docs/ pages the README links (the spec reference, the CI example) and, in turn, the pages
//               those link, so that every relative link of a shipped page resolves inside the package
//
// Then `cd dist/easgen && npm pack` makes the tarball. Exit 1 (naming the file, import or field) when the code
// does not type-check, imports a package packages/easgen/package.json does not list under dependencies, or
// that list names a package the code does not import, or its version is not the repository's.

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
/**
 * The docs/ pages to ship: those the package README links (`./docs/<page>.md`), then every page a shipped
 * page links (`<page>.md`, `../docs/<page>.md`, with or without an #anchor), to the end. Paths are relative
 * to docs/, images the pages show included. A link to a page that does not exist throws, naming the page
 * that links it.
 */
export function shippedDocs(
  readme: string = readFileSync(path.join(REPO, "packages", "easgen", "README.md"), "utf8"),
): string[] {
  const docs = path.join(REPO, "docs");
  const pending = [...readme.matchAll(/\]\(\.\/docs\/([^)#\s]+\.md)(?:#[^)]*)?\)/g)].map((m) => ({
    page: m[1]!,
    from: "README.md",
  }));
  const shipped = new Set<string>();
  for (let next = pending.shift(); next !== undefined; next = pending.shift()) {
    const { page, from } = next;
    if (shipped.has(page)) continue;
    const file = path.join(docs, page);
    if (path.relative(docs, file).startsWith("..") || !existsSync(file)) {
      throw new Error(`easgen build: ${from} links docs/${page}, which is not a page of docs/`);
    }
    shipped.add(page);
    const text = readFileSync(file, "utf8");
    // Images a shipped page shows ship with it, so its links resolve inside the package too.
    for (const m of text.matchAll(/\]\(([^)#\s:]+\.(?:png|svg|jpe?g|gif))\)/g)) {
      const image = path.relative(docs, path.resolve(path.dirname(file), m[1]!));
      if (image.startsWith("..") || !existsSync(path.join(docs, image))) {
        throw new Error(`easgen build: docs/${page} shows docs/${image}, which does not exist`);
      }
      shipped.add(image);
    }
    for (const m of text.matchAll(/\]\(([^)#\s:]+\.md)(?:#[^)]*)?\)/g)) {
      pending.push({
        page: path.relative(docs, path.resolve(path.dirname(file), m[1]!)),
        from: `docs/${page}`,
      });
    }
  }
  return [...shipped].sort();
}
/** The workspace manifest: the published package.json starts from it. */
const WORKSPACE_MANIFEST = path.join(REPO, "packages", "easgen", "package.json");

interface WorkspacePackage {
  name: string;
  version: string;
  description: string;
  keywords?: string[];
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
  const workspace = JSON.parse(readFileSync(WORKSPACE_MANIFEST, "utf8")) as WorkspacePackage;
  // Run from source, the generator reports (and writes into every header) the repository's version.
  const repositoryVersion = (
    JSON.parse(readFileSync(path.join(REPO, "package.json"), "utf8")) as { version: string }
  ).version;
  if (workspace.version !== repositoryVersion) {
    throw new Error(
      `easgen build: packages/easgen/package.json has version ${workspace.version}, the repository's ` +
        `package.json ${repositoryVersion}; make them equal`,
    );
  }
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
  for (const doc of shippedDocs()) {
    mkdirSync(path.dirname(path.join(dir, "docs", doc)), { recursive: true });
    cpSync(path.join(REPO, "docs", doc), path.join(dir, "docs", doc));
  }

  const dependencies = importedPackages(lib, workspace, dir);
  const manifest = {
    name: workspace.name,
    version: workspace.version,
    description: workspace.description,
    keywords: workspace.keywords ?? [],
    type: "module",
    engines: { node: workspace.engines?.["node"] ?? ">=20.19" },
    bin: { easgen: "./lib/generator/bin.js" },
    exports: {
      ".": { types: "./lib/generator/index.d.ts", default: "./lib/generator/index.js" },
      "./package.json": "./package.json",
      "./spec/service.schema.json": "./spec/service.schema.json",
    },
    main: "./lib/generator/index.js",
    types: "./lib/generator/index.d.ts",
    files: ["lib/", "runtime/", "templates/", "spec/service.schema.json", "docs/", "README.md"],
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

/**
 * Every package the compiled code imports, with the version packages/easgen/package.json pins; refuses an
 * import that manifest does not list under dependencies, and a dependency listed there that nothing imports.
 */
function importedPackages(lib: string, workspace: WorkspacePackage, dir: string): Record<string, string> {
  const found = new Map<string, string>();
  for (const file of listFiles(lib)) {
    if (!file.endsWith(".js")) continue;
    for (const match of readFileSync(file, "utf8").matchAll(IMPORT)) {
      const name = packageName(match[1]!);
      // The package's own name (the examples in generator/index.ts's doc comment) is no dependency.
      if (name.startsWith("node:") || name === workspace.name || found.has(name)) continue;
      // Only real packages count (a string such as "client/soap.ts" in a comment is not one).
      if (!existsSync(path.join(REPO, "node_modules", name, "package.json"))) continue;
      const version = workspace.dependencies[name];
      if (version === undefined) {
        throw new Error(
          `easgen build: ${path.relative(dir, file)} imports "${name}", which packages/easgen/package.json lists ` +
            `${workspace.devDependencies?.[name] === undefined ? "nowhere" : "only under devDependencies"}; ` +
            "add it to its dependencies",
        );
      }
      found.set(name, version);
    }
  }
  const unused = Object.keys(workspace.dependencies).filter((name) => !found.has(name));
  if (unused.length > 0) {
    throw new Error(
      `easgen build: packages/easgen/package.json lists ${unused.map((name) => `"${name}"`).join(", ")} under ` +
        "dependencies, which the compiled code does not import; remove it",
    );
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
