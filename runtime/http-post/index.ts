// HTTP POST: `POST {endpoint}/{Op}` with an application/x-www-form-urlencoded body.

import { ErrorCodes, ServiceError } from "../errors.js";
import type { BindingFactory } from "../protocol/binding.js";
import { createHttpBinding, FORM_CONTENT_TYPE, type HttpVariant } from "../protocol/http.js";
import { oneLine } from "../safe-error.js";

export const httpPostVariant: HttpVariant = {
  binding: "httpPost",
  toRequest: (path, form) => ({
    method: "POST",
    path,
    query: "",
    headers: { "content-type": FORM_CONTENT_TYPE },
    body: form,
  }),
  fromRequest(request) {
    const contentType = request.headers["content-type"] ?? "";
    const mediaType = contentType.split(";")[0].trim().toLowerCase();
    if (mediaType !== FORM_CONTENT_TYPE) {
      throw new ServiceError(ErrorCodes.UnsupportedMediaType, `Request format is invalid: ${mediaType === "" ? "(none)" : oneLine(mediaType, 40)}.`, {
        side: "client",
        exceptionType: "System.InvalidOperationException",
      });
    }
    return request.body;
  },
};

export const createHttpPostBinding: BindingFactory = (service, options) => createHttpBinding(httpPostVariant, service, options);
