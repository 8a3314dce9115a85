// Runs every emitter over the model and finishes their files: formatted, headed, sorted, with the README and
// the manifest that list them. To add an output, write an emitter and add it to `emitters`.

import path from "node:path";
import type { ServiceModel } from "../../runtime/model.js";
import { formatFile } from "../format.js";
import { MANIFEST, withHeader, type GeneratedFile } from "../generated-file.js";
import { sha256 } from "../output.js";
import type { EmitContext } from "./context.js";
import { emitClient } from "./client.js";
import { emitDocs } from "./docs.js";
import { emitExtensions } from "./extensions.js";
import { emitModel } from "./model.js";
import { emitPackageJson } from "./package-json.js";
import { emitReadme, README } from "./readme.js";
import { emitRuntime } from "./runtime.js";
import { asMts, clientOnlyFiles } from "./select.js";
import { emitServer } from "./server.js";
import { emitTsconfig } from "./tsconfig.js";
import { emitTypes } from "./types.js";
import { emitWriters } from "./writers.js";
import { emitWsdl } from "./wsdl.js";

export type { EmitContext };

/** Returns files with paths relative to the output folder and content without the @generated header. */
export type Emitter = (
  model: ServiceModel,
  ctx: EmitContext,
) => readonly GeneratedFile[] | Promise<readonly GeneratedFile[]>;

export const emitters: readonly { readonly name: string; readonly emit: Emitter }[] = [
  { name: "runtime", emit: emitRuntime },
  { name: "model", emit: emitModel },
  { name: "extensions", emit: emitExtensions },
  { name: "docs", emit: emitDocs },
  { name: "types", emit: emitTypes },
  { name: "tsconfig", emit: emitTsconfig },
  { name: "package.json", emit: emitPackageJson },
  { name: "wsdl", emit: emitWsdl },
  { name: "client", emit: emitClient },
  { name: "server", emit: emitServer },
  { name: "writers", emit: emitWriters },
];

/** Every output file, finished and sorted by path; the same bytes on every run. */
export async function emitAll(
  model: ServiceModel,
  ctx: EmitContext,
  list: readonly { readonly name: string; readonly emit: Emitter }[] = emitters,
): Promise<GeneratedFile[]> {
  const files: GeneratedFile[] = [];
  // Formatting (in a worker, see format.ts) starts as soon as each emitter returns, while the next one runs.
  const finishing: Promise<GeneratedFile>[] = [];
  const owner = new Map<string, string>();
  const add = (emitter: string, emitted: readonly GeneratedFile[], finish = true): void => {
    for (const file of emitted) {
      checkPath(emitter, file.path);
      const other = owner.get(file.path);
      if (other) throw new Error(`emitters "${other}" and "${emitter}" both emit ${file.path}`);
      owner.set(file.path, emitter);
      files.push(file);
      if (finish) finishing.push(formatFile(file).then((formatted) => withHeader(formatted, ctx.specFile)));
    }
  };
  // The default shape formats each emitter's files while the next one runs; the others need them all first.
  const reshape = ctx.clientOnly === true || ctx.fileExtension === ".mts";
  const emitted: { name: string; file: GeneratedFile }[] = [];
  for (const { name, emit } of list) {
    const files = await emit(model, ctx);
    if (reshape) emitted.push(...files.map((file) => ({ name, file })));
    else add(name, files);
  }
  if (reshape) {
    const emitter = new Map(emitted.map(({ name, file }) => [file, name]));
    let shaped = emitted.map(({ file }) => file);
    if (ctx.clientOnly === true) shaped = clientOnlyFiles(shaped);
    for (const file of shaped) {
      const name = emitter.get(file)!;
      add(name, [ctx.fileExtension === ".mts" ? asMts(file) : file]);
    }
  }
  const manifest = {
    path: MANIFEST,
    content: "{}",
    description: "Every file in this folder with its SHA-256, for `generate`, `check` and `verify`.",
  };
  add("manifest", [manifest], false);
  add(
    "readme",
    emitReadme(model, ctx, sortByPath([...files, { path: README, content: "", description: "This file." }])),
  );
  const paths = sortByPath(files).map((file) => file.path);
  const finished = await Promise.all(finishing);
  // The hash of every other file's finished bytes, so `easgen verify` can check a copy without the spec.
  const hashes = Object.fromEntries(sortByPath(finished).map((file) => [file.path, sha256(file.content)]));
  finished.push(
    withHeader({ ...manifest, content: JSON.stringify({ files: paths, sha256: hashes }) }, ctx.specFile),
  );
  return sortByPath(finished);
}

/** Paths are relative to the output folder; nothing may point outside it. */
function checkPath(emitter: string, filePath: string): void {
  const normal = path.posix.normalize(filePath);
  if (
    filePath === "" ||
    normal !== filePath ||
    path.posix.isAbsolute(filePath) ||
    normal.startsWith("../") ||
    filePath.includes("\\")
  ) {
    throw new Error(
      `emitter "${emitter}": "${filePath}" is not a normalized path relative to the output folder`,
    );
  }
  if (filePath.startsWith("generated/")) {
    throw new Error(
      `emitter "${emitter}": "${filePath}" starts with "generated/"; paths are relative to the output folder (--out), drop the prefix`,
    );
  }
}

function sortByPath<T extends { readonly path: string }>(files: readonly T[]): T[] {
  return [...files].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}
