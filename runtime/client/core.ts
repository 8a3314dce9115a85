// The client core: one `call` that any binding can carry, on fetch alone (Node 20+ and browsers), and
// bindOperations, which makes one typed method per operation descriptor (generated/client.ts).

import { DEFAULT_MAX_ATTRIBUTES, DEFAULT_MAX_DEPTH, DEFAULT_READER_MAX_ELEMENTS } from "../xml/tree.js";
import { readAnswer } from "./response.js";
import { ClientCallError, TimeoutError, TransportError } from "../errors.js";
import type {
  AnyCredentials,
  ClientOperationModel,
  ClientServiceModel,
  BindingName,
  HeaderTypes,
} from "../model.js";
import { writeParams, type ParamValues } from "../codec/params.js";
import type { ClientBinding, ClientBindingFactory, WireResponse, XmlReader } from "../protocol/binding.js";
import { type HeaderCallOptions, headerHooks } from "../protocol/header-codec.js";
import type { XmlElement } from "../xml/tree.js";

/** .NET's SoapHttpClientProtocol.Timeout default. */
const DEFAULT_TIMEOUT_MS = 100_000;
/** The server's default maxBodyBytes: an answer the same size as the largest request we accept. */
const DEFAULT_MAX_RESPONSE_BYTES: number = 64 * 1024 * 1024;
/** The longest delay a timer takes (2^31 - 1 ms, about 24.8 days); longer ones would fire at once. */
const MAX_TIMER_MS = 2_147_483_647;

/**
 * Everything a client is configured with but the binding (createClientWith takes that as a value) and the
 * service's credentials. Credentials are the parameters every operation takes first (spec
 * `service.credentials`): the config carries each under its `property` (ClientOptionsOf), and the
 * client adds it to every call.
 */
export interface ClientBaseOptions {
  /** The service's base URL (`https://host/path`, the endpoint is appended) or the full `.../X.asmx` address. */
  readonly baseUrl: string;
  /** A fetch implementation; defaults to the global fetch. */
  readonly fetch?: typeof fetch;
  /**
   * Time limit for a whole call in milliseconds: connecting, sending, the headers and the whole body.
   * Default 100,000 (.NET's); 0 or Infinity for none.
   */
  readonly timeoutMs?: number;
  /**
   * Largest answer read, in bytes after decompression; reading stops beyond it with ResponseTooLargeError.
   * Default 64 MiB.
   */
  readonly maxResponseBytes?: number;
  /** Most XML elements an answer may hold (ResponseFormatError beyond it). Default 1,000,000; raise it for very large DataSet answers. */
  readonly maxElements?: number;
  /** Extra request headers sent with every call (for example a proxy's authorization). */
  readonly headers?: Readonly<Record<string, string>>;
  /**
   * SOAP headers sent with every call over SOAP, by header (record) name: each call sends those its
   * operation takes (a call's own `soapHeaders` replace them). The HTTP bindings carry none.
   */
  readonly soapHeaders?: Readonly<Record<string, unknown>>;
}

/** How answers are read: the bytes decoded to text, then the text parsed to a tree. */
export interface ClientPlatform {
  /** The XML reader: readXml (xml/scan.js, the strict scanner) or readXmlDom (xml/dom.js, the browser's DOMParser). */
  readonly readXml: XmlReader;
  /**
   * The text of an answer's bytes in their charset (`kind` "xml" also reads the XML declaration); throws for
   * bytes not valid in it or a charset it does not read (the call then fails with ResponseFormatError).
   */
  readonly decodeText: (bytes: Uint8Array, contentType: string | undefined, kind: "xml" | "text") => string;
}

/**
 * A client's options with the service's credentials: generated/client.ts exports
 * `ClientOptions = ClientOptionsOf<{Service}Credentials>` (the credential properties typed from the spec,
 * required where the spec requires them).
 */
export type ClientOptionsOf<Credentials extends object, SoapHeaders extends object = object> = Omit<
  ClientBaseOptions,
  "soapHeaders"
> &
  Readonly<Credentials> & {
    /** SOAP headers sent with every call over SOAP (ClientBaseOptions.soapHeaders), typed by name. */
    readonly soapHeaders?: Readonly<Partial<SoapHeaders>>;
  };

/** The platform createClientWith takes besides the options. */
export interface ClientPlatformOption {
  /**
   * Named, not defaulted, so that a bundle carries only the reader and decoder it uses (`browser` in a
   * browser bundle, `standard` elsewhere).
   */
  readonly platform: ClientPlatform;
}

/** createClientWith's options: the client's options and the platform. */
export type ClientWithOptionsOf<
  Credentials extends object,
  SoapHeaders extends object = object,
> = ClientOptionsOf<Credentials, SoapHeaders> & ClientPlatformOption;

/** What createClient takes besides the client's options. */
export interface ClientBindingOption<Binding extends BindingName = BindingName> {
  /** The binding by name; createClient then carries every binding of the service (createClientWith(soap11, ...) carries one). */
  readonly binding: Binding;
  /** The XML reader for answers instead of readXml (the strict scanner); answers are decoded as `standard` does. */
  readonly xmlReader?: XmlReader | undefined;
}

