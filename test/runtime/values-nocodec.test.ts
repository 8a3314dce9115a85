// Without values-extra.ts registered (this module does not import it), a rare scalar type has no codec:
// parseValue and formatValue refuse it with a TypeError naming the type and what to register; the common
// types need nothing.

import { describe, expect, it } from "vitest";
import { formatValue, parseValue } from "../../runtime/codec/values.js";

describe("scalar codecs not registered", () => {
  it("refuse a rare type, naming it and the registration", () => {
    expect(() => parseValue("short", "1")).toThrow(
      "no codec for short: registerScalarCodecs(extraScalarCodecs) of values-extra.js",
    );
    expect(() => formatValue("guid", "x")).toThrow(TypeError);
    expect(parseValue("int", "7")).toBe(7);
    expect(formatValue("long", 5)).toBe("5");
  });
});
