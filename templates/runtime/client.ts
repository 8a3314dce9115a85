// The client core: one `call` that any binding can carry, on fetch alone (Node 20+ and browsers).
// generated/client.ts wraps it in one typed method per operation.

import { TimeoutError, TransportError, type BindingName } from "./errors.js";
import type { OperationModel, ServiceModel } from "./model.js";
import { writeParams, type ParamValues } from "./params.js";
import type { Binding, BindingFactory, XmlReader } from "./protocol/binding.js";

export interface ClientConfig {
  /** The service's base URL (`https://host/path`, the endpoint is appended) or the full `.../X.asmx` address. */
  readonly baseUrl: string;
  readonly binding: BindingName;
  readonly username: string;
  readonly password: string;
  /** A fetch implementation; defaults to the global fetch. */
  readonly fetch?: typeof fetch;
  /** Per-call time limit in milliseconds; none by default. */
  readonly timeoutMs?: number;
  /** Extra request headers sent with every call (for example a proxy's authorization). */
  readonly headers?: Readonly<Record<string, string>>;
  /**
   * The XML reader for answers. Defaults to the runtime's fast scanner; `readXmlWithFastXmlParser` from
   * runtime/xml/fxp.js reads the same documents with fast-xml-parser.
   */
  readonly xmlReader?: XmlReader;
}

export interface CallOptions {
  readonly signal?: AbortSignal;
}

export interface ClientCore {
  readonly endpointUrl: string;
  readonly binding: Binding;
  call(op: OperationModel, params: object, options?: CallOptions): Promise<unknown>;
}

/** The endpoint address for a base URL: `{base}/{endpoint}`, or the URL itself when it already names it. */
export function endpointUrl(baseUrl: string, endpoint: string): string {
  const trimmed = baseUrl.replace(/\/+$/, "");
  return trimmed.toLowerCase().endsWith(`/${endpoint.toLowerCase()}`) ? trimmed : `${trimmed}/${endpoint}`;
}

function lowerCaseHeaders(headers: Headers): Record<string, string> {
  const out: Record<string, string> = {};
  headers.forEach((value, name) => {
    out[name.toLowerCase()] = value;
  });
  return out;
}

export function createClientCore(
  service: ServiceModel,
  config: ClientConfig,
  bindings: Readonly<Record<BindingName, BindingFactory>>,
  defaultReader: XmlReader,
): ClientCore {
  const factory = bindings[config.binding];
  if (!factory) throw new TypeError(`binding must be one of ${Object.keys(bindings).join(", ")}; got ${String(config.binding)}.`);
  const binding = factory(service, { readXml: config.xmlReader ?? defaultReader });
  const url = endpointUrl(config.baseUrl, service.endpoint);
  const fetchFn = config.fetch ?? globalThis.fetch;
  const [userParam, passwordParam] = service.operations[0]?.params.filter((p) => p.credential).map((p) => p.name) ?? [];

  async function send(op: OperationModel, values: ParamValues, signal: AbortSignal | undefined, timeout?: AbortSignal) {
    const request = binding.encodeRequest(op, writeParams(op, values));
    const target = url + request.path + (request.query ? `?${request.query}` : "");
    try {
      const response = await fetchFn(target, {
        method: request.method,
        headers: { ...config.headers, ...request.headers },
        body: request.method === "POST" ? request.body : undefined,
        signal,
      });
      const body = await response.text();
      return { status: response.status, headers: lowerCaseHeaders(response.headers), body };
    } catch (error) {
      if (timeout?.aborted) throw new TimeoutError(config.timeoutMs ?? 0, binding.name, op.name);
      if (signal?.aborted) throw error;
      throw new TransportError(`the request failed (${(error as Error).message})`, binding.name, op.name, { cause: error });
    }
  }

  return {
    endpointUrl: url,
    binding,
    async call(op: OperationModel, params: object, options: CallOptions = {}): Promise<unknown> {
      const values: ParamValues = { ...(params as ParamValues) };
      if (userParam) values[userParam] = config.username;
      if (passwordParam) values[passwordParam] = config.password;
      const timeout = config.timeoutMs === undefined ? undefined : AbortSignal.timeout(config.timeoutMs);
      const signals = [options.signal, timeout].filter((s): s is AbortSignal => s !== undefined);
      const signal = signals.length > 1 ? AbortSignal.any(signals) : signals[0];
      const response = await send(op, values, signal, timeout);
      return binding.decodeResponse(op, response, values);
    },
  };
}
