// generated/README.md, from templates/generated-readme.md.hbs: how to vendor the folder, its files, the value
// mapping, and usage examples made from this spec's own first operation and credentials. It lists every file,
// so the pipeline calls it after the other emitters.

import { readFileSync } from "node:fs";
import path from "node:path";
import Handlebars from "handlebars";
import { type OperationModel, type ServiceModel, type SoapType, ALL_BINDINGS } from "../../runtime/model.js";
import { offeredOnHttp } from "../../runtime/protocol/http.js";
import type { GeneratedFile } from "../generated-file.js";
import type { EmitContext } from "./context.js";
import { VALUE_MAPPING } from "./value-mapping.js";

export const README = "README.md";
const TEMPLATE = "generated-readme.md.hbs";

export function emitReadme(
  model: ServiceModel,
  ctx: EmitContext,
  files: readonly GeneratedFile[],
): GeneratedFile[] {
  const handlebars = Handlebars.create();
  // Markdown, not HTML: escape only what would break a table cell.
  handlebars.registerHelper("cell", (text: unknown) =>
    String(text ?? "")
      .replace(/\|/g, "\\|")
      .replace(/\n/g, " "),
  );
  const template = handlebars.compile(readFileSync(path.join(ctx.templatesDir, TEMPLATE), "utf8"), {
    noEscape: true,
    strict: true,
  });
  const content = template({
    service: model.name,
    endpoint: model.endpoint,
    specFile: ctx.specFile,
    folderHint: kebab(model.name),
    ...examples(model),
    files: files.map((file) => ({ path: file.path, description: file.description ?? "" })),
    values: (Object.keys(VALUE_MAPPING) as SoapType[]).map((soapType) => {
      const { result, param, resultNote, paramNote } = VALUE_MAPPING[soapType];
      const rule = paramNote === resultNote ? resultNote : `${resultNote} Parameters: ${paramNote}`;
      return { soapType, result, param, rule };
    }),
  });
  return [{ path: README, content, description: "This file." }];
}

function kebab(name: string): string {
  return name
    .replace(/([a-z0-9])([A-Z])/g, "$1-$2")
    .replace(/([A-Z])([A-Z][a-z])/g, "$1-$2")
    .toLowerCase();
}

/** How deep example records nest before an empty object stands in (records cannot contain themselves). */
const MAX_EXAMPLE_DEPTH = 3;

interface Examples {
  /** `  user: "user",` lines for the client's options, one per credential; empty without credentials. */
  readonly credentialLines: readonly string[];
  /** The credentials inline (`user: "user", `), for the one-line browser example. */
  readonly credentialsInline: string;
  /** The operation the examples call and implement. */
  readonly operation: string;
  /** Its parameters as an object literal. */
  readonly callArgs: string;
  /** The server example's handler body lines: the credential check (if any) and the return. */
  readonly handlerLines: readonly string[];
  /** The bindings the service offers (spec `service.bindings`), as `soap11`, `soap12`, ... for the text. */
  readonly bindingList: string;
  /** The binding of the createClient example: one the service offers that carries the example operation. */
  readonly clientBinding: string;
  /** The binding of the createClientWith (browser) example, likewise; soap12 when offered. */
  readonly browserBinding: string;
}

/**
 * The bindings the examples use: among those the service offers, ones that carry the operation (HTTP GET/POST
 * leave out operations with record, guid or nullable parameters), preferring soap11 for createClient and
 * soap12 for the browser example, as the README did before services could choose their bindings.
 */
function exampleBindings(
  model: ServiceModel,
  op: OperationModel | undefined,
): Pick<Examples, "bindingList" | "clientBinding" | "browserBinding"> {
  const offered = model.bindings ?? ALL_BINDINGS;
  const carrying = offered.filter(
    (b) => b === "soap11" || b === "soap12" || op === undefined || offeredOnHttp(op),
  );
  const usable = carrying.length > 0 ? carrying : offered;
  const prefer = (...order: string[]): string => order.find((b) => usable.includes(b as never)) ?? usable[0]!;
  return {
    bindingList: offered.map((b) => `\`${b}\``).join(", "),
    clientBinding: prefer("soap11", "soap12", "httpPost", "httpGet"),
    browserBinding: prefer("soap12", "soap11", "httpPost", "httpGet"),
  };
}

/**
 * The README's examples from the spec itself: the first operation whose parameters are all simple (scalars,
 * enums, arrays of them), else the first operation; the credentials under their client-config properties.
 */
