// Remembers prettier's output for each input, so a run whose emitted TypeScript has not changed (the usual
// `check`, or `generate` after editing one operation) skips most formatting. Entries are keyed by the
// SHA-256 of the input, under one fingerprint (prettier version and options); a file with another
// fingerprint, or one that cannot be read or written, is ignored. Output stays byte-identical: a hit returns
// exactly what prettier returned for the same input.

import { createHash } from "node:crypto";
import { mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import path from "node:path";

interface CacheFile {
  readonly fingerprint: string;
  readonly entries: Readonly<Record<string, string>>;
}

export class FormatCache {
  readonly #stored: ReadonlyMap<string, string>;
  /** Only the entries this run used are saved, so the file never grows past one run's output. */
  readonly #used = new Map<string, string>();

  constructor(
    readonly file: string,
    readonly fingerprint: string,
  ) {
    this.#stored = new Map(Object.entries(readCache(file, fingerprint)));
  }

  /** True when the cache file held entries for this fingerprint. */
  get warm(): boolean {
    return this.#stored.size > 0;
  }

  get(input: string): string | undefined {
    const key = keyOf(input);
    const output = this.#used.get(key) ?? this.#stored.get(key);
    if (output !== undefined) this.#used.set(key, output);
    return output;
  }

  set(input: string, output: string): void {
    this.#used.set(keyOf(input), output);
  }

  /** Writes this run's entries when they differ from the stored ones; a failure only costs speed. */
  save(): void {
    const unchanged =
      this.#used.size === this.#stored.size &&
      [...this.#used].every(([key, value]) => this.#stored.get(key) === value);
    if (unchanged) return;
    try {
      mkdirSync(path.dirname(this.file), { recursive: true });
      const temporary = `${this.file}.${process.pid}.tmp`;
      const content: CacheFile = { fingerprint: this.fingerprint, entries: Object.fromEntries(this.#used) };
      writeFileSync(temporary, JSON.stringify(content));
      renameSync(temporary, this.file);
    } catch {
      // A read-only checkout formats every time.
    }
  }
}

function readCache(file: string, fingerprint: string): Record<string, string> {
  try {
    const content = JSON.parse(readFileSync(file, "utf8")) as Partial<CacheFile>;
    return content.fingerprint === fingerprint && typeof content.entries === "object" && content.entries
      ? { ...content.entries }
      : {};
  } catch {
    return {};
  }
}

function keyOf(input: string): string {
  return createHash("sha256").update(input).digest("hex");
}
