// The model (model.ts and server-model.ts), client and server emitters against golden files: the small spec (test/generator/fixtures/
// small.yaml) in, the exact formatted text out. UPDATE_GOLDEN=1 rewrites the golden files; review the diff.
// They are named *.ts.golden so that the type check (which cannot resolve their imports) leaves them out.

import { existsSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { emitClient } from "../../../generator/emit/client.js";
import { emitAll } from "../../../generator/emit/index.js";
import { emitModel } from "../../../generator/emit/model.js";
import { emitServer } from "../../../generator/emit/server.js";
import { docsOf, modelOf, REPO, SMALL_TEXT } from "../fixtures/index.js";

const GOLDEN = path.join(import.meta.dirname, "golden");

describe.each([
  { name: "model", emit: emitModel, file: "model.ts" },
  { name: "model", emit: emitModel, file: "server-model.ts" },
  { name: "client", emit: emitClient, file: "client.ts" },
  { name: "server", emit: emitServer, file: "server.ts" },
])("emit $name", ({ name, emit, file }) => {
  it(`writes ${file} for the small spec exactly as test/generator/emit/golden/${file}.golden`, async () => {
    const ctx = {
      docs: docsOf(SMALL_TEXT),
      specFile: "spec/small.yaml",
      templatesDir: path.join(REPO, "templates"),
      runtimeDir: path.join(REPO, "runtime"),
    };
    const files = await emitAll(modelOf(SMALL_TEXT), ctx, [{ name, emit }]);
    const got = files.find((f) => f.path === file)!.content;
    const golden = path.join(GOLDEN, `${file}.golden`);
    if (process.env.UPDATE_GOLDEN === "1" || !existsSync(golden)) writeFileSync(golden, got);
    expect(got).toBe(readFileSync(golden, "utf8"));
  });
});
