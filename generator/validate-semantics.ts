// Rules the JSON Schema cannot state: unique names, references that resolve, defaults that satisfy their
// rules, checks that name parameters of their operation, generated type names that do not collide.
// Runs only on a document that passed the schema, so it may trust the SpecDocument shape.

import { checkRule } from "../runtime/rules.js";
import type { Diagnostic } from "./diagnostic.js";
import type { LoadedSpec, SpecPath } from "./load.js";
import { ruleModel } from "./normalize.js";
import type { SpecDocument, SpecOperation, SpecParam, SpecRule } from "./spec.js";
import { dataSetRowTypeName, operationTypeNames, RESERVED_TYPE_NAMES } from "./type-names.js";

export function validateSemantics(spec: LoadedSpec, doc: SpecDocument): Diagnostic[] {
  const diagnostics: Diagnostic[] = [];
  const report = (path: SpecPath, message: string, target?: "key" | "value"): void => {
    diagnostics.push(spec.at(path, message, target));
  };
  const where = (path: SpecPath, target?: "key" | "value"): string => {
    const { line, col } = spec.positionOf(path, target);
    return `${line}:${col}`;
  };
  /** Reports every name after the first; returns nothing, the first occurrence stays valid. */
  const uniqueNames = (what: string, entries: readonly NamedAt[]): void => {
    const first = new Map<string, NamedAt>();
    for (const entry of entries) {
      const earlier = first.get(entry.name);
      if (earlier) {
        report(
          entry.path,
          `duplicate ${what} "${entry.name}" (first at ${where(earlier.path, earlier.target)})`,
          entry.target,
        );
      } else {
        first.set(entry.name, entry);
      }
    }
  };

  const rules = doc.rules ?? {};
  const records = doc.records ?? {};
  const dataSets = doc.dataSets ?? {};
  const credentials = doc.service.credentials ?? [];
  const operations = doc.groups.flatMap((group, g) =>
    group.operations.map((op, o) => ({ op, path: ["groups", g, "operations", o] as SpecPath })),
  );

  uniqueNames(
    "group",
    doc.groups.map((group, g) => ({ name: group.name, path: ["groups", g, "name"] })),
  );
  uniqueNames(
    "operation",
    operations.map(({ op, path }) => ({ name: op.name, path: [...path, "name"] })),
  );
  uniqueNames(
    "credential",
    credentials.map((p, i) => ({ name: p.name, path: ["service", "credentials", i, "name"] })),
  );

  for (const [name, rule] of Object.entries(rules)) {
    if (rule.kind === "intText" && rule.min > rule.max) {
      report(["rules", name, "min"], `rule "${name}": min ${rule.min} is greater than max ${rule.max}`);
    }
  }

  for (const [name, record] of Object.entries(records)) {
    uniqueNames(
      `field of record ${name}`,
      record.fields.map((field, i) => ({ name: field.name, path: ["records", name, "fields", i, "name"] })),
    );
  }

  for (const [name, dataSet] of Object.entries(dataSets)) {
    const columns = dataSet.columns.map((column, i) => ({
      column,
      path: ["dataSets", name, "columns", i] as SpecPath,
    }));
    uniqueNames(
      `column property of data set ${name}`,
      columns.map(({ column, path }) => ({ name: column.property, path: [...path, "property"] })),
    );
    const named = columns.filter(({ column }) => column.name !== undefined);
    uniqueNames(
      `column name of data set ${name}`,
      named.map(({ column, path }) => ({ name: column.name!, path: [...path, "name"] })),
    );
    for (const { column, path } of columns) {
      if ((column.name === undefined) === (column.nameFromParam === undefined)) {
        report(path, `column "${column.property}": give exactly one of "name" and "nameFromParam"`);
      }
    }
  }

  const checkParam = (param: SpecParam, path: SpecPath): void => {
    const valueType = param.type !== "string";
    if (valueType && param.required === false) {
      report(
        [...path, "required"],
        `"${param.name}" is ${param.type}: value types are always sent, so it cannot be optional`,
      );
    }
    if (param.default !== undefined) {
      if (valueType) {
        report(
          [...path, "default"],
          `"${param.name}" is ${param.type}: only string parameters take a default`,
        );
      } else if (param.required) {
        report([...path, "default"], `"${param.name}" is required, so a default would never apply`);
      }
    }
    const seen = new Set<string>();
    let enums = 0;
    for (const [i, ruleName] of (param.rules ?? []).entries()) {
      const rulePath = [...path, "rules", i];
      const rule = Object.hasOwn(rules, ruleName) ? rules[ruleName] : undefined;
      if (seen.has(ruleName)) report(rulePath, `rule "${ruleName}" is listed twice`);
      seen.add(ruleName);
      if (!rule) {
        report(
          rulePath,
          `unknown rule "${ruleName}"; defined rules: ${Object.keys(rules).join(", ") || "none"}`,
        );
        continue;
      }
      if (valueType) {
        report(rulePath, `"${param.name}" is ${param.type}: rules apply to string parameters only`);
      }
      if (rule.kind === "enum" && ++enums === 2) {
        report(rulePath, `"${param.name}" has more than one enum rule`);
      }
      const problem =
        param.default !== undefined && !valueType ? defaultProblem(param.default, param.name, ruleName, rule) : undefined;
      if (problem) report([...path, "default"], `default "${param.default}" fails rule "${ruleName}": ${problem}`);
    }
  };

  credentials.forEach((param, i) => checkParam(param, ["service", "credentials", i]));

  for (const { op, path } of operations) {
    const params = op.params ?? [];
    const credentialNames = new Set(credentials.map((p) => p.name));
    params.forEach((param, i) => {
      const paramPath = [...path, "params", i];
      if (credentialNames.has(param.name)) {
        const c = credentials.findIndex((p) => p.name === param.name);
        report(
          [...paramPath, "name"],
          `parameter "${param.name}" duplicates a service credential (at ${where(["service", "credentials", c, "name"])}); credentials are added to every operation`,
        );
      }
      checkParam(param, paramPath);
    });
    uniqueNames(
      `parameter of ${op.name}`,
      params.map((p, i) => ({ name: p.name, path: [...path, "params", i, "name"] })),
    );
    checkChecks(op, path, new Set([...credentialNames, ...params.map((p) => p.name)]), report);
    checkResult(op, path, doc, report);
  }

  const typeNames: NamedAt[] = [];
  for (const name of Object.keys(records)) typeNames.push({ name, path: ["records", name], target: "key" });
  for (const name of Object.keys(dataSets)) {
    typeNames.push({ name: dataSetRowTypeName(name), path: ["dataSets", name], target: "key" });
  }
  const named = new Set<string>();
  for (const { op, path } of operations) {
    // A duplicate operation is reported once, as such, not again for its type names.
    if (named.has(op.name)) continue;
    named.add(op.name);
    for (const name of Object.values(operationTypeNames(op.name)))
      typeNames.push({ name, path: [...path, "name"] });
  }
  const reserved = new Set<string>(RESERVED_TYPE_NAMES);
  for (const { name, path, target } of typeNames) {
    if (reserved.has(name))
      report(path, `the generated type name "${name}" is reserved by the generator`, target);
  }
  uniqueNames("generated type name", typeNames);

  return diagnostics;
}

