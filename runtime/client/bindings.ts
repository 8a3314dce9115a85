// The client halves of the four bindings by name, for `createClient({ binding: "soap11", ... })`. A
// client that names its binding by value (`createClientWith(soap11, ...)`) does not import this module,
// so a bundler leaves the other three out.

import { httpGetClient } from "./http-get.js";
import { httpPostClient } from "./http-post.js";
import type { ClientBindingFactory } from "../protocol/binding.js";
import { soap11Client } from "./soap11.js";
import { soap12Client } from "./soap12.js";
import type { BindingName } from "../model.js";

export const clientBindings: Readonly<Record<BindingName, ClientBindingFactory>> = {
  soap11: soap11Client,
  soap12: soap12Client,
  httpGet: httpGetClient,
  httpPost: httpPostClient,
};

/** The client binding of a name; a TypeError naming the four for anything else. */
export function clientBinding(name: BindingName): ClientBindingFactory {
  const factory = Object.hasOwn(clientBindings, name) ? clientBindings[name] : undefined;
  if (!factory)
    throw new TypeError(
      `binding must be one of ${Object.keys(clientBindings).join(", ")}; got ${String(name)}.`,
    );
  return factory;
}
