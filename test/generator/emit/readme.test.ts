// generated/README.md against a golden file: the small spec's model and the files of one emitter in, the
// exact Markdown out (vendoring steps, the file table with every file's description, the value mapping).
// UPDATE_GOLDEN=1 rewrites the golden file; review its diff.

import { existsSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { emitAll } from "../../../generator/emit/index.js";
import { emitReadme, README } from "../../../generator/emit/readme.js";
import { emitTypes } from "../../../generator/emit/types.js";
import { docsOf, modelOf, REPO, SMALL_TEXT } from "../fixtures/index.js";

const GOLDEN = path.join(import.meta.dirname, "golden", "README.md.golden");
const ctx = {
  docs: docsOf(SMALL_TEXT),
  specFile: "spec/small.yaml",
  templatesDir: path.join(REPO, "templates"),
  runtimeDir: path.join(REPO, "runtime"),
};

describe("emitReadme", () => {
  it("writes README.md for the small spec exactly as test/generator/emit/golden/README.md.golden", async () => {
    const files = await emitAll(modelOf(SMALL_TEXT), ctx, [{ name: "types", emit: emitTypes }]);
    const got = files.find((f) => f.path === README)!.content;
    if (process.env.UPDATE_GOLDEN === "1" || !existsSync(GOLDEN)) writeFileSync(GOLDEN, got);
    expect(got).toBe(readFileSync(GOLDEN, "utf8"));
  });

  it.each([
    ["a pipe", "a | b", "a \\| b"],
    ["a line break", "one\ntwo", "one two"],
  ])("keeps a file description with %s inside its table cell", (_what, description, want) => {
    const [readme] = emitReadme(modelOf(SMALL_TEXT), ctx, [{ path: "x.ts", content: "", description }]);
    expect(readme!.content.split("\n").filter((line) => line.startsWith("| `x.ts`"))).toEqual([
      `| \`x.ts\` | ${want} |`,
    ]);
  });

  it.each([
    [undefined, "soap11", "soap12", "`soap11`, `soap12`, `httpGet`, `httpPost`"],
    [["httpPost"], "httpPost", "httpPost", "`httpPost`"],
    [["soap11", "httpGet"], "soap11", "soap11", "`soap11`, `httpGet`"],
  ] as const)(
    "with bindings %j, the client examples use bindings the service offers",
    (bindings, client, browser, list) => {
      const model = { ...modelOf(SMALL_TEXT), bindings };
      const [readme] = emitReadme(model, ctx, []);
      const text = readme!.content;
      expect(text).toContain(`  binding: "${client}",`);
      expect(text).toContain(`import { browser, createClientWith, ${browser} } from`);
      expect(text).toContain(`const client = createClientWith(${browser}, {`);
      expect(text).toContain(`one of those ${model.name} offers: ${list}.`);
      for (const other of ["soap11", "soap12", "httpGet", "httpPost"].filter((b) => !list.includes(b))) {
        expect(text).not.toContain(`createClientWith(${other}`);
        expect(text).not.toContain(`binding: "${other}"`);
      }
    },
  );
});
