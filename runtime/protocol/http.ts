// What HTTP GET and HTTP POST share, client and server alike: the form content type and the root
// element of a result document. http-client.ts and http-server.ts hold the two halves; each variant
// module (http-get/, http-post/) says where the parameters travel.

import type { ResultModel, TypeModel } from "../model.js";
import type { BindingName } from "./binding.js";

export const FORM_CONTENT_TYPE = "application/x-www-form-urlencoded";

export type HttpBindingName = Extract<BindingName, "httpGet" | "httpPost">;

/** The root element name of an HTTP result document. */
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
    case "enum":
      return result.enum.name;
    case "array":
      return result.typeName;
    default:
      throw new TypeError(`a ${result.kind} result has no HTTP root element`);
  }
}

/**
 * Whether HTTP GET and HTTP POST carry the operation: every parameter is a scalar, an enum or an array of
 * them (repeated fields), as ASMX's form readers take them. An operation with a record parameter (or an
 * array of records) is SOAP only: absent from the HTTP bindings of the WSDL, refused there as an unknown
 * operation by the server, and refused with a TypeError by the client before anything is sent.
 */
export function offeredOnHttp(op: { readonly params: readonly { readonly type: TypeModel }[] }): boolean {
  return op.params.every((p) => p.type.kind !== "record" && !(p.type.kind === "array" && p.type.item.kind === "record"));
}
