// The output folder on disk: write generated files (deleting what an earlier run wrote and this one no longer
// emits, as its manifest.json says), or compare them without writing (`check`).

import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmdirSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import path from "node:path";
import { MANIFEST, type GeneratedFile } from "./generated-file.js";

export interface WriteSummary {
  /** Files whose bytes changed or that were created. */
  readonly written: readonly string[];
  /** Files listed by the previous manifest and not emitted now, removed. */
  readonly deleted: readonly string[];
}

export function writeOutput(outDir: string, files: readonly GeneratedFile[]): WriteSummary {
  const previous = readManifest(outDir);
  const emitted = new Set(files.map((file) => file.path));
  const written: string[] = [];
  for (const file of files) {
    const target = path.join(outDir, file.path);
    if (readIfFile(target) === file.content) continue;
    mkdirSync(path.dirname(target), { recursive: true });
    writeFileSync(target, file.content);
    written.push(file.path);
  }
  const deleted: string[] = [];
  for (const old of previous ?? []) {
    if (emitted.has(old) || !isInside(outDir, old)) continue;
    const target = path.join(outDir, old);
    if (!isFile(target)) continue;
    rmSync(target);
    deleted.push(old);
    removeEmptyParents(outDir, path.dirname(target));
  }
  return { written, deleted };
}

export type Difference =
  | { readonly kind: "stale"; readonly path: string; readonly diff: string }
  | { readonly kind: "missing"; readonly path: string }
  /** On disk but not emitted; `listed` when the old manifest has it, so `generate` deletes it. */
  | { readonly kind: "extra"; readonly path: string; readonly listed: boolean };

/** Every way the folder differs from the files, sorted by path. Empty when it is current. */
export function compareOutput(outDir: string, files: readonly GeneratedFile[]): Difference[] {
  const differences: Difference[] = [];
  const emitted = new Set<string>();
  for (const file of files) {
    emitted.add(file.path);
    const onDisk = readIfFile(path.join(outDir, file.path));
    if (onDisk === undefined) differences.push({ kind: "missing", path: file.path });
    else if (onDisk !== file.content)
      differences.push({ kind: "stale", path: file.path, diff: shortDiff(onDisk, file.content) });
  }
  const listed = new Set(readManifest(outDir) ?? []);
  for (const onDisk of listFiles(outDir)) {
    if (!emitted.has(onDisk)) differences.push({ kind: "extra", path: onDisk, listed: listed.has(onDisk) });
  }
  return differences.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

const DIFF_CONTEXT = 1;
const DIFF_MAX_LINES = 6;
const DIFF_MAX_WIDTH = 160;

/**
 * The first differing region as a unified-diff-like hunk: a line of context, then up to DIFF_MAX_LINES
 * removed ("-", on disk) and added ("+", generated) lines.
 */
export function shortDiff(onDisk: string, generated: string): string {
  const a = onDisk.split("\n");
  const b = generated.split("\n");
  let start = 0;
  while (start < a.length && start < b.length && a[start] === b[start]) start++;
  let endA = a.length;
  let endB = b.length;
  while (endA > start && endB > start && a[endA - 1] === b[endB - 1]) {
    endA--;
    endB--;
  }
  const from = Math.max(0, start - DIFF_CONTEXT);
  const clip = (line: string): string =>
    line.length > DIFF_MAX_WIDTH ? `${line.slice(0, DIFF_MAX_WIDTH)}…` : line;
  const side = (lines: string[], sign: string, end: number): string[] => {
    const shown = lines
      .slice(start, Math.min(end, start + DIFF_MAX_LINES))
      .map((line) => `${sign}${clip(line)}`);
    if (end - start > DIFF_MAX_LINES) shown.push(`${sign}… ${end - start - DIFF_MAX_LINES} more lines`);
    return shown;
  };
  return [
    `@@ line ${start + 1} @@`,
    ...a.slice(from, start).map((line) => ` ${clip(line)}`),
    ...side(a, "-", endA),
    ...side(b, "+", endB),
  ].join("\n");
}

/** Paths the manifest in outDir lists, or undefined when there is none (or it is not ours). */
export function readManifest(outDir: string): string[] | undefined {
  const text = readIfFile(path.join(outDir, MANIFEST));
  if (text === undefined) return undefined;
  try {
    const files = (JSON.parse(text) as { files?: unknown }).files;
    return Array.isArray(files) && files.every((f) => typeof f === "string")
      ? (files as string[])
      : undefined;
  } catch {
    return undefined;
  }
}

function isInside(outDir: string, relative: string): boolean {
  const resolved = path.resolve(outDir, relative);
  const root = path.resolve(outDir);
  return !path.isAbsolute(relative) && resolved.startsWith(root + path.sep);
}

function readIfFile(target: string): string | undefined {
  return isFile(target) ? readFileSync(target, "utf8") : undefined;
}

function isFile(target: string): boolean {
  try {
    return statSync(target).isFile();
  } catch {
    return false;
  }
}

function listFiles(dir: string, prefix = ""): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory()
      ? listFiles(path.join(dir, entry.name), `${prefix}${entry.name}/`)
      : [`${prefix}${entry.name}`],
  );
}

function removeEmptyParents(outDir: string, dir: string): void {
  const root = path.resolve(outDir);
  let current = path.resolve(dir);
  while (current.startsWith(root + path.sep) && readdirSync(current).length === 0) {
    rmdirSync(current);
    current = path.dirname(current);
  }
}
