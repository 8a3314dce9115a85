// Every command with the mistakes a person makes on a command line: a mistyped flag, a flag without its
// value, a missing required option, a stray argument, a mistyped command. The rows are derived from the
// commands' own option lists (cliCommands), so a new command or flag is covered without editing this file.
// Each must exit 2 without running the command, with one message (and "did you mean" where a known name is
// close) and one usage line; user errors met while running (a missing file, a bad config, an unreachable
// WSDL, an output folder that cannot be written) exit 1 with one line. No row may print a stack trace.

import { createServer } from "node:net";
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { CommandSpec } from "../../generator/cli-command.js";
import { cliCommands, runCli } from "../../generator/cli.js";
import { removeTempDirs, SMALL_SPEC, tempDir } from "./fixtures/index.js";

afterAll(removeTempDirs);

const COMMANDS = cliCommands([]);
const NAMES = COMMANDS.map((command) => command.name);

async function run(
  argv: readonly string[],
  cwd?: string,
): Promise<{ code: number; out: string[]; err: string[] }> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCli(argv, {
    io: { out: (line) => out.push(line), err: (line) => err.push(line) },
    ...(cwd === undefined ? {} : { cwd }),
  });
  return { code, out, err };
}

/** A typo of a name that is no other name: two neighbouring letters swapped (or one dropped). */
function typo(name: string, others: readonly string[]): string {
  for (let i = 1; i + 1 < name.length; i++) {
    const swapped = name.slice(0, i) + name[i + 1] + name[i] + name.slice(i + 2);
    if (swapped !== name && !others.includes(swapped)) return swapped;
  }
  return name.slice(0, -1);
}

/** Arguments that satisfy a command's required options (so the row tests one mistake alone). */
function required(command: CommandSpec, except?: string): string[] {
  return Object.entries(command.options)
    .filter(([name, option]) => option.required && name !== except)
    .flatMap(([name]) => [`--${name}`, path.join(tempDir(), `${name}.value`)]);
}

interface Row {
  readonly title: string;
  readonly argv: readonly string[];
  readonly code: number;
  readonly message: string | RegExp;
  /** The usage line's command, for exit 2. */
  readonly usage?: string;
}

function usageRows(): Row[] {
  const rows: Row[] = [];
  rows.push({
    title: "no command",
    argv: [],
    code: 2,
    message: `easgen: name a command: ${NAMES.join(", ")}`,
    usage: "",
  });
  for (const command of COMMANDS) {
    const name = command.name;
    const flags = Object.keys(command.options);
    rows.push({
      title: `${name}: mistyped command`,
      argv: [typo(name, NAMES)],
      code: 2,
      message: `easgen: unknown command ${typo(name, NAMES)} (did you mean ${name}?)`,
      usage: "",
    });
    rows.push({
      title: `${name}: unknown flag`,
      argv: [name, ...required(command), "--frobnicate"],
      code: 2,
      message: `easgen ${name}: unknown option --frobnicate`,
      usage: name,
    });
    for (const [flag, option] of Object.entries(command.options)) {
      const wrong = typo(flag, flags);
      rows.push({
        title: `${name}: --${wrong} for --${flag}`,
        argv: [name, ...required(command, flag), `--${wrong}`, ...(option.type === "boolean" ? [] : ["x"])],
        code: 2,
        message: new RegExp(`^easgen ${name}: unknown option --${wrong} \\(did you mean --${flag}\\?\\)`),
        usage: name,
      });
      if (option.type === "boolean") continue;
      rows.push({
        title: `${name}: --${flag} without a value`,
        argv: [name, ...required(command, flag), `--${flag}`],
        code: 2,
        message: `easgen ${name}: --${flag} needs a value`,
        usage: name,
      });
      rows.push({
        title: `${name}: --${flag}= (empty)`,
        argv: [name, ...required(command, flag), `--${flag}=`],
        code: 2,
        message:
          option.type === "number"
            ? /^easgen \S+: --\S+ must be a (positive )?number/
            : `easgen ${name}: --${flag} needs a value`,
        usage: name,
      });
      if (option.required) {
        rows.push({
          title: `${name}: --${flag} missing`,
          argv: [name, ...required(command, flag)],
          code: 2,
          message: `easgen ${name}: missing --${flag}`,
          usage: name,
        });
      }
    }
    rows.push({
      title: `${name}: a stray argument`,
      argv: [name, ...(command.positional ? ["one"] : []), ...required(command), "stray"],
      code: 2,
      message: `easgen ${name}: unexpected argument "stray"`,
      usage: name,
    });
  }
  return rows;
}

const USAGE_ROWS = usageRows();