/** createClient's config: the client's options, the binding by name and the optional XML reader. */
export type ClientConfigOf<
  Credentials extends object,
  Binding extends BindingName = BindingName,
  SoapHeaders extends object = object,
> = ClientOptionsOf<Credentials, SoapHeaders> & ClientBindingOption<Binding>;

/** Options of a client of any service (the runtime's own view; generated/client.ts exports the typed ones). */
export type ClientOptions = ClientOptionsOf<AnyCredentials>;
export type ClientWithOptions = ClientWithOptionsOf<AnyCredentials>;
export type ClientConfig = ClientConfigOf<AnyCredentials>;

type ConfigKey = keyof ClientBaseOptions | keyof ClientPlatformOption | keyof ClientBindingOption;
/** Every config key, once: the type makes the list complete and exact (a key missing or extra is an error). */
const CONFIG_KEYS: Readonly<Record<ConfigKey, true>> = {
  baseUrl: true,
  fetch: true,
  timeoutMs: true,
  maxResponseBytes: true,
  maxElements: true,
  headers: true,
  soapHeaders: true,
  platform: true,
  binding: true,
  xmlReader: true,
};
/**
 * Every key the runtime reads from a client's config: a credential's `property` must not be one of them
 * (the generator's validate refuses it).
 */
export const CLIENT_CONFIG_KEYS: readonly string[] = /* @__PURE__ */ Object.keys(CONFIG_KEYS);

export interface CallOptions {
  readonly signal?: AbortSignal;
}

/** A call's options for an operation whose SOAP headers are `Headers` (HeaderTypes). */
export interface CallOptionsFor<Headers extends HeaderTypes> extends CallOptions {
  /** SOAP headers for this call, by name, instead of the client's `soapHeaders` (the HTTP bindings carry none). */
  readonly soapHeaders?: Readonly<Partial<Headers["in"]>>;
  /** Told the SOAP headers the answer carries (out and inOut), by name, before the call resolves. */
  readonly onSoapHeaders?: (headers: Partial<Headers["out"]>) => void;
}

export interface ClientCore {
  readonly endpointUrl: string;
  readonly binding: ClientBinding;
  /** One call of `op`; the result's type is the descriptor's. */
  call<Params, Result, Headers extends HeaderTypes>(
    op: ClientOperationModel<Params, Result, Headers>,
    params: NoInfer<Params>,
    options?: CallOptionsFor<NoInfer<Headers>>,
  ): Promise<Result>;
}

/**
 * The client method of an operation descriptor. `params` may be left out when no key of it is required
 * (an operation that takes only the credentials, which the client adds).
 */
export type OperationMethod<Op> =
  Op extends ClientOperationModel<infer Params, infer Result, infer Headers>
    ? // biome-ignore lint/complexity/noBannedTypes: `{} extends P` asks whether every parameter is optional
      {} extends Params
      ? (params?: Params, options?: CallOptionsFor<Headers>) => Promise<Result>
      : (params: Params, options?: CallOptionsFor<Headers>) => Promise<Result>
    : never;

/** One method per descriptor, under the descriptor's key (its JSDoc carries over to the method). */
export type ClientOf<Ops> = { -readonly [Name in keyof Ops]: OperationMethod<Ops[Name]> };

/**
 * The methods of ClientOf<Ops>, each a call of its descriptor through `core`.
 *
 * @codegen generated code imports it (test/repo/knip.test.ts)
 */
export function bindOperations<Ops extends { readonly [Name in keyof Ops]: ClientOperationModel }>(
  operations: Ops,
  core: ClientCore,
): ClientOf<Ops> {
  const methods: Record<
    string,
    (params?: object, options?: CallOptionsFor<HeaderTypes>) => Promise<unknown>
  > = {};
  for (const [name, op] of Object.entries<ClientOperationModel>(operations)) {
    methods[name] = (params = {}, options) => core.call(op, params, options);
  }
  // The loop gave every key of Ops its method; TypeScript cannot follow a loop over keys.
  return methods as ClientOf<Ops>;
}

/** The endpoint address for a base URL: `{base}/{endpoint}`, or the URL itself when it already names it. */
function endpointUrl(baseUrl: string, endpoint: string): string {
  const trimmed = baseUrl.replace(/\/+$/, "");
  return trimmed.toLowerCase().endsWith(`/${endpoint.toLowerCase()}`) ? trimmed : `${trimmed}/${endpoint}`;
}

/** A limit from the config: a positive number, else a TypeError naming it. */
function limit(name: string, value: number | undefined, fallback: number, allowNone: boolean): number {
  if (value === undefined) return fallback;
  // Not NaN, not negative, and 0 only where it means none.
  if (typeof value !== "number" || !(value > 0 || (allowNone && value === 0))) {
    throw new TypeError(
      `${name} must be a ${allowNone ? "non-negative" : "positive"} number; got ${String(value)}.`,
    );
  }
  return value;
}

