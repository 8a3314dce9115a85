// HTTP POST, the client half: `POST {endpoint}/{Op}` with an application/x-www-form-urlencoded body.

import type { ClientBindingFactory } from "../protocol/binding.js";
import { createHttpClientBinding, type HttpClientVariant } from "./http.js";
import { FORM_CONTENT_TYPE } from "../protocol/http.js";

const httpPostClientVariant: HttpClientVariant = {
  binding: "httpPost",
  toRequest: (path, form) => ({
    method: "POST",
    path,
    query: "",
    headers: { "content-type": FORM_CONTENT_TYPE },
    body: form,
  }),
};

/** The HTTP POST client binding: `createClientWith(httpPost, config)`. */
export const httpPostClient: ClientBindingFactory = (service, options) =>
  createHttpClientBinding(httpPostClientVariant, service, options);