export function examples(model: ServiceModel): Examples {
  const operations = model.operations;
  const simple = operations.find((op) => op.params.every((p) => p.credential || isSimple(p.type)));
  const op = simple ?? operations[0];
  const credentials = (op?.params ?? []).filter((p) => p.credential);
  const property = (p: { name: string; property?: string }): string => p.property ?? p.name;
  const credentialLines = credentials.map(
    (p) => `  ${key(property(p))}: ${exampleValue(p.type, 0, property(p))},`,
  );
  const params = (op?.params ?? []).filter((p) => !p.credential);
  const callArgs =
    params.length === 0
      ? "{}"
      : `{ ${params.map((p) => `${key(p.name)}: ${exampleValue(p.type, 0, p.name, ruleExample(p.rules))}`).join(", ")} }`;
  const handlerLines: string[] = [];
  const first = credentials[0];
  if (first) {
    handlerLines.push(
      `if (context.credentials${access(property(first))} !== ${exampleValue(first.type, 0, property(first))}) {`,
      `  throw new ServiceError("InvalidCredentials", "The credentials are wrong.", { side: "client" });`,
      "}",
    );
  }
  const returned = op ? resultExample(op.result) : undefined;
  if (returned !== undefined) handlerLines.push(`return ${returned};`);
  return {
    credentialLines,
    credentialsInline: credentials
      .map((p) => `${key(property(p))}: ${exampleValue(p.type, 0, property(p))}, `)
      .join(""),
    operation: op?.name ?? "Operation",
    callArgs,
    handlerLines,
    ...exampleBindings(model, op),
  };
}

/** A type in the model: a TypeModel ({ kind, ... }) or, in older models, a SoapType name. */
type AnyType = unknown;

function kindOf(type: AnyType): { kind: string; [key: string]: unknown } {
  return typeof type === "string" ? { kind: "scalar", type } : (type as { kind: string });
}

function isSimple(type: AnyType): boolean {
  const t = kindOf(type);
  if (t.kind === "array") return isSimple(t["item"]);
  return t.kind === "scalar" || t.kind === "enum";
}

const FORMAT_EXAMPLES: Readonly<Record<string, string>> = {
  date: "2024-01-31",
  time: "12:00",
  dateTimeMinutes: "2024-01-31 12:00",
  dateTimeSeconds: "2024-01-31T12:00:00",
};

/** A string that passes the parameter's rules where one is easy to name (allowed values, formats, digits, URLs). */
function ruleExample(rules: readonly { kind: string }[] | undefined): readonly string[] | undefined {
  for (const rule of (rules ?? []) as readonly { kind: string; [key: string]: unknown }[]) {
    switch (rule.kind) {
      case "enum":
        return rule["values"] as readonly string[];
      case "format": {
        const example = FORMAT_EXAMPLES[String(rule["format"])];
        if (example !== undefined) return [example];
        break;
      }
      case "intText":
        return [String(rule["min"])];
      case "url":
        return ["https://example.com/"];
    }
  }
  return undefined;
}

/** A TypeScript literal of the type, as a caller passes it; `hint` names the value (a string's text). */
function exampleValue(type: AnyType, depth: number, hint: string, allowed?: readonly string[]): string {
  const t = kindOf(type);
  switch (t.kind) {
    case "scalar":
      return scalarExample(String(t["type"]), hint, allowed);
    case "enum": {
      const e = t["enum"] as { values?: readonly string[]; flags?: boolean } | undefined;
      const first = JSON.stringify(e?.values?.[0] ?? "");
      return e?.flags === true ? `[${first}]` : first;
    }
    case "array":
      return `[${exampleValue(t["item"], depth + 1, hint)}]`;
    case "record": {
      const record = t["record"] as { fields?: readonly { name: string; type: AnyType }[] } | undefined;
      const fields = record?.fields ?? [];
      if (depth >= MAX_EXAMPLE_DEPTH || fields.length === 0) return "{}";
      return `{ ${fields.map((f) => `${key(f.name)}: ${exampleValue(f.type, depth + 1, f.name)}`).join(", ")} }`;
    }
    case "xml":
      return `{ ns: "urn:example", local: ${JSON.stringify(hint)}, prefix: "", attrs: [], children: [], text: "" }`;
    default:
      return "undefined";
  }
}

function scalarExample(soapType: string, hint: string, allowed?: readonly string[]): string {
  switch (soapType) {
    case "string":
      return JSON.stringify(allowed?.[0] ?? hint);
    case "boolean":
      return "true";
    case "long":
    case "unsignedLong":
      return "1n";
    case "float":
    case "double":
      return "1.5";
    case "decimal":
      return '"1.5"';
    case "dateTime":
      return '"2024-01-31T12:00:00"';
    case "guid":
      return '"6f9619ff-8b86-d011-b42d-00c04fc964ff"';
    case "char":
      return '"A"';
    case "base64Binary":
      return "new Uint8Array([1, 2, 3])";
    default:
      return "1";
  }
}

/** What the server example returns for the result, or undefined for void and one-way operations. */
function resultExample(result: { kind: string; [key: string]: unknown } | undefined): string | undefined {
  if (result === undefined) return undefined;
  switch (result.kind) {
    case "void":
    case "oneWay":
      return undefined;
    case "scalar":
      return scalarExample(String(result["type"]), "text");
    case "enum":
    case "record":
    case "array":
      return exampleValue(
        result.kind === "array" ? { kind: "array", item: result["item"] } : result,
        0,
        "text",
      );
    case "list":
    case "dataSet":
      return "[]";
    case "untypedDataSet":
      return '{ dataSetName: "NewDataSet", tables: [] }';
    case "xml":
      return exampleValue(result, 0, "text");
    default:
      return undefined;
  }
}

/** A property key as written in an object literal. */
function key(name: string): string {
  return /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(name) ? name : JSON.stringify(name);
}

function access(name: string): string {
  return /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(name) ? `.${name}` : `[${JSON.stringify(name)}]`;
}
