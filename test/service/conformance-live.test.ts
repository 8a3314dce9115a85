// "Check a live endpoint" against our own service, on both engines, as docs/conformance.md tells a person
// to: `npm run conformance -- setup` makes the account and its data (admin CLI + the service's operations)
// and writes the fixtures file; `--profile protocol` and `--profile service` with that file and
// --allow-writes then report no failure, and no row passes as missing data. Without fixtures, cases on ids
// the account lacks pass as missing data; a given id the account lacks fails, naming the fixture.

import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable } from "node:stream";
import { afterAll, beforeAll, expect, it } from "vitest";
import { describeEngines } from "./support/engines.js";
import { startService, type TestService } from "./support/service.js";
import { main } from "../conformance/cli.js";
import { runRemote } from "../conformance/remote/run.js";

const PASSWORD = "conformance-password";
const CSV = "csv@example.test;Csv;HTML;SE\n";

const outcome = (line: string) => line.split(" | ")[1]?.trim();
const failedRows = (lines: readonly string[]) => lines.filter((l) => outcome(l) === "failed");
const missingRows = (lines: readonly string[]) => lines.filter((l) => l.includes("| missing data: "));

describeEngines("npm run conformance against our service", (engine) => {
  let service: TestService;
  let files: http.Server;
  let dir: string;
  let endpoint: string;
  let fixturesFile: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "conformance-live-"));
    // The queued import's file: a loopback file server the service is allowed to fetch from.
    files = http.createServer((_req, res) => res.end(CSV));
    await new Promise<void>((resolve) => files.listen(0, "127.0.0.1", resolve));
    const filesHost = `127.0.0.1:${(files.address() as AddressInfo).port}`;
    service = await startService(engine, "conformance-live", { IMPORT_ALLOW_HOSTS: filesHost });
    endpoint = `${service.url}/ExternalAPIService.asmx`;
    fixturesFile = join(dir, "fixtures.json");
    const lines: string[] = [];
    const code = await main(
      [
        "setup",
        "--url",
        endpoint,
        "--database",
        service.databaseUrl,
        "--username",
        "conformance",
        "--import-url",
        `http://${filesHost}/list.csv`,
        "--out",
        fixturesFile,
      ],
      { env: {}, stdin: Readable.from([`${PASSWORD}\n`]), print: (line) => lines.push(line) },
    );
    expect(code, lines.join("\n")).toBe(0);
  }, 120_000);

  afterAll(async () => {
    await service?.close();
    files?.closeAllConnections();
    await new Promise((resolve) => files?.close(resolve));
    rmSync(dir, { recursive: true, force: true });
  });

  it("setup writes the account's user name and every fixture, never the password", () => {
    const written = JSON.parse(readFileSync(fixturesFile, "utf8")) as Record<string, string>;
    expect(Object.keys(written).sort()).toEqual(
      [
        "username",
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
      ].sort(),
    );
    expect(written.username).toBe("conformance");
    expect(JSON.stringify(written)).not.toContain(PASSWORD);
  });

  it.each(["protocol", "service"] as const)(
    "--profile %s with the fixtures file and --allow-writes: 0 failures, nothing passed as missing data",
    async (profile) => {
      const lines: string[] = [];
      const code = await main(
        ["--url", endpoint, "--fixtures", fixturesFile, "--profile", profile, "--allow-writes"],
        {
          env: { CONFORMANCE_PASSWORD: PASSWORD },
          print: (line) => lines.push(line),
        },
      );
      expect(failedRows(lines)).toEqual([]);
      expect(missingRows(lines)).toEqual([]);
      expect(code).toBe(0);
      const last = lines.at(-1) ?? "";
      expect(last).toMatch(/^\d+ passed, 0 failed$/);
      expect(Number(last.split(" ")[0])).toBeGreaterThan(profile === "protocol" ? 190 : 290);
    },
    300_000,
  );

  it("without fixtures, cases on data the account lacks pass as missing data and say which fixture to give", async () => {
    const lines: string[] = [];
    const code = await runRemote(
      { url: endpoint, username: "conformance", password: PASSWORD, profile: "protocol" },
      (l) => lines.push(l),
    );
    expect(failedRows(lines)).toEqual([]);
    expect(code).toBe(0);
    const sending = lines.find((l) => l.startsWith("GetRoiResults/soap11/shape "));
    expect(sending).toMatch(/missing data: NotFound \(give the fixtures sending to check this case\)/);
  }, 300_000);

  it("a given fixture the account lacks fails, naming it", async () => {
    const lines: string[] = [];
    const code = await runRemote(
      {
        url: endpoint,
        username: "conformance",
        password: PASSWORD,
        profile: "protocol",
        fixtures: { sending: "999999" },
      },
      (l) => lines.push(l),
    );
    expect(code).toBe(1);
    const failed = failedRows(lines);
    expect(failed.length).toBeGreaterThan(0);
    for (const row of failed)
      expect(row).toContain("(the fixtures given, sending: do they exist on this account?)");
    expect(failed.map((l) => l.split(" | ")[0]!.split("/")[0])).toEqual(
      expect.arrayContaining(["GetRoiResults", "GetReportViewsByDateInterval"]),
    );
  }, 300_000);
});
