// What HTTP GET and HTTP POST share, client and server alike: the form content type and the root
// element of a result document. client/http.ts and server/http.ts hold the two halves; each variant
// module (client/http-get.ts, server/http-post.ts, ...) says where the parameters travel.

import type { ResultModel, TypeModel, BindingName } from "../model.js";

export const FORM_CONTENT_TYPE = "application/x-www-form-urlencoded";

export type HttpBindingName = Extract<BindingName, "httpGet" | "httpPost">;

/** The root element name of an HTTP result document (an XML result's root is the value itself: none). */
export function httpRootName(result: ResultModel): string {
  switch (result.kind) {
    case "scalar":
      return result.type;
    case "list":
      return `ArrayOf${result.record.name}`;
    case "record":
      return result.record.name;
    case "dataSet":
      return "DataSet";
    case "untypedDataSet":
      return result.dataTable === true ? "DataTable" : "DataSet";
    case "enum":
      return result.enum.name;
    case "array":
      return result.typeName;
    default:
      throw new TypeError(`a ${result.kind} result has no HTTP root element`);
  }
}

/**
 * Whether HTTP GET and HTTP POST carry the operation, as ASMX decides it: every parameter (credentials
 * included) is one its ScalarFormatter reads from a form field — a .NET primitive, string, decimal, DateTime
 * or enum, or an array of them (repeated fields). An operation with a record parameter (or an array of
 * records), a guid (or guid array) parameter or a nullable parameter is SOAP only, as ASMX leaves it off
 * its HttpGet/HttpPost bindings: absent from the HTTP bindings of the WSDL, refused there as an unknown
 * operation by the server, and refused with a TypeError by the client before anything is sent.
 */
export function offeredOnHttp(op: {
  readonly params: readonly { readonly type: TypeModel; readonly nullable?: boolean }[];
  readonly result?: { readonly kind: string };
}): boolean {
  // Out and ref parameters: ASMX's HTTP GET/POST protocols leave the method out.
  if (op.result?.kind === "response") return false;
  return op.params.every(
    (p) => p.nullable !== true && formReadable(p.type.kind === "array" ? p.type.item : p.type),
  );
}

/** Why HTTP GET/POST cannot carry the parameter (a record, a guid, a nullable value), or undefined when they can. */
export function notOnHttp(param: {
  readonly type: TypeModel;
  readonly nullable?: boolean;
}): string | undefined {
  if (param.nullable === true) return "a nullable parameter";
  const type = param.type.kind === "array" ? param.type.item : param.type;
  if (type.kind === "record") return "a record parameter";
  if (type.kind === "scalar" && type.type === "guid") return "a guid parameter";
  if (type.kind === "xml") return "an XML parameter";
  return undefined;
}

function formReadable(type: TypeModel): boolean {
  return (
    type.kind !== "record" &&
    type.kind !== "array" &&
    type.kind !== "xml" &&
    !(type.kind === "scalar" && type.type === "guid")
  );
}
