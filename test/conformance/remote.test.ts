// The remote mode (npm run conformance -- --url ...) against our own server, which must pass it all,
// and against servers that answer one operation wrongly, which it must name. In process through
// runRemote, and once through the CLI in a child process for the exit code.

import { execFile } from "node:child_process";
import http from "node:http";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createHandler, ServiceError } from "../../generated/server.js";
import { sampleImplementation, startFixtureServer, type FixtureServer } from "../fixtures/fixture-server.js";
import { listenOnLoopback, type Listening } from "../fixtures/raw-http.js";
import { loadReferenceService } from "./reference/spec.js";
import { runRemote, type RemoteOptions } from "./remote/run.js";
import { casesOf, loadCases, SERVICE_ONLY_CODES } from "./suite/cases.js";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const OPERATIONS = 20;

async function remote(
  options: Omit<RemoteOptions, "username" | "password">,
): Promise<{ code: number; lines: string[] }> {
  const lines: string[] = [];
  const code = await runRemote({ username: "u", password: "p", ...options }, (line) => lines.push(line));
  return { code, lines };
}

function rowsWith(lines: readonly string[], outcome: string): string[] {
  return lines.filter((l) => l.split(" | ")[1]?.trim() === outcome).map((l) => l.split(" | ")[0].trim());
}

function cli(args: readonly string[]): Promise<{ code: number; stdout: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ["--import", "tsx", "test/conformance/cli.ts", ...args],
      { cwd: ROOT },
      (error, stdout) => {
        resolve({ code: error ? Number(error.code ?? 1) : 0, stdout });
      },
    );
  });
}

const WRONG_ANSWERS = {
  "a wrong root element": '<ArrayOfTrigger xmlns="http://tempuri.org/" />',
  "a non-convertible Id":
    '<ArrayOfTriggerResult xmlns="http://tempuri.org/">\n  <TriggerResult>\n    <Id>x</Id>\n' +
    "    <Created>2024-05-06T07:08:09</Created>\n    <MailinglistId>5</MailinglistId>\n  </TriggerResult>\n</ArrayOfTriggerResult>",
} as const;
type Wrong = keyof typeof WRONG_ANSWERS;

/** Our server, except that a valid GetTriggerIdForAccount over HTTP GET gets a wrong answer. */
async function startBrokenServer(wrong: Wrong): Promise<Listening> {
  const handler = createHandler(sampleImplementation([]));
  return listenOnLoopback((req, res) => {
    if (
      req.method === "GET" &&
      req.url === "/ExternalAPIService.asmx/GetTriggerIdForAccount?strUsername=u&strPassword=p"
    ) {
      res.writeHead(200, { "content-type": "text/xml; charset=utf-8" });
      res.end(`<?xml version="1.0" encoding="utf-8"?>\n${WRONG_ANSWERS[wrong]}`);
      return;
    }
    handler(req, res);
  });
}

/**
 * A stand-in for a legacy ASMX host: our server, except that it does none of our validation. Where ours
 * refuses with a code only our validation produces (or our reader limits), it answers as a lax host whose
 * method then fails on what it got: a Server fault (SOAP) or a 500 `System.Exception` text.
 */
