// The request a case sends: the reference request, then the case's tampering (protocol failure cases).

import { envelopeNs, referenceRequest, soapParams, type ReferenceRequest } from "../reference/request.js";
import { escapeText } from "../reference/xml.js";
import type { RefBinding, RefOperation } from "../reference/spec.js";
import type { Tamper } from "./cases.js";

function isSoap(binding: RefBinding): binding is "soap11" | "soap12" {
  return binding === "soap11" || binding === "soap12";
}

function withAction(
  binding: "soap11" | "soap12",
  headers: Record<string, string>,
  action: string | undefined,
): void {
  if (binding === "soap11") {
    if (action === undefined) delete headers.soapaction;
    else headers.soapaction = `"${action}"`;
  } else {
    headers["content-type"] =
      `application/soap+xml; charset=utf-8${action === undefined ? "" : `; action="${action}"`}`;
  }
}

/**
 * Fills a body template: {env}, {ns}, {op}, {params}, {params:prefix}, {value:name} (the text sent for a
 * parameter, credentials and fixtures included, escaped), {nested:N} (N nested elements), {many:N} (N
 * sibling elements), {attributes:N} (N attributes, each with a leading space).
 */
function fillBody(
  template: string,
  op: RefOperation,
  binding: RefBinding,
  values: Record<string, string>,
): string {
  const env = isSoap(binding) ? envelopeNs(binding) : "";
  return template.replace(
    /\{(env|ns|op|params|params:\w+|value:\w+|nested:\d+|many:\d+|attributes:\d+)\}/g,
    (_m, key: string) => {
      if (key === "env") return env;
      if (key.startsWith("value:")) return escapeText(values[key.slice(6)] ?? "");
      if (key === "ns") return op.namespace;
      if (key === "op") return op.name;
      if (key === "params") return soapParams(op, values);
      if (key.startsWith("params:")) {
        const prefix = key.slice(7);
        return soapParams(op, values).replace(/<(\/?)(\w+)/g, `<$1${prefix}:$2`);
      }
      const count = Number(key.slice(key.indexOf(":") + 1));
      if (key.startsWith("many:")) return "<e/>".repeat(count);
      if (key.startsWith("attributes:"))
        return Array.from({ length: count }, (_, i) => ` a${i}="1"`).join("");
      return "<d>".repeat(count) + "</d>".repeat(count);
    },
  );
}

function pad(request: ReferenceRequest, bytes: number): string {
  const missing = bytes - Buffer.byteLength(request.body, "utf8");
  if (missing <= 0) return request.body;
  if (request.headers["content-type"]?.startsWith("application/x-www-form-urlencoded")) {
    return `${request.body}&pad=${"x".repeat(Math.max(0, missing - 5))}`;
  }
  return request.body + " ".repeat(missing);
}

export function caseRequest(
  op: RefOperation,
  binding: RefBinding,
  values: Record<string, string>,
  omit: readonly string[],
  tamper: Tamper | undefined,
): ReferenceRequest {
  const target = tamper?.operationName ? { ...op, name: tamper.operationName } : op;
  const request = referenceRequest(target, binding, values, { omit });
  if (!tamper) return request;
  const headers: Record<string, string> = { ...request.headers };
  if (isSoap(binding)) {
    if (tamper.noAction) withAction(binding, headers, undefined);
    else if (tamper.action !== undefined) withAction(binding, headers, tamper.action);
    else if (tamper.actionOf !== undefined) withAction(binding, headers, op.namespace + tamper.actionOf);
  }
  if (tamper.soapActionHeader !== undefined) headers.soapaction = tamper.soapActionHeader;
  if (tamper.contentType !== undefined) headers["content-type"] = tamper.contentType;
  let changed: ReferenceRequest = { ...request, headers, method: tamper.method ?? request.method };
  if (tamper.body !== undefined)
    changed = { ...changed, body: fillBody(tamper.body, target, binding, values) };
  if (tamper.form !== undefined) {
    const form = (reference: string) => (tamper.form ?? "").replaceAll("{params}", reference);
    changed =
      binding === "httpGet"
        ? { ...changed, query: form(changed.query) }
        : { ...changed, body: form(changed.body) };
  }
  if (tamper.padBodyTo !== undefined) changed = { ...changed, body: pad(changed, tamper.padBodyTo) };
  return changed;
}
