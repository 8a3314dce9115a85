// The `easgen import` command for the CLI (generator/cli.ts adds it to its list of commands).

import type { Argv, CommandModule } from "yargs";
import { importCommand, type ImportIo } from "./index.js";
import { DEFAULT_MAX_BYTES, DEFAULT_TIMEOUT_MS } from "./source.js";

interface ImportArgs {
  readonly wsdl: string;
  readonly out: string;
  readonly credentials?: string | undefined;
  readonly force?: boolean | undefined;
  readonly "max-bytes": number;
  readonly timeout: number;
}

export function importCommandModule(io: ImportIo, setExitCode: (code: number) => void): CommandModule<object, ImportArgs> {
  return {
    command: "import",
    describe: "Read an ASMX service's WSDL (a file or an http(s) URL) and write a spec YAML, to be edited by hand from then on",
    builder: (y: Argv<object>) =>
      y
        .option("wsdl", { type: "string", demandOption: true, describe: "The WSDL: a file, or an http(s) URL such as http://host/Service.asmx?WSDL" })
        .option("out", { type: "string", demandOption: true, describe: "The spec YAML to write, such as spec/Service.yaml" })
        .option("credentials", {
          type: "string",
          describe: "Comma-separated names of parameters every operation takes first (such as strUsername,strPassword), moved into service.credentials",
        })
        .option("force", { type: "boolean", default: false, describe: "Overwrite --out if it exists" })
        .option("max-bytes", { type: "number", default: DEFAULT_MAX_BYTES, describe: "Largest WSDL accepted, in bytes" })
        .option("timeout", { type: "number", default: DEFAULT_TIMEOUT_MS / 1000, describe: "Seconds allowed for fetching a URL" })
        .check((args) => {
          if (!(args["max-bytes"] > 0)) throw new Error(`--max-bytes must be a positive number, not ${args["max-bytes"]}`);
          if (!(args.timeout > 0)) throw new Error(`--timeout must be a positive number of seconds, not ${args.timeout}`);
          return true;
        }) as unknown as Argv<ImportArgs>,
    handler: async (args) => {
      const credentials = args.credentials?.split(",").map((s) => s.trim()).filter((s) => s !== "");
      setExitCode(
        await importCommand(
          {
            wsdl: args.wsdl,
            out: args.out,
            credentials,
            force: args.force,
            maxBytes: args["max-bytes"],
            timeoutMs: args.timeout * 1000,
          },
          io,
        ),
      );
    },
  };
}
