// Reads a spec YAML keeping source positions, so every later stage can point at the exact line:col of any
// path in the document (["groups", 0, "operations", 3, "params", 1, "type"]).

import { readFileSync } from "node:fs";
import path from "node:path";
import {
  isMap,
  isPair,
  isScalar,
  isSeq,
  LineCounter,
  parseDocument,
  type Document,
  type Node,
  type Pair,
} from "yaml";
import type { Diagnostic } from "./diagnostic.js";

export type SpecPath = readonly (string | number)[];

export interface Position {
  /** 1-based. */
  readonly line: number;
  /** 1-based. */
  readonly col: number;
}

export interface LoadedSpec {
  /** The file as named in messages: relative to the working directory, forward slashes. */
  readonly file: string;
  /** The folder the spec's relative paths (extensions.module) start from; default: file's folder. */
  readonly dir?: string;
  readonly document: Document.Parsed;
  /** Plain data of the document, or undefined when it has YAML syntax errors. */
  readonly value: unknown;
  /** YAML syntax errors; empty when value is defined. */
  readonly syntaxErrors: readonly Diagnostic[];
  /**
   * Where the node at `specPath` starts; "key" points at a map entry's key instead of its value. A path that
   * does not exist (a missing property) resolves to its deepest existing ancestor.
   */
  positionOf(specPath: SpecPath, target?: "key" | "value"): Position;
  /** Position of a character offset in the text, as found in YAML node ranges. */
  positionAt(offset: number): Position;
  /** A diagnostic located at specPath. */
  at(specPath: SpecPath, message: string, target?: "key" | "value"): Diagnostic;
}

/** What a validation pass collects diagnostics with: report one at a path, or name a path's line:col in a message. */
export interface SpecReporter {
  readonly diagnostics: Diagnostic[];
  report(path: SpecPath, message: string, target?: "key" | "value"): void;
  where(path: SpecPath, target?: "key" | "value"): string;
}

export function specReporter(spec: LoadedSpec): SpecReporter {
  const diagnostics: Diagnostic[] = [];
  return {
    diagnostics,
    report: (path, message, target) => {
      diagnostics.push(spec.at(path, message, target));
    },
    where: (path, target) => {
      const { line, col } = spec.positionOf(path, target);
      return `${line}:${col}`;
    },
  };
}

/** `file` names the spec in messages; default: its path relative to the working directory. */
export function loadSpecFile(filePath: string, file = displayPath(filePath)): LoadedSpec {
  return { ...parseSpec(readFileSync(filePath, "utf8"), file), dir: path.dirname(path.resolve(filePath)) };
}

/** filePath relative to cwd with forward slashes, as printed in diagnostics and headers. */
export function displayPath(filePath: string, cwd = process.cwd()): string {
  return path.relative(cwd, path.resolve(cwd, filePath)).split(path.sep).join("/");
}

export function parseSpec(text: string, file: string): LoadedSpec {
  const lineCounter = new LineCounter();
  // Duplicate keys are reported by validate.ts with both positions, so the parser must not stop at them.
  const document = parseDocument(text, { lineCounter, prettyErrors: false, uniqueKeys: false });
  const position = (offset: number): Position => {
    const { line, col } = lineCounter.linePos(offset);
    return { line, col };
  };
  const syntaxErrors = document.errors.map((error) => ({
    file,
    ...position(error.pos[0]),
    message: `YAML: ${error.message}`,
  }));
  const positionOf = (specPath: SpecPath, target: "key" | "value" = "value"): Position =>
    position(locate(document, specPath, target));
  return {
    file,
    document,
    value: syntaxErrors.length === 0 ? document.toJS() : undefined,
    syntaxErrors,
    positionOf,
    positionAt: position,
    at: (specPath, message, target) => ({ file, ...positionOf(specPath, target), message }),
  };
}

function locate(document: Document.Parsed, specPath: SpecPath, target: "key" | "value"): number {
  let node: unknown = document.contents;
  let offset = startOf(node) ?? 0;
  for (const [index, segment] of specPath.entries()) {
    let pair: Pair | undefined;
    if (isMap(node)) {
      pair = lastEntry(node.items, String(segment));
      node = pair?.value;
    } else if (isSeq(node)) {
      node = node.items[Number(segment)];
    } else {
      return offset;
    }
    if (target === "key" && index === specPath.length - 1 && isPair(pair)) return startOf(pair.key) ?? offset;
    const start = startOf(node);
    if (start === undefined) return offset;
    offset = start;
  }
  return offset;
}

/** The last entry wins, as in the plain data. */
function lastEntry(items: readonly Pair[], key: string): Pair | undefined {
  for (let i = items.length - 1; i >= 0; i--) {
    const item = items[i]!;
    if (isScalar(item.key) && String(item.key.value) === key) return item;
  }
  return undefined;
}

function startOf(node: unknown): number | undefined {
  return (node as Node | null | undefined)?.range?.[0];
}
