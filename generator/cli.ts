// easgen: validate the spec, generate the output folder from it, check that the folder is current, verify a
// vendored copy against its manifest, or import a WSDL into a spec. Options come from the command line, else
// from easgen.config.json (or .mjs/.js) in the working directory or named by --config (config.ts); flags
// override the file.
//
// Exit codes: 0 done; 1 errors in the spec, a stale folder or a user error met while running (a missing
// file, a bad config, an unreachable WSDL), one line each, never a stack trace; 2 a mistake in the command
// line itself (an unknown command or flag, a flag without its value, a missing required option, a bad
// value), reported with "did you mean" where a known name is close and the command's usage line, and the
// command is not run.

import { readFileSync } from "node:fs";
import { pathToFileURL } from "node:url";
import yargs, { type Argv } from "yargs";
import {
  UsageError,
  UserError,
  usageLine,
  type CommandSpec,
  type Io,
  type OptionSpec,
  type ParsedArgs,
} from "./cli-command.js";
import {
  checkCommand,
  generateCommand,
  regenerateCommand,
  validateCommand,
  verifyCommand,
  type OutputOptions,
} from "./commands.js";
import {
  ConfigError,
  type FileExtension,
  isFileExtension,
  loadConfig,
  NAMESPACE_PATTERN,
  wsdlAddressProblem,
} from "./config.js";
import { TOOL_VERSION } from "./generated-file.js";
import { importCommandSpec } from "./import/command.js";
import { recordCommandSpec, shadowCommandSpec } from "./shadow/command.js";
import { closest, didYouMean } from "./suggest.js";

/** How the executable is started, for hints that name a command to run. */
export interface CliOptions {
  /** Default "npx easgen"; the repository's sources pass their own. */
  readonly program?: string;
  readonly io?: Io;
  readonly cwd?: string;
}

const consoleIo: Io = {
  out: (line) => process.stdout.write(`${line}\n`),
  err: (line) => process.stderr.write(`${line}\n`),
};

/** The default output folder when neither --out nor the config names one. */
export const DEFAULT_OUT = "generated";

const CONFIG_OPTION: OptionSpec = {
  type: "string",
  value: "file",
  describe: "Config file (default: easgen.config.json, .mjs or .js in the working directory, if any)",
};

const SPEC_OPTIONS: Readonly<Record<string, OptionSpec>> = {
  config: CONFIG_OPTION,
  spec: { type: "string", value: "file.yaml", describe: "The spec YAML (default: the config's spec)" },
  namespace: {
    type: "string",
    value: "uri",
    describe: "XML namespace to use instead of the spec's service.namespace",
  },
};

const OUT_OPTIONS: Readonly<Record<string, OptionSpec>> = {
  ...SPEC_OPTIONS,
  out: {
    type: "string",
    value: "dir",
    describe: `Output folder (default: the config's out, else ${DEFAULT_OUT})`,
  },
  "wsdl-address": {
    type: "string",
    value: "url",
    describe:
      "Base URL written into the static {Service}.wsdl (default: the config's wsdlAddress, else http://localhost/)",
  },
  "client-only": {
    type: "boolean",
    describe:
      "Only the client and the files it imports: no server, WSDL or help pages; needs neither Node's types nor the DOM's (default: the config's clientOnly)",
  },
  "file-extension": {
    type: "string",
    value: ".ts|.mts",
    describe:
      "Extension of the TypeScript files: .mts makes them ES modules whatever the package.json around them says, for CommonJS projects built with tsc (default: the config's fileExtension, else .ts)",
  },
};

function checkSpecArgs(args: ParsedArgs): void {
  const namespace = args["namespace"] as string | undefined;
  if (namespace !== undefined && !NAMESPACE_PATTERN.test(namespace)) {
    throw new UsageError(
      `--namespace must be an absolute URI such as http://tempuri.org/, not "${namespace}"`,
    );
  }
  const address = args["wsdl-address"] as string | undefined;
  const problem = address === undefined ? undefined : wsdlAddressProblem(address);
  if (problem !== undefined) throw new UsageError(`--wsdl-address must be ${problem}, not "${address}"`);
  const extension = args["file-extension"] as string | undefined;
  if (extension !== undefined && !isFileExtension(extension))
    throw new UsageError(`--file-extension must be .ts or .mts, not "${extension}"`);
}

