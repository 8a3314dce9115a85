import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { GeneratedFile } from "../../generator/generated-file.js";
import {
  compareOutput,
  readManifest,
  sha256,
  unifiedDiff,
  verifyOutput,
  writeOutput,
} from "../../generator/output.js";
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
      { kind: "stale", path: "a.ts", diff: "@@ -1,2 +1,2 @@\n one\n-two\n+TWO" },
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

describe("unifiedDiff", () => {
  const lines = (n: number, from = 1): string =>
    Array.from({ length: n }, (_, i) => `line ${i + from}`).join("\n");
  const cases = [
    { name: "one changed line", disk: "a\nb\nc", gen: "a\nB\nc", want: "@@ -1,3 +1,3 @@\n a\n-b\n+B\n c" },
    { name: "inserted line", disk: "a\nc", gen: "a\nb\nc", want: "@@ -1,2 +1,3 @@\n a\n+b\n c" },
    { name: "first line", disk: "x\ny", gen: "X\ny", want: "@@ -1,2 +1,2 @@\n-x\n+X\n y" },
    {
      // The old first-to-last-difference diff showed this as 7 lines removed and 8 added.
      name: "one line inserted among lines that repeat",
      disk: "}\n}\n}\n}\n}\n}\nend",
      gen: "}\n}\n}\nx\n}\n}\n}\nend",
      want: "@@ -1,6 +1,7 @@\n }\n }\n }\n+x\n }\n }\n }",
    },
    {
      name: "two changes far apart: two hunks with three lines of context",
      disk: lines(20),
      gen: lines(20).replace("line 2\n", "line two\n").replace("line 18\n", "line eighteen\n"),
      want: [
        "@@ -1,5 +1,5 @@",
        " line 1",
        "-line 2",
        "+line two",
        " line 3",
        " line 4",
        " line 5",
        "@@ -15,6 +15,6 @@",
        " line 15",
        " line 16",
        " line 17",
        "-line 18",
        "+line eighteen",
        " line 19",
        " line 20",
      ].join("\n"),
    },
    {
      name: "capped at 40 lines",
      disk: lines(100),
      gen: lines(100, 1001),
      want: expect.stringMatching(/^@@ -1,100 \+1,100 @@\n(-line \d+\n){39}… 161 more diff lines$/),
    },
  ];
  it.each(cases)("$name", ({ disk, gen, want }) => {
    expect(unifiedDiff(`${disk}\n`, `${gen}\n`)).toEqual(want);
  });

  it("does not work out a diff of thousands of edits, and says so", () => {
    const started = performance.now();
    const text = unifiedDiff(lines(5000), lines(5000, 100_000));
    expect(text).toBe("@@ more than 500 lines differ; regenerate to see the file @@");
    console.log(`unifiedDiff of 5000 changed lines: ${Math.round(performance.now() - started)} ms`);
  });
});

describe(".easgenignore", () => {
  it("generate keeps and check skips what it names; it cannot hide a generated file", () => {
    const out = tempDir();
    writeOutput(out, [
      { path: "a.ts", content: "a\n" },
      { path: "old.ts", content: "" },
      manifest("a.ts", "old.ts"),
    ]);
    writeFileSync(path.join(out, ".easgenignore"), "# mine\nindex.ts\nnotes/\nold.ts\na.ts\n");
    writeFileSync(path.join(out, "index.ts"), 'export * from "./a.js";\n');
    mkdirSync(path.join(out, "notes"));
    writeFileSync(path.join(out, "notes/x.md"), "");
    writeFileSync(path.join(out, "stray.ts"), "");
    writeFileSync(path.join(out, "a.ts"), "changed by hand\n");

    const files = [{ path: "a.ts", content: "a\n" }, manifest("a.ts")];
    expect(compareOutput(out, files)).toEqual([
      { kind: "stale", path: "a.ts", diff: "@@ -1,1 +1,1 @@\n-changed by hand\n+a" },
      { kind: "stale", path: "manifest.json", diff: expect.any(String) },
      { kind: "extra", path: "stray.ts", listed: false },
    ]);
    // old.ts was listed by the previous manifest but is named in .easgenignore now: kept.
    expect(writeOutput(out, files)).toEqual({ written: ["a.ts", "manifest.json"], deleted: [] });
    for (const kept of ["index.ts", "notes/x.md", "old.ts", ".easgenignore"])
      expect(existsSync(path.join(out, kept))).toBe(true);
    expect(readFileSync(path.join(out, "a.ts"), "utf8")).toBe("a\n");
  });
});

describe("verifyOutput", () => {
  /** A folder as emit writes it: files and a manifest holding their hashes. */
  function folder(files: Record<string, string>): string {
    const out = tempDir();
    const paths = [...Object.keys(files), "manifest.json"].sort();
    const hashes = Object.fromEntries(
      Object.entries(files).map(([file, content]) => [file, sha256(content)]),
    );
    writeOutput(out, [
      ...Object.entries(files).map(([file, content]) => ({ path: file, content })),
      { path: "manifest.json", content: JSON.stringify({ files: paths, sha256: hashes }) },
    ]);
    return out;
  }

  it("passes an untouched folder and names every changed, missing and extra file", () => {
    const out = folder({ "a.ts": "a\n", "sub/b.ts": "b\n", "c.ts": "c\nc\n", "d.ts": "d\n" });
    expect(verifyOutput(out)).toEqual({ ok: true, files: 5, differences: [] });
    writeFileSync(path.join(out, "a.ts"), "A\n");
    rmSync(path.join(out, "sub/b.ts"));
    writeFileSync(path.join(out, "c.ts"), "c\r\nc\r\n");
    writeFileSync(path.join(out, "d.ts"), "D\r\n");
    writeFileSync(path.join(out, "index.ts"), "");
    writeFileSync(path.join(out, "kept.ts"), "");
    writeFileSync(path.join(out, ".easgenignore"), "kept.ts\n");
    expect(verifyOutput(out)).toEqual({
      ok: true,
      files: 5,
      differences: [
        { kind: "stale", path: "a.ts" },
        { kind: "stale", path: "c.ts", lineEndings: "only" },
        { kind: "stale", path: "d.ts", lineEndings: "also" },
        { kind: "extra", path: "index.ts", listed: false },
        { kind: "missing", path: "sub/b.ts" },
      ],
    });
  });

  it("refuses a folder without a manifest, a manifest without hashes, and one naming a path outside", () => {
    const out = tempDir();
    expect(verifyOutput(path.join(out, "nope"))).toEqual({ ok: false, problem: "no such folder" });
    expect(verifyOutput(out)).toMatchObject({
      ok: false,
      problem: expect.stringMatching(/^manifest\.json is missing/),
    });
    writeFileSync(path.join(out, "manifest.json"), JSON.stringify({ files: ["a.ts"] }));
    expect(verifyOutput(out)).toMatchObject({ ok: false, problem: expect.stringMatching(/holds no hashes/) });
    writeFileSync(
      path.join(out, "manifest.json"),
      JSON.stringify({ files: ["../x.ts"], sha256: { "../x.ts": sha256("") } }),
    );
    expect(verifyOutput(out)).toMatchObject({
      ok: false,
      problem: 'manifest.json lists "../x.ts", outside the folder',
    });
    writeFileSync(path.join(out, "manifest.json"), JSON.stringify({ files: ["a.ts"], sha256: {} }));
    expect(verifyOutput(out)).toMatchObject({ ok: false, problem: "manifest.json has no hash for a.ts" });
  });
});