interface NamedAt {
  readonly name: string;
  readonly path: SpecPath;
  readonly target?: "key" | "value";
}

type Report = (path: SpecPath, message: string, target?: "key" | "value") => void;

function checkChecks(
  op: SpecOperation,
  opPath: SpecPath,
  paramNames: ReadonlySet<string>,
  report: Report,
): void {
  for (const [i, check] of (op.checks ?? []).entries()) {
    const path = [...opPath, "checks", i];
    const mustBeParam = (name: string, at: SpecPath): void => {
      if (!paramNames.has(name))
        report(at, `check ${check.kind} names "${name}", which is not a parameter of ${op.name}`);
    };
    switch (check.kind) {
      case "atLeastOne":
        check.params.forEach((name, j) => mustBeParam(name, [...path, "params", j]));
        break;
      case "ordered":
        mustBeParam(check.from, [...path, "from"]);
        mustBeParam(check.to, [...path, "to"]);
        if (check.from === check.to)
          report([...path, "to"], `check ordered compares "${check.to}" with itself`);
        break;
      case "demographicLists":
        mustBeParam(check.fields, [...path, "fields"]);
        mustBeParam(check.values, [...path, "values"]);
        if (check.fields === check.values)
          report(
            [...path, "values"],
            `check demographicLists uses "${check.values}" for both fields and values`,
          );
        break;
    }
  }
}

function checkResult(op: SpecOperation, opPath: SpecPath, doc: SpecDocument, report: Report): void {
  const result = op.result;
  const path = [...opPath, "result"];
  if (result.kind === "list" || result.kind === "record") {
    const known = Object.keys(doc.records ?? {});
    if (!known.includes(result.record)) {
      report(
        [...path, "record"],
        `unknown record "${result.record}"; defined records: ${known.join(", ") || "none"}`,
      );
    }
  } else if (result.kind === "dataSet") {
    const dataSets = doc.dataSets ?? {};
    const dataSet = Object.hasOwn(dataSets, result.dataSet) ? dataSets[result.dataSet] : undefined;
    if (!dataSet) {
      const known = Object.keys(dataSets);
      report(
        [...path, "dataSet"],
        `unknown data set "${result.dataSet}"; defined data sets: ${known.join(", ") || "none"}`,
      );
      return;
    }
    const params = op.params ?? [];
    for (const column of dataSet.columns) {
      if (column.nameFromParam === undefined) continue;
      const param = params.find((p) => p.name === column.nameFromParam);
      if (!param) {
        report(
          [...path, "dataSet"],
          `data set "${result.dataSet}" names column "${column.property}" after parameter "${column.nameFromParam}", which ${op.name} does not have`,
        );
      } else if (param.type !== "string") {
        report(
          [...path, "dataSet"],
          `data set "${result.dataSet}" names column "${column.property}" after "${param.name}", which is ${param.type}, not string`,
        );
      }
    }
  }
}

/** Why a default literal fails its rule, in the runtime's own words (the check the server runs), or undefined. */
function defaultProblem(value: string, paramName: string, ruleName: string, rule: SpecRule): string | undefined {
  return checkRule(ruleModel(ruleName, rule), paramName, value)?.message;
}
