// The known-failing list (test/conformance/known-failing.yaml): cases expected to fail, each with why.
// A listed case that passes fails the run, so the list cannot go stale silently.

import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { parse } from "yaml";
import type { ExpandedCase, Role } from "./cases.js";

export interface KnownFailing {
  /** `Op/binding/name` */
  readonly case: string;
  /** Both roles when absent. */
  readonly role?: Role;
  readonly why: string;
}

const KNOWN_FAILING_PATH = fileURLToPath(new URL("../known-failing.yaml", import.meta.url));

export function loadKnownFailing(path = KNOWN_FAILING_PATH): KnownFailing[] {
  const doc: unknown = parse(readFileSync(path, "utf8")) ?? [];
  if (!Array.isArray(doc)) throw new Error("known-failing.yaml: expected a list");
  return doc.map((entry: unknown, i) => {
    const e = entry as Partial<KnownFailing>;
    if (typeof e.case !== "string" || typeof e.why !== "string" || e.why.trim() === "") {
      throw new Error(`known-failing.yaml entry ${i + 1}: needs case and why`);
    }
    if (e.role !== undefined && e.role !== "client" && e.role !== "server")
      throw new Error(`known-failing.yaml entry ${i + 1}: role is client or server`);
    return { case: e.case, why: e.why, ...(e.role ? { role: e.role } : {}) };
  });
}

export function knownFailingEntry(
  list: readonly KnownFailing[],
  run: ExpandedCase,
): KnownFailing | undefined {
  return list.find((e) => e.case === run.path && (e.role === undefined || e.role === run.role));
}

/** Runs a case; a known-failing one must fail, and its passing is the failure. */
export async function runExpectingListed(
  entry: KnownFailing | undefined,
  body: () => Promise<void>,
): Promise<void> {
  if (!entry) return body();
  let passed = false;
  try {
    await body();
    passed = true;
  } catch {
    // Expected: the entry says why.
  }
  if (passed) throw new Error(`listed in known-failing.yaml (${entry.why}) but it passes: remove the entry`);
}
