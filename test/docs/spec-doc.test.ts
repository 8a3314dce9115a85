// docs/spec.md cannot rot: every YAML block of it goes through the generator's loader, validator and
// normalizer. `yaml spec` is a whole spec that must be accepted; `yaml fragment` is merged into the page's
// smallest spec (its first `yaml spec` block) and must be accepted; `yaml refused` is such a fragment that
// must be refused with the message its first line gives (`# refused: …`). A YAML block with no mark fails.

import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { parse, stringify } from "yaml";
import { parseSpec } from "../../generator/load.js";
import { normalize } from "../../generator/normalize.js";
import type { SpecDocument } from "../../generator/spec.js";
import { validateSpec } from "../../generator/validate.js";

const PAGE = "docs/spec.md";
/** Extension modules named by the examples resolve next to the repository's spec. */
const SPEC_DIR = new URL("../../spec/", import.meta.url).pathname;

interface Block {
  readonly mark: string;
  readonly text: string;
  /** 1-based line of the block's first line of text in the page. */
  readonly line: number;
}

/** Every fenced block whose info string starts with `yaml`. */
function yamlBlocks(page: string): Block[] {
  const blocks: Block[] = [];
  const lines = page.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const open = /^```(\S*)\s*(.*)$/.exec(lines[i]!);
    if (!open) continue;
    const end = lines.indexOf("```", i + 1);
    if (end < 0) throw new Error(`${PAGE}:${i + 1}: a code block that never closes`);
    if (open[1] === "yaml")
      blocks.push({ mark: open[2]!.trim(), text: lines.slice(i + 1, end).join("\n"), line: i + 2 });
    i = end;
  }
  return blocks;
}

type Plain = Record<string, unknown>;
const isMap = (v: unknown): v is Plain => typeof v === "object" && v !== null && !Array.isArray(v);

/** The fragment's top-level maps merged key by key into the base (service too); `groups` replaces. */
function mergeFragment(base: Plain, fragment: Plain): Plain {
  const merged: Plain = { ...base };
  for (const [key, value] of Object.entries(fragment)) {
    merged[key] = key !== "groups" && isMap(value) && isMap(base[key]) ? { ...base[key], ...value } : value;
  }
  return merged;
}

function check(text: string, where: string) {
  const loaded = { ...parseSpec(text, where), dir: SPEC_DIR };
  const diagnostics = validateSpec(loaded).map((d) => d.message);
  return { loaded, diagnostics };
}

const page = readFileSync(new URL(`../../${PAGE}`, import.meta.url), "utf8");
const blocks = yamlBlocks(page);
const smallest = blocks.find((b) => b.mark === "spec");
if (!smallest) throw new Error(`${PAGE} has no \`yaml spec\` block`);
const base = parse(smallest.text) as Plain;

describe(`${PAGE}: every YAML example is checked by the generator`, () => {
  it("has examples of each mark, and no YAML block without a mark", () => {
    expect(
      blocks
        .filter((b) => !["spec", "fragment", "refused"].includes(b.mark))
        .map((b) => `${PAGE}:${b.line} \`yaml ${b.mark}\``),
    ).toEqual([]);
    const counts = (mark: string) => blocks.filter((b) => b.mark === mark).length;
    expect(counts("spec")).toBeGreaterThan(0);
    expect(counts("fragment")).toBeGreaterThan(5);
    expect(counts("refused")).toBeGreaterThan(5);
  });

  it.each(
    blocks
      .filter((b) => b.mark === "spec" || b.mark === "fragment")
      .map((b) => ({ ...b, at: `${PAGE}:${b.line}` })),
  )("$at ($mark) is accepted and normalizes", ({ mark, text, at }) => {
    const whole = mark === "spec" ? text : stringify(mergeFragment(base, parse(text) as Plain));
    const { loaded, diagnostics } = check(whole, at);
    expect(diagnostics).toEqual([]);
    const model = normalize(loaded.value as SpecDocument).model;
    expect(model.operations.length).toBeGreaterThan(0);
  });

  it.each(blocks.filter((b) => b.mark === "refused").map((b) => ({ ...b, at: `${PAGE}:${b.line}` })))(
    "$at is refused with the message it names",
    ({ text, at }) => {
      const first = /^# refused: (.+)$/.exec(text.split("\n")[0]!);
      expect(first, `${at}: the first line names the message, "# refused: …"`).not.toBeNull();
      const { diagnostics } = check(stringify(mergeFragment(base, parse(text) as Plain)), at);
      expect(
        diagnostics.some((d) => d.includes(first![1]!)),
        `${at}: got ${JSON.stringify(diagnostics)}`,
      ).toBe(true);
    },
  );
});

describe("the page reader", () => {
  it("finds yaml blocks with their marks and lines, and merges fragments as the page says", () => {
    const text = "# t\n\n```yaml spec\na: 1\n```\n\n```ts\nx\n```\n\n```yaml\nb: 2\n```\n";
    expect(yamlBlocks(text)).toEqual([
      { mark: "spec", text: "a: 1", line: 4 },
      { mark: "", text: "b: 2", line: 12 },
    ]);
    expect(
      mergeFragment(
        { service: { name: "A", doc: "d" }, groups: [1] },
        { service: { bindings: ["soap11"] }, groups: [2], rules: { r: {} } },
      ),
    ).toEqual({
      service: { name: "A", doc: "d", bindings: ["soap11"] },
      groups: [2],
      rules: { r: {} },
    });
  });
});
