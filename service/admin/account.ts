// `account create | set-password | set | show`: accounts, their password (standard input only) and
// their settings. Hashes are never printed.

import { hashPassword } from "../auth/authenticator.js";
import { emailProblem } from "../common/input.js";
import type { Account } from "../db/schema.js";
import {
  allAccounts,
  insertAccount,
  setPasswordHash,
  takenUsername,
  updateAccount,
} from "../tables/accounts.js";
import { AdminError, type Noun, type Output, findAccount, isUniqueViolation, verb } from "./context.js";
import { record, table, timeJson, timeText } from "./format.js";
import { readNewPassword } from "./password.js";

const DD_CHOICES = ["25", "100"] as const;

/** 1 to 100 characters, no spaces or control characters. */
function checkUsername(username: string): string {
  if (!/^[^\s\u0000-\u001f\u007f-\u009f]{1,100}$/u.test(username)) {
    throw new AdminError("--username must be 1 to 100 characters without spaces or control characters");
  }
  return username;
}

function checkDdFields(text: string): number {
  if (!(DD_CHOICES as readonly string[]).includes(text.trim())) {
    throw new AdminError(`--dd-fields must be 25 or 100 (demographic fields activated), not "${text}"`);
  }
  return Number(text.trim());
}

/** An IANA time zone name as Intl knows it, in its canonical spelling (europe/stockholm → Europe/Stockholm). */
function checkTimeZone(text: string): string {
  const name = text.trim();
  let resolved: string | undefined;
  try {
    resolved =
      name === ""
        ? undefined
        : new Intl.DateTimeFormat("en-US", { timeZone: name }).resolvedOptions().timeZone;
  } catch {
    resolved = undefined;
  }
  // An offset such as +01:00 is not a zone: it knows no daylight saving time.
  if (resolved === undefined || !/^[A-Za-z]/.test(resolved)) {
    throw new AdminError(
      `--time-zone must be an IANA time zone name such as Europe/Stockholm or UTC, not "${text}"`,
    );
  }
  return resolved;
}

/** An e-mail address option; empty means "none" (the service's default is used). */
export function checkFromEmail(text: string, option = "--from-email"): string {
  const trimmed = text.trim();
  if (trimmed === "") return "";
  const problem = emailProblem(trimmed);
  if (problem !== undefined) throw new AdminError(`${option} ${problem}`);
  return trimmed;
}

/** A one-line text option (a name, a subject): no line breaks or control characters, at most `max`. */
export function checkLine(text: string, option: string, max = 200): string {
  if (/[\u0000-\u001f\u007f]/.test(text))
    throw new AdminError(`${option} must be one line without control characters`);
  if (text.length > max) throw new AdminError(`${option} is longer than ${max} characters`);
  return text.trim();
}

function accountJson(account: Account) {
  return {
    id: account.id,
    username: account.username,
    ddFields: account.dd_fields,
    timeZone: account.time_zone,
    fromName: account.from_name,
    fromEmail: account.from_email,
    smsCredits: account.sms_credits,
    smsPrice: account.sms_price,
    passwordVersion: account.password_version,
    createdAt: timeJson(account.created_at),
  };
}

function accountRecord(account: Account): string {
  return record([
    ["id", account.id],
    ["username", account.username],
    ["dd fields", account.dd_fields],
    ["time zone", account.time_zone],
    ["from name", account.from_name],
    ["from email", account.from_email],
    ["sms credits", account.sms_credits],
    ["sms price", account.sms_price],
    ["password version", account.password_version],
    ["created", timeText(account.created_at)],
  ]);
}

function accountOutput(account: Account, heading: string): Output {
  return { json: accountJson(account), text: `${heading}\n${accountRecord(account)}` };
}

const settingOptions = {
  "dd-fields": { describe: "Demographic fields activated (DD1..DD25 or DD1..DD100)", choices: DD_CHOICES },
  "time-zone": { describe: "IANA time zone of send dates and times, as Europe/Stockholm" },
  "from-name": { describe: "Default sender name of the account's mail" },
  "from-email": { describe: "Default sender address of the account's mail" },
} as const;