/**
 * The client core of a service, refusing (TypeError) a binding the service does not offer (`service.bindings`;
 * none named means all four). The generated client of a spec that offers all four calls
 * createAnyBindingClientCore instead, so that its bundle carries no check that cannot fail.
 */
export function createClientCore(
  service: ClientServiceModel,
  config: ClientWithOptionsOf<object>,
  factory: ClientBindingFactory,
): ClientCore {
  const core = createAnyBindingClientCore(service, config, factory);
  // The model names the bindings in ALL_BINDINGS order (the generator normalizes them), or none for all four.
  const offered = service.bindings;
  if (offered !== undefined && !offered.includes(core.binding.name)) {
    throw new TypeError(
      `binding must be one the service offers (${offered.join(", ")}); got ${core.binding.name}.`,
    );
  }
  return core;
}

/** The client core over any binding, whether or not the service offers it (createClientCore checks that). */
export function createAnyBindingClientCore(
  service: ClientServiceModel,
  config: ClientWithOptionsOf<object>,
  factory: ClientBindingFactory,
): ClientCore {
  const timeoutMs = limit("timeoutMs", config.timeoutMs, DEFAULT_TIMEOUT_MS, true);
  const maxResponseBytes = limit(
    "maxResponseBytes",
    config.maxResponseBytes,
    DEFAULT_MAX_RESPONSE_BYTES,
    false,
  );
  const maxElements = limit("maxElements", config.maxElements, DEFAULT_READER_MAX_ELEMENTS, false);
  // The binding hands these to the reader as its limits.
  const binding = factory(service, {
    readXml: config.platform.readXml,
    maxDepth: DEFAULT_MAX_DEPTH,
    maxElements,
    maxAttributes: DEFAULT_MAX_ATTRIBUTES,
  });
  const url = endpointUrl(config.baseUrl, service.endpoint);
  const fetchFn = config.fetch ?? globalThis.fetch;
  return {
    endpointUrl: url,
    binding,
    async call<Params, Result, Headers extends HeaderTypes>(
      op: ClientOperationModel<Params, Result, Headers>,
      params: Params,
      options: CallOptionsFor<Headers> = {},
    ): Promise<Result> {
      // Params is an object type in every descriptor (the generated Params types). Copied to an object
      // without a prototype, so that parameters named __proto__, constructor or toString are plain keys.
      const values: ParamValues = Object.assign(Object.create(null) as ParamValues, params as object);
      // The credentials every operation takes first, each from the config under its property.
      for (const p of op.params) {
        if (!p.credential) continue;
        const key = p.property ?? p.name;
        values[p.name] = Object.hasOwn(config, key) ? (config as AnyCredentials)[key] : undefined;
      }
      let request = binding.encodeRequest(op, writeParams(op, values));
      // SOAP headers: the model of a service with headers registers their codec (header-codec.ts), which
      // adds them to the request and reads the answer's for onSoapHeaders.
      let onEnvelope: ((envelope: XmlElement) => void) | undefined;
      const codec = op.headers && headerHooks.codec;
      if (codec)
        [request, onEnvelope] = codec(
          request,
          op,
          options as HeaderCallOptions,
          config,
          binding.name,
          service.namespace,
        );
      const target = url + request.path + (request.query ? `?${request.query}` : "");
      const caller = options.signal;
      // A timer of our own (none for 0 or Infinity), cleared when the exchange ends, rather than
      // AbortSignal.timeout's that lives on.
      const timeout = timeoutMs > 0 && timeoutMs < Infinity ? new AbortController() : undefined;
      const timer = timeout && setTimeout(() => timeout.abort(), Math.min(timeoutMs, MAX_TIMER_MS));
      // Ours: closes the connection when the client stops reading (too large, a redirect).
      const connection = new AbortController();
      const signal = AbortSignal.any(
        [connection.signal, caller, timeout?.signal].filter((s) => s !== undefined),
      );
      let response: WireResponse;
      try {
        response = await readAnswer(
          await fetchFn(target, {
            method: request.method,
            headers: { ...config.headers, ...request.headers },
            body: request.method === "POST" ? request.body : null,
            signal,
            redirect: "manual",
          }),
          target,
          {
            binding: binding.name,
            operation: op.name,
            maxResponseBytes,
            decodeText: config.platform.decodeText,
            signal,
            abort: () => connection.abort(),
          },
        );
      } catch (error) {
        if (error instanceof ClientCallError) throw error;
        if (timeout?.signal.aborted) throw new TimeoutError(timeoutMs, binding.name, op.name);
        if (caller?.aborted) throw error;
        throw new TransportError(`the request failed (${(error as Error).message})`, binding.name, op.name, {
          cause: error,
        });
      } finally {
        clearTimeout(timer);
      }
      // The binding reads the answer by the descriptor's result model, which Result is the type of.
      return binding.decodeResponse(op, response, values, onEnvelope) as Result;
    },
  };
}
