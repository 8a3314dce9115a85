import { spawnSync } from "node:child_process";
import { cpSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "../../generator/config.js";
import { npmScriptHint } from "../../generator/cli.js";
import { readTree, REPO, removeTempDirs, SMALL_SPEC, tempDir } from "./fixtures/index.js";

afterAll(removeTempDirs);

// Each test starts the CLI in child processes (about 1 s each, more on a loaded machine).

const TSX = import.meta.resolve("tsx");
const CLI = path.join(REPO, "generator/cli.ts");
const VERSION = (JSON.parse(readFileSync(path.join(REPO, "package.json"), "utf8")) as { version: string })
  .version;

/** The real entry point in a child process, as `npm run <command>` runs it (in the repository by default). */
function easgen(
  args: readonly string[],
  cwd = REPO,
): { status: number | null; stdout: string; stderr: string } {
  const result = spawnSync(process.execPath, ["--import", TSX, CLI, ...args], { cwd, encoding: "utf8" });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** A folder holding package.json, spec/small.yaml and the given config files. */
function project(files: Readonly<Record<string, string>> = {}): string {
  const dir = tempDir();
  writeFileSync(path.join(dir, "package.json"), '{ "name": "p", "private": true }\n');
  mkdirSync(path.join(dir, "spec"));
  cpSync(SMALL_SPEC, path.join(dir, "spec/small.yaml"));
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
    writeFileSync(path.join(dir, name), text);
  }
  return dir;
}

describe("easgen cli", { timeout: 120_000 }, () => {
  it.each(["validate", "generate", "check"])("%s --help describes the command and its options", (command) => {
    const { status, stdout } = easgen([command, "--help"]);
    expect(status).toBe(0);
    expect(stdout).toContain(`easgen ${command}`);
    expect(stdout).toContain("--spec");
    expect(stdout).toContain("--namespace");
    expect(stdout).toContain("--config");
    if (command !== "validate") expect(stdout).toContain("--out");
  });

  it("--version prints the package version", () => {
    const { status, stdout } = easgen(["--version"]);
    expect(status).toBe(0);
    expect(stdout.trim()).toBe(VERSION);
  });

  it("exits 2 without a command, with an unknown one or with a bad --namespace", () => {
    const none = easgen([]);
    expect(none.status).toBe(2);
    expect(none.stderr).toContain("name a command: validate, generate, check, verify, import");
    expect(easgen(["generat"]).status).toBe(2);
    const { status, stderr } = easgen(["validate", "--namespace", "not a uri"]);
    expect(status).toBe(2);
    expect(stderr).toContain("--namespace must be an absolute URI");
    const address = easgen(["check", "--wsdl-address", "ftp://x/"]);
    expect(address.status).toBe(2);
    expect(address.stderr).toContain("--wsdl-address must be an http(s) base URL ending in /");
  });

  it("validate exits 1 on a broken spec, naming file:line:col", () => {
    const { status, stderr } = easgen(["validate", "--spec", "test/generator/fixtures/missing.yaml"]);
    expect(status).toBe(1);
    expect(stderr).toContain("test/generator/fixtures/missing.yaml:1:1 cannot read the spec (ENOENT)");
  });

  it("the repository's easgen.config.json names the spec and the output folder (no default spec in the code)", () => {
    expect(JSON.parse(readFileSync(path.join(REPO, "easgen.config.json"), "utf8"))).toEqual({
      spec: "spec/ExternalAPIService.yaml",
      out: "generated",
    });
    const { status, stdout } = easgen(["validate"]);
    expect(status).toBe(0);
    expect(stdout).toMatch(/^easgen: spec\/ExternalAPIService\.yaml is valid/);
  });

  it("without --spec and without a config, says how to name the spec (a usage error: exit 2)", () => {
    const dir = tempDir();
    const { status, stderr } = easgen(["validate"], dir);
    expect(status).toBe(2);
    expect(stderr.split("\n")[0]).toBe(
      'easgen validate: no spec: pass --spec <file.yaml>, or write easgen.config.json with { "spec": "<file.yaml>" }',
    );
  });
});

describe("easgen.config.json", { timeout: 120_000 }, () => {
  it("is found in the working directory; its paths are relative to it; flags override it", () => {
    const dir = project({ "easgen.config.json": '{ "spec": "spec/small.yaml", "out": "gen" }' });
    const generated = easgen(["generate"], dir);
    expect(generated.stderr).toBe("");
    expect(generated.stdout).toMatch(/^easgen: generated \d+ files in gen\/ /);
    expect(readTree(path.join(dir, "gen")).has("Shop.wsdl")).toBe(true);
    expect(easgen(["check"], dir).status).toBe(0);

    // --out overrides the config's out: that folder is empty, so check fails and its hint names the flags used.
    const other = easgen(["check", "--out", "other"], dir);
    expect(other.status).toBe(1);
    expect(other.stderr.split("\n")[0]).toMatch(
      /^easgen: other\/ is not what the spec generates \(\d+ files differ\); run: node --import tsx generator\/cli\.ts generate --spec spec\/small\.yaml --out other$/,
    );

    // From a subfolder, --config names the file; its paths stay relative to the file's own folder.
    mkdirSync(path.join(dir, "sub"));
    const fromSub = easgen(["check", "--config", "../easgen.config.json"], path.join(dir, "sub"));
    expect(fromSub.stderr).toBe("");
    expect(fromSub.stdout).toMatch(/^easgen: \.\.\/gen\/ is current/);
  });

  it("takes namespace and wsdlAddress", () => {
    const dir = project({
      "easgen.config.json": JSON.stringify({
        spec: "spec/small.yaml",
        out: "gen",
        namespace: "http://example.com/shop/",
        wsdlAddress: "https://api.example.com/v1/",
      }),
    });
    expect(easgen(["generate"], dir).status).toBe(0);
    const wsdl = readFileSync(path.join(dir, "gen/Shop.wsdl"), "utf8");
    expect(wsdl).toContain('targetNamespace="http://example.com/shop/"');
    expect(wsdl).toContain('location="https://api.example.com/v1/Shop.asmx"');
    expect(wsdl).not.toContain("localhost");
    // A flag overrides the config's namespace; check then names it in its hint.
    const flagged = easgen(["check", "--namespace", "urn:other"], dir);
    expect(flagged.status).toBe(1);
    expect(flagged.stderr.split("\n")[0]).toMatch(
      / --out gen --namespace urn:other --wsdl-address https:\/\/api\.example\.com\/v1\/$/,
    );
  });

  it("easgen.config.mjs with a default export works too", () => {
    const dir = project({
      "easgen.config.mjs": 'export default { spec: "spec/small.yaml", out: "js-out" };\n',
    });
    expect(easgen(["generate"], dir).status).toBe(0);
    expect(readTree(path.join(dir, "js-out")).has("Shop.wsdl")).toBe(true);
  });

  it("a bad config stops the command before the spec is read, naming the file and key", () => {
    const dir = project({ "easgen.config.json": '{ "spec": "spec/small.yaml", "outDir": "x" }' });
    const { status, stderr, stdout } = easgen(["generate"], dir);
    expect(status).toBe(1);
    expect(stdout).toBe("");
    expect(stderr.trim()).toBe(
      'easgen: easgen.config.json: "outDir" is not a config key; known keys: $schema, spec, out, namespace, wsdlAddress, clientOnly, fileExtension',
    );
  });

  it.each([
    [
      '{ "spec": "spec/small.yaml", "outDir": "x" }',
      '"outDir" is not a config key; known keys: $schema, spec, out, namespace, wsdlAddress, clientOnly, fileExtension',
    ],
    ['{ "spec": 3 }', '"spec" must be a path to the spec YAML, not 3'],
    [
      '{ "spec": "s.yaml", "namespace": "nope" }',
      '"namespace" must be an absolute URI such as http://tempuri.org/, not "nope"',
    ],
    [
      '{ "spec": "s.yaml", "wsdlAddress": "https://x.example" }',
      '"wsdlAddress" must be an http(s) base URL ending in /',
    ],
    ['["spec"]', 'must hold an object such as { "spec": "spec/Service.yaml" }'],
    ['{ "spec": ', "is not valid JSON ("],
  ])("loadConfig refuses %s naming the file and key", async (text, message) => {
    const dir = project({ "easgen.config.json": text });
    const error = await loadConfig({ cwd: dir }).then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).message).toContain(`easgen.config.json: ${message}`);
    expect((error as ConfigError).file).toBe("easgen.config.json");
  });

  it("loadConfig resolves paths against the file's folder and prefers .json over .mjs", async () => {
    const dir = project({
      "easgen.config.json": '{ "spec": "spec/small.yaml" }',
      "easgen.config.mjs": 'export default { spec: "other.yaml" };',
    });
    expect(await loadConfig({ cwd: dir })).toEqual({
      file: path.join(dir, "easgen.config.json"),
      spec: path.join(dir, "spec/small.yaml"),
    });
    expect(await loadConfig({ cwd: tempDir() })).toEqual({ file: undefined });
  });

  it("a --config that does not exist is named", async () => {
    const dir = tempDir();
    await expect(loadConfig({ file: "nope.json", cwd: dir })).rejects.toThrow(
      "nope.json: no such file (--config)",
    );
  });
});

