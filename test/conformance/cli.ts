// npm run conformance -- --url <.../ExternalAPIService.asmx> --username U --password P [--allow-writes]
//   [--profile protocol|service|all]
// Checks a live endpoint against the conformance cases that need no known data; see remote/run.ts.

import { pathToFileURL } from "node:url";
import yargs from "yargs";
import { hideBin } from "yargs/helpers";
import { runRemote } from "./remote/run.js";

export async function main(argv: readonly string[]): Promise<number> {
  const args = await yargs(argv)
    .scriptName("npm run conformance --")
    .usage(
      "$0 --url <endpoint> --username <u> --password <p> [--allow-writes] [--profile protocol|service|all]\n\n" +
        "Checks a live ExternalAPIService endpoint (ours or a legacy ASMX host): every read operation answers " +
        "with the right shape on all four bindings, every refusal case gets the right fault or 500 text, and " +
        "the WSDL describes the four bindings. Prints a table and `N passed, M failed`; exits 1 on any failure.",
    )
    .option("url", {
      type: "string",
      demandOption: true,
      describe: "the endpoint, https://host/path/ExternalAPIService.asmx",
    })
    .option("username", { type: "string", default: "", describe: "account user name (strUsername)" })
    .option("password", { type: "string", default: "", describe: "account password (strPassword)" })
    .option("allow-writes", {
      type: "boolean",
      default: false,
      describe: "also run cases on operations that insert, update or send (otherwise listed as skipped)",
    })
    .option("profile", {
      choices: ["protocol", "service", "all"] as const,
      default: "all" as const,
      describe:
        "protocol: what every ASMX host must do (hold a legacy host to this); service: what this spec's " +
        "validation adds; all: both",
    })
    .option("namespace", { type: "string", describe: "the service's XML namespace, if not the spec's" })
    .option("timeout", { type: "number", default: 30_000, describe: "per-request time limit in milliseconds" })
    .version(false)
    .strict()
    .help()
    .parseAsync();
  return runRemote(
    {
      url: args.url,
      username: args.username,
      password: args.password,
      allowWrites: args["allow-writes"],
      namespace: args.namespace,
      timeoutMs: args.timeout,
      profile: args.profile,
    },
    (line) => console.log(line),
  );
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  main(hideBin(process.argv)).then(
    (code) => {
      process.exitCode = code;
    },
    (error: unknown) => {
      console.error(error instanceof Error ? error.message : error);
      process.exitCode = 2;
    },
  );
}
