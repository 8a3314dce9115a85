// generated/package.json, exactly: the folder's .ts files are ES modules wherever it is vendored.

import { describe, expect, it } from "vitest";
import { emitPackageJson } from "../../../generator/emit/package-json.js";

describe("emitPackageJson", () => {
  it("writes package.json exactly", () => {
    expect(emitPackageJson()).toEqual([
      {
        path: "package.json",
        content: '{\n  "type": "module"\n}\n',
        description:
          'Declares the folder ES modules (`"type": "module"`), for CommonJS projects that vendor it.',
      },
    ]);
  });
});
