// The npm workspaces (docs/architecture.md "Packages"): the generator with its runtime (easgen, packages/easgen/), the
// reference service (service/) and the example (examples/book-catalog/), each listing exactly the packages its
// code imports; the root keeps the scripts and the dev tools. Every package is installed once, at the version
// its manifests pin, in the root node_modules where the code (and the service's bundle in dist/service/)
// resolves it. Each package has its vitest project, and only the service's starts PostgreSQL.

import { spawnSync } from "node:child_process";
import {
  chmodSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { isBuiltin } from "node:module";
import { tmpdir } from "node:os";
import path from "node:path";
import ts from "typescript";
import type { TestProjectInlineConfiguration } from "vitest/config";
import { afterAll, describe, expect, it } from "vitest";
import {
  type Manifest,
  npmChildEnv,
  readLockPackages,
  readManifest,
  REPO,
  WORKSPACES,
} from "../fixtures/workspaces.js";

const ROOT = readManifest(".");
const MANIFESTS = Object.fromEntries(
  Object.entries(WORKSPACES).map(([name, w]) => [name, readManifest(w.dir)]),
);
/** Where the root's tests, benchmarks and tools live: they may import the dev tools and any package's dependencies. */
const ROOT_CODE = ["test", "bench", "vitest.config.ts"];
const SOURCE = /\.(?:[cm]?ts|[cm]?js)$/;

const scratch: string[] = [];
afterAll(() => {
  for (const dir of scratch) rmSync(dir, { recursive: true, force: true });
});

/** Files under a folder (or the file itself), tracked or not, without node_modules and dist. */
function sourceFiles(relative: string): string[] {
  const full = path.join(REPO, relative);
  if (!existsSync(full)) return [];
  if (!statSync(full).isDirectory()) return SOURCE.test(full) ? [full] : [];
  return readdirSync(full, { withFileTypes: true }).flatMap((entry) =>
    entry.name === "node_modules" || entry.name === "dist"
      ? []
      : sourceFiles(path.join(relative, entry.name)),
  );
}

/** "prettier/package.json" → prettier, "@a/b/c" → @a/b. */
function packageName(specifier: string): string {
  const parts = specifier.split("/");
  return specifier.startsWith("@") ? parts.slice(0, 2).join("/") : parts[0]!;
}

/**
 * The packages a file names as modules, read from its syntax tree (so comments and strings do not count):
 * import and export declarations, `import("x")` (values and types), `require("x")`, `require.resolve("x")`,
 * `createRequire(…)("x")`, `import.meta.resolve("x")` and `declare module "x"`. Node's own modules excluded.
 */
function importedPackages(file: string): Set<string> {
  const text = readFileSync(file, "utf8");
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, false);
  const found = new Set<string>();
  const add = (node: ts.Node | undefined): void => {
    if (node === undefined || !ts.isStringLiteralLike(node)) return;
    const specifier = node.text;
    if (specifier.startsWith(".") || specifier.startsWith("/") || isBuiltin(specifier)) return;
    found.add(packageName(specifier));
  };
  const isCreateRequire = (node: ts.Expression): boolean =>
    ts.isCallExpression(node) && ts.isIdentifier(node.expression) && node.expression.text === "createRequire";
  const isResolver = (callee: ts.Expression): boolean =>
    callee.kind === ts.SyntaxKind.ImportKeyword ||
    (ts.isIdentifier(callee) && callee.text === "require") ||
    isCreateRequire(callee) ||
    (ts.isPropertyAccessExpression(callee) &&
      callee.name.text === "resolve" &&
      ((ts.isIdentifier(callee.expression) && callee.expression.text === "require") ||
        isCreateRequire(callee.expression) ||
        ts.isMetaProperty(callee.expression)));
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) add(node.moduleSpecifier);
    else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument)) add(node.argument.literal);
    else if (ts.isModuleDeclaration(node)) add(node.name);
    else if (ts.isCallExpression(node) && isResolver(node.expression)) add(node.arguments[0]);
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** package → the files (relative) of `folders` that import it. */
function importsOf(folders: readonly string[]): Map<string, string[]> {
  const byPackage = new Map<string, string[]>();
  for (const file of folders.flatMap(sourceFiles)) {
    for (const name of importedPackages(file)) {
      byPackage.set(name, [...(byPackage.get(name) ?? []), path.relative(REPO, file)]);
    }
  }
  return byPackage;
}

