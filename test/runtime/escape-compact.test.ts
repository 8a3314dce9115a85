// escapeTextCompact (the SOAP client's parameter escaping) gives escapeText's text and refusals: on fixed
// cases and on random strings drawn from the characters that matter (markup, controls, surrogates, U+FFFE).

import { describe, expect, it } from "vitest";
import { escapeText, escapeTextCompact } from "../../runtime/xml/write.js";

const verdict = (escape: (s: string) => string, s: string): string => {
  try {
    return `ok ${escape(s)}`;
  } catch (error) {
    return `${(error as Error).name} ${(error as Error).message}`;
  }
};

const UNITS = [
  "a",
  "é",
  "&",
  "<",
  ">",
  '"',
  "'",
  "\r",
  "\n",
  "\t",
  "\u0000",
  "\u0008",
  "\u000b",
  "\u001f",
  " ",
  "\ud800",
  "\udbff",
  "\udc00",
  "\udfff",
  "\ufffd",
  "\ufffe",
  "\uffff",
  "\ud83d\ude00",
];

describe("escapeTextCompact", () => {
  it.each([
    "",
    "plain",
    "a & b < c > d",
    "\r\n\t",
    "x\u0000y",
    "\ud83d\ude00",
    "\ud800",
    "a\udc00",
    "\ud800\ud800\udc00",
    "\ud800\udc00\udc00",
    "<\ufffe",
    "&\uffff",
  ])("escapes %j as escapeText does", (s) => {
    expect(verdict(escapeTextCompact, s)).toBe(verdict(escapeText, s));
  });

  it("agrees with escapeText on 20,000 random strings", () => {
    let seed = 12345;
    const next = (n: number): number => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed % n;
    };
    for (let k = 0; k < 20_000; k++) {
      let s = "";
      for (let n = next(8); n > 0; n--) s += UNITS[next(UNITS.length)];
      expect(verdict(escapeTextCompact, s)).toBe(verdict(escapeText, s));
    }
  });
});
