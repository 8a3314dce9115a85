// No unused export, no unused file, no export made twice, in the whole workspace: knip runs with the
// repository's configuration (knip.json) and its findings are the failure message. An export is either used by
// another module or it is not one. Entry points whose exports are public on purpose are listed in knip.json:
// the easgen package's API (generator/index.ts, bin.ts), the generated folders, and the test, bench and
// service entry files. The runtime is checked like any code, but its users import it from their generated
// copy, which knip cannot follow back to runtime/: an export the generator writes imports of says so with
// @codegen (knip.json skips those), one that users of a generated runtime import with @public, and the
// tests below check that each tag is true; the runtime modules only generated code imports are entry points,
// and every value they export carries one of the two tags. A fixture shows the check can fail.

import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";

const ROOT = path.resolve(import.meta.dirname, "../..");
const CLI = path.join(ROOT, "node_modules/knip/bin/knip.js");

interface Run {
  readonly status: number | null;
  readonly output: string;
}

function knip(cwd: string): Run {
  const result = spawnSync(process.execPath, [CLI, "--no-progress", "--reporter", "compact"], {
    cwd,
    encoding: "utf8",
    timeout: 300_000,
    env: { ...process.env, NO_COLOR: "1" },
  });
  return { status: result.status, output: `${result.stdout}${result.stderr}`.trim() };
}

/** The tracked-or-not .ts files under a folder of the repository, as paths from its root. */
function tsFiles(dir: string): string[] {
  return readdirSync(path.join(ROOT, dir), { recursive: true, encoding: "utf8" })
    .filter((file) => file.endsWith(".ts") && !file.includes("node_modules"))
    .map((file) => path.join(dir, file));
}

interface Export {
  readonly name: string;
  /** A function, constant or class (not a type). */
  readonly value: boolean;
  /** The JSDoc tags of its comment, without the @. */
  readonly tags: ReadonlySet<string>;
}

/** The top-level exports a module declares, with the tags of the JSDoc comment right above each. */
function exportsOf(file: string): Export[] {
  const lines = readFileSync(path.join(ROOT, file), "utf8").split("\n");
  const found: Export[] = [];
  lines.forEach((line, i) => {
    const m =
      /^export (?:declare )?(?:async )?(function\*?|const|let|class|abstract class|interface|type|enum) ([A-Za-z_$][\w$]*)/.exec(
        line,
      );
    if (m === null) return;
    const tags = new Set<string>();
    if (lines[i - 1]?.trim().endsWith("*/"))
      for (let j = i - 1; j >= 0; j--) {
        for (const t of lines[j]!.matchAll(/@([a-z]+)/g)) tags.add(t[1]!);
        if (lines[j]!.trimStart().startsWith("/**")) break;
      }
    found.push({ name: m[2]!, value: !["interface", "type"].includes(m[1]!), tags });
  });
  return found;
}