function startLaxHost(target: string): Promise<Listening> {
  return listenOnLoopback((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const body = Buffer.concat(chunks);
      const headers = { ...req.headers, "content-length": String(body.length) };
      const upstream = http.request(
        `${target}${req.url ?? ""}`,
        { method: req.method, headers, agent: false },
        (answer) => {
          const parts: Buffer[] = [];
          answer.on("data", (c: Buffer) => parts.push(c));
          answer.on("end", () => {
            const text = Buffer.concat(parts).toString("utf8");
            const code = String(
              answer.headers["x-error-code"] ?? /<Code>(\w+)<\/Code>/.exec(text)?.[1] ?? "",
            );
            if (!SERVICE_ONLY_CODES.has(code)) {
              res.writeHead(answer.statusCode ?? 500, answer.headers);
              res.end(text);
              return;
            }
            const isSoap = !/\.asmx\/\w/i.test(req.url ?? "");
            const soap12 = String(req.headers["content-type"] ?? "").startsWith("application/soap+xml");
            if (!isSoap) {
              res.writeHead(500, { "content-type": "text/plain; charset=utf-8" });
              res.end("System.Exception: Object reference not set to an instance of an object.");
            } else if (soap12) {
              res.writeHead(500, { "content-type": "application/soap+xml; charset=utf-8" });
              res.end(
                '<?xml version="1.0" encoding="utf-8"?><soap:Envelope xmlns:soap="http://www.w3.org/2003/05/soap-envelope"><soap:Body><soap:Fault><soap:Code><soap:Value>soap:Receiver</soap:Value></soap:Code><soap:Reason><soap:Text xml:lang="en">Server was unable to process request.</soap:Text></soap:Reason><soap:Detail /></soap:Fault></soap:Body></soap:Envelope>',
              );
            } else {
              res.writeHead(500, { "content-type": "text/xml; charset=utf-8" });
              res.end(
                '<?xml version="1.0" encoding="utf-8"?><soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/"><soap:Body><soap:Fault><faultcode>soap:Server</faultcode><faultstring>Server was unable to process request.</faultstring><detail /></soap:Fault></soap:Body></soap:Envelope>',
              );
            }
          });
        },
      );
      upstream.on("error", () => res.destroy());
      upstream.end(body);
    });
  });
}

let ours: FixtureServer;
let broken: Record<Wrong, Listening>;
beforeAll(async () => {
  ours = await startFixtureServer();
  broken = {
    "a wrong root element": await startBrokenServer("a wrong root element"),
    "a non-convertible Id": await startBrokenServer("a non-convertible Id"),
  };
});
afterAll(async () => {
  await ours.close();
  for (const server of Object.values(broken)) await server.close();
});

describe("runRemote", () => {
  it("passes everything on our own server with --allow-writes", async () => {
    const { code, lines } = await remote({ url: ours.endpointUrl, allowWrites: true });
    expect(rowsWith(lines, "failed")).toEqual([]);
    expect(code).toBe(0);
    const passed = rowsWith(lines, "passed");
    expect(passed.filter((name) => name.endsWith("/shape"))).toHaveLength(OPERATIONS * 4);
    expect(passed).toEqual(
      expect.arrayContaining(["wsdl/served", "wsdl/soap11", "wsdl/soap12", "wsdl/httpGet", "wsdl/httpPost"]),
    );
    expect(lines.at(-1)).toBe(`${passed.length} passed, 0 failed`);
  });

  it("skips cases that write without --allow-writes, and does not count them", async () => {
    const { code, lines } = await remote({ url: ours.endpointUrl });
    expect(code).toBe(0);
    const skipped = rowsWith(lines, "skipped");
    expect(skipped).toContain("InsertSubscriberSid/soap12/missing-email");
    expect(skipped).toContain("SendSmsWithSenderName/httpPost/shape");
    expect(rowsWith(lines, "passed")).toContain("GetTriggerIdForAccount/httpGet/shape");
    expect(lines.at(-1)).toBe(`${rowsWith(lines, "passed").length} passed, 0 failed`);
  });

  it.each([
    ["a wrong root element", "root {http://tempuri.org/}ArrayOfTrigger"],
    ["a non-convertible Id", "TriggerResult.Id: 'x' does not convert to int"],
  ] as const)("names the one operation a server answers with %s", async (wrong, detail) => {
    const { code, lines } = await remote({
      url: `${broken[wrong].origin}/ExternalAPIService.asmx`,
      allowWrites: true,
    });
    expect(code).not.toBe(0);
    expect(rowsWith(lines, "failed")).toEqual(["GetTriggerIdForAccount/httpGet/shape"]);
    expect(lines.find((l) => l.startsWith("GetTriggerIdForAccount/httpGet/shape"))).toContain(detail);
    expect(lines.at(-1)).toMatch(/^\d+ passed, 1 failed$/);
  });

  it("counts a well-formed Server fault for data the account lacks as answered, and says so", async () => {
    const lacking = await startFixtureServer({
      override: {
        GetRoiResults: () => {
          throw new ServiceError("UnknownSendQueue", "There is no sending 17 on this account.");
        },
      },
    });
    try {
      const { code, lines } = await remote({ url: lacking.endpointUrl });
      expect(code).toBe(0);
      const rows = lines.filter((l) => /^GetRoiResults\/\w+\/shape /.test(l));
      expect(rows).toHaveLength(4);
      for (const row of rows) expect(row).toMatch(/\| passed +\| answered, fault: /);
    } finally {
      await lacking.close();
    }
  });
});

