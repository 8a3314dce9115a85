// generated/ must be vendorable: it imports only its own modules, Node built-ins (server side) and
// nothing else (no third-party package); the client's whole import graph runs on web-standard APIs alone (no node: modules).

import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const GENERATED = fileURLToPath(new URL("../../generated/", import.meta.url));
const IMPORT_RE = /^\s*(?:import|export)\s[^'"]*?from\s+["']([^"']+)["']|^\s*import\s+["']([^"']+)["']|import\(\s*["']([^"']+)["']\s*\)/gm;

function tsFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return tsFiles(full);
    return entry.name.endsWith(".ts") ? [full] : [];
  });
}

function specifiers(file: string): string[] {
  const text = readFileSync(file, "utf8");
  return [...text.matchAll(IMPORT_RE)].map((m) => m[1] ?? m[2] ?? m[3]);
}

function resolveRelative(from: string, specifier: string): string {
  return path.resolve(path.dirname(from), specifier.replace(/\.js$/, ".ts"));
}

describe("generated/ imports", () => {
  const files = tsFiles(GENERATED);

  it("finds the generated modules", () => {
    expect(files.length).toBeGreaterThan(20);
  });

  it.each(files.map((f) => [path.relative(GENERATED, f), f]))("%s imports only relative modules and node: built-ins", (_name, file) => {
    for (const spec of specifiers(file)) {
      const allowed = spec.startsWith("./") || spec.startsWith("../") || spec.startsWith("node:");
      expect(allowed, `${spec} in ${file}`).toBe(true);
      if (spec.startsWith(".")) {
        const target = resolveRelative(file, spec);
        expect(target.startsWith(GENERATED), `${spec} leaves generated/`).toBe(true);
        expect(files, `${spec} does not resolve to a generated module`).toContain(target);
      }
    }
  });

  it("the client's import graph uses no Node built-ins", () => {
    const seen = new Set<string>();
    const nodeImports: string[] = [];
    const visit = (file: string) => {
      if (seen.has(file)) return;
      seen.add(file);
      for (const spec of specifiers(file)) {
        if (spec.startsWith("node:")) nodeImports.push(`${path.relative(GENERATED, file)} → ${spec}`);
        else if (spec.startsWith(".")) visit(resolveRelative(file, spec));
      }
    };
    visit(path.join(GENERATED, "client.ts"));
    expect(seen.size).toBeGreaterThan(10);
    expect(nodeImports).toEqual([]);
  });
});