const create = verb({
  name: "create",
  describe: "Create an account; the password is the first line of standard input",
  options: {
    username: { describe: "User name the account signs in with (strUsername)", required: true },
    "dd-fields": { ...settingOptions["dd-fields"], default: "25" },
    "time-zone": { ...settingOptions["time-zone"], default: "UTC" },
    "from-name": settingOptions["from-name"],
    "from-email": settingOptions["from-email"],
  },
  epilog:
    "The password is read from standard input (first line; at least 8 characters), never from the command line:\n" +
    "  printf '%s\\n' \"$PASSWORD\" | npm run admin -- account create --username alice",
  async run(ctx, o) {
    const username = checkUsername(o.username);
    const values = {
      dd_fields: checkDdFields(o["dd-fields"] ?? "25"),
      time_zone: checkTimeZone(o["time-zone"] ?? "UTC"),
      from_name: checkLine(o["from-name"] ?? "", "--from-name"),
      from_email: checkFromEmail(o["from-email"] ?? ""),
    };
    const { db } = await ctx.store();
    const taken = await takenUsername(db, username);
    const takenError = (name: string) =>
      new AdminError(
        `--username: an account named "${name}" exists already (user names are unique regardless of case)`,
      );
    if (taken !== undefined) throw takenError(taken);
    const password = await readNewPassword(ctx.io.stdin, ctx.io.stderr, username);
    const password_hash = await hashPassword(password);
    let account: Account;
    try {
      account = await insertAccount(db, { username, password_hash, ...values, created_at: ctx.now() });
    } catch (error) {
      if (isUniqueViolation(error)) throw takenError(username);
      throw error;
    }
    return accountOutput(account, "Account created.");
  },
});

const setPassword = verb({
  name: "set-password",
  describe:
    "Change an account's password (first line of standard input); signed-in callers must use the new one at once",
  options: { username: { describe: "The account's user name", required: true } },
  epilog: "printf '%s\\n' \"$PASSWORD\" | npm run admin -- account set-password --username alice",
  async run(ctx, o) {
    const account = await findAccount(ctx, o.username, "--username");
    const password = await readNewPassword(ctx.io.stdin, ctx.io.stderr, account.username);
    const password_hash = await hashPassword(password);
    const { db } = await ctx.store();
    const updated = await setPasswordHash(db, account.id, password_hash);
    return {
      json: { id: updated.id, username: updated.username, passwordVersion: updated.password_version },
      text: `Password changed for ${updated.username} (password version ${updated.password_version}).\n`,
    };
  },
});

const set = verb({
  name: "set",
  describe: "Change an account's settings (the options given; the others keep their value)",
  options: { username: { describe: "The account's user name", required: true }, ...settingOptions },
  epilog: "An empty --from-name or --from-email clears it.",
  async run(ctx, o) {
    const changes: Partial<Pick<Account, "dd_fields" | "time_zone" | "from_name" | "from_email">> = {};
    if (o["dd-fields"] !== undefined) changes.dd_fields = checkDdFields(o["dd-fields"]);
    if (o["time-zone"] !== undefined) changes.time_zone = checkTimeZone(o["time-zone"]);
    if (o["from-name"] !== undefined) changes.from_name = checkLine(o["from-name"], "--from-name");
    if (o["from-email"] !== undefined) changes.from_email = checkFromEmail(o["from-email"]);
    if (Object.keys(changes).length === 0) {
      throw new AdminError(
        "account set: give at least one of --dd-fields, --time-zone, --from-name, --from-email",
      );
    }
    const account = await findAccount(ctx, o.username, "--username");
    const { db } = await ctx.store();
    const updated = await updateAccount(db, account.id, changes);
    return accountOutput(updated, "Account updated.");
  },
});

const show = verb({
  name: "show",
  describe: "Show one account, or every account when --username is omitted",
  options: { username: { describe: "The account's user name" } },
  epilog: "--json prints an object for --username, else an array.",
  async run(ctx, o) {
    if (o.username !== undefined) {
      const account = await findAccount(ctx, o.username, "--username");
      return { json: accountJson(account), text: accountRecord(account) };
    }
    const { db } = await ctx.store();
    const accounts = await allAccounts(db);
    return {
      json: accounts.map(accountJson),
      text: table(
        ["id", "username", "dd", "time zone", "from name", "from email", "sms credits", "created"],
        accounts.map((a) => [
          a.id,
          a.username,
          a.dd_fields,
          a.time_zone,
          a.from_name,
          a.from_email,
          a.sms_credits,
          timeText(a.created_at),
        ]),
        "No accounts yet: npm run admin -- account create --username NAME",
      ),
    };
  },
});

export const accountNoun: Noun = {
  name: "account",
  describe: "Accounts: create, set-password, set, show",
  verbs: [create, setPassword, set, show],
};
