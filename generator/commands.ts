// What `easgen validate|generate|check|verify` do, apart from argument parsing (cli.ts), so tests can run
// them in-process. Each returns the exit code.

import path from "node:path";
import type { Io } from "./cli-command.js";
import { formatDiagnostic, type Diagnostic } from "./diagnostic.js";
import { generateFiles, loadModel, type GenerateOptions, type SpecOptions } from "./generate.js";
import { MANIFEST } from "./generated-file.js";
import { compareOutput, IGNORE_FILE, verifyOutput, writeOutput, type Difference } from "./output.js";

export type { Io };

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

/** Files whose diff `check` prints; the others are named only. */
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
  io.err(
    `easgen: ${dir}/ is not what the spec generates (${count(differences.length, "file differs", "files differ")}); ` +
      `run: ${options.regenerate ?? regenerateCommand(options)}`,
  );
  reportDifferences(differences, dir, io);
  return 1;
}

/** `easgen verify <dir>`: the folder against its manifest's hashes, without the spec. */
export function verifyCommand(outDir: string, io: Io = consoleIo): number {
  const started = performance.now();
  const dir = displayDir(outDir);
  const verification = verifyOutput(outDir);
  if (!verification.ok) {
    io.err(`easgen: ${dir}/: ${verification.problem}`);
    return 1;
  }
  const { differences } = verification;
  if (differences.length === 0) {
    io.out(
      `easgen: ${dir}/ matches its ${MANIFEST} (${verification.files} files, SHA-256, ${elapsed(started)} ms)`,
    );
    return 0;
  }
  io.err(
    `easgen: ${dir}/ does not match its ${MANIFEST} (${count(differences.length, "file differs", "files differ")}); ` +
      "copy the folder again from where it was generated, or regenerate it",
  );
  reportDifferences(differences, dir, io);
  return 1;
}

/** One line per difference (with the diff of the first few stale files), then the line-ending hint if due. */
function reportDifferences(differences: readonly Difference[], dir: string, io: Io): void {
  let diffsShown = 0;
  for (const difference of differences) {
    io.err(`  ${describeDifference(difference, dir)}`);
    if (difference.kind === "stale" && difference.diff !== undefined && diffsShown++ < MAX_DIFFS_SHOWN) {
      for (const line of difference.diff.split("\n")) io.err(`      ${line}`);
    }
  }
  const crlf = differences.filter((d) => d.kind === "stale" && d.lineEndings !== undefined).length;
  if (crlf > 0) {
    io.err(
      `easgen: ${count(crlf, "file has", "files have")} CRLF line endings; easgen writes LF. A checkout ` +
        "converting them (git core.autocrlf) does this: mark the folder `* -text` or `* text eol=lf` in a " +
        ".gitattributes, then check it out again",
    );
  }
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
  if (options.clientOnly === true) args.push("--client-only");
  if (options.fileExtension !== undefined && options.fileExtension !== ".ts")
    args.push("--file-extension", options.fileExtension);
  return args.join(" ");
}

function quote(arg: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(arg) ? arg : `'${arg.replace(/'/g, "'\\''")}'`;
}

function describeDifference(difference: Difference, dir: string): string {
  const file = `${dir}/${difference.path}`;
  switch (difference.kind) {
    case "stale":
      return difference.lineEndings === "only"
        ? `stale    ${file} (line endings only: CRLF, not LF)`
        : difference.lineEndings === "also"
          ? `stale    ${file} (and its line endings are CRLF, not LF)`
          : `stale    ${file}`;
    case "missing":
      return `missing  ${file}`;
    case "extra":
      return difference.listed
        ? `extra    ${file} (no longer generated; \`generate\` deletes it)`
        : `extra    ${file} (not generated by easgen; delete it, move it, or name it in ${dir}/${IGNORE_FILE})`;
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
