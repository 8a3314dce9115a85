// Checks a spec document against spec/service.schema.json and words each ajv error for a person, located at
// the offending key or value.

import { readFileSync } from "node:fs";
import { Ajv, type ErrorObject } from "ajv";
import type { Diagnostic } from "./diagnostic.js";
import type { LoadedSpec, SpecPath } from "./load.js";
import { PACKAGE_FILES } from "./paths.js";
import { didYouMean, quoted } from "./suggest.js";

const SCHEMA_URL = PACKAGE_FILES.schema;

const IDENTIFIER_PATTERN = "^[A-Za-z_][A-Za-z0-9_]*$";

let compiled: ReturnType<Ajv["compile"]> | undefined;

function schemaValidator(): ReturnType<Ajv["compile"]> {
  if (!compiled) {
    const ajv = new Ajv({ allErrors: true, discriminator: true, verbose: true, strict: true });
    compiled = ajv.compile(JSON.parse(readFileSync(SCHEMA_URL, "utf8")) as object);
  }
  return compiled;
}

/**
 * The schema's diagnostics, and whether every one is an unknown property: then the document has the shape
 * the semantic checks read (they ignore keys they do not know), so they can run in the same pass.
 */
export function validateAgainstSchema(spec: LoadedSpec): {
  diagnostics: Diagnostic[];
  onlyUnknownProperties: boolean;
} {
  const validate = schemaValidator();
  if (validate(spec.value)) return { diagnostics: [], onlyUnknownProperties: true };
  const diagnostics: Diagnostic[] = [];
  const errors = validate.errors ?? [];
  for (const error of errors) {
    const diagnostic = describe(spec, error);
    if (diagnostic) diagnostics.push(diagnostic);
  }
  return {
    diagnostics,
    onlyUnknownProperties: errors.every((error) => error.keyword === "additionalProperties"),
  };
}

function describe(spec: LoadedSpec, error: ErrorObject): Diagnostic | undefined {
  const where = pointerToPath(error.instancePath);
  const label = labelOf(where);
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case "additionalProperties": {
      const name = String(params.additionalProperty);
      const allowed = Object.keys((error.parentSchema?.properties ?? {}) as object);
      const data = error.data as Record<string, unknown> | undefined;
      // `{ name: x, doc: Red, green }`: the comma ends the doc and "green" reads as a key without a value.
      const splitDoc =
        data !== undefined &&
        data[name] === null &&
        typeof data["doc"] === "string" &&
        allowed.includes("doc")
          ? `; if "${name}" is part of the doc text, quote the doc (doc: "…, ${name}"): in a { … } mapping a comma ends a value`
          : "";
      return spec.at(
        [...where, name],
        `unknown property "${name}"${didYouMean(name, allowed, quoted)}; expected one of: ${allowed.join(", ")}${splitDoc}`,
        "key",
      );
    }
    case "required":
      return spec.at(where, `missing required property "${String(params.missingProperty)}"`);
    case "type":
      return spec.at(
        where,
        `${label} must be ${withArticle(String(params.type))}, not ${typeName(error.data)}`,
      );
    case "enum":
      return spec.at(
        where,
        `${label} must be one of: ${(params.allowedValues as unknown[]).join(", ")} (not ${JSON.stringify(error.data)}${
          typeof error.data === "string"
            ? didYouMean(error.data, (params.allowedValues as unknown[]).map(String), quoted)
                .replace(/^ \(/, "; ")
                .replace(/\)$/, "")
            : ""
        })`,
      );
    case "discriminator": {
      if (params.error === "tag") return spec.at(where, `${label} must have a string "kind"`);
      const kinds = ((error.parentSchema?.oneOf ?? []) as { properties: { kind: { const: string } } }[]).map(
        (branch) => branch.properties.kind.const,
      );
      return spec.at(
        [...where, "kind"],
        `unknown kind ${JSON.stringify(params.tagValue)}${didYouMean(String(params.tagValue), kinds, quoted)}; expected one of: ${kinds.join(", ")}`,
      );
    }
    case "pattern": {
      // A propertyNames failure names the key; it comes with a summary "propertyNames" error we drop.
      const keyName = error.propertyName;
      const at: SpecPath = keyName === undefined ? where : [...where, keyName];
      const value = keyName ?? String(error.data);
      const reason =
        params.pattern === IDENTIFIER_PATTERN
          ? "is not a valid name: use letters, digits and underscores, starting with a letter or underscore"
          : `does not match /${String(params.pattern)}/`;
      return spec.at(
        at,
        `${keyName === undefined ? `${label} ` : ""}"${value}" ${reason}`,
        keyName ? "key" : "value",
      );
    }
    case "propertyNames":
    // A result's if/then/else picks the branch; the branch's own errors say what is wrong.
    case "if":
      return undefined;
    default:
      return spec.at(where, `${label} ${error.message ?? `fails ${error.keyword}`}`);
  }
}

/** "/groups/0/operations" → ["groups", 0, "operations"]. */
function pointerToPath(pointer: string): SpecPath {
  if (pointer === "") return [];
  return pointer
    .slice(1)
    .split("/")
    .map((segment) => segment.replace(/~1/g, "/").replace(/~0/g, "~"))
    .map((segment) => (/^(0|[1-9][0-9]*)$/.test(segment) ? Number(segment) : segment));
}

function labelOf(where: SpecPath): string {
  const last = where.at(-1);
  if (last === undefined) return "the document";
  return typeof last === "number" ? `item ${last + 1} of "${String(where.at(-2))}"` : `"${last}"`;
}

function typeName(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "a list";
  if (typeof value === "object") return "a map";
  return `${withArticle(typeof value)} (${JSON.stringify(value)})`;
}

function withArticle(type: string): string {
  const noun = type === "object" ? "map" : type === "array" ? "list" : type;
  return /^[aeiou]/.test(noun) ? `an ${noun}` : `a ${noun}`;
}
