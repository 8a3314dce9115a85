// Exact decimal arithmetic for SMS credits and prices. A value is a bigint count of millionths (six
// places, SCALE): text is parsed exactly (never through a binary float) and anything that is not a plain
// decimal numeral with at most six places is refused, never rounded. Sums and products of bigints are
// exact at any size, so a balance is the exact sum of its ledger.

/** Places after the decimal point every value is kept to. */
export const SCALE = 6;

const UNIT = 10n ** BigInt(SCALE);

/** Longest integer part accepted (a sanity bound for text that reaches the database). */
const MAX_INTEGER_DIGITS = 24;

const NUMERAL = new RegExp(`^(-?)(\\d{1,${MAX_INTEGER_DIGITS}})(?:\\.(\\d{1,${SCALE}}))?$`);

/** Text that is not an exact decimal numeral with at most six places. */
export class DecimalError extends Error {}

/**
 * The value of `text` in millionths. Accepts `12`, `12.5`, `-0.000001`, `007.10`; refuses empty text,
 * spaces, `+`, exponents, `.5`, `5.`, more than six places and anything else, with a DecimalError whose
 * message names `what`.
 */
export function parseDecimal(text: string, what = "value"): bigint {
  const match = NUMERAL.exec(text);
  if (match === null) {
    throw new DecimalError(
      `${what} must be a decimal number with at most ${SCALE} places (as 12 or 12.5), not "${text.slice(0, 40)}"`,
    );
  }
  const [, sign, whole, fraction = ""] = match;
  const value = BigInt(whole!) * UNIT + BigInt(fraction.padEnd(SCALE, "0"));
  return sign === "-" ? -value : value;
}

/** The shortest exact text of a value in millionths: `12.5`, `0`, `-0.000001`, `3` (no trailing zeros). */
export function formatDecimal(value: bigint): string {
  const negative = value < 0n;
  const magnitude = negative ? -value : value;
  const whole = magnitude / UNIT;
  const fraction = (magnitude % UNIT).toString().padStart(SCALE, "0").replace(/0+$/, "");
  return `${negative ? "-" : ""}${whole}${fraction === "" ? "" : `.${fraction}`}`;
}

/** The text as the canonical form formatDecimal gives (`12.50` → `12.5`); refuses what parseDecimal refuses. */
export function normalizeDecimal(text: string, what?: string): string {
  return formatDecimal(parseDecimal(text, what));
}

/** a + b, exactly. */
export function addDecimal(a: string, b: string): string {
  return formatDecimal(parseDecimal(a) + parseDecimal(b));
}

/** a − b, exactly. */
export function subDecimal(a: string, b: string): string {
  return formatDecimal(parseDecimal(a) - parseDecimal(b));
}

/** a × n for a whole number n (segments × price), exactly. */
export function mulDecimal(a: string, n: number | bigint): string {
  if (typeof n === "number" && !Number.isSafeInteger(n))
    throw new DecimalError(`multiplier must be a whole number, not ${n}`);
  return formatDecimal(parseDecimal(a) * BigInt(n));
}

/** −1, 0 or 1 as a is less than, equal to or greater than b. */
export function compareDecimal(a: string, b: string): -1 | 0 | 1 {
  const x = parseDecimal(a);
  const y = parseDecimal(b);
  return x < y ? -1 : x > y ? 1 : 0;
}
