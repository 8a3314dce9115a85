// Vendoring that runs, not only type-checks: the generated folder copied into scratch projects of the setups
// people use, built the way those projects build (tsc with an outDir, esbuild, Vite's `npm run build`), and a
// call made by the built output against a generated server on loopback. Per setup: the compiler's errors
// (0 expected) and the call's result. The table is printed at the end (the issue's closing note quotes it).
//
// - The README's strict set (STRICT_FLAGS, which holds erasableSyntaxOnly and noUnusedLocals/Parameters too)
//   on TypeScript 5.9 and 7, ESM (NodeNext) and CommonJS: the full output (client and server, @types/node),
//   emitted by tsc into dist/ and run by node: the built program starts the vendored server and calls it.
//   The CommonJS project uses `--file-extension .mts`: tsc emits .mjs files, which Node loads as ES modules
//   without the folder's package.json (not copied into dist/), through require(esm).
// - esbuild: the same two projects bundled for node (ESM and CommonJS) and run.
// - @tsconfig/strictest + @tsconfig/node20 (lib es2023, no DOM), the client alone (`--client-only`), emitted by
//   tsc and run against the test's server.
// - Vite's vanilla-ts and react-ts templates, made by create-vite from the npm registry, with the client alone
//   copied into src/api/: `npm run build` (tsc, then vite build), then the built page, served from one
//   loopback port, calls the server on another (CORS) in headless Chromium.
//
// The registry's packages (create-vite, the templates' dependencies, the @tsconfig bases) are installed once
// into node_modules/.cache/easgen-vendoring/ and reused. Without the registry (or Chromium, for the Vite
// rows) those rows are skipped with the reason, unless CI is set: then they fail.

import { execFile, spawnSync } from "node:child_process";
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { STRICT_FLAGS } from "../../generator/emit/tsconfig.js";
import { type GenerateOptions, generateFiles } from "../../generator/generate.js";
import { writeOutput } from "../../generator/output.js";
import { launchChromium } from "../fixtures/chromium.js";
import { startFixtureServer, type FixtureServer } from "../fixtures/fixture-server.js";
import { listenOnLoopback } from "../fixtures/raw-http.js";
import { hasChromium, hasSystemComponent } from "../fixtures/system-component.js";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const SPEC = path.join(ROOT, "spec/ExternalAPIService.yaml");
const CACHE = path.join(ROOT, "node_modules/.cache/easgen-vendoring");
const COMPILERS = {
  "5.9": path.join(ROOT, "node_modules/typescript/bin/tsc"),
  "7": path.join(ROOT, "node_modules/typescript7/bin/tsc"),
} as const;
type Compiler = keyof typeof COMPILERS;

/** Pinned so that a run is reproducible; the templates' own dependencies are what create-vite writes. */
const CREATE_VITE = "create-vite@9.3.0";
const TSCONFIG_BASES = ["@tsconfig/strictest@2.0.8", "@tsconfig/node20@20.1.10"];

const RESULT = "result 4242";
const FIXTURE_RESULT = "result 9223372036854775807";

interface Outcome {
  readonly setup: string;
  readonly errors: readonly string[];
  /** What the built program printed as its call's result, or why it did not run. */
  readonly ran: string;
}
const outcomes: Outcome[] = [];

function run(
  command: string,
  args: readonly string[],
  cwd: string,
  env: Record<string, string> = {},
  timeout = 300_000,
): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    execFile(
      command,
      args,
      { cwd, env: { ...process.env, ...env }, timeout, maxBuffer: 64 * 1024 * 1024 },
      (error, stdout, stderr) => {
        const code = error === null ? 0 : typeof error.code === "number" ? error.code : 1;
        resolve({ code, output: `${stdout}\n${stderr}` });
      },
    );
  });
}

/** The error lines of a tsc run (file(line,col): error TSxxxx), the folder cut off. */
function errorLines(output: string, dir: string): string[] {
  return output
    .split("\n")
    .filter((line) => /error TS\d+/.test(line))
    .map((line) => line.replaceAll(`${dir}${path.sep}`, "").trim());
}

