// "Did you mean …?" for a mistyped name: a command-line flag or command, a spec type, rule or property. One
// small edit distance (optimal string alignment: insertions, deletions, substitutions and swaps of two
// neighbours each cost 1), bounded by the lengths involved, so it is cheap on any input.

/** Names longer than this are not compared (no one mistypes a 65-character name into a near miss). */
const MAX_LENGTH = 64;

/** The edit distance between a and b, or Infinity when it exceeds `limit` (or a name is too long). */
export function editDistance(a: string, b: string, limit = Infinity): number {
  if (a.length > MAX_LENGTH || b.length > MAX_LENGTH) return Infinity;
  if (Math.abs(a.length - b.length) > limit) return Infinity;
  const rows: number[][] = [];
  for (let i = 0; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      if (i === 0) {
        row.push(j);
        continue;
      }
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let d = Math.min(rows[i - 1]![j]! + 1, row[j - 1]! + 1, rows[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        d = Math.min(d, rows[i - 2]![j - 2]! + 1);
      row.push(d);
    }
    rows.push(row);
  }
  const distance = rows[a.length]![b.length]!;
  return distance > limit ? Infinity : distance;
}

/**
 * The candidate closest to `word` (case ignored), when it is close enough to be a typo of it: at most one
 * edit for names up to 5 characters, two up to 10, three beyond. Undefined when none is.
 */
export function closest(word: string, candidates: Iterable<string>): string | undefined {
  const wanted = word.toLowerCase();
  const limit = wanted.length <= 5 ? 1 : wanted.length <= 10 ? 2 : 3;
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const candidate of candidates) {
    if (candidate === word) continue;
    const distance = editDistance(wanted, candidate.toLowerCase(), limit);
    if (distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  return best;
}

/** " (did you mean x?)" when a candidate is close to `word`, else "". `show` formats the candidate. */
export function didYouMean(
  word: string,
  candidates: Iterable<string>,
  show: (candidate: string) => string = (candidate) => candidate,
): string {
  const found = closest(word, candidates);
  return found === undefined ? "" : ` (did you mean ${show(found)}?)`;
}

/** A name as spec messages show it: in double quotes. */
export function quoted(name: string): string {
  return `"${name}"`;
}
