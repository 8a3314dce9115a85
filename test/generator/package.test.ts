// The installable package: `npm run build:easgen`, `npm pack`, the tarball installed into a fresh project by
// `npm ci --offline` (from the npm cache the repository's own `npm ci` filled: no network), then the `easgen`
// executable run with plain node (no tsx): --version, generate, check, and the programmatic API. The install
// holds the generator's dependencies and nothing of the reference service's (no database driver).

import { execFileSync, spawnSync } from "node:child_process";
import {
  copyFileSync,
  cpSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generateFiles } from "../../generator/generate.js";
import { buildEasgen, type BuildResult, shippedDocs } from "../../packages/easgen/build.js";
import { npmChildEnv, readManifest, writeTarballProject } from "../fixtures/workspaces.js";
import { brokenLinks } from "../fixtures/markdown-links.js";
import { readTree, REPO, removeTempDirs, SMALL_SPEC, tempDir } from "./fixtures/index.js";

afterAll(removeTempDirs);

const ROOT = readManifest(".");
/** The easgen workspace's manifest: the published package's dependencies are its. */
const WORKSPACE = readManifest("packages/easgen");
const GENERATOR_DEPENDENCIES = [
  "ajv",
  "diff",
  "handlebars",
  "ignore",
  "prettier",
  "recheck",
  "ts-morph",
  "yaml",
  "yargs",
];
/** The reference service's packages, none of which installing easgen may bring. */
const SERVICE_PACKAGES = [
  "better-sqlite3",
  "pg",
  "kysely",
  "nodemailer",
  "pino",
  "prom-client",
  "esbuild",
  "tsx",
];

let build: BuildResult;
let tarball: string;
let tarballBytes: number;
let project: string;
let bin: string;
/** The lockfile keys of the project's install (node_modules/…), and the packages npm put on disk. */
let lockedKeys: string[];
let installedPackages: string[];