/**
 * Runs one command line; returns the exit code (0 done, 1 errors in the spec, a stale folder or a user error,
 * 2 a mistake in the command line). To add a command, add a CommandSpec to `commands` below.
 */
export async function runCli(argv: readonly string[], cli: CliOptions = {}): Promise<number> {
  return runCommandLine(argv, cliCommands(argv, cli), cli.io ?? consoleIo);
}

/** Every command, as the command line `argv` would run it. */
export function cliCommands(argv: readonly string[], cli: CliOptions = {}): readonly CommandSpec[] {
  const io = cli.io ?? consoleIo;
  const program = cli.program ?? "npx easgen";
  const cwd = cli.cwd;

  /** The config (--config, else the working directory's), the error a user can fix as UserError. */
  const config = async (args: ParsedArgs) => {
    try {
      return await loadConfig({
        file: args["config"] as string | undefined,
        ...(cwd === undefined ? {} : { cwd }),
      });
    } catch (error) {
      if (error instanceof ConfigError) throw new UserError(error.message);
      throw error;
    }
  };

  /** The config merged under the flags. */
  const resolve = async (args: ParsedArgs): Promise<OutputOptions> => {
    const loaded = await config(args);
    const spec = (args["spec"] as string | undefined) ?? loaded.spec;
    if (spec === undefined) {
      throw new UsageError(
        loaded.file === undefined
          ? 'no spec: pass --spec <file.yaml>, or write easgen.config.json with { "spec": "<file.yaml>" }'
          : `no spec: pass --spec <file.yaml>, or add "spec" to ${loaded.file}`,
      );
    }
    const namespace = (args["namespace"] as string | undefined) ?? loaded.namespace;
    const wsdlAddress = (args["wsdl-address"] as string | undefined) ?? loaded.wsdlAddress;
    const clientOnly = (args["client-only"] as boolean | undefined) ?? loaded.clientOnly;
    const fileExtension = (args["file-extension"] as FileExtension | undefined) ?? loaded.fileExtension;
    return {
      spec,
      out: (args["out"] as string | undefined) ?? loaded.out ?? DEFAULT_OUT,
      ...(namespace === undefined ? {} : { namespace }),
      ...(wsdlAddress === undefined ? {} : { wsdlAddress }),
      ...(clientOnly === true ? { clientOnly } : {}),
      ...(fileExtension === undefined ? {} : { fileExtension }),
    };
  };

  return [
    {
      name: "validate",
      describe: "Report spec errors as file:line:col message; exit 1 on any",
      options: SPEC_OPTIONS,
      check: checkSpecArgs,
      run: async (args) => validateCommand(await resolve(args), io),
    },
    {
      name: "generate",
      describe:
        "Validate, then write the output folder (deleting files an earlier run wrote and no longer generates; files its .easgenignore names stay)",
      options: OUT_OPTIONS,
      check: checkSpecArgs,
      run: async (args) => generateCommand(await resolve(args), io),
    },
    {
      name: "check",
      describe:
        "Regenerate in memory and compare with the output folder; exit 1 naming every stale, missing or extra file, with a diff",
      options: OUT_OPTIONS,
      check: checkSpecArgs,
      run: async (args) => {
        const options = await resolve(args);
        return checkCommand(
          { ...options, regenerate: npmScriptHint(argv) ?? regenerateCommand(options, program) },
          io,
        );
      },
    },
    {
      name: "verify",
      describe:
        "Check a generated folder against the SHA-256 hashes in its manifest.json, without the spec; exit 1 naming every changed, missing or extra file",
      positional: {
        name: "dir",
        describe: `The generated folder (default: the config's out, else ${DEFAULT_OUT})`,
      },
      options: { config: CONFIG_OPTION },
      run: async (args) => {
        const dir = (args["dir"] as string | undefined) ?? (await config(args)).out ?? DEFAULT_OUT;
        return verifyCommand(dir, io);
      },
    },
    importCommandSpec,
    shadowCommandSpec,
    recordCommandSpec,
  ];
}

