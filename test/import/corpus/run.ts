// The import baseline: every WSDL of the public corpus (test/import/corpus/<name>/service.wsdl, sources in
// SOURCE.md beside each) and every construct fixture's recorded WSDL (test/asmx-host/recorded/constructs/)
// goes through `easgen import` → `easgen generate` → tsc on the generated code, and the outcome is recorded:
// imported (all three passed), refused (import said no, with its message), generate-failed, typecheck-failed.
//
//   npx tsx test/import/corpus/run.ts           prints the table
//   npx tsx test/import/corpus/run.ts --write   also rewrites BASELINE.md and expected-status.json
//
// corpus.test.ts runs the same and fails when an outcome differs from expected-status.json.

import { spawn } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { generateCommand } from "../../../generator/commands.js";
import { ImportError, importToYaml } from "../../../generator/import/index.js";

const HERE = path.dirname(fileURLToPath(import.meta.url));
const REPO = path.resolve(HERE, "../../..");
const CORPUS_DIR = HERE;
const FIXTURES_DIR = path.join(REPO, "test/asmx-host/recorded/constructs");
/** Inside the repository (git-ignored), so generated code resolves node_modules as the project does. */
const WORK_DIR = path.join(HERE, ".tmp");
export const EXPECTED_FILE = path.join(HERE, "expected-status.json");
const BASELINE_FILE = path.join(HERE, "BASELINE.md");

export type Status = "imported" | "refused" | "generate-failed" | "typecheck-failed";

export interface Entry {
  /** `corpus/<dir>` or `fixture/<Service>`. */
  readonly id: string;
  readonly wsdl: string;
  /** Where the WSDL comes from: owner/repo for the corpus, the fixture's .asmx otherwise. */
  readonly source: string;
}

export interface Outcome {
  readonly id: string;
  readonly source: string;
  /** Operations in the WSDL's first portType, counted from the WSDL itself (not from the import). */
  readonly operations: number;
  /** The bindings the WSDL's ports offer (soap11, soap12, httpGet, httpPost), read from the WSDL. */
  readonly bindings: readonly string[];
  readonly bytes: number;
  readonly status: Status;
  /** The refusal or failure messages (first lines), empty when imported. */
  readonly messages: readonly string[];
  /** Import warnings (count), for the imported. */
  readonly warnings: number;
  /** Time taken by import and generate (tsc runs once for all, after). */
  readonly ms: number;
}

