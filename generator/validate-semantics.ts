// Rules the JSON Schema cannot state: unique names, references that resolve, defaults that satisfy their
// rules, checks that name parameters of their operation, generated type names that do not collide.
// Runs only on a document that passed the schema, so it may trust the SpecDocument shape.

import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { checkRule } from "../runtime/codec/rules.js";
import type { Diagnostic } from "./diagnostic.js";
import { type LoadedSpec, type SpecPath, specReporter } from "./load.js";
import { isScalarName, isXmlName, ruleModel, SCALAR_TYPES, XML_TYPES } from "./normalize.js";
import { patternProblem } from "./pattern-safety.js";
import {
  parseTypeRef,
  type SpecDocument,
  type SpecOperation,
  type SpecParam,
  type SpecRule,
} from "./spec.js";
import { dataSetRowTypeName, operationTypeNames, RESERVED_TYPE_NAMES } from "./type-names.js";
import { didYouMean, quoted } from "./suggest.js";
import { checkSoapShapes } from "./validate-soap-shape.js";

export function validateSemantics(spec: LoadedSpec, doc: SpecDocument): Diagnostic[] {
  const { diagnostics, report, where } = specReporter(spec);
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
  const enums = doc.enums ?? {};
  /** What a type reference names, or undefined (reported) when it names nothing. */
  const typeKind = (ref: string, path: SpecPath, owner: string): TypeKind | undefined => {
    const { base, array } = parseTypeRef(ref);
    if (base.endsWith("[]")) {
      report(path, `${owner}: arrays of arrays (${ref}) are not supported; hold the inner array in a record`);
      return undefined;
    }
    let kind: TypeKind["kind"] | undefined;
    if (isScalarName(base)) kind = "scalar";
    else if (isXmlName(base)) {
      kind = "xml";
      if (array) {
        report(
          path,
          `${owner}: arrays of ${base} (${ref}) are not supported; an XML value is one element (hold several in it)`,
        );
        return undefined;
      }
    } else if (Object.hasOwn(enums, base)) kind = "enum";
    else if (Object.hasOwn(records, base)) kind = "record";
    if (kind === "record" && records[base]!.choice === true && !array) {
      report(
        path,
        `${owner}: ${base} is a choice record (the items of a repeated choice): it can only be the item type of an array (${base}[])`,
      );
      return undefined;
    }
    if (kind === "record" && records[base]!.abstract === true) {
      report(
        path,
        `${owner}: ${base} is an abstract record (only a base of other records); a value of it is always of a derived type, which is not supported`,
      );
      return undefined;
    }
    if (kind === undefined) {
      const known = [...SCALAR_TYPES, ...XML_TYPES, ...Object.keys(enums), ...Object.keys(records)];
      report(
        path,
        `${owner}: unknown type "${base}"${didYouMean(base, known, quoted)}; a type is one of: ${known.join(", ")} (with [] for an array)`,
      );
      return undefined;
    }
    return { kind, base, array };
  };
  /** Reports `itemName` on a type that is not an array. */
  const checkItemName = (
    typed: { readonly type: string; readonly itemName?: string },
    path: SpecPath,
    owner: string,
  ): void => {
    if (typed.itemName !== undefined && !parseTypeRef(typed.type).array)
      report(
        [...path, "itemName"],
        `${owner} is ${typed.type}, not an array: itemName names the items of an array`,
      );
  };
  /**
   * Reports what breaks an xs:choice among fields or parameters: an alternative of a value type (always
   * sent) or nullable, alternatives of one choice apart, or (parameters) of different directions.
   */
  const checkChoices = (
    members: readonly {
      name: string;
      type: string;
      nullable?: boolean;
      choice?: string;
      direction?: string;
    }[],
    pathOf: (i: number) => SpecPath,
    owner: string,
  ): void => {
    const closed = new Set<string>();
    members.forEach((member, i) => {
      const previous = i > 0 ? members[i - 1]!.choice : undefined;
      if (previous !== undefined && previous !== member.choice) closed.add(previous);
      const choice = member.choice;
      if (choice === undefined) return;
      const path = [...pathOf(i), "choice"];
      if (closed.has(choice))
        report(
          path,
          `${owner}: the alternatives of choice ${choice} must be consecutive (${member.name} is apart)`,
        );
      const { base, array } = parseTypeRef(member.type);
      const valueType =
        !array &&
        (Object.hasOwn(enums, base) || (isScalarName(base) && base !== "string" && base !== "base64Binary"));
      if (valueType || member.nullable === true)
        report(
          path,
          `${owner}: ${member.name} is an alternative of choice ${choice}, so it is absent when another is present: it must be of a reference type (a record, string, byte array, array or XML value), not ${member.type}${member.nullable === true ? " (nullable)" : ""}`,
        );
      const first = members.find((m) => m.choice === choice)!;
      if ((first.direction ?? "in") !== (member.direction ?? "in"))
        report(path, `${owner}: the alternatives of choice ${choice} must have one direction`);
    });
  };
  /** Reports `nullable` on a type that is not a value type. */
  const checkNullable = (ref: string, nullable: boolean | undefined, path: SpecPath, owner: string): void => {
    if (!nullable) return;
    const kind = typeKind(ref, path, owner);
    if (kind === undefined) return;
    if (!isValueKind(kind)) {
      report(
        path,
        `${owner} is ${ref}, a reference type (null is already its absent value): only value types ` +
          `(numbers, boolean, dateTime, guid, char and enums) can be nullable`,
      );
    }
  };
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
    if (
      (rule.kind === "intText" || rule.kind === "length" || rule.kind === "range") &&
      rule.min !== undefined &&
      rule.max !== undefined &&
      rule.min > rule.max
    ) {
      report(["rules", name, "min"], `rule "${name}": min ${rule.min} is greater than max ${rule.max}`);
    }
    if (
      (rule.kind === "length" || rule.kind === "range") &&
      rule.min === undefined &&
      rule.max === undefined
    ) {
      report(["rules", name, "kind"], `rule "${name}" (${rule.kind}) needs min, max or both`);
    }
    if (rule.kind === "pattern") {
      const problem = patternProblem(rule.pattern);
      if (problem) report(["rules", name, "pattern"], `rule "${name}": ${problem}`);
    }
  }

  checkExtensions(spec, doc, report);

  for (const [name, e] of Object.entries(enums)) {
    if (isScalarName(name) || isXmlName(name))
      report(["enums", name], `enum "${name}" has the name of a scalar type`, "key");
    if (e.values.length === 0) report(["enums", name, "values"], `enum "${name}" has no values`);
    // A flags value is a list of names separated by blanks, so no name may hold one.
    if (e.flags === true)
      e.values.forEach((v, i) => {
        if (/[ \t\r\n]/.test(v))
          report(["enums", name, "values", i], `value "${v}" of the flags enum "${name}" holds a blank`);
      });
  }

  for (const [name, record] of Object.entries(records)) {
    if (isScalarName(name) || isXmlName(name))
      report(["records", name], `record "${name}" has the name of a scalar type`, "key");
    uniqueNames(
      `field of record ${name}`,
      record.fields.map((field, i) => ({ name: field.name, path: ["records", name, "fields", i, "name"] })),
    );
    if (record.base !== undefined) {
      if (!Object.hasOwn(records, record.base)) {
        report(
          ["records", name, "base"],
          `record ${name}: its base "${record.base}" is not a record${didYouMean(record.base, Object.keys(records), quoted)}`,
        );
      } else {
        // A field of the same name as one of the bases' (followed a bounded number of steps: a cycle of
        // bases is reported by reportRecordCycles).
        const inherited = new Map<string, string>();
        let at: string | undefined = record.base;
        for (let step = 0; at !== undefined && Object.hasOwn(records, at) && step < 64; step++) {
          for (const f of records[at]!.fields) if (!inherited.has(f.name)) inherited.set(f.name, at);
          at = at === name ? undefined : records[at]!.base;
        }
        record.fields.forEach((field, i) => {
          if (inherited.has(field.name))
            report(
              ["records", name, "fields", i, "name"],
              `field "${field.name}" of record ${name} is also a field of its base ${inherited.get(field.name)}`,
            );
        });
      }
    }
    record.fields.forEach((field, i) => {
      const path: SpecPath = ["records", name, "fields", i];
      const owner = `field "${field.name}" of record ${name}`;
      if (typeKind(field.type, [...path, "type"], owner) && field.nullable) {
        checkNullable(field.type, field.nullable, [...path, "nullable"], owner);
      }
      checkItemName(field, path, owner);
    });
    checkChoices(record.fields, (i) => ["records", name, "fields", i], `record ${name}`);
    if (record.choice === true) {
      if (record.base !== undefined || record.abstract === true)
        report(
          ["records", name, "choice"],
          `record ${name} is a choice record: it can have no base and not be abstract`,
        );
      record.fields.forEach((field, i) => {
        if (field.choice !== undefined)
          report(
            ["records", name, "fields", i, "choice"],
            `record ${name} is a choice record: its fields are its alternatives already`,
          );
      });
      checkChoices(
        record.fields.map((f) => ({ ...f, choice: name })),
        (i) => ["records", name, "fields", i],
        `record ${name}`,
      );
    }
  }
  reportRecordCycles(records, report);

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
    const kind = typeKind(param.type, [...path, "type"], `parameter "${param.name}"`);
    if (kind === undefined) return;
    const valueType = !(kind.kind === "scalar" && !kind.array && kind.base === "string");
    checkNullable(param.type, param.nullable, [...path, "nullable"], `parameter "${param.name}"`);
    checkItemName(param, path, `parameter "${param.name}"`);
    if (isValueKind(kind) && !param.nullable && param.required === false) {
      report(
        [...path, "required"],
        `"${param.name}" is ${param.type}: value types are always sent, so it cannot be optional (make it nullable instead)`,
      );
    }
    if (param.nullable && param.required === true) {
      report([...path, "required"], `"${param.name}" is nullable, so it cannot be required`);
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
          `unknown rule "${ruleName}"${didYouMean(ruleName, Object.keys(rules), quoted)}; defined rules: ${Object.keys(rules).join(", ") || "none"}`,
        );
        continue;
      }
      const numeric = kind.kind === "scalar" && !kind.array && NUMERIC_TYPES.has(kind.base);
      if (rule.kind === "range" ? !numeric : valueType) {
        report(
          rulePath,
          rule.kind === "range"
            ? `rule "${ruleName}" (range) applies to numeric parameters only; "${param.name}" is ${param.type}`
            : `rule "${ruleName}" (${rule.kind}) applies to string parameters only; "${param.name}" is ${param.type}`,
        );
      }
      if (rule.kind === "enum" && ++enums === 2) {
        report(rulePath, `"${param.name}" has more than one enum rule`);
      }
      const problem =
        param.default !== undefined && !valueType
          ? defaultProblem(param.default, param.name, ruleName, rule)
          : undefined;
      if (problem)
        report([...path, "default"], `default "${param.default}" fails rule "${ruleName}": ${problem}`);
    }
  };

  /** An out or ref parameter (`direction`): answered in the response element, after the result. */
  const checkDirection = (op: SpecOperation, param: SpecParam, path: SpecPath): void => {
    const direction = param.direction ?? "in";
    if (direction === "in") return;
    const at = [...path, "direction"];
    if (op.oneWay === true)
      report(at, `${op.name} is oneWay, so it answers nothing: parameter "${param.name}" can only be in`);
    if (op.result?.kind === "dataSet")
      report(at, `${op.name} returns a DataSet: out and ref parameters are not supported beside one`);
    if (param.name === `${op.name}Result`)
      report(
        [...path, "name"],
        `${direction} parameter "${param.name}" has the name of ${op.name}'s result element`,
      );
    if (
      direction === "out" &&
      (param.required !== undefined || param.default !== undefined || (param.rules?.length ?? 0) > 0)
    )
      report(
        at,
        `"${param.name}" is out (answered, never sent): required, default and rules do not apply to it`,
      );
  };

  credentials.forEach((param, i) => {
    checkParam(param, ["service", "credentials", i]);
    if (param.direction !== undefined && param.direction !== "in")
      report(
        ["service", "credentials", i, "direction"],
        `credential "${param.name}" is sent: it can only be in`,
      );
    if (isXmlName(parseTypeRef(param.type).base))
      report(
        ["service", "credentials", i, "type"],
        `credential "${param.name}" is ${param.type}: credentials are scalars or enums`,
      );
  });

  /** Reports a header record that is not a record of the spec. */
  const checkHeaderRecord = (record: string, path: SpecPath): boolean => {
    if (Object.hasOwn(records, record)) return true;
    report(
      path,
      `SOAP header "${record}" is not a record${didYouMean(record, Object.keys(records), quoted)}; a header holds a record of the spec's records`,
    );
    return false;
  };
  const credentialsHeader = doc.service.credentialsHeader;
  if (credentialsHeader !== undefined) {
    checkHeaderRecord(credentialsHeader, ["service", "credentialsHeader"]);
    if (credentials.length > 0)
      report(
        ["service", "credentialsHeader"],
        "credentialsHeader and credentials cannot be used together: the credentials come either in a header or as parameters",
      );
  }
  for (const { op, path } of operations) {
    const headers = op.headers ?? [];
    headers.forEach((header, i) => {
      const headerPath = [...path, "headers", i];
      checkHeaderRecord(header.record, [...headerPath, "record"]);
      if (header.required === true && header.direction === "out")
        report(
          [...headerPath, "required"],
          `header "${header.record}" of ${op.name} is out (answered by the server), so it cannot be required`,
        );
      if (header.record === credentialsHeader && header.direction === "out")
        report(
          [...headerPath, "direction"],
          `header "${header.record}" of ${op.name} is the credentials header, which the client sends: it cannot be out`,
        );
    });
    uniqueNames(
      `SOAP header of ${op.name}`,
      headers.map((h, i) => ({ name: h.record, path: [...path, "headers", i, "record"] })),
    );
    if (op.oneWay && headers.some((h) => h.direction !== "in"))
      report([...path, "headers"], `${op.name} is oneWay, so it answers nothing: its headers can only be in`);
  }

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
      checkDirection(op, param, paramPath);
    });
    uniqueNames(
      `parameter of ${op.name}`,
      params.map((p, i) => ({ name: p.name, path: [...path, "params", i, "name"] })),
    );
    checkChoices(params, (i) => [...path, "params", i], op.name);
    checkChecks(op, path, new Set([...credentialNames, ...params.map((p) => p.name)]), report);
    if (op.oneWay && op.result !== undefined) {
      report([...path, "result"], `${op.name} is oneWay, so it has no result: remove "result" or "oneWay"`);
    } else if (op.result !== undefined && op.result.kind === undefined) {
      const item = parseTypeRef(op.result.type).base;
      if (Object.hasOwn(records, item) && records[item]!.choice === true)
        report(
          [...path, "result", "type"],
          `result of ${op.name}: ${item} is a choice record, which only a parameter or field can hold (as ${item}[])`,
        );
      if (typeKind(op.result.type, [...path, "result", "type"], `result of ${op.name}`)) {
        checkNullable(
          op.result.type,
          op.result.nullable,
          [...path, "result", "nullable"],
          `the result of ${op.name}`,
        );
      }
    }
    checkResult(op, path, doc, report);
  }

  checkSoapShapes(operations, doc.service.namespace, report, uniqueNames);

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
      case "extension":
        check.params.forEach((name, j) => mustBeParam(name, [...path, "params", j]));
        break;
    }
  }
}

