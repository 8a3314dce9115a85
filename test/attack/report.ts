// The attack table: one row per attack with what was sent, what came back, the number measured, the
// target and whether it was met; details of failures listed under it.

export interface Row {
  readonly attack: string;
  readonly requests: number | string;
  readonly outcome: string;
  readonly measured: string;
  readonly target: string;
  readonly pass: boolean;
  /** Printed under the table when the row fails. */
  readonly details?: readonly string[];
}

export function formatTable(rows: readonly Row[]): string {
  const header = ["attack", "requests", "outcome", "measured", "target", "result"];
  const cells = rows.map((r) => [
    r.attack,
    String(r.requests),
    r.outcome,
    r.measured,
    r.target,
    r.pass ? "PASS" : "FAIL",
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...cells.map((c) => c[i].length)));
  const line = (c: readonly string[]) =>
    c
      .map((v, i) => v.padEnd(widths[i]))
      .join("  ")
      .trimEnd();
  const out = [line(header), line(widths.map((w) => "-".repeat(w))), ...cells.map(line)];
  const failures = rows.filter((r) => !r.pass && r.details?.length);
  if (failures.length) {
    out.push("", "Failures:");
    for (const r of failures) {
      out.push(`- ${r.attack}:`);
      for (const d of r.details ?? []) out.push(`    ${d}`);
    }
  }
  return out.join("\n");
}

/** The same rows as a Markdown table (for docs/testing.md, "Attack suite"). */
export function formatMarkdown(rows: readonly Row[]): string {
  const esc = (s: string) => s.replace(/\|/g, "\\|");
  return [
    "| attack | requests | outcome | measured | target | result |",
    "|---|---:|---|---|---|---|",
    ...rows.map(
      (r) =>
        `| ${esc(r.attack)} | ${r.requests} | ${esc(r.outcome)} | ${esc(r.measured)} | ${esc(r.target)} | ${r.pass ? "pass" : "**FAIL**"} |`,
    ),
  ].join("\n");
}

export const ms = (n: number): string => `${n < 10 ? n.toFixed(1) : Math.round(n)} ms`;
export const mb = (n: number): string => `${Math.round(n)} MB`;
export const size = (bytes: number): string =>
  bytes < 1048576
    ? `${Math.round(bytes / 1024)} KB`
    : `${(bytes / 1048576).toFixed(bytes < 10 * 1048576 ? 1 : 0)} MB`;
