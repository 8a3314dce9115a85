// Which operation and binding a request is, as an ASMX host routes it (docs/wire.md §1): POST to the
// endpoint is SOAP (1.1 by text/xml, 1.2 by application/soap+xml), the operation named by the SOAPAction
// (1.2: the content type's action) and by the Body's first element; GET or POST to {endpoint}/{Operation}
// is HTTP GET or HTTP POST. Everything else (?WSDL, help pages, other paths) is "(other)": forwarded, never
// mirrored. A SOAP request naming two operations (action and Body disagree) is mirrored only when both
// may be: ASMX runs the action's, we refuse, and neither must repeat a write.
//
// Bounded: the body is read only when it is SOAP and no larger than the proxy's compare limit, with the
// runtime's hardened reader at its request limits. A body in the shape nearly every client sends is read by
// the server's own fast path (runtime/server/soap-fast.ts), which reads to the same elements as the general
// reader (its tests hold it to that) in a fraction of the time; anything else goes to the general reader.

import { type ServiceModel, wireName } from "../../runtime/model.js";
import { SOAP11_ENVELOPE_NS } from "../../runtime/protocol/soap11.js";
import { SOAP12_ENVELOPE_NS } from "../../runtime/protocol/soap12.js";
import { createFastSoapReader, type FastSoapReader } from "../../runtime/server/soap-fast.js";
import { readXml } from "../../runtime/xml/scan.js";

export type BindingLabel = "soap11" | "soap12" | "httpGet" | "httpPost" | "other";

export interface Classified {
  /** The operation for labels and reports: a spec operation's name, or "(other)". */
  readonly operation: string;
  readonly binding: BindingLabel;
  /** Every spec operation the request names (SOAPAction and Body may name two); empty for "(other)". */
  readonly named: readonly string[];
}

const OTHER = "(other)";

const OTHER_REQUEST: Classified = { operation: OTHER, binding: "other", named: [] };

/** Request reading limits: an honest request is small and shallow. */
const REQUEST_LIMITS = { maxDepth: 32, maxAttributes: 64, maxElements: 100_000 } as const;

export interface Router {
  /** The endpoint's path, lower case (/path/ExternalAPIService.asmx). */
  readonly endpointPath: string;
  classify(
    method: string,
    url: string,
    headers: Readonly<Record<string, string | string[] | undefined>>,
    body?: Uint8Array,
  ): Classified;
}

function mediaType(value: string | string[] | undefined): string {
  const text = Array.isArray(value) ? value[0] : value;
  return (text ?? "").split(";", 1)[0]!.trim().toLowerCase();
}

/** The action parameter of a SOAP 1.2 content type, unquoted. */
function actionParameter(value: string | string[] | undefined): string | undefined {
  const text = Array.isArray(value) ? value[0] : value;
  const m = /;\s*action\s*=\s*(?:"([^"]*)"|([^;\s]*))/i.exec(text ?? "");
  return m ? (m[1] ?? m[2]) : undefined;
}

export function createRouter(model: ServiceModel, endpointPath: string): Router {
  // Requests name an operation by its name on the wire (its MessageName); the router answers its name.
  const byName = new Map(model.operations.map((op) => [wireName(op), op.name]));
  const byLowerName = new Map(model.operations.map((op) => [wireName(op).toLowerCase(), op.name]));
  const namespace = model.namespace.endsWith("/") ? model.namespace : `${model.namespace}/`;
  const lowerEndpoint = endpointPath.toLowerCase();

  const fromAction = (action: string | undefined): string | undefined => {
    if (action === undefined) return undefined;
    const unquoted = action.trim().replace(/^"|"$/g, "");
    if (unquoted.startsWith(namespace)) return byName.get(unquoted.slice(namespace.length));
    return undefined;
  };

  // The fast path knows an operation by the element a request carries: its name on the wire.
  const fastOperations = model.operations.map((op) => ({
    name: wireName(op),
    params: op.params.map((p) => p.name),
  }));
  const fastReaders: Readonly<Record<"soap11" | "soap12", FastSoapReader | undefined>> = {
    soap11: createFastSoapReader(SOAP11_ENVELOPE_NS, model.namespace, fastOperations, REQUEST_LIMITS),
    soap12: createFastSoapReader(SOAP12_ENVELOPE_NS, model.namespace, fastOperations, REQUEST_LIMITS),
  };

  const fromBody = (body: Uint8Array | undefined, binding: "soap11" | "soap12"): string | undefined => {
    if (body === undefined || body.length === 0) return undefined;
    try {
      const text = Buffer.from(body.buffer, body.byteOffset, body.length).toString("utf8");
      let soapBody = fastReaders[binding]?.read(text);
      if (soapBody === undefined) {
        const root = readXml(text, REQUEST_LIMITS);
        soapBody = root.children.find((c) => c.local === "Body" && c.ns === root.ns);
      }
      const first = soapBody?.children[0];
      return first && first.ns === model.namespace ? byName.get(first.local) : undefined;
    } catch {
      return undefined;
    }
  };

  return {
    endpointPath: lowerEndpoint,
    classify(method, url, headers, body) {
      const q = url.indexOf("?");
      const path = (q < 0 ? url : url.slice(0, q)).toLowerCase();
      if (path === lowerEndpoint) {
        if (method !== "POST") return OTHER_REQUEST;
        const media = mediaType(headers["content-type"]);
        const binding =
          media === "text/xml" ? "soap11" : media === "application/soap+xml" ? "soap12" : undefined;
        if (binding === undefined) return OTHER_REQUEST;
        const header = headers["soapaction"];
        const action = fromAction(
          binding === "soap11"
            ? Array.isArray(header)
              ? header[0]
              : header
            : actionParameter(headers["content-type"]),
        );
        const inBody = fromBody(body, binding);
        const named = [...new Set([action, inBody].filter((n): n is string => n !== undefined))];
        return { operation: inBody ?? action ?? OTHER, binding, named };
      }
      if (!path.startsWith(`${lowerEndpoint}/`) || (method !== "GET" && method !== "POST"))
        return OTHER_REQUEST;
      const rest = path.slice(lowerEndpoint.length + 1);
      let name: string;
      try {
        name = decodeURIComponent(rest);
      } catch {
        return OTHER_REQUEST;
      }
      // The original case for the label: the path was lowered above.
      const original = (q < 0 ? url : url.slice(0, q)).slice(lowerEndpoint.length + 1);
      let exact: string | undefined;
      try {
        exact = byName.get(decodeURIComponent(original));
      } catch {
        exact = undefined;
      }
      const operation = exact ?? byLowerName.get(name);
      if (operation === undefined)
        return { operation: OTHER, binding: method === "GET" ? "httpGet" : "httpPost", named: [] };
      return { operation, binding: method === "GET" ? "httpGet" : "httpPost", named: [operation] };
    },
  };
}
