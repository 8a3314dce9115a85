// HTTP GET: `GET {endpoint}/{Op}?p=v&...`, every parameter in the query string.

import type { BindingFactory } from "../protocol/binding.js";
import { createHttpBinding, type HttpVariant } from "../protocol/http.js";

export const httpGetVariant: HttpVariant = {
  binding: "httpGet",
  toRequest: (path, form) => ({ method: "GET", path, query: form, headers: {}, body: "" }),
  fromRequest: (request) => request.query,
};

export const createHttpGetBinding: BindingFactory = (service, options) => createHttpBinding(httpGetVariant, service, options);
