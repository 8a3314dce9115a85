// The shadow proxy's config file: defaults, every mistake reported as file:line:col naming the key, the
// spec's effects deciding what is mirrored.

import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import {
  loadShadowConfig,
  mirrors,
  parseShadowConfig,
  ShadowConfigError,
} from "../../generator/shadow/config.js";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const SPEC = "spec/ExternalAPIService.yaml";

function parse(text: string) {
  return parseShadowConfig(text, "shadow.yaml", ROOT);
}

function problems(text: string): string[] {
  try {
    parse(text);
  } catch (error) {
    if (error instanceof ShadowConfigError) return error.message.split("\n");
    throw error;
  }
  throw new Error("the config was taken");
}

const BASE = `spec: ${SPEC}
listen: 127.0.0.1:8090
legacy: http://legacy.test/ExternalAPIService.asmx
ours: http://127.0.0.1:8080/ExternalAPIService.asmx
`;

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

describe("the shadow config", () => {
  it("takes a minimal file with the defaults: mirror mode, reads only", () => {
    const config = parse(BASE);
    expect(config.mode).toBe("mirror");
    expect(config.mirror).toBe("reads");
    expect(config.listen).toEqual({ host: "127.0.0.1", port: 8090 });
    expect(config.legacy.href).toBe("http://legacy.test/ExternalAPIService.asmx");
    expect(config.limits.queue).toBe(1000);
    expect(config.report.dir).toBeUndefined();
    // The spec marks what writes: reads are mirrored, writes are not, unless opted in.
    expect(mirrors(config, "GetSubscriberMailingLists")).toBe(true);
    expect(mirrors(config, "InsertSubscriberSid")).toBe(false);
    expect(config.model.operations.filter((op) => mirrors(config, op.name))).toHaveLength(7);
  });

  it("opts single writes in and single reads out; all and none", () => {
    const config = parse(
      `${BASE}operations:\n  InsertSubscriberSid:\n    mirror: true\n  GetRoiResults:\n    mirror: false\n`,
    );
    expect(mirrors(config, "InsertSubscriberSid")).toBe(true);
    expect(mirrors(config, "GetRoiResults")).toBe(false);
    expect(mirrors(parse(`${BASE}mirror: all\n`), "SendSmsWithSenderName")).toBe(true);
    expect(mirrors(parse(`${BASE}mirror: none\n`), "GetRoiResults")).toBe(false);
  });

  it("reads volatile paths, secrets, report and limits; relative paths from the file's folder", () => {
    const dir = mkdtempSync(path.join(tmpdir(), "shadow-config-"));
    dirs.push(dir);
    const file = path.join(dir, "shadow.yaml");
    writeFileSync(
      file,
      `spec: ${path.join(ROOT, SPEC)}
listen: 0
mode: cutover
legacy: http://legacy.test/svc/ExternalAPIService.asmx
ours: http://127.0.0.1:8080/ExternalAPIService.asmx
volatile: [ "**/Created" ]
operations:
  InsertSubscriberSid:
    mirror: true
    volatile: [ "." ]
secrets: [ strPhoneNumber ]
report: { dir: out, examples: 3, intervalSeconds: 2 }
metrics: 127.0.0.1:9464
limits: { queue: 10, concurrency: 2, shadowTimeoutMs: 500 }
`,
    );
    const config = loadShadowConfig(file);
    expect(config.mode).toBe("cutover");
    expect(config.volatile.map((v) => v.text)).toEqual(["**/Created"]);
    expect(config.operations.get("InsertSubscriberSid")?.volatile.map((v) => v.text)).toEqual(["."]);
    expect(config.secrets).toEqual(["strPhoneNumber"]);
    expect(config.report).toEqual({
      dir: path.join(dir, "out"),
      examples: 3,
      maxBytes: 256 * 1024 * 1024,
      intervalMs: 2000,
    });
    expect(config.metrics).toEqual({ host: "127.0.0.1", port: 9464 });
    expect(config.limits).toMatchObject({ queue: 10, concurrency: 2, shadowTimeoutMs: 500, sockets: 64 });
  });

  it("reports every mistake at once, with its line and column, naming the key", () => {
    const lines = problems(`spec: ${SPEC}
listen: nowhere
mode: mirrored
legacy: http://user:pw@legacy.test/ExternalAPIService.asmx
ours: ftp://127.0.0.1/ExternalAPIService.asmx
mirorr: all
operations:
  InsertSubscriberSd: { mirror: true }
  GetRoiResults: { mirror: yes please, volatile: [ "a//b", "x[0]" ] }
limits: { queue: -1, compareBytes: 999999999, pendingBytes: 2048 }
`);
    expect(lines).toEqual([
      expect.stringMatching(/^shadow\.yaml:2:9 listen must be host:port/),
      expect.stringMatching(/^shadow\.yaml:3:7 mode must be one of: mirror, cutover \(not "mirrored"\)/),
      expect.stringMatching(/^shadow\.yaml:4:9 legacy must not carry a user name or password/),
      expect.stringMatching(/^shadow\.yaml:5:7 ours must be an http or https URL/),
      expect.stringMatching(/^shadow\.yaml:6:1 unknown key "mirorr" \(did you mean "mirror"\?\)/),
      expect.stringMatching(
        /^shadow\.yaml:8:3 "InsertSubscriberSd" is not an operation of ExternalAPIService \(did you mean "InsertSubscriberSid"\?\)/,
      ),
      expect.stringMatching(/^shadow\.yaml:9:28 operations\.GetRoiResults\.mirror must be true or false/),
      expect.stringMatching(/^shadow\.yaml:9:52 volatile path "a\/\/b": "" is not a step/),
      expect.stringMatching(/^shadow\.yaml:9:60 volatile path "x\[0\]": "x\[0\]": positions count from 1/),
      expect.stringMatching(/^shadow\.yaml:10:18 limits\.queue must be a whole number from 0 to 1000000/),
      expect.stringMatching(
        /^shadow\.yaml:10:36 limits\.compareBytes \(999999999\) must not exceed limits\.pendingBytes \(2048\)/,
      ),
    ]);
  });

  it("needs spec, listen and legacy; ours in cutover mode; a spec that validates", () => {
    expect(problems("mode: cutover\n")).toEqual([
      expect.stringContaining('missing "legacy"'),
      expect.stringContaining('missing "listen"'),
      expect.stringContaining('missing "ours": in cutover mode our server answers'),
      expect.stringContaining('missing "spec"'),
    ]);
    expect(problems(`${BASE.replace(SPEC, "package.json")}`)[0]).toMatch(
      /the spec package\.json does not validate/,
    );
    expect(problems("[1, 2]\n")).toEqual([expect.stringContaining("the config must be a mapping")]);
    expect(problems("a: [\n")[0]).toMatch(/^shadow\.yaml:\d+:\d+ /);
  });

  it("refuses an endpoint that is not the service's, and metrics on the proxy's own port", () => {
    expect(
      problems(
        BASE.replace("http://legacy.test/ExternalAPIService.asmx", "http://legacy.test/Other.asmx?x=1"),
      ),
    ).toEqual([expect.stringContaining("legacy must be the endpoint itself, without ?query")]);
    expect(
      problems(BASE.replace("http://legacy.test/ExternalAPIService.asmx", "http://legacy.test/Other.asmx")),
    ).toEqual([
      expect.stringContaining("legacy must end with the service's endpoint /ExternalAPIService.asmx"),
    ]);
    expect(problems(`${BASE}metrics: 127.0.0.1:8090\n`)).toEqual([
      expect.stringContaining("metrics must listen on another port"),
    ]);
  });

  it("names a file it cannot read", () => {
    expect(() => loadShadowConfig("no-such-shadow.yaml", ROOT)).toThrow(
      /no-such-shadow\.yaml:1:1 cannot read the config \(ENOENT\)/,
    );
  });
});
