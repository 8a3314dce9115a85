// A user error in a spec, located in the file. Printed as `spec/X.yaml:12:7 message`, the shape editors and
// CI logs turn into links.

export interface Diagnostic {
  /** The spec file as the user named it, relative to the working directory, forward slashes. */
  readonly file: string;
  /** 1-based. */
  readonly line: number;
  /** 1-based. */
  readonly col: number;
  readonly message: string;
}

export function formatDiagnostic(d: Diagnostic): string {
  return `${d.file}:${d.line}:${d.col} ${d.message}`;
}

export function compareDiagnostics(a: Diagnostic, b: Diagnostic): number {
  return a.line - b.line || a.col - b.col || (a.message < b.message ? -1 : a.message > b.message ? 1 : 0);
}
