// Names that pass the JSON Schema but would break the output, refused with the spec line (docs/spec.md "Names"):
// every wire name must be an XML NCName; an operation may not take a name the generated client uses
// (endpointUrl) or one a plain object cannot hold as its own (__proto__, constructor); a service may not take
// a name the generated modules declare or a global; record fields and DataSet column properties may not be
// Object.prototype names (results are plain objects); a credential's property must be a key the client's
// config does not use itself; the WSDL's elements must be distinct. Records and enums whose names are
// reserved are renamed instead (reserved-names.ts), and their renamed TypeScript names must still be unique.
// Runs only on a document that passed the schema.

import { CLIENT_CONFIG_KEYS } from "../runtime/client/core.js";
import { wireName } from "../runtime/model.js";
import type { Diagnostic } from "./diagnostic.js";
import { type LoadedSpec, type SpecPath, specReporter } from "./load.js";
import { SCALAR_TYPES } from "./normalize.js";
import {
  GLOBAL_NAMES,
  isIdentifier,
  isNCName,
  OBJECT_PROTOTYPE_NAMES,
  RESERVED_WORDS,
  typeScriptTypeName,
} from "./reserved-names.js";
import type { SpecDocument } from "./spec.js";
import { dataSetRowTypeName, operationTypeNames } from "./type-names.js";

/** Members of the generated client besides its operations. */
const CLIENT_MEMBERS: readonly string[] = ["endpointUrl"];

/** Operation names a plain object cannot hold as an own method, or a class cannot define as one. */
const OPERATION_REFUSED = new Set(["__proto__", "constructor"]);

/** What generated/server.ts and generated/client.ts declare or import, which the service's name must not be. */
const MODULE_NAMES = new Set([
  "ServiceHandler",
  "CallContext",
  "createHandler",
  "createServer",
  "HandlersOf",
  "Operations",
  "NodeHandler",
  "FetchHandler",
  "ServerOptions",
  "TransportLimits",
  "CallEvent",
  "Received",
  "ServiceError",
  "ErrorCodes",
  "clientError",
  "createServiceCore",
  "createNodeHandler",
  "createFetchHandler",
  "serverBindings",
  "readXml",
  "readXmlDom",
  "serverModel",
  "docs",
  "createDocuments",
  "recordWriters",
  "Server",
  "CallContextOf",
  "ClientOptions",
  "ClientWithOptions",
  "ClientConfig",
  "ClientOptionsOf",
  "ClientWithOptionsOf",
  "ClientConfigOf",
  "ClientOf",
  "CallOptions",
  "ClientBindingFactory",
  "ClientPlatform",
  "createClientCore",
  "createAnyBindingClientCore",
  "bindOperations",
  "standard",
  "browser",
  "clientBinding",
  "service",
  "operations",
  "createClient",
  "createClientWith",
  "soap11",
  "soap12",
  "httpGet",
  "httpPost",
  "ClientCallError",
  "ServiceFaultError",
  "SoapFaultError",
  "HttpBindingError",
  "ResponseFormatError",
  "TransportError",
  "TimeoutError",
  "ResponseTooLargeError",
  "RedirectError",
  "ErrorCode",
  "FaultSide",
]);

/** The root element names the HTTP bindings may answer with besides records: .NET's scalar type names. */
const SCALAR_ELEMENTS: ReadonlySet<string> = new Set<string>([...SCALAR_TYPES, "DataSet"]);

