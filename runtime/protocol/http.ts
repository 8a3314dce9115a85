// What HTTP GET and HTTP POST share, client and server alike: the form content type and the root
// element of a result document. http-client.ts and http-server.ts hold the two halves; each variant
// module (http-get/, http-post/) says where the parameters travel.

import type { ResultModel } from "../model.js";
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
  }
}