export function corpusEntries(): Entry[] {
  const entries: Entry[] = [];
  for (const dir of readdirSync(CORPUS_DIR, { withFileTypes: true })) {
    if (!dir.isDirectory() || dir.name.startsWith(".")) continue;
    const wsdl = path.join(CORPUS_DIR, dir.name, "service.wsdl");
    if (!existsSync(wsdl)) continue;
    const source = /\| repository \| `([^`]+)`/.exec(readFileSync(path.join(CORPUS_DIR, dir.name, "SOURCE.md"), "utf8"))?.[1] ?? "?";
    entries.push({ id: `corpus/${dir.name}`, wsdl, source });
  }
  if (existsSync(FIXTURES_DIR)) {
    for (const dir of readdirSync(FIXTURES_DIR, { withFileTypes: true })) {
      const wsdl = path.join(FIXTURES_DIR, dir.name, "service.wsdl");
      if (dir.isDirectory() && existsSync(wsdl)) entries.push({ id: `fixture/${dir.name}`, wsdl, source: `test/asmx-host/constructs/${dir.name}.asmx` });
    }
  }
  return entries.sort((a, b) => a.id.localeCompare(b.id));
}

/** Counts operations and bindings with plain text matching: the WSDL may be one the importer refuses. */
function describeWsdl(text: string): { operations: number; bindings: string[] } {
  const portType = /<(?:\w+:)?portType\b[\s\S]*?<\/(?:\w+:)?portType>/.exec(text)?.[0] ?? "";
  const operations = (portType.match(/<(?:\w+:)?operation\b/g) ?? []).length;
  const bindings: string[] = [];
  if (/<(?:\w+:)?binding\b[^>]*transport=/.test(text.replace(/soap12:binding/g, ""))) bindings.push("soap11");
  if (/soap12:binding\b|<(?:\w+:)?binding\b[^>]*xmlns(?::\w+)?="http:\/\/schemas\.xmlsoap\.org\/wsdl\/soap12\/"/.test(text)) bindings.push("soap12");
  if (/verb="GET"/.test(text)) bindings.push("httpGet");
  if (/verb="POST"/.test(text)) bindings.push("httpPost");
  return { operations, bindings };
}

function runTsc(project: string, timeoutMs: number): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(REPO, "node_modules/typescript/bin/tsc"), "-p", project, "--pretty", "false"], { cwd: REPO, stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    const keep = (s: Buffer) => {
      if (output.length < 64 * 1024) output += s.toString("utf8");
    };
    child.stdout.on("data", keep);
    child.stderr.on("data", keep);
    const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
    child.on("error", reject);
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
}

const firstLines = (text: string, n = 5) =>
  text
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => l !== "")
    .slice(0, n);

interface Generated {
  readonly outcome: Outcome;
  /** The generated code's folder (relative to WORK_DIR), when import and generate passed. */
  readonly out?: string;
}

/** Import and generate one WSDL; type-checking comes after, for all of them in one tsc run. */
async function importAndGenerate(entry: Entry): Promise<Generated> {
  const started = Date.now();
  const text = readFileSync(entry.wsdl, "utf8");
  const { operations, bindings } = describeWsdl(text);
  const base = { id: entry.id, source: entry.source, operations, bindings, bytes: Buffer.byteLength(text) };
  const done = (status: Status, messages: readonly string[], warnings = 0): Outcome => ({ ...base, status, messages, warnings, ms: Date.now() - started });

  let imported: Awaited<ReturnType<typeof importToYaml>>;
  try {
    imported = await importToYaml(entry.wsdl);
  } catch (e) {
    if (e instanceof ImportError) {
      // One line per construct refused (after the count line when there are several).
      const lines = e.message.split(`${path.dirname(entry.wsdl)}${path.sep}`).join("").split("\n");
      return { outcome: done("refused", (lines.length > 1 ? lines.slice(1) : lines).map((l) => l.trim())) };
    }
    throw e;
  }
  const name = entry.id.replace("/", "-");
  const work = path.join(WORK_DIR, name);
  mkdirSync(work, { recursive: true });
  const spec = path.join(work, "spec.yaml");
  writeFileSync(spec, imported.yaml);
  const lines: string[] = [];
  const code = await generateCommand({ spec, out: path.join(work, "out") }, { out: (l) => lines.push(l), err: (l) => lines.push(l) });
  if (code !== 0) return { outcome: done("generate-failed", firstLines(lines.join("\n").split(`${work}${path.sep}`).join("")), imported.warnings.length) };
  return { outcome: done("imported", [], imported.warnings.length), out: name };
}

/**
 * Runs every entry; the generated code of all that imported is type-checked by one tsc run (each generated
 * folder carries the same tsconfig; one run saves loading the libraries once per WSDL), and tsc's errors
 * are given to the WSDL whose folder they name.
 */
export async function runAll(entries: readonly Entry[] = corpusEntries(), log: (line: string) => void = () => {}): Promise<Outcome[]> {
  rmSync(WORK_DIR, { recursive: true, force: true });
  mkdirSync(WORK_DIR, { recursive: true });
  try {
    const generated: Generated[] = [];
    for (const entry of entries) {
      const g = await importAndGenerate(entry);
      log(`${g.outcome.id}: ${g.out === undefined ? g.outcome.status : "generated"} (${g.outcome.ms} ms)${g.outcome.messages[0] === undefined ? "" : ` — ${g.outcome.messages[0]}`}`);
      generated.push(g);
    }
    const outs = generated.flatMap((g) => (g.out === undefined ? [] : [g.out]));
    if (outs.length === 0) return generated.map((g) => g.outcome);
    const started = Date.now();
    writeFileSync(
      path.join(WORK_DIR, "tsconfig.json"),
      JSON.stringify({ extends: `./${outs[0]}/out/tsconfig.json`, include: outs.map((o) => `${o}/out/**/*.ts`) }, null, 2),
    );
    const tsc = await runTsc(path.join(WORK_DIR, "tsconfig.json"), 20 * 60_000);
    log(`tsc over ${outs.length} generated folders: exit ${tsc.code} (${Date.now() - started} ms)`);
    const byFolder = attributeErrors(outs, tsc.code, tsc.output);
    return generated.map((g) => {
      const mine = g.out === undefined ? undefined : byFolder.get(g.out);
      return mine === undefined ? g.outcome : { ...g.outcome, status: "typecheck-failed" as const, messages: mine.slice(0, 5) };
    });
  } finally {
    rmSync(WORK_DIR, { recursive: true, force: true });
  }
}

/**
 * tsc's error lines by the generated folder they name (`<folder>/out/...` relative to the tsconfig, or a
 * path holding `/<folder>/`). When tsc failed and no line names a folder, every folder gets all lines.
 */
export function attributeErrors(folders: readonly string[], code: number | null, output: string): Map<string, string[]> {
  const lines = output.split("\n").map((l) => l.trimEnd()).filter((l) => l.trim() !== "");
  const names = (line: string, folder: string) => line.startsWith(`${folder}/`) || line.includes(`/${folder}/`) || line.includes(`\\${folder}\\`);
  const result = new Map<string, string[]>();
  for (const folder of folders) {
    const mine = lines.filter((l) => names(l, folder));
    if (mine.length > 0) result.set(folder, mine);
  }
  if (code !== 0 && result.size === 0) for (const folder of folders) result.set(folder, lines.length > 0 ? lines : [`tsc exited with ${code}`]);
  return result;
}

const cell = (s: string) => s.replace(/\|/g, "\\|").replace(/\n/g, " ");

/** The table as Markdown: one row per WSDL, then the totals. */
export function formatTable(outcomes: readonly Outcome[]): string {
  const rows = outcomes.map((o) => {
    const first = o.messages[0];
    const message =
      first === undefined
        ? o.warnings > 0
          ? `${o.warnings} import warnings`
          : ""
        : o.status === "refused"
          ? `${o.messages.length} refused; first: ${first}`
          : first;
    return `| \`${o.id}\` | ${cell(o.source)} | ${o.operations} | ${o.bindings.join(", ")} | ${o.status} | ${cell(message.length > 300 ? `${message.slice(0, 297)}...` : message)} |`;
  });
  const count = (kind: "corpus" | "fixture") => {
    const of = outcomes.filter((o) => o.id.startsWith(`${kind}/`));
    return `${kind}: ${of.filter((o) => o.status === "imported").length} of ${of.length} import, generate and type-check`;
  };
  return [
    "| WSDL | source | operations | bindings | outcome | message |",
    "| --- | --- | ---: | --- | --- | --- |",
    ...rows,
    "",
    `${count("corpus")}; ${count("fixture")}.`,
  ].join("\n");
}