/** The program's `result …` line, or what it printed instead. */
function resultLine(output: string): string {
  return (
    output.split("\n").find((line) => line.startsWith("result ")) ??
    `no result: ${output.trim().slice(0, 400)}`
  );
}

async function generate(out: string, options: Partial<GenerateOptions> = {}): Promise<void> {
  const generated = await generateFiles({ spec: SPEC, ...options });
  if (!generated.ok) throw new Error(generated.diagnostics.map((d) => d.message).join("\n"));
  writeOutput(out, generated.files);
}

// The ESM program: starts the vendored server, calls it with the vendored client, prints the result.
const ESM_MAIN = `import type { AddressInfo } from "node:net";
import { createClient } from "./api/client.js";
import { operations } from "./api/model.js";
import { createServer, ErrorCodes, ServiceError, type ExternalAPIService } from "./api/server.js";

const handlers: Record<string, () => unknown> = {};
for (const name of Object.keys(operations)) {
  handlers[name] = () => {
    throw new ServiceError(ErrorCodes.InvalidValue, "not called in this test");
  };
}
handlers["InsertSubscriberSid"] = () => 4242n;
const server = createServer(handlers as unknown as ExternalAPIService);
await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
const { port } = server.address() as AddressInfo;
try {
  const client = createClient({ baseUrl: \`http://127.0.0.1:\${port}\`, username: "u", password: "p", binding: "soap11" });
  const id = await client.InsertSubscriberSid({ strMailingListID: "1", strEmail: "a@example.com" });
  console.log(\`result \${String(id)}\`);
} finally {
  server.close();
}
`;

// The CommonJS program: the same, with require of the .mts output (no top-level await in CommonJS).
// erasableSyntaxOnly (in the strict set) refuses `import x = require()`: the program requires with a plain
// call, typed by `typeof import()`, as TypeScript's docs advise for CommonJS under that flag.
const CJS_MAIN = `import type { AddressInfo } from "node:net";
import type { ExternalAPIService } from "./api/server.mjs";

const api: typeof import("./api/client.mjs") = require("./api/client.mjs");
const model: typeof import("./api/model.mjs") = require("./api/model.mjs");
const vendored: typeof import("./api/server.mjs") = require("./api/server.mjs");

async function main(): Promise<void> {
  const handlers: Record<string, () => unknown> = {};
  for (const name of Object.keys(model.operations)) {
    handlers[name] = () => {
      throw new vendored.ServiceError(vendored.ErrorCodes.InvalidValue, "not called in this test");
    };
  }
  handlers["InsertSubscriberSid"] = () => 4242n;
  const server = vendored.createServer(handlers as unknown as ExternalAPIService);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  try {
    const client = api.createClient({ baseUrl: \`http://127.0.0.1:\${port}\`, username: "u", password: "p", binding: "soap11" });
    const id = await client.InsertSubscriberSid({ strMailingListID: "1", strEmail: "a@example.com" });
    console.log(\`result \${String(id)}\`);
  } finally {
    server.close();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
`;

// The client alone, against the server the test starts (API_URL).
const CLIENT_MAIN = `import { createClient } from "./api/client.js";

const client = createClient({ baseUrl: process.env["API_URL"] ?? "", username: "u", password: "p", binding: "soap12" });
const id = await client.InsertSubscriberSid({ strMailingListID: "1", strEmail: "a@example.com" });
console.log(\`result \${String(id)}\`);
`;

// The browser page's call (Vite templates): the server's address in ?api=, the result in the title.
const PAGE_CALL = `import { browser, createClientWith, soap11 } from "./api/client.js";

export async function runCall(): Promise<void> {
  const api = new URLSearchParams(location.search).get("api") ?? "";
  const client = createClientWith(soap11, { baseUrl: api, username: "u", password: "p", platform: browser });
  try {
    const id = await client.InsertSubscriberSid({ strMailingListID: "1", strEmail: "a@example.com" });
    document.title = \`result \${String(id)}\`;
  } catch (error) {
    document.title = \`error \${String(error)}\`;
  }
}
`;

