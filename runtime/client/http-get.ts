// HTTP GET, the client half: `GET {endpoint}/{Op}?p=v&...`, every parameter in the query string.

import type { ClientBindingFactory } from "../protocol/binding.js";
import { createHttpClientBinding, type HttpClientVariant } from "./http.js";

const httpGetClientVariant: HttpClientVariant = {
  binding: "httpGet",
  toRequest: (path, form) => ({ method: "GET", path, query: form, headers: {}, body: "" }),
};

/** The HTTP GET client binding: `createClientWith(httpGet, config)`. */
export const httpGetClient: ClientBindingFactory = (service, options) =>
  createHttpClientBinding(httpGetClientVariant, service, options);
