import { describe, expect, it } from "vitest";
import { displayPath, parseSpec, type SpecPath } from "../../generator/load.js";
import { SMALL_TEXT } from "./fixtures/index.js";

describe("parseSpec positions", () => {
  const spec = parseSpec(SMALL_TEXT, "spec/small.yaml");

  const cases: { given: SpecPath; target?: "key" | "value"; want: string }[] = [
    { given: [], want: "3:1" },
    { given: ["service", "name"], want: "4:9" },
    { given: ["service", "name"], target: "key", want: "4:3" },
    { given: ["service", "credentials", 0], want: "9:7" },
    { given: ["service", "credentials", 0, "doc"], want: "9:56" },
    { given: ["records", "Item"], target: "key", want: "21:3" },
    { given: ["records", "Item", "fields", 1, "type"], want: "25:30" },
    { given: ["groups", 0, "operations", 0, "params", 1, "default"], want: "42:67" },
    { given: ["groups", 0, "operations", 0, "params", 1, "rules", 0], want: "42:50" },
    { given: ["groups", 1, "operations", 0, "result", "dataSet"], want: "58:43" },
    // A missing path resolves to its deepest existing ancestor.
    { given: ["groups", 0, "operations", 1, "params"], want: "48:9" },
    { given: ["groups", 9, "name"], want: "35:3" },
  ];

  it.each(cases)("$given ($target) → $want", ({ given, target, want }) => {
    const { line, col } = spec.positionOf(given, target);
    expect(`${line}:${col}`).toBe(want);
  });

  it("builds diagnostics at a path", () => {
    expect(spec.at(["service", "endpoint"], "bad")).toEqual({
      file: "spec/small.yaml",
      line: 6,
      col: 13,
      message: "bad",
    });
  });

  it("keeps the plain data", () => {
    expect((spec.value as { service: { name: string } }).service.name).toBe("Shop");
    expect(spec.syntaxErrors).toEqual([]);
  });
});

describe("parseSpec syntax errors", () => {
  it("reports them with a position and no value", () => {
    const spec = parseSpec("service:\n  name: [Shop\n", "spec/broken.yaml");
    expect(spec.value).toBeUndefined();
    expect(spec.syntaxErrors.length).toBeGreaterThan(0);
    expect(spec.syntaxErrors[0]).toMatchObject({ file: "spec/broken.yaml", line: expect.any(Number) });
    expect(spec.syntaxErrors[0]!.message).toMatch(/^YAML: /);
  });

  it("does not stop at duplicate keys (validate reports them)", () => {
    const spec = parseSpec("a: 1\na: 2\n", "x.yaml");
    expect(spec.syntaxErrors).toEqual([]);
    expect(spec.value).toEqual({ a: 2 });
  });
});

describe("displayPath", () => {
  it("is relative to the working directory with forward slashes", () => {
    expect(displayPath("/repo/spec/A.yaml", "/repo")).toBe("spec/A.yaml");
    expect(displayPath("spec/A.yaml", "/repo")).toBe("spec/A.yaml");
  });
});
