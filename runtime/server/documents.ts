// The documents a server publishes besides the operations, rendered from the model and the docs: the WSDL
// (?WSDL), the help index and the ?op= pages. Each is rendered once, on first use, with its address left
// open; the address of a request is filled in per request and the last few results are kept.

import type { ServiceDocTexts } from "./docs.js";
import { fillSlots, renderIndexSlots, renderOperationSlots } from "./help/pages.js";
import type { OperationModel, ServiceModel } from "../model.js";
import type { ServedDocuments } from "./core.js";
import { escapeMarkup, XML_REFERENCES } from "./markup.js";
import { renderWsdlParts } from "./wsdl.js";

export interface DocumentOptions {
  /**
   * Filled documents kept per kind (WSDL, index, operation pages), most recently used first. A server is
   * usually reached at one or two addresses; a client varying the Host header gets fresh fills (each a
   * string join) and cannot grow the cache. Default 16.
   */
  readonly cacheEntries?: number;
}

export function createDocuments(
  model: ServiceModel,
  docs: ServiceDocTexts,
  options: DocumentOptions = {},
): ServedDocuments {
  const entries = options.cacheEntries ?? 16;
  const operations = new Map<string, OperationModel>(model.operations.map((op) => [op.name, op]));
  let wsdlParts: string[] | undefined;
  let indexSlots: string | undefined;
  const operationSlots = new Map<string, string>();
  const wsdlCache = new RecentCache(entries);
  const indexCache = new RecentCache(entries);
  const operationCache = new RecentCache(entries);

  return {
    wsdlFor(soapAddress: string): string {
      return wsdlCache.get(soapAddress, () => {
        wsdlParts ??= renderWsdlParts(model, docs);
        return wsdlParts.join(escapeMarkup(soapAddress, XML_REFERENCES));
      });
    },
    helpIndexHtml(endpointUrl: string): string {
      return indexCache.get(endpointUrl, () =>
        fillSlots((indexSlots ??= renderIndexSlots(model, docs)), endpointUrl),
      );
    },
    helpOperationHtml(operation: string, endpointUrl: string): string | undefined {
      const op = operations.get(operation);
      if (op === undefined) return undefined;
      // The key cannot collide: an operation name holds no newline.
      return operationCache.get(`${op.name}\n${endpointUrl}`, () => {
        let slots = operationSlots.get(op.name);
        if (slots === undefined) {
          slots = renderOperationSlots(model, docs, op);
          operationSlots.set(op.name, slots);
        }
        return fillSlots(slots, endpointUrl);
      });
    },
  };
}

/** At most `limit` strings by key; the least recently used goes first. */
export class RecentCache {
  readonly #entries = new Map<string, string>();
  readonly limit: number;

  // A plain field, not a parameter property: erasableSyntaxOnly (TypeScript 5.8+) refuses those.
  constructor(limit: number) {
    this.limit = limit;
  }

  get size(): number {
    return this.#entries.size;
  }

  get(key: string, make: () => string): string {
    const found = this.#entries.get(key);
    if (found !== undefined) {
      // Re-inserting moves the key to the end of the Map's order: most recently used last.
      this.#entries.delete(key);
      this.#entries.set(key, found);
      return found;
    }
    const value = make();
    if (this.limit <= 0) return value;
    if (this.#entries.size >= this.limit) this.#entries.delete(this.#entries.keys().next().value!);
    this.#entries.set(key, value);
    return value;
  }
}
