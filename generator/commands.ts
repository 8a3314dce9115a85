// What `easgen validate|generate|check` do, apart from argument parsing (cli.ts), so tests can run them
// in-process. Each returns the exit code.

import { readFileSync } from "node:fs";
import path from "node:path";
import { formatDiagnostic, type Diagnostic } from "./diagnostic.js";
import { generateFiles, loadModel, type GenerateOptions, type SpecOptions } from "./generate.js";
import { compareOutput, writeOutput, type Difference } from "./output.js";

export interface Io {
  out(line: string): void;
  err(line: string): void;
}

const consoleIo: Io = {
  out: (line) => process.stdout.write(`${line}\n`),
  err: (line) => process.stderr.write(`${line}\n`),
};

export interface OutputOptions extends GenerateOptions {
  /** Output folder. */
  readonly out: string;
  /**
   * The command that regenerates the folder, named by `check` when it is stale. Default:
   * `npx easgen generate --spec <spec> --out <out>` (plus --namespace and --wsdl-address when given).
   */
  readonly regenerate?: string;
}

export function validateCommand(options: SpecOptions, io: Io = consoleIo): number {
  const started = performance.now();
  const loaded = loadModel(options);
  if (!loaded.ok) return reportDiagnostics(loaded.diagnostics, io);
  io.out(
    `easgen: ${loaded.spec.file} is valid (${loaded.model.operations.length} operations, ${elapsed(started)} ms)`,
  );
  return 0;
}

export async function generateCommand(options: OutputOptions, io: Io = consoleIo): Promise<number> {
  const started = performance.now();
  const generated = await generateFiles(options);
  if (!generated.ok) return reportDiagnostics(generated.diagnostics, io);
  const { written, deleted } = writeOutput(options.out, generated.files);
  io.out(
    `easgen: generated ${generated.files.length} files in ${displayDir(options.out)}/ ` +
      `(${written.length} changed, ${deleted.length} deleted) in ${elapsed(started)} ms`,
  );
  return 0;
}

const MAX_DIFFS_SHOWN = 10;

export async function checkCommand(options: OutputOptions, io: Io = consoleIo): Promise<number> {
  const started = performance.now();
  const generated = await generateFiles(options);
  if (!generated.ok) return reportDiagnostics(generated.diagnostics, io);
  const differences = compareOutput(options.out, generated.files);
  const dir = displayDir(options.out);
  if (differences.length === 0) {
    io.out(`easgen: ${dir}/ is current (${generated.files.length} files, ${elapsed(started)} ms)`);
    return 0;
  }
  const byPath = new Map(generated.files.map((file) => [file.path, file.content]));
  const lineEndingsOnly = (difference: Difference): boolean =>
    difference.kind === "stale" &&
    onlyLineEndingsDiffer(path.join(options.out, difference.path), byPath.get(difference.path));
  io.err(
    `easgen: ${dir}/ is not what the spec generates (${count(differences.length, "file differs", "files differ")}); ` +
      `run: ${options.regenerate ?? regenerateCommand(options)}`,
  );
  let diffsShown = 0;
  for (const difference of differences) {
    const crlf = lineEndingsOnly(difference);
    io.err(`  ${describeDifference(difference, dir, crlf)}`);
    if (difference.kind === "stale" && !crlf && diffsShown++ < MAX_DIFFS_SHOWN) {
      for (const line of difference.diff.split("\n")) io.err(`      ${line}`);
    }
  }
  if (differences.every(lineEndingsOnly)) {
    io.err(
      "easgen: only line endings differ (CRLF vs LF): easgen writes LF; a checkout converting to CRLF " +
        "(git core.autocrlf) does this, mark the folder `* -text` or `eol=lf` in .gitattributes",
    );
  }
  return 1;
}

/** The command that regenerates what `check` compared, with the paths it used, relative to the working directory. */
export function regenerateCommand(options: OutputOptions, program = "npx easgen"): string {
  const args = [
    `${program} generate`,
    "--spec",
    quote(displayPath(options.spec)),
    "--out",
    quote(displayDir(options.out)),
  ];
  if (options.namespace !== undefined) args.push("--namespace", quote(options.namespace));
  if (options.wsdlAddress !== undefined) args.push("--wsdl-address", quote(options.wsdlAddress));
  return args.join(" ");
}

function quote(arg: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(arg) ? arg : `'${arg.replace(/'/g, "'\\''")}'`;
}

/** True when the file on disk equals the generated text once its CRLF line ends are read as LF. */
function onlyLineEndingsDiffer(file: string, generated: string | undefined): boolean {
  if (generated === undefined) return false;
  let onDisk: string;
  try {
    onDisk = readFileSync(file, "utf8");
  } catch {
    return false;
  }
  return onDisk.includes("\r\n") && onDisk.replace(/\r\n/g, "\n") === generated;
}

function describeDifference(difference: Difference, dir: string, lineEndingsOnly = false): string {
  const file = `${dir}/${difference.path}`;
  switch (difference.kind) {
    case "stale":
      return lineEndingsOnly ? `stale    ${file} (line endings (CRLF vs LF) only)` : `stale    ${file}`;
    case "missing":
      return `missing  ${file}`;
    case "extra":
      return difference.listed
        ? `extra    ${file} (no longer generated; \`generate\` deletes it)`
        : `extra    ${file} (not generated by easgen; delete or move it)`;
  }
}

function reportDiagnostics(diagnostics: readonly Diagnostic[], io: Io): number {
  for (const diagnostic of diagnostics) io.err(formatDiagnostic(diagnostic));
  io.err(`easgen: ${count(diagnostics.length, "error", "errors")} in the spec`);
  return 1;
}

function displayDir(dir: string): string {
  return displayPath(dir) || ".";
}

function displayPath(file: string): string {
  return path.relative(process.cwd(), path.resolve(file)).split(path.sep).join("/");
}

function elapsed(started: number): number {
  return Math.round(performance.now() - started);
}

function count(n: number, one: string, many: string): string {
  return `${n} ${n === 1 ? one : many}`;
}
