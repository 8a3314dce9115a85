import { describe, expect, it } from "vitest";
import { closest, didYouMean, editDistance } from "../../generator/suggest.js";
import { smallSpecWith, validateText } from "./fixtures/index.js";

describe("did you mean", () => {
  it("counts insertions, deletions, substitutions and swaps of neighbours as one edit each", () => {
    expect(editDistance("spec", "sepc")).toBe(1);
    expect(editDistance("spec", "spe")).toBe(1);
    expect(editDistance("spec", "spex")).toBe(1);
    expect(editDistance("spec", "xspec")).toBe(1);
    expect(editDistance("kitten", "sitting")).toBe(3);
    expect(editDistance("a", "abcdef", 2)).toBe(Infinity);
    expect(editDistance("x".repeat(65), "x".repeat(65))).toBe(Infinity);
  });

  it("suggests only a near name, ignoring case, never the word itself", () => {
    expect(closest("sepc", ["spec", "out", "config"])).toBe("spec");
    expect(closest("OUTT", ["spec", "out"])).toBe("out");
    expect(closest("Thing", ["string", "int"])).toBeUndefined();
    expect(closest("spec", ["spec"])).toBeUndefined();
    expect(didYouMean("credentails", ["credentials", "force"], (c) => `--${c}`)).toBe(
      " (did you mean --credentials?)",
    );
    expect(didYouMean("zzz", ["credentials"])).toBe("");
  });

  it("a mistyped rule name in a spec", () => {
    expect(
      validateText(
        smallSpecWith(["{ name: quantity, type: int,", "{ name: quantity, type: int, rules: [cuont],"]),
      ),
    ).toEqual([expect.stringMatching(/unknown rule "cuont" \(did you mean "count"\?\); defined rules: /)]);
  });
});
