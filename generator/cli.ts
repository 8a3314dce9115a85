// easgen: validate the spec, generate generated/ from it, or check that generated/ is current.

import { pathToFileURL } from "node:url";
import yargs from "yargs";
import { checkCommand, generateCommand, validateCommand } from "./commands.js";
import { TOOL_VERSION } from "./generated-file.js";

const NAMESPACE_PATTERN = /^[A-Za-z][A-Za-z0-9+.-]*:\S+$/;

export async function runCli(argv: readonly string[]): Promise<number> {
  let exitCode = 0;
  await yargs([...argv])
    .scriptName("easgen")
    .usage("$0 <command> [options]\n\nGenerates typed TypeScript for an ASMX service from its YAML spec.")
    .option("spec", {
      type: "string",
      default: "spec/ExternalAPIService.yaml",
      describe: "The spec YAML",
    })
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
    })
    .command(
      "validate",
      "Report spec errors as file:line:col message; exit 1 on any",
      (y) => y,
      (args) => {
        exitCode = validateCommand(specOptions(args));
      },
    )
    .command(
      "generate",
      "Validate, then write the output folder (deleting files an earlier run wrote and no longer generates)",
      (y) => y.option("out", { type: "string", default: "generated", describe: "Output folder" }),
      async (args) => {
        exitCode = await generateCommand({ ...specOptions(args), out: args.out });
      },
    )
    .command(
      "check",
      "Regenerate in memory and compare with the output folder; exit 1 naming every stale, missing or extra file",
      (y) => y.option("out", { type: "string", default: "generated", describe: "Output folder" }),
      async (args) => {
        exitCode = await checkCommand({ ...specOptions(args), out: args.out });
      },
    )
    .demandCommand(1, "Name a command: validate, generate or check")
    .strict()
    .help()
    .alias("help", "h")
    .version(TOOL_VERSION)
    .parseAsync();
  return exitCode;
}

function specOptions(args: { spec: string; namespace?: string | undefined }) {
  return args.namespace === undefined ? { spec: args.spec } : { spec: args.spec, namespace: args.namespace };
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  process.exitCode = await runCli(process.argv.slice(2));
}
