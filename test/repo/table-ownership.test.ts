// The service's data modules own their tables (docs/architecture.md "Service layout"): only
// service/tables/ writes the subscribers table group (subscribers, memberships), and the queries elsewhere
// that read it are a known few (reports and the workers' batch queries, which join it into their own
// rows; the console's pages). A new query against these tables outside service/tables/ fails here: put it
// in service/tables/subscribers.ts, or name the file below and why.

import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = path.resolve(import.meta.dirname, "../..");

/** Files outside service/tables/ that read (never write) the group, each in a join of its own rows. */
const READERS = new Set([
  "service/operations/reading/reports.ts", // GetReportViewsByDateInterval: address, name, fields shown
  "service/operations/reading/triggers.ts", // trigger click and view reports: address and name shown
  "service/operations/mailing/newsletter-preview.ts", // the subscriber a preview is merged for
  "service/workers/sendings.ts", // a batch re-checks membership and opt-out with its recipients
  "service/workers/triggers.ts", // newly active members not yet fired, with the trigger's own rows
  "service/console/pages/dashboard.ts", // counts
  "service/console/pages/subscribers.ts", // search and a subscriber's page
  "service/console/pages/newsletters.ts", // the subscriber a preview is shown for
]);

/** A Kysely or SQL reference to one of the tables: `"subscribers"`, `"memberships as m"`, `from subscribers`. */
const TABLE = /"(subscribers|memberships)( as \w+)?"|\b(from|join|into|update)\s+(subscribers|memberships)\b/;
/** A write: Kysely's insertInto/updateTable/deleteFrom, or SQL insert/update/delete. */
const WRITE =
  /(insertInto|updateTable|deleteFrom)\(\s*"(subscribers|memberships)|\b(insert\s+into|update|delete\s+from)\s+(subscribers|memberships)\b/i;

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
    .filter((f) => f.endsWith(".ts") && !f.startsWith("service/tables/") && !f.startsWith("service/db/"));
}

describe("the subscribers table group", () => {
  const files = serviceFiles().map((file) => ({
    file,
    text: code(readFileSync(path.join(ROOT, file), "utf8")),
  }));

  it("is written only by service/tables/", () => {
    expect(files.filter((f) => WRITE.test(f.text)).map((f) => f.file)).toEqual([]);
  });

  it("is read outside service/tables/ only by the known joins", () => {
    const readers = files.filter((f) => TABLE.test(f.text)).map((f) => f.file);
    expect(readers.filter((f) => !READERS.has(f))).toEqual([]);
  });

  it("recognises a query against the group (the patterns are not blind)", () => {
    expect(TABLE.test(`db.selectFrom("memberships as m")`)).toBe(true);
    expect(WRITE.test(`trx.updateTable("subscribers")`)).toBe(true);
    expect(WRITE.test("insert into memberships (list_id) values (?)")).toBe(true);
    expect(TABLE.test(`db.selectFrom("mailing_lists")`)).toBe(false);
  });
});