const registryUp = (): boolean =>
  hasSystemComponent(
    "npm registry",
    () =>
      spawnSync("npm", ["view", CREATE_VITE, "version"], { stdio: "ignore", timeout: 30_000 }).status === 0,
    "the npm registry (create-vite, the Vite templates' packages and the @tsconfig bases are installed from it once, into node_modules/.cache/easgen-vendoring/)",
  );

let work: string;
let full: string;
let mts: string;
let clientOnly: string;

beforeAll(async () => {
  work = mkdtempSync(path.join(tmpdir(), "easgen-vendor-run-"));
  full = path.join(work, "out-full");
  mts = path.join(work, "out-mts");
  clientOnly = path.join(work, "out-client");
  await Promise.all([
    generate(full),
    generate(mts, { fileExtension: ".mts" }),
    generate(clientOnly, { clientOnly: true }),
  ]);
}, 300_000);

afterAll(() => {
  if (outcomes.length > 0) {
    const width = Math.max(...outcomes.map((o) => o.setup.length));
    console.log(
      `vendoring matrix (setup, compiler errors, the built program's call):\n${outcomes
        .map((o) => `  ${o.setup.padEnd(width)}  errors ${o.errors.length}  ${o.ran}`)
        .join("\n")}`,
    );
  }
  rmSync(work, { recursive: true, force: true });
});

/** A project folder: package.json, tsconfig.json, src/main.ts and the vendored folder in src/api/. */
function project(
  name: string,
  vendored: string,
  type: "module" | "commonjs",
  tsconfig: object,
  main: string,
): string {
  const dir = path.join(work, name);
  mkdirSync(path.join(dir, "src"), { recursive: true });
  cpSync(vendored, path.join(dir, "src/api"), { recursive: true });
  writeFileSync(path.join(dir, "package.json"), JSON.stringify({ name, private: true, type }));
  writeFileSync(path.join(dir, "tsconfig.json"), JSON.stringify(tsconfig, null, 2));
  writeFileSync(path.join(dir, "src/main.ts"), main);
  // @types/node from this repository, found in node_modules/@types as in a real project.
  mkdirSync(path.join(dir, "node_modules"), { recursive: true });
  symlinkSync(path.join(ROOT, "node_modules/@types"), path.join(dir, "node_modules/@types"), "dir");
  return dir;
}

const STRICT_EMIT = (module: "NodeNext") => ({
  compilerOptions: {
    target: "ES2022",
    lib: ["ES2022", "DOM"],
    types: ["node"],
    module,
    moduleResolution: module,
    ...STRICT_FLAGS,
    rootDir: "src",
    outDir: "dist",
    skipLibCheck: true,
  },
  include: ["src"],
});

const TIMEOUT = 600_000;

describe("the README's strict set: tsc emits, node runs the built program", () => {
  for (const compiler of Object.keys(COMPILERS) as Compiler[]) {
    it(
      `ESM (NodeNext), TypeScript ${compiler}: 0 errors, the vendored server and client answer`,
      async () => {
        const dir = project(`esm-${compiler}`, full, "module", STRICT_EMIT("NodeNext"), ESM_MAIN);
        const tsc = await run(
          process.execPath,
          [COMPILERS[compiler], "-p", "tsconfig.json", "--pretty", "false"],
          dir,
        );
        const errors = errorLines(tsc.output, dir);
        const program = await run(process.execPath, ["dist/main.js"], dir, {}, 60_000);
        outcomes.push({
          setup: `strict set, TS ${compiler}, ESM, tsc → node`,
          errors,
          ran: resultLine(program.output),
        });
        expect(errors).toEqual([]);
        expect(resultLine(program.output)).toBe(RESULT);
      },
      TIMEOUT,
    );

    it(
      `CommonJS (NodeNext, --file-extension .mts), TypeScript ${compiler}: 0 errors, runs without a hand-copied file`,
      async () => {
        const dir = project(`cjs-${compiler}`, mts, "commonjs", STRICT_EMIT("NodeNext"), CJS_MAIN);
        const tsc = await run(
          process.execPath,
          [COMPILERS[compiler], "-p", "tsconfig.json", "--pretty", "false"],
          dir,
        );
        const errors = errorLines(tsc.output, dir);
        // Nothing but what tsc wrote: no package.json in dist/api.
        expect(existsSync(path.join(dir, "dist/api/package.json"))).toBe(false);
        const program = await run(process.execPath, ["dist/main.js"], dir, {}, 60_000);
        outcomes.push({
          setup: `strict set, TS ${compiler}, CommonJS (.mts), tsc → node`,
          errors,
          ran: resultLine(program.output),
        });
        expect(errors).toEqual([]);
        expect(resultLine(program.output)).toBe(RESULT);
      },
      TIMEOUT,
    );
  }

  it(
    "the default .ts output in a CommonJS project compiles but cannot run from dist/ (why .mts exists)",
    async () => {
      const main = CJS_MAIN.replaceAll(".mjs", ".js");
      const dir = project("cjs-ts", full, "commonjs", STRICT_EMIT("NodeNext"), main);
      const tsc = await run(
        process.execPath,
        [COMPILERS["5.9"], "-p", "tsconfig.json", "--pretty", "false"],
        dir,
      );
      expect(errorLines(tsc.output, dir)).toEqual([]);
      const program = await run(process.execPath, ["dist/main.js"], dir, {}, 60_000);
      expect(program.output).toMatch(/Cannot use import statement outside a module|SyntaxError/);
    },
    TIMEOUT,
  );
});