describe("headers", { timeout: 120_000 }, () => {
  it("are the same bytes whichever the working directory", () => {
    const dir = project();
    const outA = path.join(dir, "a");
    const outB = path.join(dir, "b");
    // From the project (relative paths) and from elsewhere (absolute paths).
    expect(easgen(["generate", "--spec", "spec/small.yaml", "--out", "a"], dir).status).toBe(0);
    expect(
      easgen(["generate", "--spec", path.join(dir, "spec/small.yaml"), "--out", outB], REPO).status,
    ).toBe(0);
    const a = readTree(outA);
    const b = readTree(outB);
    expect([...b.keys()]).toEqual([...a.keys()]);
    for (const [file, bytes] of a) expect(b.get(file)?.equals(bytes), file).toBe(true);
    expect(a.get("model.ts")!.toString("utf8").split("\n")[0]).toBe(
      `// @generated by easgen ${VERSION} from spec/small.yaml; do not edit.`,
    );
  });
});

describe("npmScriptHint", () => {
  const manifest = (scripts: Record<string, string>): string => {
    const file = path.join(tempDir(), "package.json");
    writeFileSync(file, JSON.stringify({ scripts }));
    return file;
  };
  const repoScripts = {
    generate: "node --import tsx generator/cli.ts generate",
    check: "node --import tsx generator/cli.ts check",
  };

  it("names `npm run generate` when check runs as the npm script of the same command line", () => {
    const env = { npm_lifecycle_script: repoScripts.check, npm_package_json: manifest(repoScripts) };
    expect(npmScriptHint(["check"], env)).toBe("npm run generate");
  });

  it("spells the command out otherwise: flags given, no such script, not under npm", () => {
    const env = { npm_lifecycle_script: repoScripts.check, npm_package_json: manifest(repoScripts) };
    expect(npmScriptHint(["check", "--out", "x"], env)).toBeUndefined();
    expect(
      npmScriptHint(["check"], { ...env, npm_package_json: manifest({ check: repoScripts.check }) }),
    ).toBeUndefined();
    expect(npmScriptHint(["check"], {})).toBeUndefined();
  });

  it("the repository's own `npm run check` on a stale folder names `npm run generate`", {
    timeout: 120_000,
  }, () => {
    const dir = project({ "easgen.config.json": '{ "spec": "spec/small.yaml", "out": "gen" }' });
    writeFileSync(
      path.join(dir, "package.json"),
      JSON.stringify({
        name: "p",
        private: true,
        scripts: {
          generate: `node --import ${TSX} ${CLI} generate`,
          check: `node --import ${TSX} ${CLI} check`,
        },
      }),
    );
    const result = spawnSync("npm", ["run", "--silent", "check"], { cwd: dir, encoding: "utf8" });
    expect(result.status).toBe(1);
    expect(result.stderr).toMatch(
      /^easgen: gen\/ is not what the spec generates \(\d+ files differ\); run: npm run generate$/m,
    );
  });
});
