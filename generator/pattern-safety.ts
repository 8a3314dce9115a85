// validate's check of a `pattern` rule: the regular expression must compile in the runtime's mode
// (JavaScript, unicode) and must not repeat a group that itself repeats without bound, the shape of
// catastrophic backtracking ((a+)+$ takes exponential time on "aaaa…!"). The runtime matches every value
// a caller sends against it, so a slow pattern would let one request hold the server.

/** Why the pattern cannot be used, in words, or undefined when it can. */
export function patternProblem(pattern: string): string | undefined {
  try {
    new RegExp(pattern, "u");
  } catch (error) {
    return `the pattern does not compile as a JavaScript regular expression (unicode mode): ${(error as Error).message}`;
  }
  return nestedQuantifier(pattern);
}

/**
 * Scans the pattern once: for each group, whether it contains an unbounded quantifier (*, +, {n,}); a
 * group that does and is itself followed by an unbounded quantifier is refused.
 */
function nestedQuantifier(pattern: string): string | undefined {
  /** Per open group: does it hold an unbounded quantifier? */
  const groups: boolean[] = [];
  let i = 0;
  const n = pattern.length;
  /** Whether the atom just read was a group holding an unbounded quantifier, and where it started. */
  let lastGroup: { unbounded: boolean } | undefined;
  const markUnbounded = (): void => {
    if (groups.length > 0) groups[groups.length - 1] = true;
  };
  while (i < n) {
    const c = pattern[i]!;
    if (c === "\\") {
      i += 2;
      lastGroup = undefined;
      continue;
    }
    if (c === "[") {
      // A character class: skip to its closing bracket (escapes inside included).
      i++;
      while (i < n && pattern[i] !== "]") i += pattern[i] === "\\" ? 2 : 1;
      i++;
      lastGroup = undefined;
      continue;
    }
    if (c === "(") {
      groups.push(false);
      i++;
      // (?:, (?=, (?!, (?<=, (?<!, (?<name>: the prefix is not an atom.
      if (pattern[i] === "?") {
        i++;
        if (pattern[i] === "<" && pattern[i + 1] !== "=" && pattern[i + 1] !== "!") {
          while (i < n && pattern[i] !== ">") i++;
        }
        i++;
      }
      lastGroup = undefined;
      continue;
    }
    if (c === ")") {
      const unbounded = groups.pop() ?? false;
      if (unbounded) markUnbounded();
      lastGroup = { unbounded };
      i++;
      continue;
    }
    const quantifier = readQuantifier(pattern, i);
    if (quantifier !== undefined) {
      if (quantifier.unbounded) {
        if (lastGroup?.unbounded) {
          return (
            `the pattern repeats a group that itself repeats without bound (as in (a+)+), which can take ` +
            `exponential time on some values; rewrite it without the nested repetition`
          );
        }
        markUnbounded();
      }
      i = quantifier.end;
      // A lazy or possessive marker after the quantifier.
      if (pattern[i] === "?") i++;
      lastGroup = undefined;
      continue;
    }
    lastGroup = undefined;
    i++;
  }
  return undefined;
}

function readQuantifier(pattern: string, i: number): { unbounded: boolean; end: number } | undefined {
  const c = pattern[i];
  if (c === "*" || c === "+") return { unbounded: true, end: i + 1 };
  if (c === "?") return { unbounded: false, end: i + 1 };
  if (c !== "{") return undefined;
  const m = /^\{(\d+)(,(\d*))?\}/.exec(pattern.slice(i, i + 32));
  if (!m) return undefined;
  // {n,} is unbounded; a large bounded count ({1,1000}) backtracks like one.
  const unbounded = m[2] !== undefined && (m[3] === "" || Number(m[3]) > 100);
  return { unbounded, end: i + m[0].length };
}
