// The admin CLI: `npm run admin -- <noun> <verb> [options]` on the service's database (DATABASE_URL,
// or --database without a password: a command line is readable by every user of the machine). yargs
// only parses and prints help; the chosen verb runs afterwards, with the store opened on first use and
// closed at the end. A verb returns its output, printed only when it succeeded:
// a refused command writes one line on standard error and nothing on standard output.
//
// Exit codes: 0 done, 1 refused (a rule, something missing, the database), 2 usage (unknown noun, verb
// or option, a missing required option).

import { pathToFileURL } from "node:url";
import yargs, { type Argv } from "yargs";
import { type Store, displayDatabaseUrl, openStore, parseDatabaseUrl } from "../db/database.js";
import {
  AdminError,
  type AdminContext,
  type AdminIo,
  type Noun,
  type Output,
  UsageError,
  type Verb,
} from "./context.js";
import { jsonText } from "./format.js";
import { nouns as allNouns } from "./nouns.js";

export type { AdminIo } from "./context.js";

export const DEFAULT_DATABASE_URL = "sqlite:data/service.db";

/** Options that would carry a secret on the command line: refused before parsing, value never echoed. */
const SECRET_OPTION = /^--?(password|passwd|pass|pw|secret)(=|$)/i;

/** An option name safe to repeat in a message: letters, digits and dashes, as every option of ours. */
const FLAG_NAME = /^--?[A-Za-z][A-Za-z0-9-]{0,40}$/;

/**
 * Whether `text` is a URL that carries a password (`scheme://user:password@…` or a `password=` query
 * parameter, which node-postgres also reads).
 */