function expectedStatuses(outcomes: readonly Outcome[]): Record<string, Status> {
  return Object.fromEntries(outcomes.map((o) => [o.id, o.status]));
}

function baselineMarkdown(outcomes: readonly Outcome[]): string {
  return `# Import baseline

What \`easgen import\` → \`easgen generate\` → \`tsc\` (on the generated code) does with every WSDL of the public
corpus (\`test/import/corpus/<name>/\`, where each \`SOURCE.md\` names the repository, path, commit and
licence) and with the WSDL each construct fixture publishes (\`test/asmx-host/recorded/constructs/\`,
recorded from Mono's ASP.NET; see \`docs/asmx-evidence/\`).

Outcomes: **imported** (imported, generated and type-checked without errors), **refused** (the import
refused the WSDL, naming every construct it cannot describe in one message: the table gives their count and
the first),
**generate-failed**, **typecheck-failed**. Operations are counted from the WSDL's first portType, bindings
from its ports, whatever the import does.

Written by \`npx tsx test/import/corpus/run.ts --write\`, which also writes \`expected-status.json\`;
\`test/import/corpus/corpus.test.ts\` fails when an outcome differs from that file (so a WSDL that imports
today cannot silently stop importing, and one that starts importing is noticed and recorded).

${formatTable(outcomes)}
`;
}

if (process.argv[1] !== undefined && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const write = process.argv.includes("--write");
  const outcomes = await runAll(corpusEntries(), (line) => process.stderr.write(`${line}\n`));
  process.stdout.write(`${formatTable(outcomes)}\n`);
  if (write) {
    writeFileSync(BASELINE_FILE, baselineMarkdown(outcomes));
    writeFileSync(EXPECTED_FILE, `${JSON.stringify(expectedStatuses(outcomes), null, 2)}\n`);
    process.stderr.write(`wrote ${path.relative(REPO, BASELINE_FILE)} and ${path.relative(REPO, EXPECTED_FILE)}\n`);
  }
}
