// Validates a loaded spec: YAML syntax, then duplicate keys and the JSON Schema, then (on a document of the
// right shape, unknown properties aside) the semantic rules, reported together. Returns diagnostics sorted
// by position; never throws for user errors.

import { isMap, isScalar, isSeq } from "yaml";
import { compareDiagnostics, type Diagnostic } from "./diagnostic.js";
import type { LoadedSpec, Position, SpecPath } from "./load.js";
import type { SpecDocument } from "./spec.js";
import { validateAgainstSchema } from "./validate-schema.js";
import { validateNames } from "./validate-names.js";
import { validateSemantics } from "./validate-semantics.js";

export function validateSpec(spec: LoadedSpec): Diagnostic[] {
  // After the first syntax error the parser mostly reports consequences of it.
  if (spec.syntaxErrors.length > 0) return [spec.syntaxErrors[0]!];
  const schema = validateAgainstSchema(spec);
  const duplicates = duplicateKeys(spec);
  const shapeErrors = [...duplicates, ...schema.diagnostics];
  // The semantic checks read the document by its schema's shape: they run when it has that shape, which an
  // unknown property does not change, so such errors come in the same report as the semantic ones rather
  // than one round later. A duplicate key would: the parser keeps its last value, and the checks would
  // report what follows from losing the first.
  const diagnostics =
    schema.onlyUnknownProperties && duplicates.length === 0
      ? [
          ...shapeErrors,
          ...validateSemantics(spec, spec.value as SpecDocument),
          ...validateNames(spec, spec.value as SpecDocument),
        ]
      : shapeErrors;
  return dedupe(diagnostics.sort(compareDiagnostics));
}

const TOP_LEVEL_MAP_ENTRY: Readonly<Record<string, string>> = {
  rules: "rule",
  records: "record",
  dataSets: "data set",
};

/** The parser keeps the last of two equal keys, but a person almost always meant two different names. */
function duplicateKeys(spec: LoadedSpec): Diagnostic[] {
  const diagnostics: Diagnostic[] = [];
  const walk = (node: unknown, path: SpecPath): void => {
    if (isSeq(node)) {
      node.items.forEach((item, i) => walk(item, [...path, i]));
    } else if (isMap(node)) {
      const what = (path.length === 1 && TOP_LEVEL_MAP_ENTRY[String(path[0])]) || "key";
      const first = new Map<string, Position>();
      for (const pair of node.items) {
        if (!isScalar(pair.key) || !pair.key.range) continue;
        const name = String(pair.key.value);
        const at = spec.positionAt(pair.key.range[0]);
        const earlier = first.get(name);
        if (earlier) {
          const message = `duplicate ${what} "${name}" (first at ${earlier.line}:${earlier.col})`;
          diagnostics.push({ file: spec.file, ...at, message });
        } else {
          first.set(name, at);
        }
        walk(pair.value, [...path, name]);
      }
    }
  };
  walk(spec.document.contents, []);
  return diagnostics;
}

function dedupe(diagnostics: readonly Diagnostic[]): Diagnostic[] {
  const seen = new Set<string>();
  return diagnostics.filter((d) => {
    const key = `${d.line}:${d.col} ${d.message}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
