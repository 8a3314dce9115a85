// HTTP GET, the server half: the parameters from the query string.

import type { ServerBindingFactory } from "../protocol/binding.js";
import { createHttpServerBinding, type HttpServerVariant } from "./http.js";

export const httpGetServerVariant: HttpServerVariant = {
  binding: "httpGet",
  fromRequest: (request) => request.query,
};

export const httpGetServer: ServerBindingFactory = (service, options) =>
  createHttpServerBinding(httpGetServerVariant, service, options);