/** Parses argv against the commands and runs the one named; every way it can go wrong ends in an exit code. */
async function runCommandLine(
  argv: readonly string[],
  commands: readonly CommandSpec[],
  io: Io,
): Promise<number> {
  const named = commands.find((command) => command.name === argv[0]);
  let exitCode = 0;
  let crash: { error: unknown } | undefined;
  const run = async (command: CommandSpec, args: ParsedArgs): Promise<void> => {
    try {
      checkValues(command, args);
      command.check?.(args);
      exitCode = await command.run(args, io);
    } catch (error) {
      crash = { error };
    }
  };

  let parser = yargs()
    .scriptName("easgen")
    // yargs would translate its messages by the environment's locale; ours are English, and read below.
    .locale("en")
    .usage("$0 <command> [options]\n\nGenerates typed TypeScript for an ASMX service from its YAML spec.");
  for (const command of commands) {
    parser = parser.command({
      command: command.positional ? `${command.name} [${command.positional.name}]` : command.name,
      describe: command.describe,
      builder: (y: Argv) => {
        let built = y;
        if (command.positional) {
          built = built.positional(command.positional.name, {
            type: "string",
            describe: command.positional.describe,
          });
        }
        for (const [name, option] of Object.entries(command.options)) {
          built = built.option(name, {
            type: option.type,
            describe: option.describe,
            ...(option.type === "boolean" ? {} : { requiresArg: true }),
            ...(option.required ? { demandOption: true } : {}),
            ...(option.default === undefined ? {} : { default: option.default }),
          });
        }
        return built;
      },
      handler: (args) => run(command, args as ParsedArgs),
    });
  }
  let output = "";
  try {
    await parser
      .demandCommand(1, "")
      .strict()
      .fail((message, error) => {
        throw error instanceof UsageError ? error : new UsageError(message || (error?.message ?? ""));
      })
      .exitProcess(false)
      .help()
      .alias("help", "h")
      .version(TOOL_VERSION)
      .parseAsync([...argv], {}, (_error, _args, text) => {
        output = text;
      });
  } catch (error) {
    crash = { error };
  }
  // --help and --version: what yargs would have printed.
  if (output !== "" && crash === undefined) io.out(output);
  if (crash === undefined) return exitCode;

  const { error } = crash;
  if (error instanceof UsageError) {
    io.err(`easgen${named ? ` ${named.name}` : ""}: ${usageMessage(error.message, argv, named, commands)}`);
    io.err(
      named
        ? `usage: ${usageLine(named)} (easgen ${named.name} --help describes them)`
        : `usage: easgen <${commands.map((command) => command.name).join("|")}> [options] (easgen --help lists them)`,
    );
    return 2;
  }
  const problem = error instanceof UserError ? error.message : fileSystemProblem(error);
  if (problem !== undefined) {
    io.err(`easgen: ${problem}`);
    return 1;
  }
  // Anything else is a bug in easgen: its stack is what a report needs.
  throw error;
}

/** Refuses an empty string value (`--spec=`) and a number that is not one (`--max-bytes abc`). */
function checkValues(command: CommandSpec, args: ParsedArgs): void {
  for (const [name, option] of Object.entries(command.options)) {
    const value = args[name];
    if (option.type === "string" && value === "") throw new UsageError(`--${name} needs a value`);
    if (option.type === "number" && typeof value === "number" && Number.isNaN(value)) {
      throw new UsageError(`--${name} must be a number`);
    }
    // A flag given twice comes back as an array.
    if (Array.isArray(value)) throw new UsageError(`--${name} is given more than once`);
  }
}