describe("unused exports (knip)", () => {
  it("the workspace has no unused export, file or duplicate export", () => {
    const run = knip(ROOT);
    expect(run.output).toBe("");
    expect(run.status, run.output).toBe(0);
  }, 300_000);

  describe("the runtime's exports, which generated code and its users import from their copy", () => {
    const config = JSON.parse(readFileSync(path.join(ROOT, "knip.json"), "utf8")) as {
      tags: string[];
      workspaces: { ".": { entry: string[] } };
    };
    const entries = config.workspaces["."].entry.filter((entry) => entry.startsWith("runtime/"));
    const runtimeFiles = tsFiles("runtime");
    const generatorTexts = tsFiles("generator").map((file) => readFileSync(path.join(ROOT, file), "utf8"));
    /** Whether the generator names `name` in a file that also names the module (an import it writes). */
    const generatorNames = (module: string, name: string) =>
      generatorTexts.some((text) => text.includes(`"${module}"`) && text.includes(`"${name}"`));

    it("knip skips only the exports tagged @codegen (and the standard @public)", () => {
      expect(config.tags).toEqual(["-codegen"]);
    });

    it("takes as entry points only the runtime modules the generator names that no module imports", () => {
      const imported = new Set<string>();
      for (const dir of ["runtime", "generator", "test", "bench", "service", "spec"])
        for (const file of tsFiles(dir)) {
          const text = readFileSync(path.join(ROOT, file), "utf8");
          for (const m of text.matchAll(/(?:from |import )"(\.{1,2}\/[^"]+)\.js"/g))
            imported.add(path.relative(ROOT, path.resolve(ROOT, path.dirname(file), `${m[1]!}.ts`)));
        }
      const named = runtimeFiles.filter((file) => generatorTexts.some((text) => text.includes(`"${file}"`)));
      expect(named.length).toBeGreaterThan(20);
      expect([...entries].sort()).toEqual(named.filter((file) => !imported.has(file)).sort());
    });

    it("tags @codegen only what the generator writes imports of, and every value an entry module exports", () => {
      const wrong: string[] = [];
      for (const file of runtimeFiles)
        for (const e of exportsOf(file)) {
          if (e.tags.has("codegen") && !generatorNames(file, e.name))
            wrong.push(`${file}: ${e.name} is not named`);
          const entry = entries.includes(file);
          if (entry && e.value && !e.tags.has("codegen") && !e.tags.has("public"))
            wrong.push(`${file}: ${e.name} (an entry module's export) is neither @codegen nor @public`);
        }
      expect(wrong).toEqual([]);
      expect(
        runtimeFiles.flatMap((file) => exportsOf(file).filter((e) => e.tags.has("codegen"))).length,
      ).toBeGreaterThan(20);
    });

    it("tags @public only what a user of a generated runtime (service, tests, bench, examples) imports", () => {
      const users = ["service", "test", "bench", "examples/book-catalog/src"].flatMap(tsFiles);
      const importedNames = new Set<string>();
      for (const file of users) {
        const text = readFileSync(path.join(ROOT, file), "utf8");
        for (const m of text.matchAll(
          /import (?:type )?\{([^}]*)\} from "[^"]*generated\/runtime\/([^"]+)\.js"/g,
        ))
          for (const name of m[1]!.split(",")) {
            const bare = name
              .trim()
              .replace(/^type /, "")
              .split(/ as /)[0]!
              .trim();
            if (bare !== "") importedNames.add(`runtime/${m[2]!}.ts:${bare}`);
          }
      }
      const unused = runtimeFiles.flatMap((file) =>
        exportsOf(file)
          .filter((e) => e.tags.has("public") && !importedNames.has(`${file}:${e.name}`))
          .map((e) => `${file}: ${e.name}`),
      );
      expect(unused).toEqual([]);
    });
  });

  describe("a fixture with an unused export and an unused file", () => {
    const dir = mkdtempSync(path.join(tmpdir(), "knip-"));
    afterAll(() => rmSync(dir, { recursive: true, force: true }));
    const files: Record<string, string> = {
      "package.json": JSON.stringify({ name: "fixture", private: true, type: "module" }),
      "knip.json": JSON.stringify({
        entry: ["main.ts"],
        project: ["*.ts"],
        include: ["exports", "duplicates", "files"],
      }),
      "tsconfig.json": JSON.stringify({ compilerOptions: { module: "nodenext", strict: true } }),
      "main.ts": 'import { used } from "./lib.js";\nconsole.log(used);\n',
      "lib.ts": "export const used = 1;\nexport const unusedValue = 2;\n",
      "orphan.ts": "export const nobody = 3;\n",
    };
    for (const [name, text] of Object.entries(files)) {
      mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
      writeFileSync(path.join(dir, name), text);
    }

    it("names each finding and exits non-zero", () => {
      const run = knip(dir);
      expect(run.status, run.output).not.toBe(0);
      expect(run.output).toContain("orphan.ts");
      expect(run.output).toContain("unusedValue");
    }, 300_000);
  });
});