export function validateNames(spec: LoadedSpec, doc: SpecDocument): Diagnostic[] {
  const { diagnostics, report, where } = specReporter(spec);
  const ncName = (name: string, what: string, path: SpecPath, target?: "key" | "value"): void => {
    if (!isNCName(name))
      report(
        path,
        `${what} "${name}" is not an XML name (NCName), so it cannot be an element name on the wire`,
        target,
      );
  };

  const service = doc.service;
  const serviceName = service.name;
  ncName(serviceName, "service name", ["service", "name"]);
  if (RESERVED_WORDS.has(serviceName) || GLOBAL_NAMES.has(serviceName) || MODULE_NAMES.has(serviceName)) {
    report(
      ["service", "name"],
      `service name "${serviceName}" would name the generated server interface "${serviceName}", which is ${
        MODULE_NAMES.has(serviceName)
          ? "a name the generated modules use themselves"
          : "a reserved word or a global of JavaScript or TypeScript"
      }; choose another service name`,
    );
  }

  // Credentials: each property a usable config key, distinct from the others and from the client's own keys.
  const credentials = service.credentials ?? [];
  const properties = new Map<string, number>();
  const configKeys = new Set<string>(CLIENT_CONFIG_KEYS);
  const records = doc.records ?? {};
  credentials.forEach((credential, i) => {
    const path: SpecPath = ["service", "credentials", i];
    const property = credential.property ?? credential.name;
    const propertyPath: SpecPath =
      credential.property === undefined ? [...path, "name"] : [...path, "property"];
    const named =
      credential.property === undefined
        ? `credential "${credential.name}" (its property is its name)`
        : `property "${property}"`;
    if (!isIdentifier(property) || property === "__proto__") {
      report(
        propertyPath,
        `${named} is not a usable JavaScript property name; give the credential a \`property\``,
      );
    } else if (configKeys.has(property)) {
      report(
        propertyPath,
        `${named} is a key the client's config uses itself (${CLIENT_CONFIG_KEYS.join(", ")}); give the credential another \`property\``,
      );
    }
    const earlier = properties.get(property);
    if (earlier !== undefined) {
      report(
        propertyPath,
        `duplicate credential property "${property}" (first at ${where(["service", "credentials", earlier, "name"])})`,
      );
    } else {
      properties.set(property, i);
    }
    const type = String(credential.type);
    if (type.endsWith("[]") || Object.hasOwn(records, type)) {
      report(
        [...path, "type"],
        `credential "${credential.name}" is ${type}: credentials are scalars or enums (they travel on every binding)`,
      );
    }
  });

  // A credentials header: its fields are the config's credential keys, as credential properties are.
  const headerName = service.credentialsHeader;
  const header =
    headerName !== undefined && Object.hasOwn(records, headerName) ? records[headerName] : undefined;
  header?.fields.forEach((field, i) => {
    if (configKeys.has(field.name) || !isIdentifier(field.name) || field.name === "__proto__") {
      report(
        ["records", headerName!, "fields", i, "name"],
        `field "${field.name}" of the credentials header ${headerName} is a key of the client's config (one of its credentials), but ${configKeys.has(field.name) ? `the config uses it itself (${CLIENT_CONFIG_KEYS.join(", ")})` : "it is not a usable JavaScript property name"}; rename the field`,
      );
    }
  });

  const operations = doc.groups.flatMap((group, g) =>
    group.operations.map((op, o) => ({ op, path: ["groups", g, "operations", o] as SpecPath })),
  );
  credentials.forEach((credential, i) =>
    ncName(credential.name, "credential", ["service", "credentials", i, "name"]),
  );

  // Operations: names the client or a plain object needs, the WSDL's element names.
  const elements = new Map<string, string>();
  const element = (name: string, owner: string, path: SpecPath): void => {
    const first = elements.get(name);
    if (first === undefined) elements.set(name, `${owner} (at ${where(path)})`);
    else
      report(
        path,
        `the WSDL element "${name}" of ${owner} is also the element of ${first}; rename one of them`,
      );
  };
  for (const { op, path } of operations) {
    const namePath = [...path, "name"];
    ncName(op.name, "operation name", namePath);
    if (op.messageName !== undefined) ncName(op.messageName, "MessageName", [...path, "messageName"]);
    if (CLIENT_MEMBERS.includes(op.name)) {
      report(
        namePath,
        `operation name "${op.name}" is a member of the generated client (${serviceName}Client.${op.name}); rename the operation`,
      );
    } else if (OPERATION_REFUSED.has(op.name)) {
      report(
        namePath,
        `operation name "${op.name}" cannot be a method of the implementation or the client (a plain object or class cannot own it); rename the operation`,
      );
    }
    (op.params ?? []).forEach((param, i) => {
      ncName(param.name, "parameter", [...path, "params", i, "name"]);
      if (param.property !== undefined) {
        report(
          [...path, "params", i, "property"],
          `"property" is for credentials only; parameter "${param.name}" is an operation's own`,
        );
      }
    });
  }
  // Element names: each operation's request and response elements, and the HTTP answers' root elements.
  const seen = new Set<string>();
  for (const { op, path } of operations) {
    // A duplicate operation is reported once, as such, by validate-semantics.
    if (seen.has(op.name)) continue;
    seen.add(op.name);
    const wire = wireName(op);
    const at = [...path, op.messageName === undefined ? "name" : "messageName"];
    element(wire, `operation ${op.name}`, at);
    element(`${wire}Response`, `operation ${op.name}'s response`, at);
  }
  for (const { op, path } of operations) {
    if (SCALAR_ELEMENTS.has(wireName(op))) {
      report(
        [...path, op.messageName === undefined ? "name" : "messageName"],
        `operation name "${wireName(op)}" is the root element of a ${wireName(op)} answer on the HTTP bindings; rename the operation`,
      );
    }
  }
  const recordNames = Object.keys(records);
  const enums = (doc as { readonly enums?: Readonly<Record<string, unknown>> }).enums ?? {};
  // Records, enums and data sets are keys of the generated model's lookup objects, where __proto__ cannot be one.
  for (const [what, key, names] of [
    ["record", "records", recordNames],
    ["enum", "enums", Object.keys(enums)],
    ["data set", "dataSets", Object.keys(doc.dataSets ?? {})],
  ] as const) {
    for (const name of names) {
      if (name === "__proto__")
        report(
          [key, name],
          `${what} name "__proto__" cannot be a key of the generated model; rename the ${what}`,
          "key",
        );
    }
  }
  for (const name of recordNames) {
    ncName(name, "record name", ["records", name], "key");
    for (const [candidate, what] of [
      [name, `record ${name}`],
      [`ArrayOf${name}`, `the array of ${name}`],
    ] as const) {
      const clash = operations.find(
        ({ op }) => wireName(op) === candidate || `${wireName(op)}Response` === candidate,
      );
      if (clash) {
        report(
          ["records", name],
          `${what} is the WSDL element "${candidate}", which operation ${clash.op.name} (at ${where([...clash.path, "name"])}) also uses; rename one of them`,
          "key",
        );
      }
    }
    records[name]!.fields.forEach((field, i) => {
      const fieldPath = ["records", name, "fields", i, "name"];
      ncName(field.name, "field", fieldPath);
      if (OBJECT_PROTOTYPE_NAMES.has(field.name)) {
        report(
          fieldPath,
          `field "${field.name}" of record ${name} is a name every JavaScript object inherits; records are plain objects, so rename the field`,
        );
      }
    });
  }
  for (const name of Object.keys(enums)) ncName(name, "enum name", ["enums", name], "key");
  // The HTTP result roots of enums and arrays are WSDL elements too: an enum result answers <Color>, an array
  // result <ArrayOfColor>, <ArrayOfInt>, ... (records are checked above, with their arrays).
  const operationOf = (candidate: string) =>
    operations.find(({ op }) => wireName(op) === candidate || `${wireName(op)}Response` === candidate);
  for (const name of Object.keys(enums)) {
    for (const [candidate, what] of [
      [name, `enum ${name}`],
      [`ArrayOf${name}`, `the array of ${name}`],
    ] as const) {
      const clash = operationOf(candidate);
      if (clash) {
        report(
          ["enums", name],
          `${what} is the WSDL element "${candidate}" (the root of its result on the HTTP bindings), which operation ${clash.op.name} (at ${where([...clash.path, "name"])}) also uses; rename one of them`,
          "key",
        );
      }
    }
  }
  const arrayRoots = new Set<string>();
  for (const { op, path } of operations) {
    const type = (op.result as { readonly type?: unknown } | undefined)?.type;
    if (typeof type !== "string" || !type.endsWith("[]")) continue;
    const item = type.slice(0, -2);
    // Records and enums are checked with their declarations; here the arrays of scalars.
    if (Object.hasOwn(records, item) || Object.hasOwn(enums, item) || arrayRoots.has(item)) continue;
    arrayRoots.add(item);
    const candidate = `ArrayOf${item.charAt(0).toUpperCase()}${item.slice(1)}`;
    const clash = operationOf(candidate);
    if (clash) {
      report(
        [...path, "result", "type"],
        `the ${type} result of ${op.name} answers the WSDL element "${candidate}" on the HTTP bindings, which operation ${clash.op.name} (at ${where([...clash.path, "name"])}) also uses; rename the operation`,
      );
    }
  }
  for (const [name, dataSet] of Object.entries(doc.dataSets ?? {})) {
    ncName(dataSet.dataSetName, "DataSet name", ["dataSets", name, "dataSetName"]);
    ncName(dataSet.table, "table name", ["dataSets", name, "table"]);
    dataSet.columns.forEach((column, i) => {
      if (column.name !== undefined) ncName(column.name, "column", ["dataSets", name, "columns", i, "name"]);
      if (OBJECT_PROTOTYPE_NAMES.has(column.property)) {
        report(
          ["dataSets", name, "columns", i, "property"],
          `column property "${column.property}" is a name every JavaScript object inherits; rows are plain objects, so choose another property`,
        );
      }
    });
  }

  // TypeScript names after renaming: a renamed record or enum must not meet another generated type name.
  const typeNames = new Map<string, string>();
  const typeName = (name: string, what: string, path: SpecPath, target?: "key" | "value"): void => {
    const first = typeNames.get(name);
    if (first === undefined) typeNames.set(name, `${what} (at ${where(path, target)})`);
    else
      report(
        path,
        `${what} is declared in TypeScript as "${name}", as is ${first}; rename one of them`,
        target,
      );
  };
  typeName(`${serviceName}Credentials`, "the credentials type", ["service", "name"]);
  for (const { op, path } of operations) {
    for (const name of Object.values(operationTypeNames(op.name)))
      typeNames.set(name, `a type of operation ${op.name} (at ${where([...path, "name"])})`);
  }
  for (const name of Object.keys(doc.dataSets ?? {}))
    typeNames.set(dataSetRowTypeName(name), `the row type of data set ${name}`);
  for (const name of recordNames) {
    const ts = typeScriptTypeName(name);
    // An unrenamed record meeting an operation's or a row's type name is validate-semantics' duplicate,
    // reported there; the credentials type is only known here.
    if (ts !== name || ts === `${serviceName}Credentials`)
      typeName(ts, `record ${name}`, ["records", name], "key");
    else if (!typeNames.has(ts)) typeNames.set(ts, `record ${name} (at ${where(["records", name], "key")})`);
  }
  for (const name of Object.keys(enums))
    typeName(typeScriptTypeName(name), `enum ${name}`, ["enums", name], "key");

  return diagnostics;
}