/** yargs' message in our words, with "did you mean" where a known name is close. */
function usageMessage(
  message: string,
  argv: readonly string[],
  command: CommandSpec | undefined,
  commands: readonly CommandSpec[],
): string {
  const commandNames = commands.map((c) => c.name);
  if (message === "") return `name a command: ${commandNames.join(", ")}`;
  // A mistyped flag comes first, whatever yargs stopped at: `--wdsl x` is why --wsdl is missing.
  const typed = command === undefined ? [] : unknownFlags(argv.slice(1), command);
  const unknown = typed.length > 0 ? [message, typed.join(", ")] : /^Unknown arguments?: (.*)$/.exec(message);
  if (unknown) {
    const names = unknown[1]!.split(", ");
    const flags = new Set(Object.keys(command?.options ?? {}));
    const problems: string[] = [];
    for (const name of names) {
      const token = argv.find(
        (arg) => arg === `--${name}` || arg.startsWith(`--${name}=`) || arg === `-${name}`,
      );
      if (token === undefined) {
        // yargs names --foo-bar also as fooBar; report the spelling that was typed, once.
        if (names.includes(kebab(name)) && kebab(name) !== name) continue;
        if (command === undefined && argv[0] === name) {
          problems.push(`unknown command ${name}${didYouMean(name, commandNames)}`);
        } else {
          problems.push(`unexpected argument ${JSON.stringify(name)}`);
        }
        continue;
      }
      let hint = didYouMean(name, [...flags, "help", "version"], (flag) => `--${flag}`);
      // Not one of this command's: perhaps (nearly) another command's.
      for (const other of commands) {
        if (hint !== "" || command === undefined || other === command) continue;
        const near = Object.hasOwn(other.options, name) ? name : closest(name, Object.keys(other.options));
        if (near !== undefined)
          hint = ` (--${near} is an option of easgen ${other.name}, not of easgen ${command.name})`;
      }
      problems.push(`unknown option ${token.split("=")[0]}${hint}`);
    }
    return problems.join("; ");
  }
  const missing = /^Missing required arguments?: (.*)$/.exec(message);
  if (missing) {
    return missing[1]!
      .split(", ")
      .map((name) => `missing --${name}`)
      .join("; ");
  }
  const needsValue = /^Not enough arguments following: (.*)$/.exec(message);
  if (needsValue) return `--${needsValue[1]} needs a value`;
  return message;
}

/** The flags in args that the command does not have, as typed (without dashes or a value). */
function unknownFlags(args: readonly string[], command: CommandSpec): string[] {
  const known = new Set([...Object.keys(command.options), "help", "h", "version"]);
  const found: string[] = [];
  for (const arg of args) {
    if (arg === "--") break;
    const m = /^--?([^=]+)/.exec(arg);
    if (!m || /^-\d/.test(arg)) continue;
    const name = m[1]!;
    const bare = name.startsWith("no-") ? name.slice(3) : name;
    if (!known.has(name) && !known.has(bare) && !found.includes(name)) found.push(name);
  }
  return found;
}

function kebab(name: string): string {
  return name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
}

/**
 * A file-system error a user can act on (a folder that cannot be written, a path that is a file), as one
 * line; undefined for anything else.
 */
function fileSystemProblem(error: unknown): string | undefined {
  const e = error as NodeJS.ErrnoException;
  if (!(error instanceof Error) || typeof e.code !== "string" || typeof e.syscall !== "string")
    return undefined;
  const where = e.path === undefined ? "" : ` ${e.path}`;
  return `cannot ${e.syscall}${where} (${e.code})`;
}

/**
 * `npm run <script>` when `check` runs as an npm script with no flags of its own and the package has a script
 * that is the same command line with `generate` for `check` (this repository's `npm run check` names
 * `npm run generate`); else undefined, and the hint spells the command out.
 */
export function npmScriptHint(
  argv: readonly string[],
  env: NodeJS.ProcessEnv = process.env,
): string | undefined {
  const script = env["npm_lifecycle_script"];
  const manifest = env["npm_package_json"];
  if (argv.length !== 1 || argv[0] !== "check" || !script || !manifest || !/\scheck$/.test(script))
    return undefined;
  let scripts: Record<string, unknown>;
  try {
    scripts =
      (JSON.parse(readFileSync(manifest, "utf8")) as { scripts?: Record<string, unknown> }).scripts ?? {};
  } catch {
    return undefined;
  }
  const wanted = `${script.slice(0, -"check".length)}generate`;
  const name = Object.keys(scripts).find((key) => scripts[key] === wanted);
  return name === undefined ? undefined : `npm run ${name}`;
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  // Run from the repository's sources (node --import tsx generator/cli.ts ...).
  process.exitCode = await runCli(process.argv.slice(2), { program: "node --import tsx generator/cli.ts" });
}
