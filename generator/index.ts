// The programmatic API of the `easgen` package (`import { generate, check, validate } from "easgen"`): what
// the commands do, returning results instead of printing them. None throws for a user error (a spec that
// does not validate, an unreadable file): those come back as diagnostics.

import type { Diagnostic } from "./diagnostic.js";
import { generateFiles, loadModel } from "./generate.js";
import { TOOL_VERSION, type GeneratedFile } from "./generated-file.js";
import { compareOutput, writeOutput, type Difference } from "./output.js";

export { ConfigError, CONFIG_FILES, loadConfig, type EasgenConfig, type LoadedConfig } from "./config.js";
// `easgen import` as functions: a WSDL (file path, http(s) URL or text) to a spec object and its YAML.
export {
  ImportError,
  importToYaml,
  importWsdl,
  specToYaml,
  type ImportedSpec,
  type ImportResult,
} from "./import/index.js";
export type { Diagnostic, Difference, GeneratedFile };

/** The package's version, as `easgen --version` prints it and every generated header names it. */
export const version: string = TOOL_VERSION;

export interface ValidateOptions {
  /** Path of the spec YAML (relative to the working directory, or absolute). */
  readonly spec: string;
  /** Replaces the spec's XML namespace (an absolute URI). */
  readonly namespace?: string;
}

export interface GenerateOptions extends ValidateOptions {
  /** The output folder. */
  readonly out: string;
  /** Base URL ending in "/" written into the static {Service}.wsdl; default http://localhost/. */
  readonly wsdlAddress?: string;
}

export type ValidateResult =
  | { readonly ok: true; readonly service: string; readonly operations: readonly string[] }
  | { readonly ok: false; readonly diagnostics: readonly Diagnostic[] };

export type GenerateResult =
  | {
      readonly ok: true;
      /** Every output file, relative to `out`. */
      readonly files: readonly string[];
      /** Files created or whose bytes changed. */
      readonly written: readonly string[];
      /** Files an earlier run wrote (its manifest.json lists them) that are no longer generated, removed. */
      readonly deleted: readonly string[];
    }
  | { readonly ok: false; readonly diagnostics: readonly Diagnostic[] };

export type CheckResult =
  | {
      readonly ok: true;
      /** True when `out` holds exactly what the spec generates. */
      readonly current: boolean;
      /** Every stale, missing or extra file, sorted by path; empty when current. */
      readonly differences: readonly Difference[];
    }
  | { readonly ok: false; readonly diagnostics: readonly Diagnostic[] };

function specOptions(options: ValidateOptions): ValidateOptions {
  return options.namespace === undefined
    ? { spec: options.spec }
    : { spec: options.spec, namespace: options.namespace };
}

function generateOptions(options: GenerateOptions) {
  return {
    ...specOptions(options),
    ...(options.wsdlAddress === undefined ? {} : { wsdlAddress: options.wsdlAddress }),
  };
}

/** Checks the spec against the schema and the semantic rules (`easgen validate`). */
export function validate(options: ValidateOptions): ValidateResult {
  const loaded = loadModel(specOptions(options));
  if (!loaded.ok) return { ok: false, diagnostics: loaded.diagnostics };
  return { ok: true, service: loaded.model.name, operations: loaded.model.operations.map((op) => op.name) };
}

/** Validates, then writes the output folder (`easgen generate`). */
export async function generate(options: GenerateOptions): Promise<GenerateResult> {
  const generated = await generateFiles(generateOptions(options));
  if (!generated.ok) return { ok: false, diagnostics: generated.diagnostics };
  const { written, deleted } = writeOutput(options.out, generated.files);
  return { ok: true, files: generated.files.map((file) => file.path), written, deleted };
}

/** Regenerates in memory and compares with the output folder, writing nothing (`easgen check`). */
export async function check(options: GenerateOptions): Promise<CheckResult> {
  const generated = await generateFiles(generateOptions(options));
  if (!generated.ok) return { ok: false, diagnostics: generated.diagnostics };
  const differences = compareOutput(options.out, generated.files);
  return { ok: true, current: differences.length === 0, differences };
}

/** Every output file in memory (path relative to the output folder, and content), writing nothing. */
export async function render(
  options: Omit<GenerateOptions, "out">,
): Promise<
  | { readonly ok: true; readonly files: readonly GeneratedFile[] }
  | { readonly ok: false; readonly diagnostics: readonly Diagnostic[] }
> {
  const generated = await generateFiles(generateOptions({ ...options, out: "" }));
  return generated.ok
    ? { ok: true, files: generated.files }
    : { ok: false, diagnostics: generated.diagnostics };
}