describe("esbuild bundles for node, and the bundle runs", () => {
  for (const format of ["esm", "cjs"] as const) {
    it(
      `${format === "esm" ? "ESM" : "CommonJS (.mts output)"}: the bundle's call answers`,
      async () => {
        const dir = project(
          `esbuild-${format}`,
          format === "esm" ? full : mts,
          format === "esm" ? "module" : "commonjs",
          STRICT_EMIT("NodeNext"),
          format === "esm" ? ESM_MAIN : CJS_MAIN,
        );
        const outfile = path.join(dir, `dist/main.${format === "esm" ? "mjs" : "cjs"}`);
        const result = await build({
          entryPoints: [path.join(dir, "src/main.ts")],
          bundle: true,
          platform: "node",
          format,
          target: "node20",
          outfile,
          logLevel: "silent",
        });
        const program = await run(process.execPath, [outfile], dir, {}, 60_000);
        outcomes.push({
          setup: `esbuild, ${format === "esm" ? "ESM" : "CommonJS (.mts)"}, bundle → node`,
          errors: result.errors.map((e) => e.text),
          ran: resultLine(program.output),
        });
        expect(result.errors).toEqual([]);
        expect(resultLine(program.output)).toBe(RESULT);
      },
      TIMEOUT,
    );
  }
});

/** A cached folder made once by `make` (into a temporary name, renamed when done). */
async function cached(name: string, make: (dir: string) => Promise<void>): Promise<string> {
  const dir = path.join(CACHE, name);
  if (existsSync(path.join(dir, ".complete"))) return dir;
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  await make(dir);
  writeFileSync(path.join(dir, ".complete"), "");
  return dir;
}

async function npm(args: readonly string[], cwd: string): Promise<void> {
  const result = await run("npm", [...args, "--no-audit", "--no-fund"], cwd);
  if (result.code !== 0)
    throw new Error(`npm ${args.join(" ")} in ${cwd} failed:\n${result.output.slice(-2000)}`);
}

