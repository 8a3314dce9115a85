import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { FormatCache } from "../../generator/format-cache.js";
import { removeTempDirs, tempDir } from "./fixtures/index.js";

afterAll(removeTempDirs);

describe("FormatCache", () => {
  it("returns what was stored for the same input, across runs with the same fingerprint", () => {
    const file = path.join(tempDir(), "cache/prettier.json");
    const first = new FormatCache(file, "v1");
    expect(first.warm).toBe(false);
    expect(first.get("let a=1")).toBeUndefined();
    first.set("let a=1", "let a = 1;\n");
    first.save();

    const second = new FormatCache(file, "v1");
    expect(second.warm).toBe(true);
    expect(second.get("let a=1")).toBe("let a = 1;\n");
    expect(second.get("let b=1")).toBeUndefined();
  });

  it("ignores a cache written under another fingerprint", () => {
    const file = path.join(tempDir(), "prettier.json");
    const old = new FormatCache(file, "v1");
    old.set("x", "y");
    old.save();
    expect(new FormatCache(file, "v2").get("x")).toBeUndefined();
  });

  it("ignores a file it cannot read", () => {
    const file = path.join(tempDir(), "prettier.json");
    writeFileSync(file, "{ not json");
    expect(new FormatCache(file, "v1").warm).toBe(false);
  });

  it("keeps only the entries the last run used", () => {
    const file = path.join(tempDir(), "prettier.json");
    const first = new FormatCache(file, "v1");
    first.set("a", "A");
    first.set("b", "B");
    first.save();
    const second = new FormatCache(file, "v1");
    expect(second.get("a")).toBe("A");
    second.save();
    const entries = (JSON.parse(readFileSync(file, "utf8")) as { entries: object }).entries;
    expect(Object.values(entries)).toEqual(["A"]);
  });

  it("does not throw when it cannot write", () => {
    const blocker = path.join(tempDir(), "file");
    writeFileSync(blocker, "");
    const cache = new FormatCache(path.join(blocker, "sub/prettier.json"), "v1");
    cache.set("a", "A");
    expect(() => cache.save()).not.toThrow();
  });
});
