// No unused export, no unused file, no export made twice, in the whole workspace: knip runs with the
// repository's configuration (knip.json) and its findings are the failure message. An export is either used by
// another module or it is not one. Entry points whose exports are public on purpose are listed in knip.json:
// the easgen package's API (generator/index.ts, bin.ts), the runtime's public modules (exactly those the
// generator names in the code it writes, which knip cannot follow: checked below; every other runtime module
// is checked like any module, and an export kept for a consumer of the generated runtime says so with
// @public), the generated folders, and the test, bench and service entry files. A fixture shows the check
// can fail.

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

describe("unused exports (knip)", () => {
  it("the workspace has no unused export, file or duplicate export", () => {
    const run = knip(ROOT);
    expect(run.output).toBe("");
    expect(run.status, run.output).toBe(0);
  }, 300_000);

  it("takes as the runtime's entry points exactly the runtime modules the generator writes imports of", () => {
    const config = JSON.parse(readFileSync(path.join(ROOT, "knip.json"), "utf8")) as {
      workspaces: { ".": { entry: string[] } };
    };
    const entries = config.workspaces["."].entry.filter((entry) => entry.startsWith("runtime/"));
    const named = new Set<string>();
    const generator = path.join(ROOT, "generator");
    for (const file of readdirSync(generator, { recursive: true, encoding: "utf8" })) {
      if (!file.endsWith(".ts")) continue;
      const text = readFileSync(path.join(generator, file), "utf8");
      for (const m of text.matchAll(/"(runtime\/[a-z0-9/_.-]+\.ts)"/g)) named.add(m[1]!);
    }
    expect(named.size).toBeGreaterThan(20);
    expect(entries.some((entry) => entry.includes("*"))).toBe(false);
    expect([...entries].sort()).toEqual([...named].sort());
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