describe.runIf(registryUp())("setups from the npm registry", () => {
  let fixture: FixtureServer;
  beforeAll(async () => {
    fixture = await startFixtureServer();
  });
  afterAll(async () => fixture?.close());

  it(
    "@tsconfig/strictest + @tsconfig/node20 (no DOM lib), the client alone: 0 errors, tsc → node calls the server",
    async () => {
      const bases = await cached("tsconfig-bases", async (dir) => {
        writeFileSync(path.join(dir, "package.json"), JSON.stringify({ name: "bases", private: true }));
        await npm(["install", "--save-exact", ...TSCONFIG_BASES], dir);
      });
      const dir = project(
        "strictest-node20",
        clientOnly,
        "module",
        {
          extends: ["@tsconfig/strictest/tsconfig.json", "@tsconfig/node20/tsconfig.json"],
          compilerOptions: { rootDir: "src", outDir: "dist" },
          include: ["src"],
        },
        CLIENT_MAIN,
      );
      symlinkSync(
        path.join(bases, "node_modules/@tsconfig"),
        path.join(dir, "node_modules/@tsconfig"),
        "dir",
      );
      const lib = JSON.parse(
        readFileSync(path.join(bases, "node_modules/@tsconfig/node20/tsconfig.json"), "utf8"),
      ).compilerOptions.lib as string[];
      expect(lib.map((l) => l.toLowerCase())).not.toContain("dom");
      const tsc = await run(
        process.execPath,
        [COMPILERS["5.9"], "-p", "tsconfig.json", "--pretty", "false"],
        dir,
      );
      const errors = errorLines(tsc.output, dir);
      const program = await run(
        process.execPath,
        ["dist/main.js"],
        dir,
        { API_URL: fixture.baseUrl },
        60_000,
      );
      outcomes.push({
        setup: "@tsconfig/strictest + node20, client only, tsc → node",
        errors,
        ran: resultLine(program.output),
      });
      expect(errors).toEqual([]);
      expect(resultLine(program.output)).toBe(FIXTURE_RESULT);
    },
    TIMEOUT,
  );

  describe.runIf(hasChromium())(
    "Vite templates: npm run build, then the page calls across origins in Chromium",
    () => {
      for (const [template, entry] of [
        ["vanilla-ts", "src/main.ts"],
        ["react-ts", "src/main.tsx"],
      ] as const) {
        it(
          `${template}: npm run build has 0 errors, the built page's call answers`,
          async () => {
            const made = await cached(`${template}-${CREATE_VITE}`, async (dir) => {
              await npm(
                ["exec", "--yes", "--", CREATE_VITE, "app", "--template", template, "--no-interactive"],
                dir,
              );
              await npm(["install"], path.join(dir, "app"));
            });
            const dir = path.join(work, `vite-${template}`);
            cpSync(path.join(made, "app"), dir, { recursive: true, verbatimSymlinks: true });
            cpSync(clientOnly, path.join(dir, "src/api"), { recursive: true });
            writeFileSync(path.join(dir, "src/call.ts"), PAGE_CALL);
            const main = path.join(dir, entry);
            writeFileSync(
              main,
              `${readFileSync(main, "utf8")}\nimport { runCall } from "./call.ts";\nvoid runCall();\n`,
            );
            const built = await run("npm", ["run", "build"], dir);
            const errors = errorLines(built.output, dir);
            expect(built.code, built.output.slice(-3000)).toBe(0);
            const ran = await callFromBuiltPage(path.join(dir, "dist"));
            outcomes.push({
              setup: `Vite ${template} (${CREATE_VITE}), client only, npm run build → Chromium`,
              errors,
              ran,
            });
            expect(errors).toEqual([]);
            expect(ran).toBe(FIXTURE_RESULT);
          },
          TIMEOUT,
        );
      }
    },
  );
});

const TYPES: Readonly<Record<string, string>> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript",
  ".css": "text/css",
  ".svg": "image/svg+xml",
};

/** Serves a built app's dist/ on one loopback port, the server on another (CORS), and reads the page's title. */
async function callFromBuiltPage(dist: string): Promise<string> {
  const page = await listenOnLoopback((req, res) => {
    const pathname = new URL(req.url ?? "/", "http://x").pathname;
    const file = path.join(dist, pathname === "/" ? "index.html" : path.normalize(pathname));
    if (!file.startsWith(dist) || !existsSync(file)) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { "content-type": TYPES[path.extname(file)] ?? "application/octet-stream" });
    res.end(readFileSync(file));
  });
  const api = await startFixtureServer({ cors: { origins: [page.origin] } });
  const browser = await launchChromium();
  try {
    const tab = await browser.newPage();
    await tab.goto(`${page.origin}/?api=${encodeURIComponent(api.baseUrl)}`);
    await tab.waitForFunction(() => /^(result|error) /.test(document.title), undefined, { timeout: 30_000 });
    return await tab.title();
  } finally {
    await browser.close();
    await api.close();
    await page.close();
  }
}
