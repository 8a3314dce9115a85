// The output folder on disk: write generated files (deleting what an earlier run wrote and this one no longer
// emits, as its manifest.json says), compare them without writing (`check`), or check the folder against the
// SHA-256 hashes its manifest holds, without the spec (`verify`).
//
// Files the folder's .easgenignore names (gitignore syntax, paths relative to the folder: a barrel file, a
// hand-written index, notes) are left alone: `generate` never deletes them, `check` and `verify` never report
// them. The ignore file cannot hide a generated file: those are always written and compared.
//
// The manifest's hashes are of the bytes easgen writes (UTF-8, LF line ends). A checkout that turned them
// into CRLF (git's core.autocrlf) fails `verify` and `check` with the line-ending hint on every such file.

import { createHash } from "node:crypto";
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
import { structuredPatch } from "diff";
import ignore from "ignore";
import { MANIFEST, type GeneratedFile } from "./generated-file.js";

/** The file in the output folder naming files that are not generated and stay. */
export const IGNORE_FILE = ".easgenignore";

export interface WriteSummary {
  /** Files whose bytes changed or that were created. */
  readonly written: readonly string[];
  /** Files listed by the previous manifest and not emitted now, removed. */
  readonly deleted: readonly string[];
}

export function writeOutput(outDir: string, files: readonly GeneratedFile[]): WriteSummary {
  const previous = readManifest(outDir);
  const ignored = readIgnore(outDir);
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
    if (emitted.has(old) || !isInside(outDir, old) || ignored(old)) continue;
    const target = path.join(outDir, old);
    if (!isFile(target)) continue;
    rmSync(target);
    deleted.push(old);
    removeEmptyParents(outDir, path.dirname(target));
  }
  return { written, deleted };
}

/** How a file's line ends differ from the LF easgen writes: "only" when nothing else differs. */
export type LineEndings = "only" | "also";

export type Difference =
  /** Differs from what is generated (check: with a unified diff) or from its manifest hash (verify). */
  | {
      readonly kind: "stale";
      readonly path: string;
      readonly diff?: string;
      readonly lineEndings?: LineEndings;
    }
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
    if (onDisk === undefined) {
      differences.push({ kind: "missing", path: file.path });
      continue;
    }
    if (onDisk === file.content) continue;
    const crlf = onDisk.includes("\r\n");
    const text = crlf ? lf(onDisk) : onDisk;
    if (text === file.content) differences.push({ kind: "stale", path: file.path, lineEndings: "only" });
    else {
      differences.push({
        kind: "stale",
        path: file.path,
        diff: unifiedDiff(text, file.content),
        ...(crlf ? { lineEndings: "also" as const } : {}),
      });
    }
  }
  differences.push(...extraFiles(outDir, emitted));
  return sortByPath(differences);
}

/** What `verify` found: the differences, or why the folder cannot be verified at all. */
export type Verification =
  | { readonly ok: true; readonly files: number; readonly differences: readonly Difference[] }
  | { readonly ok: false; readonly problem: string };

/**
 * Checks the folder against its manifest alone: every listed file present with the bytes its SHA-256 says,
 * nothing else there but the manifest and what .easgenignore names. Needs no spec.
 */
export function verifyOutput(outDir: string): Verification {
  const manifestFile = path.join(outDir, MANIFEST);
  if (!isFile(manifestFile)) {
    return {
      ok: false,
      problem: existsSync(outDir)
        ? `${MANIFEST} is missing: this is not a folder easgen generated (or it was not copied whole)`
        : "no such folder",
    };
  }
  const manifest = parseManifest(readFileSync(manifestFile, "utf8"));
  if (manifest === undefined) return { ok: false, problem: `${MANIFEST} is not an easgen manifest` };
  if (manifest.sha256 === undefined) {
    return {
      ok: false,
      problem: `${MANIFEST} holds no hashes (an older easgen wrote it): regenerate the folder`,
    };
  }
  const differences: Difference[] = [];
  const listed = new Set(manifest.files);
  for (const file of manifest.files) {
    if (file === MANIFEST) continue;
    if (!isInside(outDir, file))
      return { ok: false, problem: `${MANIFEST} lists "${file}", outside the folder` };
    const want = manifest.sha256[file];
    if (want === undefined) return { ok: false, problem: `${MANIFEST} has no hash for ${file}` };
    const target = path.join(outDir, file);
    if (!isFile(target)) {
      differences.push({ kind: "missing", path: file });
      continue;
    }
    const bytes = readFileSync(target);
    if (sha256(bytes) === want) continue;
    const text = bytes.toString("utf8");
    const crlf = text.includes("\r\n");
    differences.push({
      kind: "stale",
      path: file,
      ...(crlf ? { lineEndings: sha256(lf(text)) === want ? ("only" as const) : ("also" as const) } : {}),
    });
  }
  differences.push(...extraFiles(outDir, listed));
  return { ok: true, files: manifest.files.length, differences: sortByPath(differences) };
}

