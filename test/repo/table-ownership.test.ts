// The service's data modules own their tables (docs/architecture.md "Service layout"): each table group
// below is written and read only by its modules in service/tables/. A query against one of its tables
// anywhere else in service/ (outside service/db/, whose migrations make them) fails here: give it a named
// function in the group's module, or, where a join cannot be split, name the file in `readers` and say why.

import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = path.resolve(import.meta.dirname, "../..");

interface TableGroup {
  /** The tables of the group. */
  readonly tables: readonly string[];
  /** The modules that own them (in service/tables/). */
  readonly owners: readonly string[];
  /** Files outside service/tables/ allowed to read (never write) the group: file → why. */
  readonly readers: Readonly<Record<string, string>>;
}

const GROUPS: Readonly<Record<string, TableGroup>> = {
  accounts: {
    tables: ["accounts"],
    owners: ["service/tables/accounts.ts"],
    readers: {
      // A join from the outbox's rows, which moves with that group.
      "service/admin/outbox.ts": "the outbox listing's sender names",
    },
  },
  sms: {
    tables: ["sms_messages", "sms_stops", "credit_ledger"],
    owners: ["service/tables/sms.ts"],
    readers: {},
  },
  "console sessions": {
    tables: ["console_sessions"],
    owners: ["service/tables/console-sessions.ts"],
    readers: {},
  },
  "newsletter content": {
    tables: ["templates", "modules", "newsletters", "newsletter_modules"],
    owners: ["service/tables/newsletters.ts"],
    readers: {},
  },
  transactional: {
    tables: ["projects", "transactions"],
    owners: ["service/tables/projects.ts"],
    readers: {},
  },
  throttle: {
    tables: ["auth_throttle"],
    owners: ["service/tables/throttle.ts"],
    readers: {},
  },
  secrets: {
    tables: ["secrets"],
    owners: ["service/tables/secrets.ts"],
    readers: {},
  },
  "mail events": {
    tables: ["mail_events"],
    owners: ["service/tables/mail-events.ts"],
    readers: {},
  },
  subscribers: {
    tables: ["subscribers", "memberships"],
    owners: [
      "service/tables/subscribers.ts",
      "service/tables/subscriber-insert.ts",
      "service/tables/subscriber-data.ts",
    ],
    readers: {},
  },
  optouts: {
    tables: ["optouts"],
    owners: ["service/tables/optouts.ts"],
    readers: {},
  },
  consents: {
    tables: ["consents"],
    owners: ["service/tables/consents.ts"],
    readers: {},
  },
  confirmations: {
    tables: ["confirmations"],
    owners: ["service/tables/confirmations.ts"],
    readers: {},
  },
  sendings: {
    tables: ["sendings", "sending_recipients"],
    owners: ["service/tables/sendings.ts"],
    readers: {},
  },
  tracking: {
    tables: ["tracked_links", "tracking_events", "tracking_limits"],
    owners: ["service/tables/tracking.ts"],
    readers: {},
  },
  lists: {
    tables: ["mailing_lists"],
    owners: ["service/tables/lists.ts"],
    readers: {},
  },
  filters: {
    tables: ["filters"],
    owners: ["service/tables/filters.ts"],
    readers: {},
  },
  triggers: {
    tables: ["triggers", "trigger_fired"],
    owners: ["service/tables/triggers.ts"],
    readers: {},
  },
  imports: {
    tables: ["imports", "import_batches"],
    owners: ["service/tables/imports.ts"],
    readers: {},
  },
  "sending counters": {
    tables: ["sending_counters", "sending_link_counters", "sending_event_buckets"],
    owners: ["service/tables/sending-counters.ts"],
    readers: {},
  },
};

/** Kysely's methods that name the table a query reads or writes. */
const KYSELY_TABLE_METHODS =
  "selectFrom|insertInto|replaceInto|updateTable|deleteFrom|mergeInto|using|(inner|left|right|full|cross)Join(Lateral)?";

/**
 * A Kysely method naming any table t of `tables` (`selectFrom("t")`, `innerJoin("t as x", ...)`), or SQL
 * text naming it (`from t`, `join t`, `into t`, `update t`).
 */
function tablePattern(tables: readonly string[]): RegExp {
  const names = tables.join("|");
  return new RegExp(
    `\\b(${KYSELY_TABLE_METHODS})\\(\\s*"(${names})( as \\w+)?"|\\b(from|join|into|update)\\s+(${names})\\b`,
  );
}

/** Kysely's insertInto/updateTable/deleteFrom, or SQL insert/update/delete, of any table of `tables`. */
function writePattern(tables: readonly string[]): RegExp {
  const names = tables.join("|");
  return new RegExp(
    `(insertInto|updateTable|deleteFrom)\\(\\s*"(${names})|\\b(insert\\s+into|update|delete\\s+from)\\s+(${names})\\b`,
    "i",
  );
}

/** The code of a file: comment lines (`//`, ` * `) left out, so prose naming the tables does not count. */
function code(text: string): string {
  return text
    .split("\n")
    .filter((line) => !/^\s*(\/\/|\/?\*)/.test(line))
    .join("\n");
}

function serviceFiles(): string[] {
  return execFileSync("git", ["ls-files", "service"], { cwd: ROOT, encoding: "utf8" })
    .split("\n")
    .filter((f) => f.endsWith(".ts") && !f.startsWith("service/db/"));
}

const FILES = serviceFiles().map((file) => ({
  file,
  text: code(readFileSync(path.join(ROOT, file), "utf8")),
}));
const OUTSIDE = FILES.filter((f) => !f.file.startsWith("service/tables/"));

describe.each(Object.entries(GROUPS))("the %s table group", (_name, group) => {
  const table = tablePattern(group.tables);
  const write = writePattern(group.tables);

  it("is written only by service/tables/", () => {
    expect(OUTSIDE.filter((f) => write.test(f.text)).map((f) => f.file)).toEqual([]);
  });

  it("is read outside service/tables/ only by the files named with a reason", () => {
    const readers = OUTSIDE.filter((f) => table.test(f.text)).map((f) => f.file);
    expect(readers.filter((f) => !(f in group.readers))).toEqual([]);
  });

  it("names no reader that no longer reads it, and its owners exist and query it", () => {
    const reading = new Set(OUTSIDE.filter((f) => table.test(f.text)).map((f) => f.file));
    expect(Object.keys(group.readers).filter((f) => !reading.has(f))).toEqual([]);
    for (const owner of group.owners) {
      expect(table.test(FILES.find((f) => f.file === owner)?.text ?? ""), owner).toBe(true);
    }
  });
});

describe("the patterns", () => {
  it("recognise a query against a group and nothing else", () => {
    const table = tablePattern(["subscribers", "memberships"]);
    const write = writePattern(["subscribers", "memberships"]);
    expect(table.test(`db.selectFrom("memberships as m")`)).toBe(true);
    expect(table.test("select 1 from subscribers s")).toBe(true);
    expect(write.test(`trx.updateTable("subscribers")`)).toBe(true);
    expect(write.test("insert into memberships (list_id) values (?)")).toBe(true);
    expect(table.test(`.leftJoin(\n  "subscribers", (j) => j)`)).toBe(true);
    expect(table.test(`db.selectFrom("mailing_lists")`)).toBe(false);
    expect(table.test(`super("subscribers", options)`)).toBe(false);
    expect(write.test(`trx.selectFrom("subscribers")`)).toBe(false);
  });
});
