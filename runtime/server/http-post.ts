// HTTP POST, the server half: the parameters from an application/x-www-form-urlencoded body; any other
// media type is refused (415).

import { ErrorCodes, ServiceError } from "../errors.js";
import type { ServerBindingFactory } from "../protocol/binding.js";
import { createHttpServerBinding, type HttpServerVariant } from "./http.js";
import { FORM_CONTENT_TYPE } from "../protocol/http.js";
import { oneLine } from "../safe-error.js";

const httpPostServerVariant: HttpServerVariant = {
  binding: "httpPost",
  fromRequest(request) {
    const contentType = request.headers["content-type"] ?? "";
    const mediaType = contentType.split(";")[0]!.trim().toLowerCase();
    if (mediaType !== FORM_CONTENT_TYPE) {
      throw new ServiceError(
        ErrorCodes.UnsupportedMediaType,
        `Request format is invalid: ${mediaType === "" ? "(none)" : oneLine(mediaType, 40)}.`,
        {
          side: "client",
          exceptionType: "System.InvalidOperationException",
        },
      );
    }
    return request.body;
  },
};

export const httpPostServer: ServerBindingFactory = (service, options) =>
  createHttpServerBinding(httpPostServerVariant, service, options);
