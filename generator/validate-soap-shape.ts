// The rules of operations' `soap` shapes (spec.ts SpecSoapShape) the JSON Schema cannot state: a bare
// operation has no wrapper elements to rename and no DataSet result, bare operations sharing an element
// (the WSDL declares each once) give it one type, and no two operations share a SOAP action or a request
// element (the server routes by them).

import { wireName } from "../runtime/model.js";
import { soapActionOf } from "../runtime/protocol/soap.js";
import type { SpecPath } from "./load.js";
import type { SpecOperation } from "./spec.js";

type Report = (path: SpecPath, message: string) => void;
type Unique = (what: string, entries: readonly { name: string; path: SpecPath }[]) => void;

export function checkSoapShapes(
  operations: readonly { op: SpecOperation; path: SpecPath }[],
  serviceNs: string,
  report: Report,
  uniqueNames: Unique,
): void {
  if (!operations.some(({ op }) => op.soap !== undefined)) return;
  const actions: { name: string; path: SpecPath }[] = [];
  const requests: { name: string; path: SpecPath }[] = [];
  /** Bare messages' global elements, by `{ns}name`: the type the first operation gives each, and where. */
  const elements = new Map<string, { type: string; op: string }>();
  const element = (ns: string, name: string, type: string, op: string, at: SpecPath): void => {
    const key = `{${ns}}${name}`;
    const first = elements.get(key);
    if (first === undefined) elements.set(key, { type, op });
    else if (first.type !== type)
      report(
        at,
        `the bare element ${name} of ${op} is of type ${type}, but ${first.op} declares it of type ${first.type}: the WSDL declares one element of one type`,
      );
  };
  for (const { op, path } of operations) {
    const soap = op.soap ?? {};
    const ns = soap.namespace ?? serviceNs;
    const soapPath = [...path, "soap"];
    const bare = soap.parameterStyle === "bare";
    // The defaults derive from the operation's name on the wire (its MessageName, else its name).
    const wire = wireName(op);
    const wirePath = [...path, op.messageName === undefined ? "name" : "messageName"];
    for (const key of ["requestElement", "responseElement"] as const) {
      if (bare && soap[key] !== undefined)
        report(
          [...soapPath, key],
          `${op.name} is bare (parameterStyle bare): it has no wrapper element to name; remove ${key}`,
        );
    }
    if (bare) {
      (op.params ?? []).forEach((p, i) =>
        element(ns, p.name, `${p.type}${p.nullable ? "?" : ""}`, op.name, [...path, "params", i, "type"]),
      );
      const result = op.result;
      if (result?.kind === "dataSet")
        report(
          [...path, "result"],
          `${op.name} is bare (parameterStyle bare): a DataSet result is not supported in a bare message`,
        );
      else if (result !== undefined) {
        const type =
          result.kind === undefined
            ? `${result.type}${result.nullable ? "?" : ""}`
            : result.kind === "scalar"
              ? result.type
              : result.kind === "record"
                ? result.record
                : `${result.record}[]`;
        element(ns, soap.resultElement ?? `${wire}Result`, type, op.name, [...path, "result"]);
      }
    }
    actions.push({
      name: soap.action ?? soapActionOf(serviceNs, wire),
      path: soap.action === undefined ? wirePath : [...soapPath, "action"],
    });
    if (!bare)
      requests.push({
        name: `{${ns}}${soap.requestElement ?? wire}`,
        path: soap.requestElement === undefined ? wirePath : [...soapPath, "requestElement"],
      });
  }
  uniqueNames("SOAP action", actions);
  uniqueNames("request element", requests);
}