interface TypeKind {
  readonly kind: "scalar" | "enum" | "record" | "xml";
  readonly base: string;
  readonly array: boolean;
}

const NUMERIC_TYPES: ReadonlySet<string> = new Set([
  "float",
  "double",
  "decimal",
  "byte",
  "unsignedByte",
  "short",
  "unsignedShort",
  "int",
  "unsignedInt",
  "long",
  "unsignedLong",
]);

/** .NET value types: scalars but string and byte[], and enums; never arrays or records. */
function isValueKind(kind: TypeKind): boolean {
  if (kind.array || kind.kind === "record" || kind.kind === "xml") return false;
  return kind.kind === "enum" || (kind.base !== "string" && kind.base !== "base64Binary");
}

/**
 * A record may hold itself, directly or through others (ssrs's ModelItem holds ModelItem[]): every record
 * field may be absent, so such values are finite. Only a chain of bases may not come back to itself.
 */
function reportRecordCycles(records: NonNullable<SpecDocument["records"]>, report: Report): void {
  const reported = new Set<string>();
  for (const start of Object.keys(records)) {
    // Follows the bases (each record has one): a chain longer than the records comes back to itself.
    const chain = [start];
    let at = records[start]!.base;
    while (at !== undefined && Object.hasOwn(records, at) && chain.length <= Object.keys(records).length) {
      const loop = chain.indexOf(at);
      if (loop >= 0) {
        if (loop === 0 && !chain.some((name) => reported.has(name))) {
          chain.forEach((name) => reported.add(name));
          report(
            ["records", start, "base"],
            `record "${start}" extends itself: ${[...chain, start].join(" → ")}; bases may not form a cycle`,
          );
        }
        break;
      }
      chain.push(at);
      at = records[at]!.base;
    }
  }
}

