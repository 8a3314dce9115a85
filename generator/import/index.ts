// `easgen import --wsdl <file|url> --out spec/X.yaml`: an ASMX service's WSDL → a spec YAML that is then
// the hand-edited source of truth. See docs/easgen.md, "Importing a WSDL".

import { existsSync, mkdirSync, renameSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { PACKAGE_FILES } from "../paths.js";
import { readSource, type SourceOptions } from "./source.js";
import { ImportError, importWsdl, type ImportResult } from "./wsdl.js";
import { specToYaml } from "./yaml-out.js";

export { ImportError, importWsdl } from "./wsdl.js";
export type { ImportedSpec, ImportResult } from "./wsdl.js";
export { specToYaml } from "./yaml-out.js";

export interface ImportCommandOptions extends SourceOptions {
  /** A file path or an http(s) URL. */
  readonly wsdl: string;
  /** The spec YAML to write. */
  readonly out: string;
  /** Names of the parameters every operation takes first, moved into service.credentials. */
  readonly credentials?: readonly string[] | undefined;
  /** Overwrite an existing out file (the imported spec is meant to be edited by hand afterwards). */
  readonly force?: boolean | undefined;
}

export interface ImportIo {
  out(line: string): void;
  err(line: string): void;
}

const consoleIo: ImportIo = {
  out: (line) => process.stdout.write(`${line}\n`),
  err: (line) => process.stderr.write(`${line}\n`),
};

/** Reads, imports and renders without writing: the YAML text and the import's result. */
export async function importToYaml(
  wsdl: string,
  options: SourceOptions & {
    readonly credentials?: readonly string[] | undefined;
    /** The YAML's JSON Schema reference, relative to where it will be written (see schemaReference). */
    readonly schema?: string | undefined;
  } = {},
): Promise<ImportResult & { readonly yaml: string }> {
  const source = await readSource(wsdl, options);
  const result = importWsdl(source.text, { source: source.label, credentials: options.credentials });
  return {
    ...result,
    yaml: specToYaml(result.spec, {
      source: source.label,
      warnings: result.warnings,
      schema: options.schema,
    }),
  };
}

/**
 * The reference from a spec written at `out` to the JSON Schema of the easgen that writes it, relative to the
 * spec's folder, so editors find it: in a project that installed easgen,
 * `../node_modules/easgen/spec/service.schema.json` for spec/X.yaml; in easgen's repository,
 * `./service.schema.json` for spec/X.yaml.
 */
export function schemaReference(out: string): string {
  const relative = path.relative(path.dirname(path.resolve(out)), PACKAGE_FILES.schema);
  // On another drive (Windows) there is no relative path.
  if (path.isAbsolute(relative)) return pathToFileURL(PACKAGE_FILES.schema).href;
  const slashed = relative.split(path.sep).join("/");
  return slashed.startsWith(".") ? slashed : `./${slashed}`;
}

export async function importCommand(
  options: ImportCommandOptions,
  io: ImportIo = consoleIo,
): Promise<number> {
  try {
    if (existsSync(options.out) && options.force !== true) {
      throw new ImportError(`${options.out} exists; pass --force to overwrite it (it may hold hand edits)`);
    }
    const result = await importToYaml(options.wsdl, { ...options, schema: schemaReference(options.out) });
    for (const w of result.warnings) io.err(`easgen import: warning: ${w}`);
    mkdirSync(path.dirname(path.resolve(options.out)), { recursive: true });
    const temp = `${options.out}.${process.pid}.tmp`;
    try {
      writeFileSync(temp, result.yaml);
      renameSync(temp, options.out);
    } finally {
      rmSync(temp, { force: true });
    }
    const spec = result.spec;
    const operations = spec.groups.reduce((n, g) => n + g.operations.length, 0);
    const warnings = result.warnings.length;
    io.out(
      `easgen import: wrote ${options.out} (${operations} operations, ${Object.keys(spec.records ?? {}).length} records, ${Object.keys(spec.enums ?? {}).length} enums, bindings ${spec.service.bindings.join(", ")}${warnings > 0 ? `, ${warnings} warning${warnings === 1 ? "" : "s"}` : ""})`,
    );
    return 0;
  } catch (e) {
    if (e instanceof ImportError) {
      io.err(`easgen import: ${e.message}`);
      return 1;
    }
    throw e;
  }
}
