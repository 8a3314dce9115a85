// generated/runtime/**: the hand-written runtime (the repository's runtime/ folder), copied verbatim under
// the same relative paths (the pipeline adds only the header). Unit tests stay behind.

import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import type { GeneratedFile } from "../generated-file.js";
import type { EmitContext } from "./context.js";

const SOURCE = "runtime";
const MAX_DESCRIPTION = 160;

export function emitRuntime(_model: unknown, ctx: EmitContext): GeneratedFile[] {
  return listFiles(ctx.runtimeDir)
    .filter((relative) => !relative.endsWith(".test.ts"))
    .map((relative) => {
      const content = readFileSync(path.join(ctx.runtimeDir, relative), "utf8");
      const description = leadingSentence(content);
      return {
        path: `${SOURCE}/${relative}`,
        content,
        copiedFrom: `${SOURCE}/${relative}`,
        ...(description === undefined ? {} : { description }),
      };
    });
}

/** Files below dir as sorted relative paths with forward slashes; dotfiles skipped. */
function listFiles(dir: string, prefix = ""): string[] {
  const entries = readdirSync(dir, { withFileTypes: true })
    .filter((entry) => !entry.name.startsWith("."))
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return entries.flatMap((entry) =>
    entry.isDirectory()
      ? listFiles(path.join(dir, entry.name), `${prefix}${entry.name}/`)
      : entry.isFile()
        ? [`${prefix}${entry.name}`]
        : [],
  );
}

/** The first sentence of the file's leading // comment, which says what the module is for. */
function leadingSentence(content: string): string | undefined {
  const comment: string[] = [];
  for (const line of content.split("\n")) {
    const match = /^\/\/ ?(.*)$/.exec(line.trim());
    if (!match) break;
    comment.push(match[1]!);
  }
  const text = comment.join(" ").replace(/\s+/g, " ").trim();
  if (!text) return undefined;
  const end = /\.(\s|$)/.exec(text);
  const sentence = end ? text.slice(0, end.index + 1) : text;
  return sentence.length <= MAX_DESCRIPTION
    ? sentence
    : `${sentence.slice(0, sentence.lastIndexOf(" ", MAX_DESCRIPTION))} …`;
}