describe("--profile", () => {
  const cases = loadCases(loadReferenceService());
  const caseName = (row: string) => row.split("/")[2];
  const namesOf = (profile: "protocol" | "service") => new Set(casesOf(cases, profile).map((c) => c.name));

  it("splits the cases: every case is in one profile, both profiles hold refusals", () => {
    const protocol = casesOf(cases, "protocol");
    const service = casesOf(cases, "service");
    expect(protocol.length + service.length).toBe(cases.length);
    expect(protocol.filter((c) => c.error).length).toBeGreaterThan(10);
    expect(service.filter((c) => c.error).length).toBeGreaterThan(10);
  });

  it("protocol runs the WSDL, the shapes and protocol cases only; service its own cases only", async () => {
    const protocol = await remote({ url: ours.endpointUrl, allowWrites: true, profile: "protocol" });
    const service = await remote({ url: ours.endpointUrl, allowWrites: true, profile: "service" });
    expect([protocol.code, service.code]).toEqual([0, 0]);
    const protocolRows = rowsWith(protocol.lines, "passed");
    const serviceRows = rowsWith(service.lines, "passed");
    expect(protocolRows).toEqual(
      expect.arrayContaining([
        "wsdl/served",
        "GetRoiResults/soap11/no-soapaction",
        "GetRoiResults/soap11/malformed-xml",
      ]),
    );
    expect(protocolRows.filter((r) => r.endsWith("/shape"))).toHaveLength(OPERATIONS * 4);
    expect(serviceRows).toContain("GetRoiResults/soap11/soapaction-names-another-operation");
    expect(serviceRows.filter((r) => r.startsWith("wsdl/") || r.endsWith("/shape"))).toEqual([]);
    const serviceNames = namesOf("service");
    const protocolNames = namesOf("protocol");
    expect(
      protocolRows.filter(
        (r) => !r.startsWith("wsdl/") && !r.endsWith("/shape") && !protocolNames.has(caseName(r)),
      ),
    ).toEqual([]);
    expect(serviceRows.filter((r) => !serviceNames.has(caseName(r)))).toEqual([]);
  });

  it("a host without our validation (a legacy ASMX host) passes --profile protocol, and fails only service cases", async () => {
    const lax = await startLaxHost(ours.baseUrl);
    try {
      const protocol = await remote({
        url: `${lax.origin}/ExternalAPIService.asmx`,
        allowWrites: true,
        profile: "protocol",
      });
      expect(rowsWith(protocol.lines, "failed")).toEqual([]);
      expect(protocol.code).toBe(0);
      const all = await remote({
        url: `${lax.origin}/ExternalAPIService.asmx`,
        allowWrites: true,
        profile: "all",
      });
      const failed = rowsWith(all.lines, "failed");
      expect(failed.length).toBeGreaterThan(10);
      const serviceNames = namesOf("service");
      expect(failed.filter((r) => !serviceNames.has(caseName(r)))).toEqual([]);
    } finally {
      await lax.close();
    }
  });
});

describe("npm run conformance (child process)", () => {
  it("exits 0 on our server and non-zero on the broken one, naming the case", async () => {
    const good = await cli([
      "--url",
      ours.endpointUrl,
      "--username",
      "u",
      "--password",
      "p",
      "--allow-writes",
    ]);
    expect(good.code).toBe(0);
    expect(good.stdout.trimEnd().split("\n").at(-1)).toMatch(/^\d+ passed, 0 failed$/);
    const bad = await cli([
      "--url",
      `${broken["a wrong root element"].origin}/ExternalAPIService.asmx`,
      "--username",
      "u",
      "--password",
      "p",
    ]);
    expect(bad.code).toBe(1);
    expect(bad.stdout).toMatch(/^GetTriggerIdForAccount\/httpGet\/shape +\| failed/m);
  });

  it("prints help", async () => {
    const help = await cli(["--help"]);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain("--allow-writes");
    expect(help.stdout).toContain("--profile");
  });
});