/** Files on disk that are neither in `expected` nor named by .easgenignore. */
function extraFiles(outDir: string, expected: ReadonlySet<string>): Difference[] {
  const listed = new Set(readManifest(outDir) ?? []);
  const ignored = readIgnore(outDir);
  return listFiles(outDir)
    .filter((onDisk) => !expected.has(onDisk) && !ignored(onDisk))
    .map((onDisk) => ({ kind: "extra", path: onDisk, listed: listed.has(onDisk) }));
}

/** SHA-256 of a file's bytes (a string as UTF-8), lowercase hex: the manifest's hashes. */
export function sha256(content: string | Uint8Array): string {
  return createHash("sha256").update(content).digest("hex");
}

const DIFF_CONTEXT = 3;
/** Lines of diff shown per file; the rest is counted. */
const DIFF_MAX_LINES = 40;
const DIFF_MAX_WIDTH = 160;
/** Beyond this many edits the diff is not worked out (a rewritten file), only counted. */
const DIFF_MAX_EDITS = 500;

/**
 * A minimal unified diff from the file on disk ("-") to the generated file ("+"): hunks with three lines of
 * context, at most DIFF_MAX_LINES lines, each clipped to DIFF_MAX_WIDTH characters.
 */
export function unifiedDiff(onDisk: string, generated: string): string {
  const patch = structuredPatch("on disk", "generated", onDisk, generated, undefined, undefined, {
    context: DIFF_CONTEXT,
    maxEditLength: DIFF_MAX_EDITS,
  });
  if (patch === undefined) {
    return `@@ more than ${DIFF_MAX_EDITS} lines differ; regenerate to see the file @@`;
  }
  const clip = (line: string): string =>
    line.length > DIFF_MAX_WIDTH ? `${line.slice(0, DIFF_MAX_WIDTH)}…` : line;
  const lines: string[] = [];
  for (const hunk of patch.hunks) {
    lines.push(`@@ -${hunk.oldStart},${hunk.oldLines} +${hunk.newStart},${hunk.newLines} @@`);
    for (const line of hunk.lines) lines.push(clip(line));
  }
  if (lines.length <= DIFF_MAX_LINES) return lines.join("\n");
  return [...lines.slice(0, DIFF_MAX_LINES), `… ${lines.length - DIFF_MAX_LINES} more diff lines`].join("\n");
}

interface ManifestContent {
  readonly files: string[];
  readonly sha256?: Readonly<Record<string, string>>;
}

function parseManifest(text: string): ManifestContent | undefined {
  try {
    const value = JSON.parse(text) as { files?: unknown; sha256?: unknown };
    const { files, sha256: hashes } = value;
    if (!Array.isArray(files) || !files.every((f) => typeof f === "string")) return undefined;
    if (hashes === undefined) return { files: files as string[] };
    if (
      typeof hashes !== "object" ||
      hashes === null ||
      !Object.values(hashes).every((h) => typeof h === "string" && /^[0-9a-f]{64}$/.test(h))
    ) {
      return undefined;
    }
    return { files: files as string[], sha256: hashes as Record<string, string> };
  } catch {
    return undefined;
  }
}

/** Paths the manifest in outDir lists, or undefined when there is none (or it is not ours). */
export function readManifest(outDir: string): string[] | undefined {
  const text = readIfFile(path.join(outDir, MANIFEST));
  return text === undefined ? undefined : parseManifest(text)?.files;
}

/** Whether the folder's .easgenignore names a path (relative to the folder); the ignore file names itself. */
function readIgnore(outDir: string): (relative: string) => boolean {
  const text = readIfFile(path.join(outDir, IGNORE_FILE));
  const rules = ignore().add(IGNORE_FILE);
  if (text !== undefined) rules.add(text);
  return (relative) => rules.ignores(relative);
}

function lf(text: string): string {
  return text.replace(/\r\n/g, "\n");
}

function sortByPath<T extends { readonly path: string }>(items: T[]): T[] {
  return items.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
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
