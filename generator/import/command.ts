// The `easgen import` command for the CLI (generator/cli.ts adds it to its list of commands).

import { UsageError, type CommandSpec } from "../cli-command.js";
import { importCommand } from "./index.js";
import { DEFAULT_MAX_BYTES, DEFAULT_TIMEOUT_MS } from "./source.js";

export const importCommandSpec: CommandSpec = {
  name: "import",
  describe:
    "Read an ASMX service's WSDL (a file or an http(s) URL) and write a spec YAML, to be edited by hand from then on",
  options: {
    wsdl: {
      type: "string",
      value: "file|url",
      required: true,
      describe: "The WSDL: a file, or an http(s) URL such as http://host/Service.asmx?WSDL",
    },
    out: {
      type: "string",
      value: "file.yaml",
      required: true,
      describe: "The spec YAML to write, such as spec/Service.yaml",
    },
    credentials: {
      type: "string",
      value: "names",
      describe:
        "Comma-separated names of parameters every operation takes first (such as strUsername,strPassword), moved into service.credentials",
    },
    force: { type: "boolean", default: false, describe: "Overwrite --out if it exists" },
    "max-bytes": {
      type: "number",
      value: "bytes",
      default: DEFAULT_MAX_BYTES,
      describe: "Largest WSDL accepted, in bytes",
    },
    timeout: {
      type: "number",
      value: "seconds",
      default: DEFAULT_TIMEOUT_MS / 1000,
      describe: "Seconds allowed for fetching a URL",
    },
  },
  check: (args) => {
    const maxBytes = args["max-bytes"] as number;
    const timeout = args["timeout"] as number;
    if (!(maxBytes > 0)) throw new UsageError(`--max-bytes must be a positive number, not ${maxBytes}`);
    if (!(timeout > 0))
      throw new UsageError(`--timeout must be a positive number of seconds, not ${timeout}`);
    const credentials = args["credentials"] as string | undefined;
    if (credentials?.split(",").every((s) => s.trim() === "")) {
      throw new UsageError(`--credentials must name parameters, such as strUsername,strPassword`);
    }
  },
  run: async (args, io) => {
    const credentials = (args["credentials"] as string | undefined)
      ?.split(",")
      .map((s) => s.trim())
      .filter((s) => s !== "");
    return importCommand(
      {
        wsdl: args["wsdl"] as string,
        out: args["out"] as string,
        credentials,
        force: args["force"] as boolean,
        maxBytes: args["max-bytes"] as number,
        timeoutMs: (args["timeout"] as number) * 1000,
      },
      io,
    );
  },
};
