// The README is the front door and docs/ holds the detail (issue 22): the README stays at most 250 lines,
// and every relative link and #anchor of README.md and docs/*.md resolves, so a renamed heading or a moved
// page cannot leave a dead link behind. Every docs/ page a tracked file names (a code comment, a spec
// comment, a case file) exists, and a section it quotes after the path ("docs/spec.md "Names"") is a heading
// or a bold lead of that page. Each page says what it covers in its first paragraph, and no heading is
// pasted twice into one page.

import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { anchors, brokenLinks, citedSections, slug } from "../fixtures/markdown-links.js";

const ROOT = path.resolve(import.meta.dirname, "../..");
const README_MAX_LINES = 250;
/** README.md and every Markdown page of docs/ (its subfolders included), relative to the root. */
const PAGES = [
  "README.md",
  ...readdirSync(path.join(ROOT, "docs"), { recursive: true, encoding: "utf8" })
    .filter((file) => file.endsWith(".md"))
    .map((file) => path.join("docs", file))
    .sort(),
];

/** What a quoted section may name: a heading's text (backticks dropped, or the part before " (") or a bold lead. */
function pageSections(text: string): Set<string> {
  const names = new Set<string>();
  for (const line of text.split("\n")) {
    const heading = /^#{1,6}\s+(?:§?\d+[a-z]?\.\s+)?(.*?)\s*$/.exec(line);
    if (heading) {
      const name = heading[1]!.replaceAll("`", "");
      names.add(name);
      names.add(name.replace(/\s+\(.*$/, ""));
    }
    for (const m of line.matchAll(/\*\*([^*]+?)\.?\*\*/g)) names.add(m[1]!.replaceAll("`", ""));
  }
  return names;
}

describe("README.md and docs/", () => {
  it(`README.md has at most ${README_MAX_LINES} lines`, () => {
    const lines = readFileSync(path.join(ROOT, "README.md"), "utf8").replace(/\n$/, "").split("\n").length;
    expect(lines, `README.md has ${lines} lines; move the detail into a docs/ page`).toBeLessThanOrEqual(
      README_MAX_LINES,
    );
  });

  it("every relative link and #anchor of README.md and docs/**/*.md resolves", () => {
    expect(PAGES).toEqual(expect.arrayContaining(["README.md", "docs/wire.md", "docs/architecture.md"]));
    expect(brokenLinks(ROOT, PAGES)).toEqual([]);
  });

  it("every docs/ page a tracked file cites exists, and every section it quotes is in that page", () => {
    const files = execFileSync("git", ["ls-files", "-z"], {
      cwd: ROOT,
      encoding: "utf8",
      maxBuffer: 64 * 1024 * 1024,
    })
      .split("\0")
      .filter((file) => file !== "" && existsSync(path.join(ROOT, file)));
    const problems: string[] = [];
    let citations = 0;
    for (const file of files) {
      const text = readFileSync(path.join(ROOT, file));
      if (text.length > 4 * 1024 * 1024 || text.includes(0)) continue;
      for (const cite of citedSections(text.toString("utf8"))) {
        citations++;
        const where = `${file}:${cite.line}: ${cite.page}${cite.section === undefined ? "" : ` "${cite.section}"`}`;
        const page = path.join(ROOT, cite.page);
        if (!existsSync(page)) problems.push(`${where}: no such page`);
        else if (cite.section !== undefined && !pageSections(readFileSync(page, "utf8")).has(cite.section)) {
          problems.push(`${where}: no such heading or bold lead in ${cite.page}`);
        }
      }
    }
    expect(citations).toBeGreaterThan(50);
    expect(problems).toEqual([]);
  });

  it("the README links every page of docs/", () => {
    const readme = readFileSync(path.join(ROOT, "README.md"), "utf8");
    const top = readdirSync(path.join(ROOT, "docs")).filter((file) => file.endsWith(".md"));
    expect(top.filter((file) => !readme.includes(`](docs/${file})`))).toEqual([]);
  });

  it.each(PAGES.filter((page) => page.startsWith("docs/") && path.dirname(page) === "docs"))(
    "%s opens with a title and a paragraph saying what it covers",
    (page) => {
      const lines = readFileSync(path.join(ROOT, page), "utf8").split("\n");
      expect(lines[0]).toMatch(/^# \S/);
      expect(lines[1]).toBe("");
      expect(lines[2], `${page}: the first paragraph comes before any heading, list, table or code`).toMatch(
        /^(?!```|#|\||- |\s)./,
      );
    },
  );

  it.each(PAGES)("%s has each heading once (a bad edit once pasted a whole file into itself)", (page) => {
    const text = readFileSync(path.join(ROOT, page), "utf8");
    const headings: string[] = [];
    let fenced = false;
    for (const line of text.split("\n")) {
      if (line.startsWith("```")) fenced = !fenced;
      else if (!fenced && /^#{1,3} /.test(line)) headings.push(line);
    }
    const seen = new Set<string>();
    expect(headings.filter((h) => (seen.has(h) ? true : (seen.add(h), false)))).toEqual([]);
  });
});

describe("the link check", () => {
  const scratch = mkdtempSync(path.join(tmpdir(), "docs-links-"));
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));

  it("makes GitHub's slugs", () => {
    expect(slug('Decisions where the seed says "not shown"')).toBe("decisions-where-the-seed-says-not-shown");
    expect(slug("6a. Other types on the wire")).toBe("6a-other-types-on-the-wire");
    expect(slug("The conformance suite (`test/conformance/`)")).toBe("the-conformance-suite-testconformance");
    expect(slug("What is in `generated/`")).toBe("what-is-in-generated");
    expect([...anchors('# A\n## B\n## B\n```\n# not a heading\n```\n<a id="x"></a>\n')]).toEqual([
      "a",
      "b",
      "b-1",
      "x",
    ]);
  });

  it("finds cited pages and the sections quoted after them", () => {
    const text = [
      '// see docs/spec.md "Names", and docs/wire.md §9 (easgen docs/wire.md)',
      '# (docs/service.md, "Errors of the service") but not `docs/$' + "{name}.md` or mydocs/a.md",
    ].join("\n");
    expect(citedSections(text)).toEqual([
      { line: 1, page: "docs/spec.md", section: "Names" },
      { line: 1, page: "docs/wire.md" },
      { line: 1, page: "docs/wire.md" },
      { line: 2, page: "docs/service.md", section: "Errors of the service" },
    ]);
    const page = "# Title\n\n## 9. Deliberate differences\n### The suite (`test/x/`)\n- **Tracking.** …\n";
    const sections = pageSections(page);
    for (const name of ["Title", "Deliberate differences", "The suite (test/x/)", "The suite", "Tracking"]) {
      expect(sections.has(name), name).toBe(true);
    }
    expect(sections.has("Tracking links")).toBe(false);
  });

  it("names every broken link, anchor and escape, and passes the good ones", () => {
    writeFileSync(
      path.join(scratch, "a.md"),
      "# A page\n\n## Two words\n\nSee [b](b.md#real) and [self](#two-words).\n",
    );
    writeFileSync(path.join(scratch, "b.md"), "# Real\n");
    writeFileSync(
      path.join(scratch, "bad.md"),
      [
        "# Bad",
        "[gone](gone.md)",
        "[no anchor](a.md#one-word)",
        "[self](#nowhere)",
        "[out](../elsewhere.md)",
        "`[in code](gone.md)` and [web](https://example.com/x.md)",
        "```",
        "[in a block](gone.md)",
        "```",
      ].join("\n"),
    );
    expect(brokenLinks(scratch, ["a.md", "b.md"])).toEqual([]);
    expect(brokenLinks(scratch, ["bad.md"])).toEqual([
      "bad.md:2: gone.md: no such file",
      "bad.md:3: a.md#one-word: no heading with that anchor in a.md",
      "bad.md:4: #nowhere: no heading with that anchor in bad.md",
      "bad.md:5: ../elsewhere.md: leaves the folder",
    ]);
  });
});
