// The output's other shapes (generator/emit/select.ts): --client-only keeps client.ts and exactly what it
// imports, and nothing of the server; --file-extension .mts renames every TypeScript file and its relative
// specifiers. Both through the CLI and the config, with their refusals. (test/vendoring/run.test.ts builds and
// runs them in real projects.)

import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { ts } from "ts-morph";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "../../generator/cli.js";
import { generateFiles } from "../../generator/generate.js";
import type { GeneratedFile } from "../../generator/generated-file.js";

const ROOT = path.resolve(import.meta.dirname, "../..");
const SPEC = path.join(ROOT, "spec/ExternalAPIService.yaml");

async function files(options: {
  clientOnly?: boolean;
  fileExtension?: ".ts" | ".mts";
}): Promise<GeneratedFile[]> {
  const generated = await generateFiles({ spec: SPEC, ...options });
  if (!generated.ok) throw new Error("the spec does not validate");
  return [...generated.files];
}

function relativeImports(content: string): string[] {
  return ts
    .preProcessFile(content, true, true)
    .importedFiles.map((f) => f.fileName)
    .filter((name) => name.startsWith("."));
}

let full: GeneratedFile[];
let client: GeneratedFile[];
let mts: GeneratedFile[];

beforeAll(async () => {
  [full, client, mts] = await Promise.all([
    files({}),
    files({ clientOnly: true }),
    files({ fileExtension: ".mts" }),
  ]);
}, 300_000);

describe("--client-only", () => {
  it("keeps client.ts, model.ts, types.ts and the runtime they import; no server, WSDL, help or doc text", () => {
    const paths = client.map((f) => f.path);
    expect(paths).toEqual(
      expect.arrayContaining(["client.ts", "model.ts", "types.ts", "package.json", "tsconfig.json"]),
    );
    expect(paths).toEqual(expect.arrayContaining(["README.md", "manifest.json"]));
    const serverSide = paths.filter((p) =>
      /server|wsdl|help\/|documents|docs\.ts|extensions\.ts|bindings\.ts$/i.test(p),
    );
    expect(serverSide.filter((p) => p !== "runtime/client/bindings.ts")).toEqual([]);
    expect(paths.length).toBeLessThan(full.length);
  });

  it("is closed: every relative import of a kept file names a kept file", () => {
    const kept = new Set(client.map((f) => f.path));
    const dangling: string[] = [];
    for (const file of client.filter((f) => f.path.endsWith(".ts"))) {
      for (const specifier of relativeImports(file.content)) {
        const target = path.posix
          .normalize(path.posix.join(path.posix.dirname(file.path), specifier))
          .replace(/\.js$/, ".ts");
        if (!kept.has(target)) dangling.push(`${file.path} → ${specifier}`);
      }
    }
    expect(dangling).toEqual([]);
  });

  it("the kept files are the full output's bytes; the tsconfig loads no @types; the README and manifest list only them", () => {
    const byPath = new Map(full.map((f) => [f.path, f.content]));
    for (const file of client.filter(
      (f) => !["tsconfig.json", "README.md", "manifest.json"].includes(f.path),
    ))
      expect(file.content, file.path).toBe(byPath.get(file.path));
    const tsconfig = JSON.parse(
      client.find((f) => f.path === "tsconfig.json")!.content.replace(/^\/\/.*\n/, ""),
    );
    expect(tsconfig.compilerOptions.types).toEqual([]);
    const manifest = JSON.parse(
      client.find((f) => f.path === "manifest.json")!.content.replace(/^\/\/.*\n/, ""),
    );
    expect(manifest.files).not.toContain("server.ts");
    expect(manifest.files).toContain("client.ts");
    expect(client.find((f) => f.path === "README.md")!.content).not.toContain("| `server.ts` |");
  });
});

describe("--file-extension .mts", () => {
  it("writes every TypeScript file as .mts and every relative specifier as .mjs", () => {
    expect(mts.filter((f) => f.path.endsWith(".ts"))).toEqual([]);
    expect(mts.filter((f) => f.path.endsWith(".mts")).length).toBe(
      full.filter((f) => f.path.endsWith(".ts")).length,
    );
    const left = mts
      .filter((f) => f.path.endsWith(".mts"))
      .flatMap((f) =>
        relativeImports(f.content)
          .filter((s) => !s.endsWith(".mjs"))
          .map((s) => `${f.path}: ${s}`),
      );
    expect(left).toEqual([]);
    expect(mts.find((f) => f.path === "client.mts")!.content).toContain('from "./runtime/client/core.mjs"');
  });

  it("its tsconfig includes the .mts files", () => {
    const tsconfig = JSON.parse(
      mts.find((f) => f.path === "tsconfig.json")!.content.replace(/^\/\/.*\n/, ""),
    );
    expect(tsconfig.include).toEqual(["**/*.mts"]);
  });
});

describe("the flags and config keys", () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(path.join(tmpdir(), "easgen-select-"));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const cli = async (argv: string[], cwd = dir) => {
    const out: string[] = [];
    const err: string[] = [];
    const code = await runCli(argv, { cwd, io: { out: (l) => out.push(l), err: (l) => err.push(l) } });
    return { code, out: out.join("\n"), err: err.join("\n") };
  };

  it("--file-extension other than .ts or .mts exits 2 naming the flag", async () => {
    const result = await cli([
      "generate",
      "--spec",
      SPEC,
      "--out",
      path.join(dir, "x"),
      "--file-extension",
      ".cts",
    ]);
    expect(result.code).toBe(2);
    expect(result.err).toContain('--file-extension must be .ts or .mts, not ".cts"');
  });

  it("config clientOnly must be a boolean and fileExtension .ts or .mts, naming the key", async () => {
    writeFileSync(path.join(dir, "easgen.config.json"), JSON.stringify({ spec: SPEC, clientOnly: "yes" }));
    const bad = await cli(["check"]);
    expect(bad.code).toBe(1);
    expect(bad.err).toContain('"clientOnly" must be true or false, not "yes"');
    writeFileSync(path.join(dir, "easgen.config.json"), JSON.stringify({ spec: SPEC, fileExtension: "mts" }));
    const ext = await cli(["check"]);
    expect(ext.err).toContain('"fileExtension" must be ".ts" or ".mts", not "mts"');
  });

  it("check names the flags in its regenerate hint", async () => {
    const out = path.join(dir, "co");
    rmSync(path.join(dir, "easgen.config.json"), { force: true }); // the bad one of the test before
    expect((await cli(["generate", "--spec", SPEC, "--out", out, "--client-only"])).code).toBe(0);
    expect(readFileSync(path.join(out, "client.ts"), "utf8")).toContain("createClientWith");
    expect((await cli(["check", "--spec", SPEC, "--out", out, "--client-only"])).code).toBe(0);
    const stale = await cli(["check", "--spec", SPEC, "--out", out]);
    expect(stale.code).toBe(1);
    const again = await cli([
      "check",
      "--spec",
      SPEC,
      "--out",
      out,
      "--client-only",
      "--file-extension",
      ".mts",
    ]);
    expect(again.err).toContain("--client-only --file-extension .mts");
  }, 300_000);
});
