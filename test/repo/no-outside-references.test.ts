// Everything a person needs is in the repository: no tracked file may name the reference folder the
// project was built from, which sits beside the checkout (its parent's "shared" folder) and which a clone
// does not have. What it says is told in our words in docs/ (wire.md, service-interface.md, spec.md).
// The needles are assembled at run time, so this file does not name the folder itself.

import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";

const ROOT = path.resolve(import.meta.dirname, "../..");
const FOLDER = "sha" + "red";
/**
 * Ways of naming that folder, or a file in it: by path, or by the short names its files went by in
 * citations (its wire reference, "wire" then "README.md", and its service page, "SERVICE" then ".md").
 */
const NEEDLES = [
  `../${FOLDER}`,
  `/work/${FOLDER}`,
  `${FOLDER}/wire/`,
  `${FOLDER}/seed/`,
  `${FOLDER}/DESIGN.md`,
  ["wire", "README.md"].join("/"),
  ["SERVICE", "md"].join("."),
];

/** `file:line: text` for every line of the files (paths relative to root) that holds a needle. */
function outsideReferences(root: string, files: readonly string[]): string[] {
  const hits: string[] = [];
  for (const file of files) {
    const text = readFileSync(path.join(root, file), "utf8");
    if (!NEEDLES.some((needle) => text.includes(needle))) continue;
    text.split("\n").forEach((line, i) => {
      if (NEEDLES.some((needle) => line.includes(needle))) hits.push(`${file}:${i + 1}: ${line.trim()}`);
    });
  }
  return hits;
}

describe("no tracked file names the reference folder outside the repository", () => {
  it("git ls-files: no line of any tracked file names it", () => {
    const files = execFileSync("git", ["ls-files", "-z"], {
      cwd: ROOT,
      encoding: "utf8",
      maxBuffer: 64 * 1024 * 1024,
    })
      .split("\0")
      .filter((file) => file !== "");
    // The listing is the repository's (CI's script, this test, the docs), not an empty or foreign one.
    expect(files).toEqual(
      expect.arrayContaining([".ci/run", "docs/wire.md", path.relative(ROOT, import.meta.filename)]),
    );
    expect(outsideReferences(ROOT, files)).toEqual([]);
  });

  const scratch = mkdtempSync(path.join(tmpdir(), "outside-refs-"));
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));

  it("finds every needle, and names the file and the line", () => {
    const lines = NEEDLES.map((needle, i) => `line ${i} cites ${needle}`);
    writeFileSync(path.join(scratch, "hits.ts"), ["// clean", ...lines, "// clean"].join("\n"));
    writeFileSync(path.join(scratch, "clean.md"), `docs/wire.md §1a, ${FOLDER} memory, ./${FOLDER}-state\n`);
    expect(outsideReferences(scratch, ["hits.ts", "clean.md"])).toEqual(
      lines.map((line, i) => `hits.ts:${i + 2}: ${line}`),
    );
  });
});
