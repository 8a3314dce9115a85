// Extension rules and checks (kind extension): validate finds the module next to the spec, refuses one that
// imports or lacks a named validator, checks the params; generate copies the module into the output,
// lists it, and wires its functions into the server model only (the client model never imports it).

import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { generateFiles } from "../../generator/generate.js";
import { csvSubscribers, demographicLists } from "../../spec/ExternalAPIService.extensions.js";
import { serverModel } from "../../generated/server-model.js";
import { REPO, smallSpecWith, validateText } from "./fixtures/index.js";

const dir = mkdtempSync(path.join(tmpdir(), "easgen-ext-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const specFile = path.join(dir, "small.yaml");

const MODULE = `// Shop's own rules.
export function evenDigit(value: string, parameter: string, options: Readonly<Record<string, unknown>>) {
  return Number(value) % 2 === 0 ? undefined : { code: String(options["code"]), message: \`\${parameter} must be even.\` };
}
export const differ = (values: Readonly<Record<string, unknown>>, params: readonly string[]) =>
  values[params[0]!] === values[params[1]!] ? { code: "Same", message: "They are the same." } : undefined;
`;

/** The small spec with an extension rule on digit and an extension check, and the given module text. */
function specWith(
  module: string | undefined,
  checkParams = "[label, digit]",
  validator = "evenDigit",
): string {
  if (module !== undefined) writeFileSync(path.join(dir, "shop.extensions.ts"), module);
  else rmSync(path.join(dir, "shop.extensions.ts"), { force: true });
  return `${smallSpecWith(
    [
      "rules:\n",
      `rules:\n  even:\n    kind: extension\n    validator: ${validator}\n    options: { code: Odd }\n    text: An even digit.\n    doc: Even.\n`,
    ],
    ["rules: [count], doc: A digit.", "rules: [count, even], doc: A digit."],
    [
      "          - { kind: atLeastOne, params: [label, color] }\n",
      `          - { kind: atLeastOne, params: [label, color] }\n          - { kind: extension, validator: differ, params: ${checkParams}, text: Label and digit differ. }\n`,
    ],
  )}extensions: { module: shop.extensions.ts }\n`;
}

describe("validate: extensions", () => {
  const validate = (text: string) => validateText(text, path.relative(process.cwd(), specFile));

  it("accepts a module next to the spec that exports every validator named", () => {
    expect(validate(specWith(MODULE))).toEqual([]);
  });

  it("needs the top-level extensions when a rule or check is of kind extension", () => {
    const text = specWith(MODULE).replace("extensions: { module: shop.extensions.ts }\n", "");
    const problems = validate(text);
    expect(problems).toHaveLength(2);
    expect(problems.join("\n")).toContain('extension validator "evenDigit" needs the module that exports it');
    expect(problems.join("\n")).toContain('extension validator "differ" needs the module that exports it');
  });

  it("names a module that does not exist", () => {
    expect(validate(specWith(undefined)).join("\n")).toContain(
      "extension module shop.extensions.ts does not exist next to the spec",
    );
  });

  it("names a validator the module does not export", () => {
    expect(validate(specWith(MODULE, "[label, digit]", "oddDigit")).join("\n")).toContain(
      "extension module shop.extensions.ts exports no function oddDigit",
    );
  });

  it("refuses a module that imports", () => {
    for (const line of [
      'import { x } from "./x.js";\n',
      'export * from "./x.js";\n',
      'const fs = require("node:fs");\n',
    ]) {
      expect(validate(specWith(line + MODULE)).join("\n")).toContain("must not import anything");
    }
  });

  it("checks the check's params against the operation's parameters", () => {
    expect(validate(specWith(MODULE, "[label, nothing]")).join("\n")).toContain(
      'check extension names "nothing", which is not a parameter of AddItem',
    );
  });

  it("refuses a validator name that is not an identifier", () => {
    expect(validate(specWith(MODULE, "[label, digit]", "even-digit")).length).toBeGreaterThan(0);
  });
});

describe("generate: extensions", () => {
  it("copies the module, lists it and wires it into the server model only", async () => {
    const text = specWith(MODULE);
    writeFileSync(specFile, text);
    const result = await generateFiles({ spec: specFile, specFile: "spec/small.yaml" });
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    const files = new Map(result.files.map((file) => [file.path, file.content]));
    expect(files.get("extensions.ts")).toContain("export function evenDigit");
    expect(JSON.parse(files.get("manifest.json")!.replace(/^\/\/.*\n\n?/, "")).files).toContain(
      "extensions.ts",
    );
    const serverModelText = files.get("server-model.ts")!;
    expect(serverModelText).toContain('import * as extensions from "./extensions.js";');
    expect(serverModelText).toContain("validate: extensions.evenDigit");
    expect(serverModelText).toContain("validate: extensions.differ");
    for (const [file, content] of files) {
      if (file !== "server-model.ts") expect(content, file).not.toContain("extensions.js");
    }
    // The help text is the spec's words.
    expect(files.get("types.ts")).toContain("An even digit.");
  });

  it("ExternalAPIService: generated/extensions.ts is the spec's module, and the server model carries its functions", () => {
    const copy = readFileSync(path.join(REPO, "generated/extensions.ts"), "utf8");
    const source = readFileSync(path.join(REPO, "spec/ExternalAPIService.extensions.ts"), "utf8");
    expect(copy.slice(copy.indexOf("\n\n") + 2)).toBe(source);
    const rules = serverModel.operations.flatMap((op) => op.params.flatMap((p) => p.rules));
    const csv = rules.find((rule) => rule.kind === "extension" && rule.validator === "csvSubscribers");
    expect(csv?.kind === "extension" && csv.validate !== undefined).toBe(true);
    const checks = serverModel.operations
      .flatMap((op) => op.checks)
      .filter((check) => check.kind === "extension");
    expect(checks).toHaveLength(4);
    for (const check of checks)
      expect(check.kind === "extension" && check.validator === "demographicLists").toBe(true);
    // The same functions as the module's (a copy of it), by behaviour.
    expect(csv?.kind === "extension" && csv.validate!("a@b,N,PDF", "strCsvData", csv.options)).toEqual(
      csvSubscribers("a@b,N,PDF", "strCsvData", { delimiters: [",", "|"], maxDemographicFields: 100 }),
    );
    const split = checks.find((check) => check.kind === "extension" && check.options["splitLength"] === 500);
    const values = { strDataFields: "DD25", strDataValues: "x".repeat(501) };
    expect(split?.kind === "extension" && split.validate!(values, split.params, split.options)).toEqual(
      demographicLists(values, ["strDataFields", "strDataValues"], { maxField: 25, splitLength: 500 }),
    );
  });
});
