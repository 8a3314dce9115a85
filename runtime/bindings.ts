// The four binding modules by name, for the client and the server to pick from.

import { createHttpGetBinding } from "./http-get/index.js";
import { createHttpPostBinding } from "./http-post/index.js";
import type { BindingFactory, BindingName } from "./protocol/binding.js";
import { createSoap11Binding } from "./soap11/index.js";
import { createSoap12Binding } from "./soap12/index.js";

export const bindingFactories: Readonly<Record<BindingName, BindingFactory>> = {
  soap11: createSoap11Binding,
  soap12: createSoap12Binding,
  httpGet: createHttpGetBinding,
  httpPost: createHttpPostBinding,
};

export const bindingNames: readonly BindingName[] = ["soap11", "soap12", "httpGet", "httpPost"];