function holdsPassword(text: string): boolean {
  if (!/^[A-Za-z][A-Za-z0-9+.-]*:\/\//.test(text)) return false;
  try {
    const url = new URL(text);
    return url.password !== "" || url.searchParams.has("password");
  } catch {
    // Not a URL the WHATWG parser takes; pg-connection-string would still find user:password@.
    return /^[^:]+:\/\/[^/@]*:[^/@]*@/.test(text) || /[?&]password=/i.test(text);
  }
}

/**
 * Refuses a command line that holds a URL with a password (any user of the machine can read a process's
 * arguments in `ps`), naming where it is and how to give it instead, never the value.
 */
function refusePasswordUrl(argv: readonly string[]): void {
  argv.forEach((arg, index) => {
    const eq = arg.startsWith("--") ? arg.indexOf("=") : -1;
    const value = eq < 0 ? arg : arg.slice(eq + 1);
    if (!holdsPassword(value)) return;
    const option =
      eq >= 0
        ? arg.slice(0, eq)
        : index > 0 && argv[index - 1]!.startsWith("-")
          ? argv[index - 1]!
          : undefined;
    const where =
      option === "--database"
        ? "--database"
        : option !== undefined && FLAG_NAME.test(option)
          ? `${option} (argument ${index + 1})`
          : `argument ${index + 1}`;
    throw new UsageError(
      `${where}: a database URL with a password is refused on the command line, where any user of this machine can read it (ps); ` +
        "put the whole URL in the DATABASE_URL environment variable instead, or leave the password out of the URL and set PGPASSWORD",
    );
  });
}

/**
 * The message for yargs' "Unknown argument(s): a, b": each unknown argument by position, an option by
 * its name when it looks like one of ours, never a bare value (it may be a password typed in the wrong
 * place). `listed` is the text after yargs' colon.
 */
function unknownArguments(argv: readonly string[], listed: string, nouns: readonly Noun[]): string {
  const items = new Set(listed.split(", "));
  const end = argv.indexOf("--");
  const parts: string[] = [];
  let firstBare: number | undefined;
  argv.forEach((arg, index) => {
    if (end >= 0 && index >= end) return;
    if (arg.startsWith("-") && arg.length > 1) {
      const flag = arg.split("=", 1)[0]!;
      const names = /^-[A-Za-z]+$/.test(flag) ? [...flag.slice(1)] : [flag.replace(/^-+/, "")];
      if (names.some((name) => items.has(name)))
        parts.push(
          FLAG_NAME.test(flag) ? `unknown option ${flag}` : `an unknown option at position ${index + 1}`,
        );
      return;
    }
    const bare = firstBare === undefined && (index === 0 || argv[index - 1] !== "--database");
    if (bare) firstBare = index;
    if (items.has(arg)) parts.push(`unknown argument at position ${index + 1}`);
  });
  if (parts.length === 0) return "an argument is not known here (its value is not shown)";
  const hint =
    firstBare !== undefined && parts.includes(`unknown argument at position ${firstBare + 1}`)
      ? `; name a noun: ${nouns.map((n) => n.name).join(" | ")}`
      : "";
  return `${parts.join(", ")} (values are not shown)${hint}`;
}

interface Selected {
  readonly verb: Verb;
  readonly values: Record<string, string | undefined>;
  readonly json: boolean;
  /** --quiet: only the id of the record the command made or showed. */
  readonly quiet: boolean;
  readonly database: string | undefined;
}

function optionText(value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined;
  return String(value);
}

function addVerb(y: Argv, verb: Verb, select: (s: Selected) => void): Argv {
  return y.command(
    verb.name,
    verb.describe,
    (v) => {
      for (const [name, spec] of Object.entries(verb.options)) {
        v.option(name, {
          type: "string",
          describe: spec.describe + (spec.choices ? ` (${spec.choices.join(" | ")})` : ""),
          demandOption: spec.required === true,
          requiresArg: true,
          ...(spec.default === undefined ? {} : { defaultDescription: spec.default }),
        });
      }
      v.group(Object.keys(verb.options), "Options:").group(
        ["database", "json", "quiet", "help"],
        "Global options:",
      );
      if (verb.epilog !== undefined) v.epilog(verb.epilog);
      return v;
    },
    (args) => {
      const values: Record<string, string | undefined> = {};
      for (const name of Object.keys(verb.options)) values[name] = optionText(args[name]);
      select({
        verb,
        values,
        json: args.json === true,
        quiet: args.quiet === true,
        database: optionText(args.database),
      });
    },
  );
}

function addNoun(y: Argv, noun: Noun, select: (s: Selected) => void): Argv {
  return y.command(noun.name, noun.describe, (n) => {
    for (const verb of noun.verbs) addVerb(n, verb, select);
    return n
      .usage(`$0 ${noun.name} <verb> [options]\n\n${noun.describe}`)
      .demandCommand(1, `Name a verb: ${noun.name} ${noun.verbs.map((v) => v.name).join(" | ")}`);
  });
}

/** Parses the command line: the verb to run, or the help text to print. */
async function parse(
  argv: readonly string[],
  io: AdminIo,
  nouns: readonly Noun[],
): Promise<Selected | { help: string }> {
  const secret = argv.find((a) => SECRET_OPTION.test(a));
  if (secret !== undefined) {
    const name = secret.replace(/=.*$/, "");
    throw new UsageError(`${name}: passwords are read from standard input, never from the command line`);
  }
  refusePasswordUrl(argv);
  let selected: Selected | undefined;
  let output = "";
  const select = (s: Selected) => {
    selected = s;
  };
  const columns = (io.stdout as { columns?: number }).columns;
  let y: Argv = yargs()
    .scriptName("admin")
    .usage(
      "$0 <noun> <verb> [options]\n\n" +
        "Administers the newsletter service's database: accounts, mailing lists, opt-outs, imports, the outbox.\n" +
        "Run as: npm run admin -- <noun> <verb> [options]",
    )
    .option("database", {
      type: "string",
      requiresArg: true,
      global: true,
      describe:
        "Database URL: sqlite:path/to/file.db or postgres://user@host/db (no password here: use DATABASE_URL or PGPASSWORD)",
      defaultDescription: `DATABASE_URL, else ${DEFAULT_DATABASE_URL}`,
    })
    .option("json", { type: "boolean", global: true, describe: "Print one JSON document instead of tables" })
    .option("quiet", {
      type: "boolean",
      alias: "q",
      global: true,
      describe:
        "Print only the id of the record made or shown (for scripts); the usual output when it has none",
    })
    .conflicts("json", "quiet");
  for (const noun of nouns) y = addNoun(y, noun, select);
  y = y
    .demandCommand(1, `Name a noun: ${nouns.map((n) => n.name).join(" | ")}`)
    .epilog(
      "Passwords are read from standard input (first line), never from the command line or the environment.\n" +
        "Exit codes: 0 done, 1 refused (a rule, something missing, the database), 2 usage.",
    )
    .parserConfiguration({ "duplicate-arguments-array": false, "camel-case-expansion": false })
    .strict()
    .help()
    .alias("help", "h")
    .version(false)
    .wrap(Math.min(columns ?? 100, 120))
    .exitProcess(false)
    .showHelpOnFail(false)
    .fail((message, error) => {
      // yargs repeats unknown arguments as given: say where they are instead (a value may be a secret).
      const unknown = /^Unknown arguments?: ([\s\S]*)$/.exec(message ?? "");
      throw new UsageError(
        unknown !== null
          ? unknownArguments(argv, unknown[1]!, nouns)
          : (message ?? error?.message ?? "invalid command line"),
      );
    });
  await y.parseAsync([...argv], {}, (_error, _args, text) => {
    output = text;
  });
  if (selected !== undefined) return selected;
  return { help: output };
}

/** The context a verb runs in; `close` ends the store if it was opened. */
function makeContext(io: AdminIo, selected: Selected): AdminContext & { close(): Promise<void> } {
  const url = selected.database ?? io.env.DATABASE_URL ?? DEFAULT_DATABASE_URL;
  let opening: Promise<Store> | undefined;
  return {
    io,
    json: selected.json,
    now: Date.now,
    store() {
      opening ??= (async () => {
        const where =
          selected.database !== undefined
            ? "--database"
            : io.env.DATABASE_URL !== undefined
              ? "DATABASE_URL"
              : "the default database";
        try {
          parseDatabaseUrl(url);
        } catch (error) {
          throw new AdminError(`${where}: ${error instanceof Error ? error.message : String(error)}`);
        }
        try {
          return await openStore(url);
        } catch (error) {
          throw new AdminError(
            `${where} ${displayDatabaseUrl(url)} could not be opened: ${error instanceof Error ? error.message : String(error)}`,
          );
        }
      })();
      return opening;
    },
    async close() {
      if (opening === undefined) return;
      const store = await opening.catch(() => undefined);
      await store?.close();
    },
  };
}

function render(output: Output, selected: Selected): string {
  if (selected.quiet) {
    const id = (output.json as { id?: unknown } | null)?.id;
    if (typeof id === "number" || typeof id === "string") return `${id}\n`;
  }
  return selected.json ? jsonText(output.json) : output.text;
}

/**
 * Runs one admin command with these streams; resolves to the exit code (0 done, 1 refused, 2 usage).
 * Never exits the process and never throws.
 */
export async function runAdmin(
  argv: readonly string[],
  io: AdminIo,
  nouns: readonly Noun[] = allNouns,
): Promise<number> {
  let parsed: Selected | { help: string };
  try {
    parsed = await parse(argv, io, nouns);
  } catch (error) {
    return fail(io, error);
  }
  if ("help" in parsed) {
    io.stdout.write(parsed.help.endsWith("\n") ? parsed.help : `${parsed.help}\n`);
    return 0;
  }
  const ctx = makeContext(io, parsed);
  try {
    const output = await parsed.verb.run(ctx, parsed.values);
    io.stdout.write(render(output, parsed));
    return 0;
  } catch (error) {
    return fail(io, error);
  } finally {
    await ctx.close().catch(() => undefined);
  }
}

function fail(io: AdminIo, error: unknown): number {
  if (error instanceof AdminError) {
    io.stderr.write(`error: ${error.message}${error instanceof UsageError ? " (see --help)" : ""}\n`);
    return error.exitCode;
  }
  const message = error instanceof Error ? error.message : String(error);
  io.stderr.write(`error: the database refused the command: ${message.replace(/\s+/g, " ")}\n`);
  return 1;
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  let stdinUsed = false;
  process.exitCode = await runAdmin(process.argv.slice(2), {
    // Touched only by verbs that read a password; afterwards it is closed, or a paused stdin on a pipe
    // that the caller keeps open would keep the process alive.
    get stdin() {
      stdinUsed = true;
      return process.stdin;
    },
    stdout: process.stdout,
    stderr: process.stderr,
    env: process.env,
  });
  if (stdinUsed) process.stdin.destroy();
}
