// easgen: validate the spec, generate the output folder from it, or check that the folder is current.
// Options come from the command line, else from easgen.config.json (or .mjs/.js) in the working directory or
// named by --config (config.ts); flags override the file.

import { readFileSync } from "node:fs";
import { pathToFileURL } from "node:url";
import yargs, { type Argv, type CommandModule } from "yargs";
import {
  checkCommand,
  generateCommand,
  regenerateCommand,
  validateCommand,
  type Io,
  type OutputOptions,
} from "./commands.js";
import {
  ConfigError,
  loadConfig,
  NAMESPACE_PATTERN,
  wsdlAddressProblem,
  type LoadedConfig,
} from "./config.js";
import { TOOL_VERSION } from "./generated-file.js";
import { importCommandModule } from "./import/command.js";

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

interface SpecArgs {
  readonly config?: string | undefined;
  readonly spec?: string | undefined;
  readonly namespace?: string | undefined;
}

interface OutArgs extends SpecArgs {
  readonly out?: string | undefined;
  readonly "wsdl-address"?: string | undefined;
}

/** The options every spec-reading command takes. */
function specOptions<T>(y: Argv<T>) {
  return y
    .option("config", {
      type: "string",
      describe: "Config file (default: easgen.config.json, .mjs or .js in the working directory, if any)",
    })
    .option("spec", { type: "string", describe: "The spec YAML (default: the config's spec)" })
    .option("namespace", {
      type: "string",
      describe: "XML namespace to use instead of the spec's service.namespace",
    })
    .check((args) => {
      if (args.namespace !== undefined && !NAMESPACE_PATTERN.test(args.namespace)) {
        throw new Error(
          `--namespace must be an absolute URI such as http://tempuri.org/, not "${args.namespace}"`,
        );
      }
      return true;
    });
}

function outOptions<T>(y: Argv<T>) {
  return specOptions(y)
    .option("out", {
      type: "string",
      describe: `Output folder (default: the config's out, else ${DEFAULT_OUT})`,
    })
    .option("wsdl-address", {
      type: "string",
      describe:
        "Base URL written into the static {Service}.wsdl (default: the config's wsdlAddress, else http://localhost/)",
    })
    .check((args) => {
      const address = args["wsdl-address"];
      const problem = address === undefined ? undefined : wsdlAddressProblem(address);
      if (problem !== undefined) throw new Error(`--wsdl-address must be ${problem}, not "${address}"`);
      return true;
    });
}

/**
 * Runs one command line; returns the exit code (0 done, 1 errors in the spec, a stale folder or a bad
 * config). To add a command, add it to `commands` below.
 */
export async function runCli(argv: readonly string[], cli: CliOptions = {}): Promise<number> {
  const io = cli.io ?? consoleIo;
  const program = cli.program ?? "npx easgen";
  let exitCode = 0;

  /** The config merged under the flags; undefined (after reporting) when it cannot be used. */
  const resolve = async (args: OutArgs): Promise<OutputOptions | undefined> => {
    let config: LoadedConfig;
    try {
      config = await loadConfig({ file: args.config, ...(cli.cwd === undefined ? {} : { cwd: cli.cwd }) });
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      io.err(`easgen: ${error.message}`);
      exitCode = 1;
      return undefined;
    }
    const spec = args.spec ?? config.spec;
    if (spec === undefined) {
      io.err(
        config.file === undefined
          ? 'easgen: no spec: pass --spec <file.yaml>, or write easgen.config.json with { "spec": "<file.yaml>" }'
          : `easgen: no spec: pass --spec <file.yaml>, or add "spec" to ${config.file}`,
      );
      exitCode = 1;
      return undefined;
    }
    const namespace = args.namespace ?? config.namespace;
    const wsdlAddress = args["wsdl-address"] ?? config.wsdlAddress;
    const options: OutputOptions = {
      spec,
      out: args.out ?? config.out ?? DEFAULT_OUT,
      ...(namespace === undefined ? {} : { namespace }),
      ...(wsdlAddress === undefined ? {} : { wsdlAddress }),
    };
    return options;
  };

  const commands: CommandModule<object, OutArgs>[] = [
    {
      command: "validate",
      describe: "Report spec errors as file:line:col message; exit 1 on any",
      builder: (y) => specOptions(y) as Argv<OutArgs>,
      handler: async (args) => {
        const options = await resolve(args);
        if (options) exitCode = validateCommand(options, io);
      },
    },
    {
      command: "generate",
      describe:
        "Validate, then write the output folder (deleting files an earlier run wrote and no longer generates)",
      builder: (y) => outOptions(y) as Argv<OutArgs>,
      handler: async (args) => {
        const options = await resolve(args);
        if (options) exitCode = await generateCommand(options, io);
      },
    },
    {
      command: "check",
      describe:
        "Regenerate in memory and compare with the output folder; exit 1 naming every stale, missing or extra file",
      builder: (y) => outOptions(y) as Argv<OutArgs>,
      handler: async (args) => {
        const options = await resolve(args);
        if (options)
          exitCode = await checkCommand(
            { ...options, regenerate: npmScriptHint(argv) ?? regenerateCommand(options, program) },
            io,
          );
      },
    },
    importCommandModule(io, (code) => {
      exitCode = code;
    }) as unknown as CommandModule<object, OutArgs>,
  ];

  let parser = yargs([...argv])
    .scriptName("easgen")
    .usage("$0 <command> [options]\n\nGenerates typed TypeScript for an ASMX service from its YAML spec.");
  for (const command of commands) parser = parser.command(command);
  await parser
    .demandCommand(1, `Name a command: ${commands.map((command) => command.command).join(", ")}`)
    .strict()
    .fail((message, error) => {
      // An exception from a command is a bug and keeps its stack; a usage error is one line and exit 1.
      if (error) throw error;
      io.err(`easgen: ${message} (easgen --help lists the commands, easgen <command> --help their options)`);
      exitCode = 1;
    })
    .help()
    .alias("help", "h")
    .version(TOOL_VERSION)
    .parseAsync();
  return exitCode;
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
