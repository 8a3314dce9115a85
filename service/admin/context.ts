// What every admin command gets and gives: the streams, the store (opened on first use), the --json
// switch, and the shape of a noun and its verbs. A verb returns its output instead of printing it, so a
// refused command writes nothing to standard output.

import type { Readable, Writable } from "node:stream";
import type { Store } from "../db/database.js";
import type { Account } from "../db/schema.js";
import { accountByName, accountsByFoldedName } from "../tables/accounts.js";

/** The process's streams and environment, or fakes of them (tests call runAdmin in-process). */
export interface AdminIo {
  readonly stdin: Readable;
  readonly stdout: Writable;
  readonly stderr: Writable;
  readonly env: Readonly<Record<string, string | undefined>>;
}

/** A refusal: a rule or a missing thing (exit code 1). The message names the option or the rule. */
export class AdminError extends Error {
  readonly exitCode: number = 1;
}

/** The command line itself is wrong: unknown noun, verb or option, a missing value (exit code 2). */
export class UsageError extends AdminError {
  override readonly exitCode: number = 2;
}

export interface AdminContext {
  readonly io: AdminIo;
  /** --json: print one JSON document instead of tables. */
  readonly json: boolean;
  /** The store on DATABASE_URL / --database, opened (and migrated) on first use, closed by the runner. */
  store(): Promise<Store>;
  now(): number;
}

/** What a verb prints on success: the JSON document, and the text for people. */
export interface Output {
  readonly json: unknown;
  readonly text: string;
}

/** One option of a verb. Every option takes a value (`--name value`); values arrive as text. */
export interface OptionSpec {
  readonly describe: string;
  readonly required?: boolean;
  /** Shown in --help; applied by the verb itself (so a bad value is the verb's error, not yargs'). */
  readonly default?: string;
  /** Shown in --help. */
  readonly choices?: readonly string[];
}

export type OptionSpecs = Readonly<Record<string, OptionSpec>>;

/** The values of a verb's options: required ones are always present. */
export type OptionValues<S extends OptionSpecs> = {
  readonly [K in keyof S]: S[K] extends { readonly required: true } ? string : string | undefined;
};

export interface Verb<S extends OptionSpecs = OptionSpecs> {
  readonly name: string;
  readonly describe: string;
  readonly options: S;
  /** Extra --help text (rules, output). */
  readonly epilog?: string;
  run(ctx: AdminContext, options: OptionValues<S>): Promise<Output>;
}

export interface Noun {
  readonly name: string;
  readonly describe: string;
  readonly verbs: readonly Verb[];
}

/** A verb with its option names and required-ness inferred from the literal. */
export function verb<const S extends OptionSpecs>(spec: Verb<S>): Verb<S> {
  return spec;
}

/** The account with that user name (exactly, else the one matching it case-insensitively). */
export async function findAccount(
  ctx: AdminContext,
  username: string,
  option = "--account",
): Promise<Account> {
  const { db } = await ctx.store();
  const exact = await accountByName(db, username);
  if (exact !== undefined) return exact;
  const folded = await accountsByFoldedName(db, username);
  if (folded.length === 1) return folded[0]!;
  throw new AdminError(`${option}: no account named "${username}"`);
}

/** A whole number in [min, max] given as text, or an AdminError naming the option. */
export function wholeNumber(text: string, option: string, min: number, max: number): number {
  const trimmed = text.trim();
  const n = /^\d{1,15}$/.test(trimmed) ? Number(trimmed) : Number.NaN;
  if (!Number.isSafeInteger(n) || n < min || n > max) {
    throw new AdminError(`${option} must be a whole number from ${min} to ${max}, not "${text}"`);
  }
  return n;
}

/** An id option: a whole number from 1. */
export function idOption(text: string, option = "--id"): number {
  return wholeNumber(text, option, 1, Number.MAX_SAFE_INTEGER);
}

/** True for a database's unique-constraint violation (SQLite or PostgreSQL). */
export function isUniqueViolation(error: unknown): boolean {
  if (typeof error !== "object" || error === null || !("code" in error)) return false;
  const code = (error as { code: unknown }).code;
  return code === "23505" || code === "SQLITE_CONSTRAINT_UNIQUE" || code === "SQLITE_CONSTRAINT_PRIMARYKEY";
}
