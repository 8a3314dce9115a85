import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { emitRuntime } from "../../../generator/emit/runtime.js";
import { removeTempDirs, tempDir } from "../fixtures/index.js";

afterAll(removeTempDirs);

describe("emitRuntime", () => {
  it("copies runtime verbatim, keeping folders, skipping tests", () => {
    const templates = tempDir();
    const write = (relative: string, content: string): void => {
      mkdirSync(path.dirname(path.join(templates, relative)), { recursive: true });
      writeFileSync(path.join(templates, relative), content);
    };
    write("runtime/model.ts", "// The model. More words.\nexport {};\n");
    write("runtime/xml/tree.ts", "export const tree = 1;\n");
    write("runtime/xml/tree.test.ts", "test\n");
    write("runtime/.DS_Store", "x");
    write("other.hbs", "not runtime");

    const ctx = {
      docs: { doc: "", operations: {}, records: {}, dataSets: {} },
      specFile: "spec/x.yaml",
      templatesDir: templates,
      runtimeDir: path.join(templates, "runtime"),
    };
    expect(emitRuntime(undefined, ctx)).toEqual([
      {
        path: "runtime/model.ts",
        content: "// The model. More words.\nexport {};\n",
        copiedFrom: "runtime/model.ts",
        description: "The model.",
      },
      {
        path: "runtime/xml/tree.ts",
        content: "export const tree = 1;\n",
        copiedFrom: "runtime/xml/tree.ts",
      },
    ]);
  });
});
