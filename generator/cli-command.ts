// What one easgen command is, as data: its options (from which cli.ts builds the yargs command, the usage
// line and "did you mean"), its own checks of their values, and what it runs. A command's module exports one
// of these; cli.ts lists them.

export interface Io {
  out(line: string): void;
  err(line: string): void;
}

export interface OptionSpec {
  readonly type: "string" | "number" | "boolean";
  readonly describe: string;
  /** The value's placeholder in the usage line: `--spec <file.yaml>`. */
  readonly value?: string;
  /** Required: missing, the command is not run (exit 2). */
  readonly required?: boolean;
  readonly default?: string | number | boolean;
}

export interface PositionalSpec {
  readonly name: string;
  readonly describe: string;
}

/** A mistake in the command line: the command is not run, the message and a usage line are printed, exit 2. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "UsageError";
  }
}

/** A user error met while running (a missing file, a bad config, an unreachable URL): one line, exit 1. */
export class UserError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "UserError";
  }
}

export type ParsedArgs = Readonly<Record<string, unknown>>;

export interface CommandSpec {
  readonly name: string;
  readonly describe: string;
  /** One optional positional argument, as `verify [dir]`. */
  readonly positional?: PositionalSpec;
  readonly options: Readonly<Record<string, OptionSpec>>;
  /**
   * Checks the parsed values; throws UsageError naming the flag. Runs before `run`; the values are the
   * declared types already (strings non-empty, numbers not NaN).
   */
  readonly check?: (args: ParsedArgs) => void;
  /** Runs the command; returns its exit code. Throws UsageError or UserError for the user's mistakes. */
  readonly run: (args: ParsedArgs, io: Io) => Promise<number>;
}

/** The one-line usage of a command: `easgen check [--spec <file.yaml>] [--out <dir>] …`. */
export function usageLine(command: CommandSpec): string {
  const parts = [`easgen ${command.name}`];
  if (command.positional) parts.push(`[${command.positional.name}]`);
  for (const [name, option] of Object.entries(command.options)) {
    const flag = option.type === "boolean" ? `--${name}` : `--${name} <${option.value ?? option.type}>`;
    parts.push(option.required ? flag : `[${flag}]`);
  }
  return parts.join(" ");
}
