// npm run conformance -- --url <.../ExternalAPIService.asmx> [--fixtures F] [--fixture key=value]
//   [--username U] [--password P] [--allow-writes] [--profile protocol|service|all]
// npm run conformance -- setup --url <endpoint> [--database URL] --username U [--out fixtures.json]
// npm run conformance -- --cases <folder> --url <endpoint> [--username U] [--password P]
// Checks a live endpoint against the conformance cases (remote/run.ts), or makes on our own service the
// account and data those cases need (remote/setup.ts). docs/conformance.md is the guide.

import { writeFileSync } from "node:fs";
import { createInterface } from "node:readline";
import { pathToFileURL } from "node:url";
import yargs from "yargs";
import { hideBin } from "yargs/helpers";
import {
  FIXTURE_DESCRIPTIONS,
  FIXTURE_KEYS,
  parseFixtureFlags,
  readFixturesFile,
  type GivenFixtures,
} from "./fixtures.js";
import { runRemote } from "./remote/run.js";
import { setupFixtures } from "./remote/setup.js";

const FIXTURE_HELP = FIXTURE_KEYS.map((key) => `  ${key.padEnd(10)} ${FIXTURE_DESCRIPTIONS[key]}`).join("\n");

/** A usage error (an unknown option, a missing required one): thrown, so the exit code is 2. */
function usageError(message: string | null | undefined, error: Error | undefined): never {
  throw new Error(message ?? error?.message ?? "invalid command line");
}

/** The first line of standard input (a password is never taken from the command line by setup). */
async function firstLine(stdin: NodeJS.ReadableStream): Promise<string> {
  const lines = createInterface({ input: stdin, terminal: false });
  for await (const line of lines) {
    lines.close();
    return line;
  }
  return "";
}

async function check(
  argv: readonly string[],
  env: NodeJS.ProcessEnv,
  print: (line: string) => void,
): Promise<number> {
  const args = await yargs(argv)
    .scriptName("npm run conformance --")
    .usage(
      "$0 --url <endpoint> [--fixtures <file>] [--fixture key=value]… [--username <u>] [--password <p>] [--allow-writes] " +
        "[--profile protocol|service|all]\n\n" +
        "Checks a live ExternalAPIService endpoint (ours or a legacy ASMX host): every operation answers with the right " +
        "shape on all four bindings, every refusal case gets the right fault or 500 text, and the WSDL describes the " +
        "four bindings. Prints a table and `N passed, M failed`; exits 1 on any failure. Guide: docs/conformance.md.\n\n" +
        `Fixtures (ids that exist on the account; one not given keeps the suite's value, and "no such id" then passes):\n${FIXTURE_HELP}`,
    )
    .option("url", {
      type: "string",
      demandOption: true,
      describe: "the endpoint, https://host/path/ExternalAPIService.asmx",
    })
    .option("fixtures", {
      type: "string",
      describe: "a JSON file with username, the fixtures above (and password, better given otherwise)",
    })
    .option("fixture", {
      type: "string",
      array: true,
      default: [] as string[],
      describe: "one fixture, key=value (over the file's)",
    })
    .option("username", {
      type: "string",
      describe: "account user name (strUsername); default: the fixtures file's",
    })
    .option("password", {
      type: "string",
      describe: "account password (strPassword); default: CONFORMANCE_PASSWORD, else the fixtures file's",
    })
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
    .option("timeout", {
      type: "number",
      default: 30_000,
      describe: "per-request time limit in milliseconds",
    })
    .option("cases", {
      type: "string",
      describe:
        "a folder of recorded cases (easgen record) to replay instead of the suite: each answer compared with the " +
        "recorded one as the shadow proxy compares (docs/migration.md)",
    })
    .version(false)
    .strict()
    .help()
    .fail(usageError)
    .parseAsync();
  const file: GivenFixtures = args.fixtures === undefined ? { values: {} } : readFixturesFile(args.fixtures);
  if (args.cases !== undefined) {
    return replayFolder(
      args.cases,
      args.url,
      {
        strUsername: args.username ?? file.username,
        strPassword: args.password ?? env.CONFORMANCE_PASSWORD ?? file.password,
      },
      args.timeout,
      print,
    );
  }
  const fixtures = { ...file.values, ...parseFixtureFlags(args.fixture.map(String)) };
  return runRemote(
    {
      url: args.url,
      username: args.username ?? file.username ?? "",
      password: args.password ?? env.CONFORMANCE_PASSWORD ?? file.password ?? "",
      allowWrites: args["allow-writes"],
      namespace: args.namespace,
      timeoutMs: args.timeout,
      profile: args.profile,
      fixtures,
    },
    print,
  );
}

