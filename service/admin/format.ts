// How the admin CLI prints: aligned tables and key/value records for people, one JSON document for
// scripts. Text from the database (subjects, URLs, names given by API callers) is shown with its control
// characters escaped, so a stored value cannot move the cursor or recolour the admin's terminal.

/** A cell: text, a number (right-aligned), or nothing (printed as "-"). */
export type Cell = string | number | null | undefined;

/** Longest cell a table shows before cutting it with "…" (records and JSON show the whole value). */
const MAX_CELL = 60;

/** The text with control characters (C0, DEL, C1) written as \n, \t, \xNN or \u{NNNN}. */
export function printable(text: string): string {
  return text.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g, (c) => {
    if (c === "\n") return "\\n";
    if (c === "\r") return "\\r";
    if (c === "\t") return "\\t";
    const code = c.charCodeAt(0);
    return code <= 0xff ? `\\x${code.toString(16).padStart(2, "0")}` : `\\u{${code.toString(16)}}`;
  });
}

function cellText(cell: Cell, limit: number): string {
  if (cell === null || cell === undefined) return "-";
  const text = printable(String(cell));
  return text.length > limit ? `${text.slice(0, limit - 1)}…` : text;
}

/** An epoch-millisecond time as `2024-05-01 12:34:56Z` (UTC), or undefined. */
export function timeText(ms: number | null | undefined): string | undefined {
  if (ms === null || ms === undefined) return undefined;
  return new Date(ms)
    .toISOString()
    .replace("T", " ")
    .replace(/\.\d+Z$/, "Z");
}

/** An epoch-millisecond time as ISO 8601 for JSON, or null. */
export function timeJson(ms: number | null | undefined): string | null {
  return ms === null || ms === undefined ? null : new Date(ms).toISOString();
}

/**
 * Rows under upper-case headers, columns two spaces apart, numbers right-aligned; `empty` is printed
 * instead when there are no rows.
 */
export function table(headers: readonly string[], rows: readonly (readonly Cell[])[], empty: string): string {
  if (rows.length === 0) return `${empty}\n`;
  const texts = rows.map((row) => headers.map((_, i) => cellText(row[i], MAX_CELL)));
  const right = headers.map((_, i) =>
    rows.every((row) => typeof row[i] === "number" || row[i] === null || row[i] === undefined),
  );
  const widths = headers.map((h, i) => Math.max(h.length, ...texts.map((t) => t[i]!.length)));
  const line = (cells: readonly string[]) =>
    cells
      .map((c, i) => (right[i] ? c.padStart(widths[i]!) : i === cells.length - 1 ? c : c.padEnd(widths[i]!)))
      .join("  ")
      .trimEnd();
  return `${[line(headers.map((h) => h.toUpperCase())), ...texts.map(line)].join("\n")}\n`;
}

/** One record as `key:  value` lines, keys aligned; values are shown whole (escaped). */
export function record(fields: readonly (readonly [string, Cell])[]): string {
  const width = Math.max(...fields.map(([k]) => k.length)) + 1;
  return `${fields
    .map(([k, v]) => `${`${k}:`.padEnd(width)}  ${cellText(v, Number.MAX_SAFE_INTEGER)}`.trimEnd())
    .join("\n")}\n`;
}

/** One JSON document, two-space indented, with a final newline. */
export function jsonText(value: unknown): string {
  return `${JSON.stringify(value, null, 2)}\n`;
}
