import { describe, expect, it } from "vitest";
import { formatFile, formatTypeScript } from "../../generator/format.js";

describe("formatTypeScript", () => {
  it("prints at width 110 with double quotes, semicolons and trailing commas", async () => {
    const long = `export const x = { ${Array.from({ length: 12 }, (_, i) => `key${i}: 'v${i}'`).join(", ")} }`;
    const formatted = await formatTypeScript(long);
    expect(formatted.startsWith('export const x = {\n  key0: "v0",\n')).toBe(true);
    expect(formatted.endsWith('  key11: "v11",\n};\n')).toBe(true);
    const fits = `export const y = ["${"a".repeat(88)}"];`;
    expect(fits).toHaveLength(110);
    expect(await formatTypeScript(fits)).toBe(`${fits}\n`);
    expect((await formatTypeScript(`export const y = ["${"a".repeat(89)}"];`)).split("\n")).toHaveLength(4);
  });

  it("gives the same bytes every time, also concurrently", async () => {
    const text = "export interface A { b?: string; c: number | null }\nexport type D = A[]";
    const results = await Promise.all(Array.from({ length: 5 }, () => formatTypeScript(text)));
    expect(new Set(results).size).toBe(1);
  });

  it("rejects text that does not parse", async () => {
    await expect(formatTypeScript("export const = ;")).rejects.toThrow(/^prettier: /);
  });
});

describe("formatFile", () => {
  it("formats emitted TypeScript only", async () => {
    expect((await formatFile({ path: "a.ts", content: "let a=1" })).content).toBe("let a = 1;\n");
    expect(
      (await formatFile({ path: "a.ts", content: "let a=1", copiedFrom: "templates/a.ts" })).content,
    ).toBe("let a=1");
    expect((await formatFile({ path: "a.md", content: "let a=1" })).content).toBe("let a=1");
  });
});
