// Fixtures: the values a case needs to exist on the endpoint (ids of the account's list, subscriber,
// sending, …). A case writes `{ fixture: list }` where it means "an existing mailing list"; the in-process
// suite fills in the values below, a live endpoint the values of a fixtures file or --fixture flags
// (docs/conformance.md). A value not given stays the suite's, which the endpoint most likely does not
// have: such a case may then be refused as missing data (MISSING_DATA_CODES) and still pass, saying so.

import { readFileSync } from "node:fs";

export const FIXTURE_KEYS = [
  "list",
  "subscriber",
  "email",
  "sending",
  "trigger",
  "newsletter",
  "template",
  "module",
  "filter",
  "project",
  "importUrl",
] as const;
export type FixtureKey = (typeof FIXTURE_KEYS)[number];
export type Fixtures = Readonly<Record<FixtureKey, string>>;

/** What each fixture is, for --help and the docs. */
export const FIXTURE_DESCRIPTIONS: Readonly<Record<FixtureKey, string>> = {
  list: "a mailing list id of the account (strMailingListID)",
  subscriber: "a subscriber id on that list (strSubscriberId)",
  email: "that subscriber's e-mail address (strEmail); inserts and transactions use it too",
  sending: "a send queue id of the account (strSendQueueId)",
  trigger: "a trigger id (triggerId)",
  newsletter: "a newsletter id (strNewsletterID, intNewsletterId)",
  template: "a newsletter template's name (strTemplateName)",
  module: "a module id (strModuleID)",
  filter: "a filter id (strFilterID)",
  project: "a transactional project id (strId of InsertTransaction)",
  importUrl: "a CSV file's URL the service may fetch (strCSVUrl of the queued import)",
};

/** The values the in-process suite uses (any value works there: the handler is scripted). */
export const SUITE_FIXTURES: Fixtures = {
  list: "1",
  subscriber: "42",
  email: "a@example.test",
  sending: "17",
  trigger: "1",
  newsletter: "77",
  template: "T",
  module: "3",
  filter: "9",
  project: "p1",
  importUrl: "https://files.example.test/import/list.csv",
};

/**
 * The error codes that mean a fixture's data is not on the endpoint (docs/service.md "Errors of
 * the service"): NotFound for an id (or address) the account does not have, ImportUrlRefused for a URL the
 * service may not fetch. A legacy ASMX host has no codes: its method fails with an exception, which the
 * checks already take as a Server/Receiver fault or a 500 text.
 */
export const MISSING_DATA_CODES: Readonly<Record<FixtureKey, readonly string[]>> = {
  list: ["NotFound"],
  subscriber: ["NotFound"],
  email: ["NotFound"],
  sending: ["NotFound"],
  trigger: ["NotFound"],
  newsletter: ["NotFound"],
  template: ["NotFound"],
  module: ["NotFound"],
  filter: ["NotFound"],
  project: ["NotFound"],
  importUrl: ["ImportUrlRefused"],
};

/** Credentials and fixtures as given on the command line or in a fixtures file. */
export interface GivenFixtures {
  readonly username?: string;
  readonly password?: string;
  readonly values: Partial<Record<FixtureKey, string>>;
}

function isFixtureKey(key: string): key is FixtureKey {
  return (FIXTURE_KEYS as readonly string[]).includes(key);
}

function fixtureText(value: unknown, where: string): string {
  if (typeof value === "string" && value !== "") return value;
  if (typeof value === "number" && Number.isSafeInteger(value)) return String(value);
  throw new Error(
    `${where}: a fixture is a non-empty string or a whole number, got ${JSON.stringify(value)}`,
  );
}

/**
 * A fixtures file: one JSON object with `username`, optionally `password` (better given otherwise, see
 * docs/conformance.md), and any of FIXTURE_KEYS. Throws naming the file and the key at fault.
 */
export function readFixturesFile(file: string): GivenFixtures {
  let doc: unknown;
  try {
    doc = JSON.parse(readFileSync(file, "utf8"));
  } catch (error) {
    throw new Error(`--fixtures ${file}: ${(error as Error).message}`);
  }
  if (typeof doc !== "object" || doc === null || Array.isArray(doc))
    throw new Error(`--fixtures ${file}: expected a JSON object`);
  const values: Partial<Record<FixtureKey, string>> = {};
  let username: string | undefined;
  let password: string | undefined;
  for (const [key, value] of Object.entries(doc)) {
    const where = `--fixtures ${file}: ${key}`;
    if (key === "username" || key === "password") {
      if (typeof value !== "string") throw new Error(`${where}: expected a string`);
      if (key === "username") username = value;
      else password = value;
    } else if (isFixtureKey(key)) {
      values[key] = fixtureText(value, where);
    } else {
      throw new Error(`${where}: not a fixture (username, password, ${FIXTURE_KEYS.join(", ")})`);
    }
  }
  return {
    ...(username === undefined ? {} : { username }),
    ...(password === undefined ? {} : { password }),
    values,
  };
}

/** `--fixture key=value` flags, over the file's values. */
export function parseFixtureFlags(flags: readonly string[]): Partial<Record<FixtureKey, string>> {
  const values: Partial<Record<FixtureKey, string>> = {};
  for (const flag of flags) {
    const eq = flag.indexOf("=");
    const key = eq < 0 ? flag : flag.slice(0, eq);
    if (!isFixtureKey(key)) throw new Error(`--fixture ${key}: not a fixture (${FIXTURE_KEYS.join(", ")})`);
    values[key] = fixtureText(eq < 0 ? "" : flag.slice(eq + 1), `--fixture ${key}`);
  }
  return values;
}

/** The values to send: the given ones over the suite's. */
export function fixtureValues(given: Partial<Record<FixtureKey, string>>): Fixtures {
  return { ...SUITE_FIXTURES, ...given };
}