/** Replays a folder of recorded cases; the same table and exit codes as the suite. */
async function replayFolder(
  folder: string,
  url: string,
  given: Readonly<Record<string, string | undefined>>,
  timeoutMs: number,
  print: (line: string) => void,
): Promise<number> {
  // Loaded only for a replay: the suite's runs start as fast as before.
  const { readRecordedCases } = await import("../../generator/shadow/record.js");
  const { replayCases } = await import("../../generator/shadow/replay.js");
  const cases = readRecordedCases(folder);
  if (cases.length === 0) throw new Error(`--cases ${folder}: no recorded cases (*.yaml) in the folder`);
  const credentials = Object.fromEntries(
    Object.entries(given).filter((e): e is [string, string] => e[1] !== undefined),
  );
  const results = await replayCases(cases, { url, credentials, timeoutMs });
  for (const r of results) print(`${r.file} | ${r.outcome} | ${r.detail}`);
  const failed = results.filter((r) => r.outcome === "failed").length;
  print(`${results.length - failed} passed, ${failed} failed`);
  return failed > 0 ? 1 : 0;
}

async function setup(
  argv: readonly string[],
  env: NodeJS.ProcessEnv,
  stdin: NodeJS.ReadableStream,
  print: (line: string) => void,
): Promise<number> {
  const args = await yargs(argv)
    .scriptName("npm run conformance -- setup")
    .usage(
      "$0 --url <endpoint> --username <u> [--database <url>] [--email <e>] [--import-url <url>] [--out fixtures.json]\n\n" +
        "Makes, on our own service, an account (its password: the first line of standard input) and the data the " +
        "live-endpoint cases need, through the admin CLI (on the service's database) and the service's operations, " +
        "and writes the fixtures file (username and ids; never the password). Guide: docs/conformance.md.",
    )
    .option("url", {
      type: "string",
      demandOption: true,
      describe: "the running service's endpoint, http://host:port/ExternalAPIService.asmx",
    })
    .option("username", { type: "string", demandOption: true, describe: "the new account's user name" })
    .option("database", {
      type: "string",
      describe: "the service's database URL (no password here: use DATABASE_URL or PGPASSWORD)",
      defaultDescription: "DATABASE_URL, else sqlite:data/service.db",
    })
    .option("email", {
      type: "string",
      default: "conformance@example.test",
      describe: "the subscriber's e-mail address",
    })
    .option("import-url", {
      type: "string",
      describe:
        "a CSV file's URL the service may fetch (its host in IMPORT_ALLOW_HOSTS if private), written as importUrl",
    })
    .option("out", { type: "string", default: "fixtures.json", describe: "where to write the fixtures file" })
    .version(false)
    .strict()
    .help()
    .fail(usageError)
    .parseAsync();
  const password = await firstLine(stdin);
  if (password === "")
    throw new Error("setup: give the new account's password on standard input (first line)");
  const fixtures = await setupFixtures({
    url: args.url,
    databaseUrl: args.database ?? env.DATABASE_URL ?? "sqlite:data/service.db",
    username: args.username,
    password,
    email: args.email,
    ...(args["import-url"] === undefined ? {} : { importUrl: args["import-url"] }),
    log: print,
  });
  writeFileSync(args.out, `${JSON.stringify(fixtures, null, 2)}\n`, { mode: 0o600 });
  print(`wrote ${args.out}`);
  return 0;
}

export async function main(
  argv: readonly string[],
  io: { env?: NodeJS.ProcessEnv; stdin?: NodeJS.ReadableStream; print?: (line: string) => void } = {},
): Promise<number> {
  const env = io.env ?? process.env;
  const print = io.print ?? ((line: string) => console.log(line));
  return argv[0] === "setup"
    ? setup(argv.slice(1), env, io.stdin ?? process.stdin, print)
    : check(argv, env, print);
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
