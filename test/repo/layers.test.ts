// No import cycle and no import across the runtime's layers (docs/architecture.md, "The runtime's layers"):
// dependency-cruiser runs with the repository's rules (.dependency-cruiser.cjs) and its findings are the
// failure message. A fixture with one of each forbidden edge shows that every rule can fail.

import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";

const ROOT = path.resolve(import.meta.dirname, "../..");
const CONFIG = path.join(ROOT, ".dependency-cruiser.cjs");
const CLI = path.join(ROOT, "node_modules/dependency-cruiser/bin/dependency-cruise.mjs");

/** The folders checked. */
const CHECKED = ["runtime", "generator", "service"];

interface Run {
  readonly status: number | null;
  readonly output: string;
}

function cruise(cwd: string, folders: readonly string[]): Run {
  const result = spawnSync(process.execPath, [CLI, "--config", CONFIG, "--output-type", "err", ...folders], {
    cwd,
    encoding: "utf8",
    timeout: 120_000,
  });
  return { status: result.status, output: `${result.stdout}${result.stderr}`.trim() };
}

describe("import layers (dependency-cruiser)", () => {
  it(`${CHECKED.join("/, ")}/: no import cycle, no import across the runtime's layers`, () => {
    const run = cruise(ROOT, CHECKED);
    console.log(run.output);
    expect(run.output).toMatch(/no dependency violations found \(\d+ modules, \d+ dependencies cruised\)/);
    expect(run.status, run.output).toBe(0);
  });

  describe("each rule fails on a fixture that breaks it", () => {
    const dir = mkdtempSync(path.join(tmpdir(), "layers-"));
    afterAll(() => rmSync(dir, { recursive: true, force: true }));
    const files: Record<string, string> = {
      "tsconfig.json": JSON.stringify({ compilerOptions: { module: "nodenext", strict: true } }),
      "package.json": JSON.stringify({ type: "module" }),
      "runtime/model.ts": 'import type { Tree } from "./xml/tree.js";\nexport type Model = Tree;\n',
      "runtime/xml/tree.ts": 'import type { Model } from "../model.js";\nexport type Tree = Model | 1;\n',
      "runtime/codec/values.ts": 'import { SOAP } from "../protocol/soap.js";\nexport const V = SOAP;\n',
      "runtime/protocol/soap.ts":
        'import { CLIENT } from "../client/core.js";\nexport const SOAP = CLIENT;\n',
      "runtime/client/core.ts":
        'import { SERVER } from "../server/core.js";\nexport const CLIENT = SERVER;\n',
      "runtime/client/http.ts": "export const HTTP = 1;\n",
      "runtime/server/core.ts":
        'import { HTTP } from "../client/http.js";\nimport { gone } from "../client/gone.js";\nexport const SERVER = HTTP + gone;\n',
      "service/common/limits.ts": 'import { OP } from "../operations/ops.js";\nexport const LIMIT = OP;\n',
      "service/db/schema.ts": 'import { LIMIT } from "../common/limits.js";\nexport const ROW = LIMIT;\n',
      "service/operations/ops.ts":
        'import { ROUTE } from "../http/route.js";\nimport { ROW } from "../db/schema.js";\nexport const OP = ROUTE + ROW;\n',
      "service/http/route.ts": 'import { CLI } from "../admin/cli.js";\nexport const ROUTE = CLI;\n',
      "service/admin/cli.ts": 'import { PORT } from "../config.js";\nexport const CLI = PORT;\n',
      "service/config.ts": 'import { LIMIT } from "./common/limits.js";\nexport const PORT = LIMIT;\n',
    };
    for (const [name, text] of Object.entries(files)) {
      mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
      writeFileSync(path.join(dir, name), text);
    }

    it("names every broken rule and exits non-zero", () => {
      const run = cruise(dir, ["runtime", "service"]);
      expect(run.status, run.output).not.toBe(0);
      for (const rule of [
        "no-circular",
        "model-at-the-bottom",
        "xml-alone",
        "codec-not-protocol",
        "base-not-halves",
        "client-not-server",
        "server-not-client",
        "resolvable",
        "service-db-imports-down",
        "service-common-imports-down",
        "service-operations-imports-down",
        "service-console-http-imports-down",
        "service-config-alone",
      ]) {
        expect(run.output, rule).toContain(`error ${rule}:`);
      }
    });
  });
});
