// Delimited subscriber rows, read in one linear pass: one row per line (LF or CRLF), blank lines
// skipped. With quoting on (the comma delimiter), fields follow RFC 4180: a field that starts with a
// double quote runs to the closing quote, `""` inside it is one quote, and it may hold the delimiter and
// line breaks. The wire rule and the service read rows with this one reader, so they agree on lines.

export interface CsvRow {
  /** 1-based line of the text on which the row starts. */
  readonly line: number;
  readonly fields: string[];
}

export interface CsvProblem {
  readonly line: number;
  readonly problem: string;
}

/** The delimiter of a text: the first of the candidates to occur in its first non-blank line. */
export function detectDelimiter(text: string, candidates: readonly string[]): string | undefined {
  const start = text.search(/\S/);
  if (start < 0) return undefined;
  const end = text.indexOf("\n", start);
  const first = text.slice(start, end < 0 ? text.length : end);
  let best: string | undefined;
  let bestAt = Infinity;
  for (const candidate of candidates) {
    const at = first.indexOf(candidate);
    if (at >= 0 && at < bestAt) {
      best = candidate;
      bestAt = at;
    }
  }
  return best;
}

/**
 * Yields each non-blank row; yields a CsvProblem (and stops) at a quoted field that is never closed or
 * is followed by text other than a delimiter or line end.
 */
export function* readCsvRows(text: string, delimiter: string, quoting: boolean): Generator<CsvRow | CsvProblem> {
  const n = text.length;
  // Next delimiter and next line feed at or after i, each found by one forward scan that only moves
  // on: the pass stays linear even for lines with no delimiter at all.
  let nextDelimiter = -1;
  let nextLf = -1;
  const delimiterFrom = (from: number) => {
    if (nextDelimiter !== n && nextDelimiter < from) {
      nextDelimiter = text.indexOf(delimiter, from);
      if (nextDelimiter < 0) nextDelimiter = n;
    }
    return nextDelimiter;
  };
  const lfFrom = (from: number) => {
    if (nextLf !== n && nextLf < from) {
      nextLf = text.indexOf("\n", from);
      if (nextLf < 0) nextLf = n;
    }
    return nextLf;
  };
  let i = 0;
  let line = 1;
  while (i < n) {
    const rowLine = line;
    const fields: string[] = [];
    let blank = true;
    // One row: fields until a line end or the end of the text.
    for (;;) {
      if (quoting && text.charCodeAt(i) === 34 /* " */) {
        blank = false;
        const open = i + 1;
        let value = "";
        let from = open;
        for (;;) {
          const q = text.indexOf('"', from);
          if (q < 0) {
            yield { line: rowLine, problem: "a quoted field is never closed" };
            return;
          }
          value += text.slice(from, q);
          if (text.charCodeAt(q + 1) === 34) {
            value += '"';
            from = q + 2;
            continue;
          }
          i = q + 1;
          break;
        }
        for (let at = lfFrom(open); at < i; at = lfFrom(at + 1)) line++;
        fields.push(value);
        if (text.startsWith(delimiter, i)) {
          i += delimiter.length;
          continue;
        }
        if (text.charCodeAt(i) === 13 && text.charCodeAt(i + 1) === 10) i++;
        if (i < n && text.charCodeAt(i) !== 10) {
          yield { line, problem: "a quoted field is followed by text before the next delimiter" };
          return;
        }
        break;
      }
      const end = lfFrom(i);
      const at = delimiterFrom(i);
      if (at < end) {
        fields.push(text.slice(i, at));
        blank = false;
        i = at + delimiter.length;
        continue;
      }
      let value = text.slice(i, end);
      if (value.endsWith("\r")) value = value.slice(0, -1);
      if (value.trim() !== "") blank = false;
      fields.push(value);
      i = end;
      break;
    }
    if (i < n) {
      i++; // the line feed
      line++;
    }
    if (!blank) yield { line: rowLine, fields };
  }
}

export function isCsvProblem(item: CsvRow | CsvProblem): item is CsvProblem {
  return "problem" in item;
}