describe("the easgen command line refuses mistakes with exit 2, a message and a usage line", () => {
  it(`covers every command and flag (${USAGE_ROWS.length} rows)`, () => {
    for (const name of NAMES) expect(USAGE_ROWS.some((row) => row.argv[0] === name)).toBe(true);
    expect(NAMES).toEqual(expect.arrayContaining(["validate", "generate", "check", "verify", "import"]));
  });

  it.each(USAGE_ROWS)("$title", async ({ argv, code, message, usage }) => {
    const result = await run(argv);
    expect(result.code).toBe(code);
    expect(result.out).toEqual([]);
    expect(result.err).toHaveLength(2);
    if (typeof message === "string") expect(result.err[0]).toBe(message);
    else expect(result.err[0]).toMatch(message);
    expect(result.err[1]).toMatch(
      usage ? new RegExp(`^usage: easgen ${usage} `) : /^usage: easgen <validate\|/,
    );
    expect(result.err.join("\n")).not.toMatch(/\n\s+at /);
  });

  it("the reported cases: check --sepc, import --credentails, import without --wsdl", async () => {
    const check = await run(["check", "--sepc", "x.yaml"]);
    expect(check.code).toBe(2);
    expect(check.err[0]).toBe("easgen check: unknown option --sepc (did you mean --spec?)");
    const credentials = await run(["import", "--wsdl", "a.wsdl", "--out", "b.yaml", "--credentails", "u,p"]);
    expect(credentials.code).toBe(2);
    expect(credentials.err[0]).toBe(
      "easgen import: unknown option --credentails (did you mean --credentials?)",
    );
    const noWsdl = await run(["import", "--out", "x.yaml"]);
    expect(noWsdl.code).toBe(2);
    expect(noWsdl.err).toEqual([
      "easgen import: missing --wsdl",
      expect.stringMatching(
        /^usage: easgen import --wsdl <file\|url> --out <file\.yaml> \[--credentials <names>\]/,
      ),
    ]);
  });

  it("names another command's flag, and --help and --version answer on stdout with exit 0", async () => {
    const misplaced = await run(["validate", "--wsdl-adress", "https://x/"]);
    expect(misplaced.err[0]).toBe(
      "easgen validate: unknown option --wsdl-adress (--wsdl-address is an option of easgen generate, not of easgen validate)",
    );
    const help = await run(["check", "--help"]);
    expect(help.code).toBe(0);
    expect(help.out.join("\n")).toContain("--wsdl-address");
    const version = await run(["--version"]);
    expect(version.code).toBe(0);
    expect(version.out).toHaveLength(1);
  });
});

describe("user errors met while running exit 1 with one line, no stack", () => {
  it.each([
    [
      "a --config that does not exist",
      ["validate", "--config", "nope.json"],
      /^easgen: nope\.json: no such file \(--config\)$/,
    ],
    [
      "a config with an unknown key",
      ["generate"],
      /^easgen: easgen\.config\.json: "outDir" is not a config key/,
    ],
    ["verify of a folder that does not exist", ["verify", "DIR/nope"], /nope\/: no such folder$/],
    [
      "import of a WSDL file that does not exist",
      ["import", "--wsdl", "DIR/nope.wsdl", "--out", "DIR/x.yaml"],
      /^easgen import: \S+nope\.wsdl: cannot read the file \(ENOENT\)$/,
    ],
    [
      "import of a URL that is not one",
      ["import", "--wsdl", "http://", "--out", "DIR/x.yaml"],
      /^easgen import: http:\/\/: not a URL that can be read/,
    ],
  ])("%s", async (_title, argv, message) => {
    const dir = tempDir();
    writeFileSync(path.join(dir, "easgen.config.json"), '{ "spec": "s.yaml", "outDir": "x" }');
    const result = await run(
      argv.map((arg) => arg.replace(/^DIR\//, `${dir}/`)),
      dir,
    );
    expect(result.code).toBe(1);
    expect(result.err).toHaveLength(1);
    expect(result.err[0]).toMatch(message);
  });

  it("a spec file that does not exist is a diagnostic at file:1:1", async () => {
    const missing = path.join(tempDir(), "missing.yaml");
    const result = await run(["validate", "--spec", missing]);
    expect(result.code).toBe(1);
    expect(result.err[0]).toMatch(/missing\.yaml:1:1 cannot read the spec \(ENOENT\)$/);
    expect(result.err.join("\n")).not.toMatch(/\n\s+at /);
  });

  it("an unreachable WSDL URL (a closed loopback port)", { timeout: 30_000 }, async () => {
    // A port that was just free: nothing listens on it.
    const port = await new Promise<number>((resolve) => {
      const server = createServer().listen(0, "127.0.0.1", () => {
        const { port: free } = server.address() as { port: number };
        server.close(() => resolve(free));
      });
    });
    const out = path.join(tempDir(), "x.yaml");
    const result = await run(["import", "--wsdl", `http://127.0.0.1:${port}/S.asmx?WSDL`, "--out", out]);
    expect(result.code).toBe(1);
    expect(result.err).toHaveLength(1);
    expect(result.err[0]).toMatch(
      /^easgen import: http:\/\/127\.0\.0\.1:\d+\/S\.asmx\?WSDL: cannot fetch \(.*ECONNREFUSED/,
    );
  });

  it("an output folder that is a file", async () => {
    const dir = tempDir();
    const spec = path.join(dir, "small.yaml");
    writeFileSync(spec, readFileSync(SMALL_SPEC));
    const blocked = path.join(dir, "blocked");
    writeFileSync(blocked, "a file, not a folder");
    const result = await run(["generate", "--spec", spec, "--out", path.join(blocked, "out")]);
    expect(result.code).toBe(1);
    expect(result.err).toHaveLength(1);
    expect(result.err[0]).toMatch(/^easgen: cannot (mkdir|open|stat) .*blocked.* \((ENOTDIR|EEXIST)\)$/);
  });
});
