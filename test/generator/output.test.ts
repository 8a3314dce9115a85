import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { GeneratedFile } from "../../generator/generated-file.js";
import { compareOutput, readManifest, shortDiff, writeOutput } from "../../generator/output.js";
import { removeTempDirs, tempDir } from "./fixtures/index.js";

afterAll(removeTempDirs);

const manifest = (...files: string[]): GeneratedFile => ({
  path: "manifest.json",
  content: JSON.stringify({ files }),
});

describe("writeOutput", () => {
  it("writes files, then rewrites only what changed", () => {
    const out = tempDir();
    const files = [
      { path: "a.ts", content: "a\n" },
      { path: "sub/b.ts", content: "b\n" },
      manifest("a.ts", "sub/b.ts"),
    ];
    expect(writeOutput(out, files)).toEqual({ written: ["a.ts", "sub/b.ts", "manifest.json"], deleted: [] });
    expect(readFileSync(path.join(out, "sub/b.ts"), "utf8")).toBe("b\n");
    expect(writeOutput(out, [{ path: "a.ts", content: "A\n" }, ...files.slice(1)])).toEqual({
      written: ["a.ts"],
      deleted: [],
    });
  });

  it("deletes files the previous manifest listed and this run does not emit, and nothing else", () => {
    const out = path.join(tempDir(), "out");
    writeOutput(out, [
      { path: "keep.ts", content: "" },
      { path: "old/gone.ts", content: "" },
      manifest("keep.ts", "old/gone.ts", "../outside.ts"),
    ]);
    writeFileSync(path.join(out, "mine.txt"), "hand-written");
    writeFileSync(path.join(out, "..", "outside.ts"), "not ours");

    const summary = writeOutput(out, [{ path: "keep.ts", content: "" }, manifest("keep.ts")]);

    expect(summary.deleted).toEqual(["old/gone.ts"]);
    expect(existsSync(path.join(out, "old"))).toBe(false);
    expect(existsSync(path.join(out, "mine.txt"))).toBe(true);
    expect(existsSync(path.join(out, "..", "outside.ts"))).toBe(true);
    expect(readManifest(out)).toEqual(["keep.ts"]);
  });

  it("deletes nothing without a manifest, or with one that is not ours", () => {
    const out = tempDir();
    writeFileSync(path.join(out, "x.ts"), "");
    expect(writeOutput(out, [{ path: "a.ts", content: "" }]).deleted).toEqual([]);
    writeFileSync(path.join(out, "manifest.json"), '{"files": "x.ts"}');
    expect(writeOutput(out, [{ path: "a.ts", content: "" }]).deleted).toEqual([]);
    expect(existsSync(path.join(out, "x.ts"))).toBe(true);
  });
});

describe("compareOutput", () => {
  it("is empty when the folder is current", () => {
    const out = tempDir();
    const files = [{ path: "a.ts", content: "a\n" }, manifest("a.ts")];
    writeOutput(out, files);
    expect(compareOutput(out, files)).toEqual([]);
  });

  it("names stale, missing and extra files", () => {
    const out = tempDir();
    writeOutput(out, [
      { path: "a.ts", content: "one\ntwo\n" },
      { path: "old.ts", content: "" },
      manifest("a.ts", "old.ts"),
    ]);
    mkdirSync(path.join(out, "notes"));
    writeFileSync(path.join(out, "notes/mine.md"), "");

    const differences = compareOutput(out, [
      { path: "a.ts", content: "one\nTWO\n" },
      { path: "b.ts", content: "" },
      manifest("a.ts", "b.ts"),
    ]);

    expect(differences).toEqual([
      { kind: "stale", path: "a.ts", diff: "@@ line 2 @@\n one\n-two\n+TWO" },
      { kind: "missing", path: "b.ts" },
      { kind: "stale", path: "manifest.json", diff: expect.any(String) },
      { kind: "extra", path: "notes/mine.md", listed: false },
      { kind: "extra", path: "old.ts", listed: true },
    ]);
  });

  it("treats a folder that does not exist as every file missing", () => {
    expect(compareOutput(path.join(tempDir(), "nope"), [{ path: "a.ts", content: "" }])).toEqual([
      { kind: "missing", path: "a.ts" },
    ]);
  });
});

describe("shortDiff", () => {
  const cases = [
    { name: "one changed line", disk: "a\nb\nc", gen: "a\nB\nc", want: "@@ line 2 @@\n a\n-b\n+B" },
    { name: "inserted line", disk: "a\nc", gen: "a\nb\nc", want: "@@ line 2 @@\n a\n+b" },
    { name: "first line", disk: "x\ny", gen: "X\ny", want: "@@ line 1 @@\n-x\n+X" },
    {
      name: "capped",
      disk: "h\n1\n2\n3\n4\n5\n6\n7\n8",
      gen: "h\n",
      want: "@@ line 2 @@\n h\n-1\n-2\n-3\n-4\n-5\n-6\n-… 2 more lines\n+",
    },
  ];
  it.each(cases)("$name", ({ disk, gen, want }) => {
    expect(shortDiff(disk, gen)).toBe(want);
  });
});
