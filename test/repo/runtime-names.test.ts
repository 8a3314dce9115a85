// Every name the runtime exports is declared in one file of runtime/: the runtime is copied whole into each
// generated folder, where a reader (or an editor's auto-import) meeting two DEFAULT_MAX_ELEMENTS of different
// values, or two identical AnyCredentials types, cannot tell which one a module means.

import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";

const RUNTIME = path.resolve(import.meta.dirname, "../../runtime");
const DECLARATION =
  /^export\s+(?:declare\s+)?(?:abstract\s+)?(?:const|let|class|function\*?|async\s+function|interface|type|enum)\s+([A-Za-z_$][\w$]*)/gm;

/** Names exported by more than one .ts file under `root`, each with the files that declare it. */
function namesDeclaredTwice(root: string): Record<string, string[]> {
  const where = new Map<string, string[]>();
  for (const entry of readdirSync(root, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile() || !entry.name.endsWith(".ts")) continue;
    const file = path.join(entry.parentPath, entry.name);
    for (const match of readFileSync(file, "utf8").matchAll(DECLARATION)) {
      const files = where.get(match[1]!) ?? [];
      files.push(path.relative(root, file));
      where.set(match[1]!, files);
    }
  }
  return Object.fromEntries([...where].filter(([, files]) => files.length > 1));
}

describe("runtime names", () => {
  it("no exported name is declared in two files of runtime/", () => {
    expect(namesDeclaredTwice(RUNTIME)).toEqual({});
  });

  it("finds a name declared twice (a fixture)", () => {
    const dir = mkdtempSync(path.join(tmpdir(), "runtime-names-"));
    try {
      mkdirSync(path.join(dir, "xml"));
      writeFileSync(path.join(dir, "xml/tree.ts"), "export const LIMIT = 1;\nexport type Tree = 1;\n");
      writeFileSync(path.join(dir, "server.ts"), "export const LIMIT = 2;\n");
      expect(namesDeclaredTwice(dir)).toEqual({
        LIMIT: expect.arrayContaining(["server.ts", "xml/tree.ts"]),
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