function checkResult(op: SpecOperation, opPath: SpecPath, doc: SpecDocument, report: Report): void {
  const result = op.result;
  if (result === undefined || result.kind === undefined) return;
  const path = [...opPath, "result"];
  if (result.kind === "list" || result.kind === "record") {
    const known = Object.keys(doc.records ?? {});
    if (!known.includes(result.record)) {
      report(
        [...path, "record"],
        `unknown record "${result.record}"${didYouMean(result.record, known, quoted)}; defined records: ${known.join(", ") || "none"}`,
      );
    }
  } else if (result.kind === "dataSet" && result.dataSet !== undefined && result.dataTable === true) {
    report(
      [...path, "dataTable"],
      `dataTable is for an untyped DataTable result: leave out dataSet "${result.dataSet}" or dataTable`,
    );
  } else if (result.kind === "dataSet" && result.dataSet !== undefined) {
    const dataSets = doc.dataSets ?? {};
    const dataSet = Object.hasOwn(dataSets, result.dataSet) ? dataSets[result.dataSet] : undefined;
    if (!dataSet) {
      const known = Object.keys(dataSets);
      report(
        [...path, "dataSet"],
        `unknown data set "${result.dataSet}"${didYouMean(result.dataSet, known, quoted)}; defined data sets: ${known.join(", ") || "none"}`,
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
      } else if (param.type !== "string" || param.nullable) {
        report(
          [...path, "dataSet"],
          `data set "${result.dataSet}" names column "${column.property}" after "${param.name}", which is ${param.type}, not string`,
        );
      }
    }
  }
}

