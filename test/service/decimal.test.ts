// Exact decimal text arithmetic (service/common/decimal.ts): SMS credits and prices never pass through a float.

import { describe, expect, it } from "vitest";
import {
  DecimalError,
  addDecimal,
  compareDecimal,
  formatDecimal,
  mulDecimal,
  normalizeDecimal,
  parseDecimal,
  subDecimal,
} from "../../service/common/decimal.ts";

describe("exact decimals", () => {
  it("parses to millionths and formats back to the shortest exact text", () => {
    expect(parseDecimal("12.5")).toBe(12_500_000n);
    expect(parseDecimal("0.000001")).toBe(1n);
    expect(parseDecimal("-3")).toBe(-3_000_000n);
    expect(formatDecimal(12_500_000n)).toBe("12.5");
    expect(formatDecimal(0n)).toBe("0");
    expect(formatDecimal(-1n)).toBe("-0.000001");
    expect(normalizeDecimal("007.100")).toBe("7.1");
    expect(normalizeDecimal("-0.0")).toBe("0");
    expect(normalizeDecimal("123456789012345678901234.999999")).toBe("123456789012345678901234.999999");
  });

  it.each([
    "",
    " 1",
    "1 ",
    "+1",
    "1e3",
    ".5",
    "5.",
    "1.0000001",
    "1,5",
    "0x10",
    "NaN",
    "Infinity",
    "--1",
    "1.2.3",
    "١",
  ])("refuses %j, naming what it is", (text) => {
    expect(() => parseDecimal(text, "--amount")).toThrow(DecimalError);
    expect(() => parseDecimal(text, "--amount")).toThrow(/--amount must be a decimal number/);
  });

  it("adds, subtracts and multiplies exactly where binary floats do not", () => {
    expect(0.1 + 0.2).not.toBe(0.3);
    expect(addDecimal("0.1", "0.2")).toBe("0.3");
    expect(subDecimal("0.3", "0.1")).toBe("0.2");
    expect(subDecimal("1", "1.000001")).toBe("-0.000001");
    expect(mulDecimal("0.1", 3)).toBe("0.3");
    expect(mulDecimal("0.07", 10)).toBe("0.7");
    expect(mulDecimal("99999999999999999999.999999", 1000n)).toBe("99999999999999999999999.999");
    let sum = "0";
    for (let i = 0; i < 1000; i++) sum = addDecimal(sum, "0.001");
    expect(sum).toBe("1");
    expect(() => mulDecimal("1", 1.5)).toThrow(DecimalError);
  });

  it("compares by value, not by text", () => {
    expect(compareDecimal("2", "10")).toBe(-1);
    expect(compareDecimal("1.50", "1.5")).toBe(0);
    expect(compareDecimal("-0.1", "-0.2")).toBe(1);
  });
});
