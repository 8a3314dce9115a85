// The pipeline in one call: load → validate → normalize → emit. No writing; output.ts does that.

import { existsSync } from "node:fs";
import path from "node:path";
import type { ServiceDocTexts } from "../runtime/server/docs.js";
import type { ServiceModel } from "../runtime/model.js";
import type { FileExtension } from "./config.js";
import type { Diagnostic } from "./diagnostic.js";
import { prepareFormatter, saveFormatCache } from "./format.js";
import type { GeneratedFile } from "./generated-file.js";
import { displayPath, loadSpecFile, type LoadedSpec } from "./load.js";
import { normalize } from "./normalize.js";
import { PACKAGE_FILES } from "./paths.js";
import type { SpecDocument } from "./spec.js";
import { validateSpec } from "./validate.js";

const DEFAULT_TEMPLATES_DIR = PACKAGE_FILES.templatesDir;
const DEFAULT_RUNTIME_DIR = PACKAGE_FILES.runtimeDir;

export interface SpecOptions {
  /** Path of the spec YAML. */
  readonly spec: string;
  /**
   * How messages and headers name the spec. Default: relative to the working directory in messages, and
   * relative to the repository (the nearest folder with a package.json) in headers, so output does not
   * depend on where the generator runs.
   */
  readonly specFile?: string;
  /** Replaces the spec's XML namespace. */
  readonly namespace?: string;
}

export interface GenerateOptions extends SpecOptions {
  /** Base URL ending in "/" written into the static {Service}.wsdl (default http://localhost/). */
  readonly wsdlAddress?: string;
  readonly templatesDir?: string;
  readonly runtimeDir?: string;
  /** Only the client and what it imports (emit/select.ts). */
  readonly clientOnly?: boolean;
  /** ".mts": TypeScript files as .mts with .mjs specifiers (emit/select.ts). Default ".ts". */
  readonly fileExtension?: FileExtension;
}

export type Loaded =
  | {
      readonly ok: true;
      readonly spec: LoadedSpec;
      readonly model: ServiceModel;
      readonly docs: ServiceDocTexts;
    }
  | { readonly ok: false; readonly diagnostics: readonly Diagnostic[] };

/** Loads, validates and normalizes; never throws for a user error (an unreadable file included). */
export function loadModel(options: SpecOptions): Loaded {
  const file = options.specFile ?? displayPath(options.spec);
  let spec: LoadedSpec;
  try {
    spec = loadSpecFile(options.spec, file);
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
    return {
      ok: false,
      diagnostics: [{ file, line: 1, col: 1, message: `cannot read the spec (${reason})` }],
    };
  }
  const diagnostics = validateSpec(spec);
  if (diagnostics.length > 0) return { ok: false, diagnostics };
  const namespace = options.namespace === undefined ? {} : { namespace: options.namespace };
  return { ok: true, spec, ...normalize(spec.value as SpecDocument, namespace) };
}

export type Generated =
  | { readonly ok: true; readonly model: ServiceModel; readonly files: readonly GeneratedFile[] }
  | { readonly ok: false; readonly diagnostics: readonly Diagnostic[] };

export async function generateFiles(options: GenerateOptions): Promise<Generated> {
  // Both load while the spec is validated: prettier in its worker, the emitters (ts-morph) here.
  prepareFormatter();
  const emitModule = import("./emit/index.js");
  emitModule.catch(() => {});
  const loaded = loadModel(options);
  if (!loaded.ok) return loaded;
  const { emitAll } = await emitModule;
  const extensions = (loaded.spec.value as SpecDocument).extensions;
  const files = await emitAll(loaded.model, {
    docs: loaded.docs,
    specFile: options.specFile ?? repositoryPath(options.spec),
    templatesDir: options.templatesDir ?? DEFAULT_TEMPLATES_DIR,
    runtimeDir: options.runtimeDir ?? DEFAULT_RUNTIME_DIR,
    ...(extensions === undefined
      ? {}
      : {
          extensions: {
            path: path.resolve(loaded.spec.dir ?? path.dirname(options.spec), extensions.module),
            module: extensions.module,
          },
        }),
    ...(options.wsdlAddress === undefined ? {} : { wsdlAddress: options.wsdlAddress }),
    ...(options.clientOnly === true ? { clientOnly: true } : {}),
    ...(options.fileExtension === undefined ? {} : { fileExtension: options.fileExtension }),
  });
  saveFormatCache();
  return { ok: true, model: loaded.model, files };
}

/**
 * filePath relative to the nearest ancestor folder holding a package.json, else its file name alone: never
 * relative to the working directory, so headers are the same bytes wherever the generator runs.
 */
export function repositoryPath(filePath: string): string {
  const absolute = path.resolve(filePath);
  for (let dir = path.dirname(absolute); ; dir = path.dirname(dir)) {
    if (existsSync(path.join(dir, "package.json"))) return displayPath(absolute, dir);
    if (path.dirname(dir) === dir) return path.basename(absolute);
  }
}
