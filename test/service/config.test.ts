// The configuration: defaults, refusals that name the variable, and docs/operations.md's table and
// `npm start -- --help` listing every variable with its default.

import fs from "node:fs";
import { spawnSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { ServiceConfigError, OPTIONS, helpText, readConfig } from "../../service/config.js";

describe("service configuration", () => {
  it("has a default for everything", () => {
    const config = readConfig({});
    expect(config).toMatchObject({
      port: 8080,
      host: "127.0.0.1",
      databaseUrl: "sqlite:data/service.db",
      publicUrl: "http://127.0.0.1:8080",
      importAllowHosts: [],
      outboxDir: "data/outbox",
      mailFrom: "no-reply@127.0.0.1",
      sqliteSync: "FULL",
      importStallMs: 60_000,
      importConcurrency: 4,
      role: "all",
    });
  });

  it.each([
    [{ PORT: "http" }, "PORT"],
    [{ PORT: "70000" }, "PORT"],
    [{ PUBLIC_URL: "ftp://x" }, "PUBLIC_URL"],
    [{ SQLITE_SYNC: "OFF" }, "SQLITE_SYNC"],
    [{ JOB_LEASE_MS: "-1" }, "JOB_LEASE_MS"],
    [{ SMS_URL: "ftp://gateway.example/" }, "SMS_URL"],
    [{ SMS_URL: "not a url" }, "SMS_URL"],
    [{ IMPORT_CONCURRENCY: "0" }, "IMPORT_CONCURRENCY"],
    [{ IMPORT_STALL_MS: "soon" }, "IMPORT_STALL_MS"],
  ])("refuses %o naming the variable", (env, name) => {
    expect(() => readConfig(env)).toThrow(ServiceConfigError);
    expect(() => readConfig(env)).toThrow(name);
  });

  it("reads lists and derived defaults", () => {
    const config = readConfig({
      PORT: "9000",
      IMPORT_ALLOW_HOSTS: " files.internal , 10.0.0.5:8080 ,",
      PUBLIC_URL: "https://news.example/",
    });
    expect(config.importAllowHosts).toEqual(["files.internal", "10.0.0.5:8080"]);
    expect(config.publicUrl).toBe("https://news.example");
    expect(config.mailFrom).toBe("no-reply@news.example");
  });

  it("docs/operations.md's configuration table lists every variable with its default, as --help does", () => {
    const page = fs.readFileSync(new URL("../../docs/operations.md", import.meta.url), "utf8");
    const at = page.indexOf("\n## Configuration\n");
    const table = page.slice(at, page.indexOf("\n## ", at + 1));
    const help = helpText();
    for (const option of OPTIONS) {
      const shown = option.default === "" ? "(none)" : `\`${option.default}\``;
      expect(table, `docs/operations.md "Configuration" lacks ${option.name}`).toContain(
        `| \`${option.name}\` | ${shown} |`,
      );
      expect(help).toContain(option.name);
    }
    // And nothing else: a row for a variable the service no longer reads is a lie.
    const rows = [...table.matchAll(/^\| `([A-Z][A-Z0-9_]*)` \|/gm)].map((m) => m[1]);
    expect(rows.sort()).toEqual(OPTIONS.map((option) => option.name).sort());
  });

  it("the README has each section once (a bad edit once pasted the whole file into itself)", () => {
    const readme = fs.readFileSync(new URL("../../README.md", import.meta.url), "utf8");
    const headings = readme
      .split("\n")
      .filter((line) => /^#{1,3} /.test(line) && !line.startsWith("# in ") && !line.startsWith("# a "));
    const seen = new Set<string>();
    const repeated = headings.filter((h) => (seen.has(h) ? true : (seen.add(h), false)));
    expect(repeated).toEqual([]);
  });

  it("npm start -- --help prints the variables and exits 0 without opening a database", () => {
    const run = spawnSync(process.execPath, ["service/start.mjs", "--help"], {
      cwd: new URL("../../", import.meta.url).pathname,
      env: { ...process.env, DATABASE_URL: "postgres://127.0.0.1:1/never" },
      encoding: "utf8",
      timeout: 60_000,
    });
    expect(run.status).toBe(0);
    for (const option of OPTIONS) expect(run.stdout).toContain(option.name);
    const bad = spawnSync(process.execPath, ["service/start.mjs", "--role", "both"], {
      cwd: new URL("../../", import.meta.url).pathname,
      encoding: "utf8",
      timeout: 60_000,
    });
    expect(bad.status).toBe(2);
    expect(bad.stderr).toContain("--role must be api, worker or all");
  });
});
