// The server halves of the four bindings by name: a server answers on all four.

import { httpGetServer } from "./http-get.js";
import { httpPostServer } from "./http-post.js";
import type { ServerBindingFactory } from "../protocol/binding.js";
import { soap11Server } from "./soap11.js";
import { soap12Server } from "./soap12.js";
import type { BindingName } from "../model.js";

export const serverBindings: Readonly<Record<BindingName, ServerBindingFactory>> = {
  soap11: soap11Server,
  soap12: soap12Server,
  httpGet: httpGetServer,
  httpPost: httpPostServer,
};

/** @public users of the generated runtime import it (test/repo/knip.test.ts) */
export const bindingNames: readonly BindingName[] = ["soap11", "soap12", "httpGet", "httpPost"];
