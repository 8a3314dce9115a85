// generated/types.ts against a golden file: the small spec (test/generator/fixtures/small.yaml) in, the exact
// formatted text out (records, DataSet rows, params with their TSDoc rules and defaults, results, the
// operation table). UPDATE_GOLDEN=1 rewrites the golden file; review its diff.

import { existsSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { emitAll } from "../../../generator/emit/index.js";
import { emitTypes } from "../../../generator/emit/types.js";
import { docsOf, modelOf, REPO, SMALL_TEXT, smallSpecWith } from "../fixtures/index.js";

const GOLDEN = path.join(import.meta.dirname, "golden", "types.ts.golden");

/** generated/types.ts for a spec text, formatted and headed as `generate` writes it. */
async function typesOf(text: string): Promise<string> {
  const ctx = {
    docs: docsOf(text),
    specFile: "spec/small.yaml",
    templatesDir: path.join(REPO, "templates"),
    runtimeDir: path.join(REPO, "runtime"),
  };
  const files = await emitAll(modelOf(text), ctx, [{ name: "types", emit: emitTypes }]);
  return files.find((f) => f.path === "types.ts")!.content;
}

/** The declaration `export <kind> <name>` of a types.ts text with its TSDoc, exactly as written. */
function declaration(text: string, name: string): string {
  const m = new RegExp(
    `(?:^/\\*\\*(?:(?!\\*/)[\\s\\S])*\\*/\\n)?^export (?:interface|type) ${name}\\b[^\\n]*(?:\\n(?!export |/\\*\\*)[^\\n]*)*`,
    "m",
  ).exec(text);
  if (!m) throw new Error(`no declaration of ${name}`);
  return m[0].trimEnd();
}

describe("emitTypes", () => {
  it("writes types.ts for the small spec exactly as test/generator/emit/golden/types.ts.golden", async () => {
    const got = await typesOf(SMALL_TEXT);
    if (process.env.UPDATE_GOLDEN === "1" || !existsSync(GOLDEN)) writeFileSync(GOLDEN, got);
    expect(got).toBe(readFileSync(GOLDEN, "utf8"));
  });

  // Variants of the small spec, given as replacements, and the declarations they change, exactly.
  const DATE_TIMES = [
    [
      "{ name: quantity, type: int,",
      "{ name: when, type: dateTime, doc: When. }\n          - { name: quantity, type: int,",
    ],
    ["{ name: Label, type: string }", "{ name: Label, type: string }\n      - { name: At, type: dateTime }"],
  ] as const;
  it.each<{ name: string; given: readonly (readonly [string, string])[]; declaration: string; want: string }>(
    [
      {
        name: "a dateTime parameter is string | Date",
        given: DATE_TIMES,
        declaration: "AddItemParams",
        want: `/**
 * Parameters of AddItem. Adds an item.
 *
 * The credentials (user) are not part of it.
 */
export interface AddItemParams {
  /** Label. */
  label: string;
  /**
   * Color.
   * @defaultValue "red", substituted by the server when absent or empty.
   */
  color?: "red" | "green";
  /** When. xs:dateTime text, sent as given (never shifted), or a Date, sent as its UTC instant. */
  when: string | Date;
  /** How many. A 32-bit whole number; values outside that range are refused. */
  quantity: number;
  /** A digit. A whole number from 0 to 9, as text. */
  digit?: string;
}`,
      },
      {
        name: "a dateTime record field is string",
        given: DATE_TIMES,
        declaration: "Item",
        want: `/** One item. */
export interface Item {
  /** xs:long on the wire. Every 64-bit value round-trips exactly, 9223372036854775807 included. */
  Id: bigint;
  /** xs:string on the wire. A null string (element omitted) is an absent property, distinct from "". */
  Label?: string;
  /**
   * xs:dateTime on the wire. The xs:dateTime text exactly as on the wire, never shifted to another time
   * zone.
   */
  At: string;
}`,
      },
      {
        name: "an int scalar result is number",
        given: [
          [
            "result: { kind: scalar, type: long, doc: The item id. }",
            "result: { kind: scalar, type: int, doc: The item id. }",
          ],
        ],
        declaration: "AddItemResult",
        want: `/** Result of AddItem: the item id. */
export type AddItemResult = number;`,
      },
      {
        name: "a required enum parameter is required",
        given: [
          [
            "{ name: color, type: string, rules: [color], default: red, doc: Color. }",
            "{ name: color, type: string, required: true, rules: [color], doc: Color. }",
          ],
        ],
        declaration: "AddItemParams",
        want: `/**
 * Parameters of AddItem. Adds an item.
 *
 * The credentials (user) are not part of it.
 */
export interface AddItemParams {
  /** Label. */
  label: string;
  /** Color. */
  color: "red" | "green";
  /** How many. A 32-bit whole number; values outside that range are refused. */
  quantity: number;
  /** A digit. A whole number from 0 to 9, as text. */
  digit?: string;
}`,
      },
    ],
  )("$name", async ({ given, declaration: name, want }) => {
    expect(declaration(await typesOf(smallSpecWith(...given)), name)).toBe(want);
  });
});