/** Why a default literal fails its rule, in the runtime's own words (the check the server runs), or undefined. */
function defaultProblem(
  value: string,
  paramName: string,
  ruleName: string,
  rule: SpecRule,
): string | undefined {
  // An extension's validator lives in a module validate does not run; the server checks the default then.
  if (rule.kind === "extension") return undefined;
  return checkRule(ruleModel(ruleName, rule), paramName, value)?.message;
}

/** Top-level statements that would make the extension module depend on something outside it. */
const MODULE_IMPORT_RE =
  /^\s*(?:import[\s{*"']|export\s+(?:type\s+)?(?:\*|\{[^}]*\})\s*from\b)|\brequire\s*\(|\bimport\s*\(/m;

/**
 * Rules and checks of kind extension need the top-level `extensions: { module }`: a file next to the spec
 * that exists, imports nothing (it is copied into the output alone) and exports every validator named.
 */
function checkExtensions(spec: LoadedSpec, doc: SpecDocument, report: Report): void {
  const uses: { readonly validator: string; readonly path: SpecPath }[] = [];
  for (const [name, rule] of Object.entries(doc.rules ?? {})) {
    if (rule.kind === "extension")
      uses.push({ validator: rule.validator, path: ["rules", name, "validator"] });
  }
  doc.groups.forEach((group, g) =>
    group.operations.forEach((op, o) =>
      (op.checks ?? []).forEach((check, c) => {
        if (check.kind === "extension") {
          uses.push({
            validator: check.validator,
            path: ["groups", g, "operations", o, "checks", c, "validator"],
          });
        }
      }),
    ),
  );
  if (doc.extensions === undefined) {
    for (const use of uses) {
      report(
        use.path,
        `extension validator "${use.validator}" needs the module that exports it: add extensions: { module: <file>.ts } at the top level`,
      );
    }
    return;
  }
  const file = path.resolve(spec.dir ?? path.dirname(spec.file), doc.extensions.module);
  if (!existsSync(file)) {
    report(
      ["extensions", "module"],
      `extension module ${doc.extensions.module} does not exist next to the spec`,
    );
    return;
  }
  const text = readFileSync(file, "utf8");
  if (MODULE_IMPORT_RE.test(text)) {
    report(
      ["extensions", "module"],
      `extension module ${doc.extensions.module} must not import anything (it is copied into the output alone)`,
    );
  }
  for (const use of uses) {
    const exported = new RegExp(
      `\\bexport\\s+(?:async\\s+)?(?:function\\s*\\*?\\s*|const\\s+)${use.validator}\\b`,
    );
    if (!exported.test(text)) {
      report(use.path, `extension module ${doc.extensions.module} exports no function ${use.validator}`);
    }
  }
}