function run(args: readonly string[]): { status: number | null; stdout: string; stderr: string } {
  // Plain node: the executable's shebang is `#!/usr/bin/env node`; no tsx anywhere.
  const result = spawnSync(bin, args, {
    cwd: project,
    encoding: "utf8",
    env: { ...process.env, NODE_OPTIONS: "" },
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

beforeAll(() => {
  build = buildEasgen(() => {}, path.join(tempDir(), "easgen"));
  const packs = tempDir();
  const packed = JSON.parse(
    execFileSync("npm", ["pack", "--json", "--pack-destination", packs], {
      cwd: build.dir,
      encoding: "utf8",
      env: npmChildEnv(),
      stdio: ["ignore", "pipe", "ignore"],
    }),
  ) as { filename: string; size: number }[];
  tarball = path.join(packs, packed[0]!.filename);
  tarballBytes = statSync(tarball).size;

  // A fresh project that depends on the tarball, installed by npm itself: `npm ci --offline` with a lockfile
  // made from the repository's (see writeTarballProject), so every package comes from the npm cache.
  project = tempDir();
  lockedKeys = writeTarballProject(project, tarball);
  const install = spawnSync("npm", ["ci", "--offline", "--ignore-scripts", "--no-audit", "--no-fund"], {
    cwd: project,
    encoding: "utf8",
    env: npmChildEnv(),
  });
  if (install.status !== 0) {
    throw new Error(
      `npm ci --offline of the easgen tarball failed (exit ${install.status}; a package missing from the npm ` +
        `cache? \`npm ci\` in the repository fills it):\n${install.stdout}${install.stderr}`,
    );
  }
  installedPackages = installedUnder(path.join(project, "node_modules"));
  bin = path.join(project, "node_modules", ".bin", "easgen");
  mkdirSync(path.join(project, "spec"));
  cpSync(SMALL_SPEC, path.join(project, "spec/small.yaml"));
}, 180_000);

describe("the easgen package", { timeout: 120_000 }, () => {
  it("builds fast and packs small, with only the generator's dependencies at the repository's versions", () => {
    console.log(
      `easgen package: build ${build.ms} ms, ${build.files} files (${Math.round(build.bytes / 1024)} KiB unpacked), ` +
        `tarball ${Math.round(tarballBytes / 1024)} KiB`,
    );
    expect(build.ms).toBeLessThan(60_000);
    // 1,041,863 bytes before issue 24's SOAP message shapes, 1,061,711 after (2026-11-28): the package ships
    // the compiled generator, the runtime's sources and the docs pages its README reaches (470 KB of them
    // screenshots, already compressed), so each feature adds its code twice and its docs once.
    expect(tarballBytes).toBeLessThan(1280 * 1024);
    const manifest = JSON.parse(readFileSync(path.join(build.dir, "package.json"), "utf8")) as Record<
      string,
      unknown
    >;
    expect(manifest["name"]).toBe("easgen");
    expect(manifest["version"]).toBe(ROOT.version);
    expect(manifest["private"]).toBeUndefined();
    expect(manifest["bin"]).toEqual({ easgen: "./lib/generator/bin.js" });
    expect(WORKSPACE.version).toBe(ROOT.version);
    const dependencies = manifest["dependencies"] as Record<string, string>;
    expect(Object.keys(dependencies).sort()).toEqual(GENERATOR_DEPENDENCIES);
    expect(dependencies).toEqual(WORKSPACE.dependencies);
    // The reference service's dependencies stay out.
    for (const name of SERVICE_PACKAGES) expect(dependencies[name]).toBeUndefined();
  });

  it("installs with npm into the generator's dependency tree alone: no database driver, mailer or logger", () => {
    const modules = path.join(project, "node_modules");
    const bytes = installedPackages.reduce((sum, name) => sum + treeBytes(path.join(modules, name)), 0);
    console.log(
      `easgen install: ${installedPackages.length} packages (easgen and its dependencies), ` +
        `${(bytes / 1024 / 1024).toFixed(1)} MiB in node_modules`,
    );
    // What npm installed is what the lockfile made from the repository's names, no more (optional packages
    // for other platforms are locked but not installed).
    const locked = new Set(
      lockedKeys.map((key) => key.slice(key.lastIndexOf("node_modules/") + "node_modules/".length)),
    );
    expect(installedPackages.filter((name) => !locked.has(name))).toEqual([]);
    for (const name of GENERATOR_DEPENDENCIES) expect(installedPackages).toContain(name);
    for (const name of SERVICE_PACKAGES) {
      expect(installedPackages).not.toContain(name);
      expect(existsSync(path.join(modules, name))).toBe(false);
    }
  });

  it("ships compiled JavaScript, the runtime's sources, the templates and the schema; no tests, no .ts to run", () => {
    const files = listed(path.join(project, "node_modules/easgen"));
    expect(files).toContain("lib/generator/bin.js");
    expect(files).toContain("lib/generator/index.d.ts");
    expect(files).toContain("runtime/server/wsdl.ts");
    expect(files).toContain("templates/generated-readme.md.hbs");
    expect(files).toContain("spec/service.schema.json");
    expect(files).toContain("docs/spec.md");
    expect(files).toContain("docs/ci.md");
    expect(files.filter((file) => file.endsWith(".test.ts") || file.endsWith(".test.js"))).toEqual([]);
    expect(
      files.filter((file) => file.startsWith("lib/") && file.endsWith(".ts") && !file.endsWith(".d.ts")),
    ).toEqual([]);
    expect(files.some((file) => file.startsWith("service/") || file.startsWith("test/"))).toBe(false);
    expect(readFileSync(path.join(project, "node_modules/easgen/lib/generator/bin.js"), "utf8")).toMatch(
      /^#!\/usr\/bin\/env node\n/,
    );
  });

  it("node_modules/.bin/easgen --version prints the package version, and so does npx easgen", () => {
    const { status, stdout, stderr } = run(["--version"]);
    expect(stderr).toBe("");
    expect(status).toBe(0);
    expect(stdout.trim()).toBe(ROOT.version);
    // --no-install: the project's own bin or nothing (never a download).
    const npx = spawnSync("npx", ["--no-install", "easgen", "--version"], {
      cwd: project,
      encoding: "utf8",
      env: { ...process.env, NODE_OPTIONS: "" },
    });
    expect(npx.status).toBe(0);
    expect(npx.stdout.trim()).toBe(ROOT.version);
  });

  it("generate writes what the repository's sources generate, byte for byte; check is 0, then 1 after an edit", async () => {
    const generated = run(["generate", "--spec", "spec/small.yaml", "--out", "gen"]);
    expect(generated.stderr).toBe("");
    expect(generated.status).toBe(0);
    expect(generated.stdout).toMatch(/^easgen: generated \d+ files in gen\/ /);

    // The same inputs as the package's: its runtime sources and templates as built (the repository's may
    // have moved on since, in a work tree others edit).
    const installed = path.join(project, "node_modules/easgen");
    const expected = await generateFiles({
      spec: path.join(project, "spec/small.yaml"),
      runtimeDir: path.join(installed, "runtime"),
      templatesDir: path.join(installed, "templates"),
    });
    expect(expected.ok).toBe(true);
    if (!expected.ok) return;
    const tree = readTree(path.join(project, "gen"));
    expect([...tree.keys()].sort()).toEqual(expected.files.map((file) => file.path).sort());
    for (const file of expected.files)
      expect(tree.get(file.path)?.toString("utf8") === file.content, file.path).toBe(true);

    const current = run(["check", "--spec", "spec/small.yaml", "--out", "gen"]);
    expect(current.status).toBe(0);
    expect(current.stdout).toMatch(/^easgen: gen\/ is current/);

    const model = path.join(project, "gen/model.ts");
    writeFileSync(model, `${readFileSync(model, "utf8")}// edited\n`);
    const stale = run(["check", "--spec", "spec/small.yaml", "--out", "gen"]);
    expect(stale.status).toBe(1);
    expect(stale.stderr.split("\n").slice(0, 3)).toEqual([
      "easgen: gen/ is not what the spec generates (1 file differs); run: npx easgen generate --spec spec/small.yaml --out gen",
      "  stale    gen/model.ts",
      expect.stringMatching(/^ {6}@@ -\d+,\d+ \+\d+,\d+ @@$/),
    ]);
    // verify needs no spec: the manifest's hashes name the edited file.
    const verified = run(["verify", "gen"]);
    expect(verified.status).toBe(1);
    expect(verified.stderr.split("\n").slice(0, 2)).toEqual([
      "easgen: gen/ does not match its manifest.json (1 file differs); copy the folder again from where it was generated, or regenerate it",
      "  stale    gen/model.ts",
    ]);
    // A barrel file of the user's own, named in .easgenignore, is kept by generate and reported by neither.
    writeFileSync(path.join(project, "gen/index.ts"), 'export * from "./client.js";\n');
    writeFileSync(path.join(project, "gen/.easgenignore"), "index.ts\n");
    expect(run(["generate", "--spec", "spec/small.yaml", "--out", "gen"]).status).toBe(0);
    expect(existsSync(path.join(project, "gen/index.ts"))).toBe(true);
    expect(run(["check", "--spec", "spec/small.yaml", "--out", "gen"]).status).toBe(0);
    const clean = run(["verify", "gen"]);
    expect(clean.stderr).toBe("");
    expect(clean.stdout).toMatch(
      /^easgen: gen\/ matches its manifest\.json \(\d+ files, SHA-256, \d+ ms\)$/m,
    );
  });

  it("a mistyped flag exits 2 with did-you-mean and the usage line, no stack", () => {
    const typo = run(["check", "--sepc", "spec/small.yaml"]);
    expect(typo.status).toBe(2);
    expect(typo.stdout).toBe("");
    expect(typo.stderr.split("\n")).toEqual([
      "easgen check: unknown option --sepc (did you mean --spec?)",
      expect.stringMatching(/^usage: easgen check \[--config <file>\] \[--spec <file\.yaml>\]/),
      "",
    ]);
  });

  it("import writes a spec whose schema reference resolves in the project, to the schema the package ships", () => {
    copyFileSync(path.join(REPO, "test/import/fixtures/calculator.wsdl"), path.join(project, "calc.wsdl"));
    const imported = run(["import", "--wsdl", "calc.wsdl", "--out", "spec/Calc.yaml"]);
    expect(imported.stderr).toBe("");
    expect(imported.status).toBe(0);
    const first = readFileSync(path.join(project, "spec/Calc.yaml"), "utf8").split("\n")[0]!;
    expect(first).toBe("# yaml-language-server: $schema=../node_modules/easgen/spec/service.schema.json");
    const schema = path.resolve(project, "spec", first.slice(first.indexOf("=") + 1));
    expect(readFileSync(schema, "utf8")).toBe(
      readFileSync(path.join(REPO, "spec/service.schema.json"), "utf8"),
    );
    // The package exports it too, for tools that resolve by package name.
    const resolved = spawnSync(
      process.execPath,
      ["-e", 'console.log(require.resolve("easgen/spec/service.schema.json"))'],
      {
        cwd: project,
        encoding: "utf8",
      },
    );
    expect(resolved.stdout.trim()).toBe(schema);
  });

  it("ships a README covering install, generate, check, verify, import and the spec reference it links", () => {
    const installed = path.join(project, "node_modules/easgen");
    const readme = readFileSync(path.join(installed, "README.md"), "utf8");
    for (const command of [
      "npm install --save-dev easgen",
      "easgen generate",
      "easgen check",
      "easgen verify",
      "easgen import",
      "easgen validate",
    ]) {
      expect(readme, command).toContain(command);
    }
    // Every relative link of the README resolves inside the installed package.
    const links = [...readme.matchAll(/\]\((\.\/[^)#]+)(#[^)]*)?\)/g)].map((m) => m[1]!);
    expect(links).toEqual(expect.arrayContaining(["./docs/spec.md", "./docs/ci.md"]));
    for (const link of links) expect(existsSync(path.join(installed, link)), link).toBe(true);
    // So does every relative link (and #anchor) of every page the package ships: the build follows the
    // README's links into docs/ and ships each page they reach.
    const pages = [
      "README.md",
      ...readdirSync(path.join(installed, "docs"), { recursive: true, encoding: "utf8" })
        .filter((file) => file.endsWith(".md"))
        .map((file) => path.join("docs", file)),
    ];
    expect(pages).toEqual(expect.arrayContaining(["docs/spec.md", "docs/ci.md", "docs/wire.md"]));
    expect(brokenLinks(installed, pages)).toEqual([]);
    const ci = readFileSync(path.join(installed, "docs/ci.md"), "utf8");
    expect(ci).toContain("npm ci --ignore-scripts");
    expect(ci).toContain("npx easgen check");
  });

  it("reads easgen.config.json from the working directory", () => {
    writeFileSync(
      path.join(project, "easgen.config.json"),
      '{ "spec": "spec/small.yaml", "out": "from-config" }\n',
    );
    const { status, stdout } = run(["generate"]);
    expect(status).toBe(0);
    expect(stdout).toMatch(/in from-config\//);
    expect(run(["validate"]).stdout).toMatch(/^easgen: spec\/small\.yaml is valid/);
  });

  it("exports the programmatic API: validate, generate, check, importToYaml, importWsdl", () => {
    copyFileSync(
      path.join(REPO, "test/import/fixtures/calculator.wsdl"),
      path.join(project, "calculator.wsdl"),
    );
    const script = `
      import { readFileSync } from "node:fs";
      import { check, generate, ImportError, importToYaml, importWsdl, validate, version } from "easgen";
      const imported = await importToYaml("calculator.wsdl");
      const fromText = importWsdl(readFileSync("calculator.wsdl", "utf8"), { source: "calculator.wsdl" });
      let refused = "";
      try { importWsdl("<nope/>", { source: "nope.wsdl" }); } catch (e) { refused = e instanceof ImportError ? "ImportError" : String(e); }
      const importOk = imported.spec.service.name === "Calculator" && imported.yaml.includes("name: Calculator") && fromText.spec.service.name === "Calculator" && refused === "ImportError";
      if (!importOk) console.error("import API: " + JSON.stringify({ refused, name: fromText.spec.service.name }));
      const v = validate({ spec: "spec/small.yaml" });
      const g = await generate({ spec: "spec/small.yaml", out: "api-out" });
      const c = await check({ spec: "spec/small.yaml", out: "api-out" });
      const bad = validate({ spec: "spec/none.yaml" });
      console.log(JSON.stringify({ version, v, written: g.ok && g.written.length > 0, c, bad }));
    `;
    const file = path.join(project, "api.mjs");
    writeFileSync(file, script);
    const result = spawnSync(process.execPath, [file], {
      cwd: project,
      encoding: "utf8",
      env: { ...process.env, NODE_OPTIONS: "" },
    });
    expect(result.stderr).toBe("");
    const printed = JSON.parse(result.stdout) as Record<string, unknown>;
    expect(printed["version"]).toBe(ROOT.version);
    expect(printed["v"]).toMatchObject({
      ok: true,
      service: "Shop",
      operations: ["AddItem", "ListItems", "GetStock"],
    });
    expect(printed["written"]).toBe(true);
    expect(printed["c"]).toEqual({ ok: true, current: true, differences: [] });
    expect(printed["bad"]).toEqual({
      ok: false,
      diagnostics: [{ file: "spec/none.yaml", line: 1, col: 1, message: "cannot read the spec (ENOENT)" }],
    });
  });

  it("its .d.ts types the API for a TypeScript consumer (strict, NodeNext, skipLibCheck off)", () => {
    mkdirSync(path.join(project, "node_modules/@types"), { recursive: true });
    symlinkSync(
      path.join(REPO, "node_modules/@types/node"),
      path.join(project, "node_modules/@types/node"),
      "dir",
    );
    writeFileSync(
      path.join(project, "consumer.ts"),
      `import { check, ConfigError, generate, loadConfig, render, validate, version, type Diagnostic, type GenerateResult } from "easgen";
const r: GenerateResult = await generate({ spec: "spec/small.yaml", out: "x", wsdlAddress: "https://a.example/" });
if (r.ok) console.log(r.written satisfies readonly string[], r.deleted);
else console.log(r.diagnostics satisfies readonly Diagnostic[]);
const c = await check({ spec: "s.yaml", out: "x", namespace: "urn:x" });
if (c.ok && !c.current) for (const d of c.differences) console.log(d.kind, d.path);
const v = validate({ spec: "s.yaml" });
if (v.ok) console.log(v.service, v.operations.length, version.length);
const files = await render({ spec: "s.yaml" });
if (files.ok) console.log(files.files[0]?.path, files.files[0]?.content);
try { await loadConfig({ file: "easgen.config.json" }); } catch (e) { if (e instanceof ConfigError) console.log(e.file, e.key); }
// @ts-expect-error out is required
await generate({ spec: "s.yaml" });
// @ts-expect-error spec is a path
validate({ spec: 1 });
`,
    );
    writeFileSync(
      path.join(project, "tsconfig.json"),
      JSON.stringify({
        compilerOptions: {
          target: "ES2022",
          module: "NodeNext",
          moduleResolution: "NodeNext",
          strict: true,
          noEmit: true,
          skipLibCheck: false,
          types: ["node"],
        },
        files: ["consumer.ts"],
      }),
    );
    writeFileSync(
      path.join(project, "package.json"),
      '{ "name": "user-project", "private": true, "type": "module" }\n',
    );
    // TypeScript 7's native compiler, as the build uses (the same checks as tsc 5.9, much faster).
    const tsc = spawnSync(
      process.execPath,
      [path.join(REPO, "node_modules/typescript7/bin/tsc"), "-p", "tsconfig.json"],
      {
        cwd: project,
        encoding: "utf8",
      },
    );
    expect(tsc.stdout + tsc.stderr).toBe("");
    expect(tsc.status).toBe(0);
  });
});

function listed(dir: string, prefix = ""): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory()
      ? listed(path.join(dir, entry.name), `${prefix}${entry.name}/`)
      : [`${prefix}${entry.name}`],
  );
}

/** Package names installed in a node_modules folder, nested ones included (scoped as @scope/name). */
function installedUnder(modules: string): string[] {
  if (!existsSync(modules)) return [];
  return readdirSync(modules, { withFileTypes: true }).flatMap((entry) => {
    if (entry.name.startsWith(".") || !entry.isDirectory()) return [];
    if (entry.name.startsWith("@")) {
      return readdirSync(path.join(modules, entry.name)).flatMap((name) => [
        `${entry.name}/${name}`,
        ...installedUnder(path.join(modules, entry.name, name, "node_modules")),
      ]);
    }
    return [entry.name, ...installedUnder(path.join(modules, entry.name, "node_modules"))];
  });
}

/** Bytes of the files under dir, its own node_modules excluded (counted as packages of their own). */
function treeBytes(dir: string): number {
  return readdirSync(dir, { withFileTypes: true }).reduce((sum, entry) => {
    if (entry.name === "node_modules") return sum;
    const full = path.join(dir, entry.name);
    return sum + (entry.isDirectory() ? treeBytes(full) : entry.isFile() ? statSync(full).size : 0);
  }, 0);
}

describe("the docs the easgen package ships", () => {
  it("are the pages the README links and, in turn, the pages those link", () => {
    expect(shippedDocs("See [ci](./docs/ci.md).")).toEqual(["ci.md"]);
    const fromSpec = shippedDocs("[spec](./docs/spec.md#rules)");
    expect(fromSpec).toEqual(expect.arrayContaining(["spec.md", "wire.md", "generated-code.md"]));
    expect(fromSpec).not.toContain("ci.md");
  });

  it("refuses a link to a page docs/ does not have, naming the page that links it", () => {
    const missing = "no-such-page"; // built here, so the repository's check of cited docs/ pages passes over it
    expect(() => shippedDocs(`[gone](./docs/${missing}.md)`)).toThrow(
      `README.md links docs/${missing}.md, which is not a page of docs/`,
    );
  });
});