/** The packages a script command runs: `tsx …`, `node --import tsx …`, `vitest …`, `node node_modules/x/…`. */
function scriptPackages(command: string): Set<string> {
  const found = new Set<string>();
  for (const match of command.matchAll(/(?:^|&&|\|\||;)\s*(?:npx\s+)?([a-z][\w.-]*)/g)) found.add(match[1]!);
  for (const match of command.matchAll(/--(?:import|require|loader)[= ]([^\s"']+)/g))
    found.add(packageName(match[1]!));
  for (const match of command.matchAll(/node_modules\/((?:@[^/\s]+\/)?[^/\s]+)/g)) found.add(match[1]!);
  return found;
}

/** Every package named by a "node_modules/<name>" path or path.join(…, "node_modules", "<name>", …) in the files. */
function pathReferences(folders: readonly string[]): Set<string> {
  const found = new Set<string>();
  for (const file of folders.flatMap(sourceFiles)) {
    const text = readFileSync(file, "utf8");
    for (const match of text.matchAll(/node_modules\/((?:@[\w.-]+\/)?[\w.-]+)/g)) found.add(match[1]!);
    for (const match of text.matchAll(/"node_modules",\s*"([\w.@/-]+)"/g)) found.add(match[1]!);
  }
  return found;
}

/** The command names a package installs (its package.json "bin"): a script runs `biome`, the package is @biomejs/biome. */
function binariesOf(name: string): string[] {
  const manifest = JSON.parse(readFileSync(path.join("node_modules", name, "package.json"), "utf8")) as {
    bin?: string | Record<string, string>;
  };
  if (typeof manifest.bin === "string") return [name.replace(/^@[^/]+\//, "")];
  return Object.keys(manifest.bin ?? {});
}

const sorted = (names: Iterable<string>): string[] => [...names].sort();

describe("the npm workspaces", () => {
  it("the root is private, declares the three workspaces and has dev tools only", () => {
    expect(ROOT.private).toBe(true);
    expect(sorted(ROOT.workspaces ?? [])).toEqual(sorted(Object.values(WORKSPACES).map((w) => w.dir)));
    expect(
      ROOT.dependencies,
      "the root package.json has dependencies: move each to the package whose code imports it " +
        "(npm install --save-exact --no-audit --no-fund -w <easgen|service|book-catalog> name@version), a dev tool to devDependencies",
    ).toBeUndefined();
    // The scripts people use stay at the root.
    for (const script of [
      "test",
      "start",
      "generate",
      "check",
      "typecheck",
      "bench",
      "fuzz",
      "admin",
      "conformance",
      "build:easgen",
    ])
      expect(ROOT.scripts?.[script], script).toBeDefined();
    for (const [name, manifest] of Object.entries(MANIFESTS)) {
      expect(manifest.name).toBe(name);
      expect(manifest.version, `${name}'s version`).toBe(ROOT.version);
      expect(manifest.private, `${name} is published from dist/, never from its folder`).toBe(true);
      expect((manifest as Manifest & { type?: string }).type, `${name}'s "type"`).toBe("module");
      // From the repository's root, as `npm test` runs them: tests read files and start children relative to it.
      expect(manifest.scripts?.["test"], `${name}'s test script`).toBe(
        `cd ${path.relative(path.join(REPO, WORKSPACES[name]!.dir), REPO)} && vitest run --project ${WORKSPACES[name]!.project}`,
      );
    }
  });

  it("each package's dependencies are exactly the packages its code imports", () => {
    const problems: string[] = [];
    for (const [name, workspace] of Object.entries(WORKSPACES)) {
      const manifest = MANIFESTS[name]!;
      const listed = manifest.dependencies ?? {};
      const imports = importsOf(workspace.code);
      imports.delete(name); // its own name in a doc comment's example
      for (const [imported, files] of imports) {
        if (listed[imported] === undefined)
          problems.push(
            `${files[0]} imports "${imported}", which ${workspace.dir}/package.json does not list under dependencies`,
          );
      }
      for (const dependency of Object.keys(listed)) {
        if (!imports.has(dependency))
          problems.push(
            `${workspace.dir}/package.json lists "${dependency}", which nothing in ${workspace.code.join(", ")} imports`,
          );
      }
      for (const typings of Object.keys(manifest.devDependencies ?? {})) {
        const typed = typings.replace(/^@types\//, "");
        if (!typings.startsWith("@types/") || listed[typed] === undefined)
          problems.push(
            `${workspace.dir}/package.json: devDependency "${typings}" is not the types of one of its dependencies`,
          );
      }
    }
    expect(problems).toEqual([]);
  });

  it("tests, benchmarks and configs import only the root's dev tools and the packages' dependencies, and each dev tool is used", () => {
    const dev = ROOT.devDependencies ?? {};
    const packageDependencies = new Set(
      Object.values(MANIFESTS).flatMap((m) => Object.keys(m.dependencies ?? {})),
    );
    const imports = importsOf(ROOT_CODE);
    const problems: string[] = [];
    for (const [imported, files] of imports) {
      if (
        dev[imported] === undefined &&
        !packageDependencies.has(imported) &&
        WORKSPACES[imported] === undefined
      )
        problems.push(`${files[0]} imports "${imported}", which no package.json lists`);
    }
    // Used: imported by the root's code or packages/easgen's build, run by a script, or named by a path.
    const used = new Set([
      ...imports.keys(),
      ...importsOf(WORKSPACES["easgen"]!.code).keys(),
      ...Object.values({
        ...ROOT.scripts,
        ...Object.assign({}, ...Object.values(MANIFESTS).map((m) => m.scripts)),
      }).flatMap((command) => [...scriptPackages(command as string)]),
      ...pathReferences([...ROOT_CODE, "packages", "generator"]),
    ]);
    for (const tool of Object.keys(dev)) {
      const typed = tool.startsWith("@types/") ? tool.slice("@types/".length) : undefined;
      const isUsed =
        typed === undefined
          ? used.has(tool) || binariesOf(tool).some((bin) => used.has(bin))
          : typed === "node" || used.has(typed) || packageDependencies.has(typed);
      if (!isUsed)
        problems.push(`package.json lists the dev tool "${tool}", which nothing imports, runs or names`);
    }
    expect(problems).toEqual([]);
  });

  it("each package is pinned to one version, installed once in the root node_modules, where its importers resolve it", () => {
    const pins = new Map<string, Map<string, string>>();
    const manifests: [string, Manifest][] = [
      [".", ROOT],
      ...Object.entries(WORKSPACES).map(([n, w]) => [w.dir, MANIFESTS[n]!] as [string, Manifest]),
    ];
    for (const [dir, manifest] of manifests) {
      for (const [name, version] of Object.entries({
        ...manifest.dependencies,
        ...manifest.devDependencies,
      })) {
        pins.set(name, (pins.get(name) ?? new Map()).set(dir, version));
      }
    }
    const problems: string[] = [];
    for (const [name, byDir] of pins) {
      const versions = new Set(byDir.values());
      if (versions.size > 1)
        problems.push(`${name} is pinned to ${[...byDir].map(([d, v]) => `${v} in ${d}`).join(", ")}`);
    }
    // Node looks for node_modules/<name> from the importing file upward: from generator/ and runtime/, from
    // service/, and from dist/service/ (npm start's bundle, whose packages stay imports) it must reach the root's.
    const lookup = (fromDir: string, name: string): string | undefined => {
      for (let dir = path.join(REPO, fromDir); ; dir = path.dirname(dir)) {
        const candidate = path.join(dir, "node_modules", name, "package.json");
        if (existsSync(candidate)) return candidate;
        if (path.relative(REPO, dir) === "") return undefined;
      }
    };
    const lock = readLockPackages();
    for (const [name, workspace] of Object.entries(WORKSPACES)) {
      const dependencies = MANIFESTS[name]!.dependencies ?? {};
      const from = [...workspace.code, workspace.dir, ...(name === "service" ? ["dist/service"] : [])];
      for (const [dependency, version] of Object.entries(dependencies)) {
        if (lock[`node_modules/${dependency}`]?.version !== version)
          problems.push(
            `package-lock.json does not hoist ${dependency}@${version} to node_modules/ (${name} needs it)`,
          );
        for (const dir of from) {
          const found = lookup(dir, dependency);
          const installed =
            found === undefined
              ? undefined
              : (JSON.parse(readFileSync(found, "utf8")) as { version: string }).version;
          if (found !== path.join(REPO, "node_modules", dependency, "package.json") || installed !== version)
            problems.push(
              `from ${dir}/, "${dependency}" resolves to ${found === undefined ? "nothing" : `${path.relative(REPO, found)} (${installed})`}, not node_modules/${dependency} ${version}`,
            );
        }
      }
      // The lockfile records each workspace's lists as its package.json has them (npm ci refuses it otherwise).
      const locked = lock[workspace.dir];
      expect(locked?.dependencies ?? {}, `package-lock.json's ${workspace.dir} dependencies`).toEqual(
        dependencies,
      );
      expect(
        locked?.["devDependencies"] ?? {},
        `package-lock.json's ${workspace.dir} devDependencies`,
      ).toEqual(MANIFESTS[name]!.devDependencies ?? {});
    }
    expect(lock[""]?.["devDependencies"]).toEqual(ROOT.devDependencies);
    expect(lock[""]?.dependencies).toEqual(ROOT.dependencies);
    expect(problems).toEqual([]);
  });
});

describe("the vitest projects", () => {
  const vitestBin = path.join(REPO, "node_modules/vitest/vitest.mjs");
  /** A child vitest or npm, without the parent run's vitest and npm variables. */
  const childEnv = (extra: Record<string, string>): NodeJS.ProcessEnv => {
    const env = Object.fromEntries(
      Object.entries(npmChildEnv()).filter(
        ([key]) => !key.startsWith("VITEST") && key !== "CI" && key !== "NODE_ENV",
      ),
    );
    return { ...env, ...extra };
  };

  it("every test file belongs to exactly one project, the one of the package it tests", () => {
    const listed = spawnSync(process.execPath, [vitestBin, "list", "--filesOnly", "--json"], {
      cwd: REPO,
      encoding: "utf8",
      env: childEnv({}),
    });
    expect(listed.status, listed.stderr).toBe(0);
    const files = JSON.parse(listed.stdout) as { file: string; projectName: string }[];
    const byFile = new Map<string, string[]>();
    for (const { file, projectName } of files)
      byFile.set(path.relative(REPO, file), [...(byFile.get(path.relative(REPO, file)) ?? []), projectName]);
    const onDisk = sourceFiles("test")
      .filter((file) => file.endsWith(".test.ts"))
      .map((file) => path.relative(REPO, file));
    expect(sorted(byFile.keys())).toEqual(sorted(onDisk));
    const expected = (file: string): string =>
      file.startsWith("test/service/") || file === "test/attack/real-service.test.ts"
        ? "service"
        : file.startsWith("test/examples/")
          ? "example"
          : file.startsWith("test/repo/")
            ? "repo"
            : "easgen";
    expect([...byFile].filter(([file, projects]) => projects.join() !== expected(file))).toEqual([]);
  });

  it("only the service's project has PostgreSQL's global setup", async () => {
    const config = (await import("../../vitest.config.ts")).default as {
      test?: { globalSetup?: unknown; projects?: TestProjectInlineConfiguration[] };
    };
    expect(config.test?.globalSetup).toBeUndefined();
    const setups = Object.fromEntries(
      (config.test?.projects ?? []).map((p) => [p.test?.name, p.test?.globalSetup ?? null]),
    );
    expect(setups).toEqual({
      easgen: null,
      service: ["test/service/support/global-setup.ts"],
      example: null,
      repo: null,
    });
  });

  it("`npm test -w easgen` runs its tests without starting PostgreSQL; `npm test -w service` starts it", {
    timeout: 180_000,
  }, () => {
    // A PostgreSQL that records being started: PG_BIN is the only place the global setup looks when set.
    // Its initdb and pg_ctl run as the `postgres` user when the tests run as root, so all may write the record.
    const fake = mkdtempSync(path.join(tmpdir(), "fake-pg-"));
    scratch.push(fake);
    chmodSync(fake, 0o755);
    const record = path.join(fake, "started");
    writeFileSync(record, "");
    chmodSync(record, 0o666);
    for (const program of ["initdb", "pg_ctl"]) {
      writeFileSync(path.join(fake, program), `#!/bin/sh\necho "${program}" >> '${record}'\nexit 1\n`);
      chmodSync(path.join(fake, program), 0o755);
    }
    const run = (workspace: string, file: string): string => {
      const result = spawnSync("npm", ["test", "-w", workspace, "--", file], {
        cwd: REPO,
        encoding: "utf8",
        env: childEnv({ PG_BIN: fake }),
      });
      expect(result.status, `npm test -w ${workspace} -- ${file}:\n${result.stdout}${result.stderr}`).toBe(0);
      expect(result.stdout).toMatch(/Test Files\s+.*1 passed/);
      return readFileSync(record, "utf8");
    };
    expect(run("easgen", "test/generator/load.test.ts")).toBe("");
    // The same check sees a start: the service's project runs the global setup, which calls initdb.
    const smallest = sourceFiles("test/service")
      .filter((file) => file.endsWith(".test.ts"))
      .sort((a, b) => statSync(a).size - statSync(b).size)[0]!;
    expect(run("service", path.relative(REPO, smallest))).toContain("initdb");
  });
});
