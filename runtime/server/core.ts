// The server core: routes a request to its binding, decodes and validates the parameters, calls the
// implementation, and encodes the answer or the error. Adapters for node:http and fetch live in
// node.ts and fetch.ts; generated/server.ts types the implementation.

import { checkPublicUrl, type EndpointUrlOptions } from "./endpoint-url.js";
import { corsPolicy, type CorsOptions, type CorsPolicy } from "./cors.js";
import { clientError, ErrorCodes, ServiceError } from "../errors.js";
import type { DataSetResult, DataSetRows } from "../codec/dataset.js";
import {
  type AnyCredentials,
  headerIsAnswered,
  headerIsSent,
  type ClientOperationModel,
  type HeaderTypes,
  type NoHeaders,
  type OperationModel,
  type ServiceModel,
  offeredBindings,
  type BindingName,
} from "../model.js";
import { readParams, type ParamValues } from "../codec/params.js";
import type {
  ServerBinding,
  ServerBindingFactory,
  WireRequest,
  WireResponse,
  XmlReader,
} from "../protocol/binding.js";
import { ResultShapeError, type RecordWriters } from "../codec/result.js";
import { createRouter, isBinding } from "./route.js";
import { ECHO_MAX } from "../protocol/soap.js";
import { LAST_RESORT, LAST_RESORT_MESSAGE, textErrorResponse } from "../protocol/text-error.js";
import { describeThrown, oneLine, wireServiceError } from "../safe-error.js";
import {
  BodyProgress,
  DEFAULT_BODY_TIMEOUT_MS,
  DEFAULT_MAX_BUFFERED_BYTES,
  DEFAULT_MAX_CONCURRENT_CALLS,
  DEFAULT_MIN_BODY_BYTES_PER_SECOND,
  ServerBudget,
} from "./budget.js";
import { DEFAULT_MAX_ATTRIBUTES } from "../xml/tree.js";

/**
 * What a handler learns about the call besides its parameters. generated/server.ts exports
 * `CallContext = CallContextOf<{Service}Credentials>`.
 */
export interface CallContextOf<Credentials extends object, Headers extends HeaderTypes = NoHeaders> {
  readonly operation: string;
  /**
   * The credentials (the parameters every operation takes first, spec `service.credentials`) as received
   * and validated, each under its `property`; an absent optional one is undefined. With a credentials
   * header (spec `service.credentialsHeader`), that header's fields as received.
   */
  readonly credentials: Readonly<Credentials>;
  /**
   * The SOAP headers the operation takes (in and inOut, the credentials header aside) that came, by name;
   * a required one is always there. Empty on HTTP GET and POST, which carry no headers.
   */
  readonly soapHeaders: Readonly<Headers["in"]>;
  /**
   * The SOAP headers the operation answers (out and inOut), by name: set one to send it back; one left
   * unset (or null) is not written, as ASMX leaves out a null header. An inOut header starts as received,
   * as in ASMX. Not sent on HTTP GET and POST.
   */
  readonly replyHeaders: Headers["out"];
  readonly binding: BindingName;
  /** The call's id: the same text the server's log entries (ServerOptions.log) and onCall's event give it. */
  readonly requestId: string;
  /** The caller's address as the transport saw it (node: the socket's remote address); "" when unknown. */
  readonly remoteAddress: string;
  /**
   * The call's fields for its request log record: a handler adds what only it knows (the account the call
   * signed in as, say). The object the transport's caller handed over for this request (createNodeHandler's
   * and createFetchHandler's `info.logFields`), else one of the call's own; onCall's event carries the same
   * object, so each call's fields stay its own however many run at once.
   */
  readonly logFields: Record<string, unknown>;
  /** Aborted when the caller goes away or the handler time limit passes. */
  readonly signal: AbortSignal;
}

/** The context of a call to a service of any credentials (the runtime's own view). */
export type CallContext = CallContextOf<AnyCredentials>;

export type OperationHandler = (params: never, context: CallContext) => Promise<unknown> | unknown;

/**
 * Parameters as a handler receives them: a dateTime arrives as the xs:dateTime text the caller sent
 * (never a Date, never shifted), so the client-side `string | Date` narrows to `string`.
 */
export type Received<Params> = { [Name in keyof Params]: Exclude<Params[Name], Date> };

/** What a handler returns for a result: a DataSet result may be given as its rows alone. */
export type Returned<Result> = Result extends DataSetResult<infer Row> ? DataSetRows<Row> : Result;

/** The handler of an operation descriptor. */
export type HandlerOf<Op, Credentials extends object = AnyCredentials> =
  Op extends ClientOperationModel<infer Params, infer Result, infer Headers>
    ? (
        params: Received<Params>,
        context: CallContextOf<Credentials, Headers>,
      ) => Promise<Returned<Result>> | Returned<Result>
    : never;

/** One handler per descriptor, under the descriptor's key (its JSDoc carries over). */
export type HandlersOf<Ops, Credentials extends object = AnyCredentials> = {
  -readonly [Name in keyof Ops]: HandlerOf<Ops[Name], Credentials>;
};

export interface LogEntry {
  readonly level: "error" | "warn";
  readonly message: string;
  readonly requestId: string;
  readonly operation?: string | undefined;
  readonly error?: unknown;
}

export interface ServerOptions extends EndpointUrlOptions {
  /** Largest request body accepted, in bytes (default 64 MiB: bulk CSV imports are large). */
  readonly maxBodyBytes?: number;
  /**
   * Request bytes the whole server holds in memory at once, over all requests (default 96 MiB). Bytes are
   * held as they arrive, never as announced: a request whose announced body has no room now is answered
   * 503 at once, before its body is read; one whose arriving bytes pass it, 503 when they do.
   */
  readonly maxBufferedBytes?: number;
  /**
   * Requests in progress at once (default 256): a request takes its slot once its body is in, so peers
   * still sending (or idling on) a body hold none. One more is answered 503.
   */
  readonly maxConcurrentCalls?: number;
  /**
   * The window over which a request body must keep arriving (default 10 s): a body that receives fewer than
   * `minBodyBytesPerSecond` × this many bytes in a window is answered 408 and its connection closed (within
   * two windows of falling behind), so a few slow or idle peers cannot hold connections and bytes for long.
   */
  readonly bodyTimeoutMs?: number;
  /** The least rate a request body must keep up over each `bodyTimeoutMs` (default 1024 B/s; 0: only a body that stops). */
  readonly minBodyBytesPerSecond?: number;
  /** Deepest XML nesting accepted (default 32). */
  readonly maxDepth?: number;
  /** Elements accepted in one request document (default 10,000; an honest request has fewer than 50). */
  readonly maxElements?: number;
  /** Attributes, namespace declarations included, accepted on one element (default 64). */
  readonly maxAttributes?: number;
  /** Time a handler may take before its signal aborts and the caller gets a fault (default 120 s). */
  readonly handlerTimeoutMs?: number;
  /**
   * Where unexpected errors are reported; the wire only ever gets a generic message. The default writes
   * one JSON line to stderr. A logger that throws is ignored: the caller still gets its answer.
   */
  readonly log?: ((entry: LogEntry) => void) | undefined;
  /**
   * Told once per operation call when its answer is ready (request logs, metrics): the operation, the
   * binding, "OK" or the error code answered, and the time from decoding to the answer. A hook that
   * throws is ignored.
   */
  readonly onCall?: ((event: CallEvent) => void) | undefined;
  /**
   * Cross-origin calls from browsers (cors.ts): the origins allowed, answered with
   * Access-Control-Allow-Origin and a preflight for SOAP's headers. Unset: no CORS header at all, and a
   * preflight gets 405 as in ASMX.
   */
  readonly cors?: CorsOptions | undefined;
}

/** One operation call, as ServerOptions.onCall hears of it. */
export interface CallEvent {
  readonly requestId: string;
  readonly operation: string | undefined;
  readonly binding: BindingName;
  /** "OK", or the code of the error the caller got. */
  readonly outcome: string;
  readonly durationMs: number;
  /**
   * The call's log fields (CallContext.logFields): those the transport's caller handed over for the request
   * (`info.logFields`), with whatever the handler added.
   */
  readonly logFields: Record<string, unknown>;
  /** The transport's request object (node: the IncomingMessage; fetch: the Request). */
  readonly transport: unknown;
}

/** Pre-rendered documents the service serves besides the operations. */
export interface ServedDocuments {
  wsdlFor(soapAddress: string): string;
  helpIndexHtml(endpointUrl: string): string;
  helpOperationHtml(operation: string, endpointUrl: string): string | undefined;
}

/** A request after transport parsing: what the core needs, nothing node- or fetch-specific. */
export interface IncomingCall {
  readonly method: string;
  /** Path below the endpoint: "" or "/{Op}". */
  readonly path: string;
  readonly query: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
  /** The endpoint's own absolute URL as the caller reached it, for the WSDL's soap:address. */
  readonly endpointUrl: string;
  readonly remoteAddress: string;
  readonly signal: AbortSignal;
  /** The transport's own request object (node: the IncomingMessage; fetch: the Request), for onCall. */
  readonly transport?: unknown;
  /** The request's log fields, when the transport's caller handed some over (CallContext.logFields). */
  readonly logFields?: Record<string, unknown> | undefined;
}

const DEFAULT_MAX_BODY_BYTES: number = 64 * 1024 * 1024;
const DEFAULT_HANDLER_TIMEOUT_MS = 120_000;
/** Elements in one request (ServerOptions.maxElements): an honest one has under 50; below the reader's own default. */
const DEFAULT_REQUEST_MAX_ELEMENTS = 10_000;

const HTML = { "content-type": "text/html; charset=utf-8" };
const XML = { "content-type": "text/xml; charset=utf-8" };

const TIMEOUT_MESSAGE = "The operation took too long and was stopped.";

let requestCounter = 0;
const requestPrefix = Math.floor(Math.random() * 0xffffffff).toString(36);

function requestIdOf(seq: number): string {
  return `${requestPrefix}-${seq.toString(36)}`;
}

/**
 * The CallContext a handler gets. The signal is the costly part (an AbortController, listeners, a
 * timer), and most handlers never look at it, so it is made on first access (a getter, so it is not an
 * own property): from then on it follows the caller's signal and the time limit; if either already
 * fired, it comes back aborted. The requestId and the log fields are made on first access as well.
 */
class RequestContext implements CallContext {
  readonly operation: string;
  /** Set once more by the server core when the credentials come in a header. */
  credentials: AnyCredentials;
  soapHeaders: Readonly<Record<string, unknown>> = NO_HEADERS;
  replyHeaders: Record<string, unknown> = NO_HEADERS;
  readonly binding: BindingName;
  readonly remoteAddress: string;
  private readonly call: IncomingCall;
  private readonly seq: number;
  private id: string | undefined = undefined;
  private controller: AbortController | undefined = undefined;
  /** Set when the time limit passed (before or after the signal was asked for). */
  private timedOut = false;
  private fields: Record<string, unknown> | undefined;

  constructor(
    operation: string,
    credentials: AnyCredentials,
    binding: BindingName,
    call: IncomingCall,
    seq: number,
    fields: Record<string, unknown> | undefined,
  ) {
    this.operation = operation;
    this.credentials = credentials;
    this.binding = binding;
    this.remoteAddress = call.remoteAddress;
    this.call = call; // its signal too may be made on demand: not read before the handler asks
    this.seq = seq;
    this.fields = fields;
  }

  /** The fields handed over with the request (or onCall's), else an object of the call's own, made when first read. */
  get logFields(): Record<string, unknown> {
    return (this.fields ??= {});
  }

  /** Made when first read (a getter, like signal): the same text the server's log entries give the call. */
  get requestId(): string {
    return (this.id ??= requestIdOf(this.seq));
  }

  get signal(): AbortSignal {
    if (this.controller === undefined) {
      const controller = new AbortController();
      this.controller = controller;
      const caller = this.call.signal;
      if (this.timedOut) controller.abort(timeoutReason());
      else if (caller.aborted) controller.abort(caller.reason);
      else caller.addEventListener("abort", () => controller.abort(caller.reason), { once: true });
    }
    return this.controller.signal;
  }

  timeOut(): void {
    this.timedOut = true;
    if (this.controller !== undefined && !this.controller.signal.aborted)
      this.controller.abort(timeoutReason());
  }
}

/** The headers of an operation without any (or of a call on HTTP GET/POST): nothing to read, nothing to set. */
const NO_HEADERS: Record<string, unknown> = Object.freeze(Object.create(null) as Record<string, unknown>);

/** The same reason AbortSignal.timeout gives. */
function timeoutReason(): DOMException {
  return new DOMException("The operation was aborted due to timeout", "TimeoutError");
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return (
    (typeof value === "object" || typeof value === "function") &&
    value !== null &&
    typeof (value as { then?: unknown }).then === "function"
  );
}

/**
 * The outcome of a handler's promise, or a RequestTimeout error as soon as the time limit passes: the
 * caller gets its fault on time even from a handler that ignores its signal (whatever it settles with
 * later is dropped). A handler that answered synchronously needs no timer at all.
 */
function withinTime(work: PromiseLike<unknown>, context: RequestContext, ms: number): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      context.timeOut();
      reject(new ServiceError(ErrorCodes.RequestTimeout, TIMEOUT_MESSAGE));
    }, ms);
    // Like AbortSignal.timeout's timer, this one does not keep the process alive by itself.
    (timer as { unref?: () => void }).unref?.();
    work.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(error);
      },
    );
  });
}

export interface ServiceCore {
  readonly service: ServiceModel;
  /** Which binding a request is for, from method, path and content type; undefined = not an operation call. */
  bindingFor(method: string, path: string, contentType: string | undefined): ServerBinding | undefined;
  handle(call: IncomingCall): Promise<WireResponse>;
  /** As handle, but answers synchronously when it can (a handler that returned a plain value). */
  dispatch(call: IncomingCall): WireResponse | Promise<WireResponse>;
  /** The answer for a body over the limit, in the binding's error form. */
  tooLarge(method: string, path: string, contentType: string | undefined, limit: number): WireResponse;
  /** The answer when the server-wide budget is spent (503), in the binding's error form. */
  busy(method: string, path: string, contentType: string | undefined): WireResponse;
  /** A transport-level refusal (a body that does not decode, ...) in the binding's error form. */
  refuse(method: string, path: string, contentType: string | undefined, error: ServiceError): WireResponse;
  /** The answer for an error no other path could answer; never throws. */
  lastResort(error: unknown, method: string, path: string, contentType: string | undefined): WireResponse;
  readonly budget: ServerBudget;
  /** The requests whose bodies are arriving, cut when they fall behind (bodyTimeoutMs, minBodyBytesPerSecond). */
  readonly bodyProgress: BodyProgress;
  /** publicUrl checked and completed with the endpoint's name, or undefined. */
  readonly publicEndpoint: string | undefined;
  /** ServerOptions.cors checked; undefined when not configured. */
  readonly cors: CorsPolicy | undefined;
  readonly options: ResolvedServerOptions;
}

export type ResolvedServerOptions = Required<
  Omit<ServerOptions, "log" | "onCall" | "publicUrl" | "trustProxy" | "allowedHosts" | "cors">
> &
  Pick<ServerOptions, "log" | "onCall" | "publicUrl" | "trustProxy" | "allowedHosts" | "cors">;

/** The default logger: one JSON line on stderr, whatever the entry's error is. */
function defaultLog(entry: LogEntry): void {
  console.error(
    JSON.stringify({
      level: entry.level,
      message: entry.message,
      requestId: entry.requestId,
      operation: entry.operation,
      error: entry.error === undefined ? undefined : describeThrown(entry.error),
    }),
  );
}

function positive(name: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (!(typeof value === "number" && value > 0))
    throw new TypeError(`${name} must be a positive number; got ${String(value)}.`);
  return value;
}

/** The longest delay a timer takes (2^31 - 1 ms, ~24.8 days): a longer one would fire after 1 ms. */
const MAX_TIMER_MS = 2_147_483_647;

function timeoutMs(name: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (!(typeof value === "number" && value > 0 && value <= MAX_TIMER_MS)) {
    throw new TypeError(
      `${name} must be a number of milliseconds from 1 to ${MAX_TIMER_MS}; got ${String(value)}.`,
    );
  }
  return value;
}

function nonNegative(name: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (!(typeof value === "number" && value >= 0 && Number.isFinite(value))) {
    throw new TypeError(`${name} must be a number of 0 or more; got ${String(value)}.`);
  }
  return value;
}

/**
 * The prototype of every handler's parameters: an empty object without a prototype of its own. An object
 * made by Object.create(null) starts in V8's dictionary mode; one made from this keeps fast properties,
 * for the server filling it and for the handler reading it (six parameters: ~190 ns against ~440 ns).
 */
const PARAMS_BASE: object = /* @__PURE__ */ Object.freeze(Object.create(null) as object);

/** `{publicUrl}` when it already names the endpoint, else `{publicUrl}/{endpoint}`. */
function completeEndpoint(base: string, endpoint: string): string {
  return base.toLowerCase().endsWith(`/${endpoint.toLowerCase()}`) ? base : `${base}/${endpoint}`;
}

export function createServiceCore(
  service: ServiceModel,
  implementation: object,
  documents: ServedDocuments,
  factories: Readonly<Record<BindingName, ServerBindingFactory>>,
  readXml: XmlReader,
  serverOptions: ServerOptions = {},
  recordWriters?: RecordWriters,
): ServiceCore {
  const options: ResolvedServerOptions = {
    maxBodyBytes: positive("maxBodyBytes", serverOptions.maxBodyBytes, DEFAULT_MAX_BODY_BYTES),
    maxBufferedBytes: positive(
      "maxBufferedBytes",
      serverOptions.maxBufferedBytes,
      DEFAULT_MAX_BUFFERED_BYTES,
    ),
    maxConcurrentCalls: positive(
      "maxConcurrentCalls",
      serverOptions.maxConcurrentCalls,
      DEFAULT_MAX_CONCURRENT_CALLS,
    ),
    maxDepth: positive("maxDepth", serverOptions.maxDepth, 32),
    maxElements: positive("maxElements", serverOptions.maxElements, DEFAULT_REQUEST_MAX_ELEMENTS),
    maxAttributes: positive("maxAttributes", serverOptions.maxAttributes, DEFAULT_MAX_ATTRIBUTES),
    handlerTimeoutMs: timeoutMs(
      "handlerTimeoutMs",
      serverOptions.handlerTimeoutMs,
      DEFAULT_HANDLER_TIMEOUT_MS,
    ),
    bodyTimeoutMs: timeoutMs("bodyTimeoutMs", serverOptions.bodyTimeoutMs, DEFAULT_BODY_TIMEOUT_MS),
    minBodyBytesPerSecond: nonNegative(
      "minBodyBytesPerSecond",
      serverOptions.minBodyBytesPerSecond,
      DEFAULT_MIN_BODY_BYTES_PER_SECOND,
    ),
    log: serverOptions.log,
    onCall: serverOptions.onCall,
    publicUrl: serverOptions.publicUrl,
    trustProxy: serverOptions.trustProxy,
    allowedHosts: serverOptions.allowedHosts,
    cors: serverOptions.cors,
  };
  const cors = corsPolicy(options.cors);
  const publicEndpoint =
    options.publicUrl === undefined
      ? undefined
      : completeEndpoint(checkPublicUrl(options.publicUrl), service.endpoint);
  const budget = new ServerBudget(options.maxBufferedBytes, options.maxConcurrentCalls);
  const bodyProgress = new BodyProgress(options.bodyTimeoutMs, options.minBodyBytesPerSecond);
  const writeLog = options.log ?? defaultLog;
  /** Reports to the logger; a logger that throws must not cost the caller its answer. */
  const log = (entry: LogEntry): void => {
    try {
      writeLog(entry);
    } catch {
      // Nothing better to do: the answer matters more than the log line.
    }
  };
  const bindingOptions = {
    readXml,
    recordWriters,
    maxDepth: options.maxDepth,
    maxElements: options.maxElements,
    maxAttributes: options.maxAttributes,
  };
  // Only the bindings the service offers (spec `service.bindings`): a request for another is refused.
  const bindings: Partial<Record<BindingName, ServerBinding>> = {};
  for (const name of offeredBindings(service)) bindings[name] = factories[name](service, bindingOptions);
  const handlers = implementation as Readonly<Record<string, OperationHandler | undefined>>;
  for (const op of service.operations) {
    const handler = handlers[op.name];
    // An operation named like an Object.prototype method (toString) needs a method of its own, not the inherited one.
    const inherited = (Object.prototype as unknown as Record<string, unknown>)[op.name];
    if (typeof handler !== "function" || handler === inherited)
      throw new TypeError(`The implementation has no ${op.name} method.`);
  }
  /** Per operation, its credentials as [parameter name, context property]. */
  const credentialKeys = new Map(
    service.operations.map((op) => [
      op,
      op.params.flatMap((p) => (p.credential ? [[p.name, p.property ?? p.name] as const] : [])),
    ]),
  );
  /** The context's credentials: each credential's value under its property. */
  function credentialsOf(op: OperationModel, values: ParamValues): AnyCredentials {
    const credentials: Record<string, unknown> = {};
    for (const [name, property] of credentialKeys.get(op) ?? []) credentials[property] = values[name];
    return credentials;
  }
  /** Per operation with headers: the credentials header's name, the other headers taken, those answered. */
  const headerPlans = new Map(
    service.operations.flatMap((op) => {
      const headers = op.headers ?? [];
      if (headers.length === 0) return [];
      return [
        [
          op,
          {
            credential: headers.find((h) => h.credential)?.record.name,
            taken: headers.filter((h) => headerIsSent(h) && !h.credential).map((h) => h.record.name),
            answered: headers.filter(headerIsAnswered),
            required: headers.find((h) => h.required && headerIsSent(h))?.record.name,
          },
        ] as const,
      ];
    }),
  );
  /**
   * Fills the context's headers and, with a credentials header, its credentials. A call on HTTP GET/POST
   * carries no headers: one that requires a header is refused there.
   */
  function withHeaders(
    context: RequestContext,
    op: OperationModel,
    binding: ServerBinding,
    received: Readonly<Record<string, unknown>> | undefined,
  ): void {
    const plan = headerPlans.get(op);
    if (plan === undefined) return;
    if (binding.presence === "field" && plan.required !== undefined) {
      throw clientError(
        ErrorCodes.MustUnderstand,
        `${op.name} requires the SOAP header ${plan.required}, which ${binding.name} cannot carry: call it over SOAP.`,
        { parameter: plan.required },
      );
    }
    const soapHeaders = Object.create(null) as Record<string, unknown>;
    for (const name of plan.taken)
      if (received !== undefined && Object.hasOwn(received, name)) soapHeaders[name] = received[name];
    context.soapHeaders = soapHeaders;
    if (plan.answered.length > 0) {
      const reply = Object.create(null) as Record<string, unknown>;
      // An inOut header goes back as received unless the handler changes it, as in ASMX.
      for (const h of plan.answered)
        if (h.direction === "inOut" && Object.hasOwn(soapHeaders, h.record.name))
          reply[h.record.name] = soapHeaders[h.record.name];
      context.replyHeaders = reply;
    }
    if (plan.credential !== undefined)
      context.credentials = (received?.[plan.credential] ?? {}) as AnyCredentials;
  }

  // Routing and the 415/405 answers live in route.ts (easgen docs/wire.md §1a).
  const router = createRouter(bindings);
  function bindingFor(
    method: string,
    path: string,
    contentType: string | undefined,
  ): ServerBinding | undefined {
    return router.bindingFor(method, path, contentType);
  }

  /**
   * The handler's parameters: an object whose prototype chain holds nothing (PARAMS_BASE), so that a
   * parameter named __proto__ is a key like any other and an absent one named toString or constructor
   * reads as undefined.
   */
  function handlerParams(op: OperationModel, values: ParamValues): Record<string, unknown> {
    const params = Object.create(PARAMS_BASE) as Record<string, unknown>;
    for (const p of op.params)
      if (!p.credential && values[p.name] !== undefined) params[p.name] = values[p.name];
    return params;
  }

  const handlerTimeoutMs = options.handlerTimeoutMs;
  const onCall = options.onCall;
  const internalError = () => new ServiceError(ErrorCodes.InternalError, LAST_RESORT_MESSAGE);

  /** The wire answer for an error thrown while decoding, in the handler or while encoding. */
  function failure(
    binding: ServerBinding,
    error: unknown,
    op: OperationModel | undefined,
    seq: number,
  ): WireResponse {
    try {
      const wire = wireServiceError(error);
      if (wire !== undefined) return binding.encodeError(wire);
      const message =
        error instanceof ResultShapeError
          ? `result of ${op?.name}: ${error.message}`
          : "unexpected error in the handler";
      log({ level: "error", message, requestId: requestIdOf(seq), operation: op?.name, error });
    } catch (second) {
      log({
        level: "error",
        message: "an error could not be answered",
        requestId: requestIdOf(seq),
        operation: op?.name,
        error: second,
      });
    }
    return internalErrorResponse(binding);
  }

  /** InternalError in the binding's form, or the fixed last-resort text when even that fails. */
  function internalErrorResponse(binding: ServerBinding | undefined): WireResponse {
    try {
      if (binding !== undefined) return binding.encodeError(internalError());
    } catch {
      // fall through to the fixed answer
    }
    return LAST_RESORT;
  }

  function encode(
    binding: ServerBinding,
    op: OperationModel,
    result: unknown,
    values: ParamValues,
    seq: number,
    observer?: Observer,
    replyHeaders?: Readonly<Record<string, unknown>>,
  ): WireResponse {
    try {
      return binding.encodeResponse(op, result, values, replyHeaders);
    } catch (error) {
      observer?.failed(error);
      return failure(binding, error, op, seq);
    }
  }

  // Synchronous up to the handler's result; only a handler that returns a promise costs a promise here.
  function invoke(
    binding: ServerBinding,
    call: IncomingCall,
    seq: number,
  ): WireResponse | Promise<WireResponse> {
    if (onCall === undefined) return answer(binding, call, seq);
    const started = performance.now();
    let operation: string | undefined;
    let outcome = "OK";
    // The handler's context and the event share them: made here when the transport handed over none.
    const logFields = call.logFields ?? {};
    const report = (response: WireResponse): WireResponse => {
      try {
        onCall({
          requestId: requestIdOf(seq),
          operation,
          binding: binding.name,
          outcome,
          durationMs: performance.now() - started,
          logFields,
          transport: call.transport,
        });
      } catch {
        // A hook's failure must not cost the caller its answer.
      }
      return response;
    };
    const response = answer(binding, call, seq, {
      operation: (name) => (operation = name),
      failed: (error) => (outcome = wireServiceError(error)?.code ?? ErrorCodes.InternalError),
      logFields,
    });
    return isThenable(response) ? response.then(report) : report(response);
  }

  interface Observer {
    operation(name: string): void;
    failed(error: unknown): void;
    /** The call's log fields, which onCall's event carries. */
    readonly logFields: Record<string, unknown>;
  }

  /**
   * A one-way operation over SOAP: the caller gets 202 Accepted at once (its parameters were read and
   * checked; a refusal there is still answered as a fault) and the handler runs after it, within the same
   * time limit; what it throws or rejects with is logged, never answered (there is no output message). Over
   * HTTP GET/POST, as in ASMX, a one-way operation is answered as a void one.
   */
  function runOneWay(
    binding: ServerBinding,
    op: OperationModel,
    handler: (params: unknown, context: CallContext) => unknown,
    values: ParamValues,
    context: RequestContext,
    seq: number,
  ): WireResponse {
    const report = (error: unknown): void => {
      const wire = wireServiceError(error);
      log({
        level: wire === undefined ? "error" : "warn",
        message:
          wire === undefined
            ? "unexpected error in a one-way handler"
            : `one-way handler failed: ${wire.code}`,
        requestId: requestIdOf(seq),
        operation: op.name,
        error,
      });
    };
    try {
      const result = handler.call(implementation, handlerParams(op, values), context);
      if (isThenable(result)) withinTime(result, context, handlerTimeoutMs).then(undefined, report);
    } catch (error) {
      report(error);
    }
    return binding.encodeResponse(op, undefined, values);
  }

  function answer(
    binding: ServerBinding,
    call: IncomingCall,
    seq: number,
    observer?: Observer,
  ): WireResponse | Promise<WireResponse> {
    let op: OperationModel | undefined;
    const fail = (error: unknown, known: OperationModel | undefined): WireResponse => {
      observer?.failed(error);
      return failure(binding, error, known, seq);
    };
    try {
      // bindingFor only picks a binding for GET or POST, so the call is a WireRequest as it stands.
      const decoded = binding.decodeRequest(call as IncomingCall & WireRequest);
      op = decoded.op;
      observer?.operation(op.name);
      const values = readParams(op, decoded.texts, binding.presence);
      const context = new RequestContext(
        op.name,
        credentialsOf(op, values),
        binding.name,
        call,
        seq,
        observer?.logFields ?? call.logFields,
      );
      withHeaders(context, op, binding, decoded.headers);
      const handler = handlers[op.name] as (params: unknown, context: CallContext) => unknown;
      if (op.result.kind === "oneWay" && binding.presence === "element")
        return runOneWay(binding, op, handler, values, context, seq);
      const result = handler.call(implementation, handlerParams(op, values), context);
      if (!isThenable(result)) return binding.encodeResponse(op, result, values, context.replyHeaders);
      const known = op;
      return withinTime(result, context, handlerTimeoutMs).then(
        (value) => encode(binding, known, value, values, seq, observer, context.replyHeaders),
        (error: unknown) => fail(error, known),
      );
    } catch (error) {
      return fail(error, op);
    }
  }

  /** A refusal before the operation is known, in the error form of the binding the request is for. */
  function refuse(
    method: string,
    path: string,
    contentType: string | undefined,
    error: ServiceError,
  ): WireResponse {
    const binding = bindingFor(method, path, contentType);
    return binding ? binding.encodeError(error) : textErrorResponse(error);
  }

  function documentResponse(call: IncomingCall): WireResponse {
    const query = new URLSearchParams(call.query);
    const keys = [...query.keys()].map((k) => k.toLowerCase());
    if (keys.includes("wsdl"))
      return { status: 200, headers: XML, body: documents.wsdlFor(call.endpointUrl) };
    const opName = query.get("op");
    if (opName !== null) {
      const page = documents.helpOperationHtml(opName, call.endpointUrl);
      if (page !== undefined) return { status: 200, headers: HTML, body: page };
      return textErrorResponse({
        status: 404,
        exceptionType: "System.InvalidOperationException",
        message: `${oneLine(opName, ECHO_MAX)} Web Service method name is not valid.`,
        code: ErrorCodes.UnknownOperation,
      });
    }
    return { status: 200, headers: HTML, body: documents.helpIndexHtml(call.endpointUrl) };
  }

  function dispatch(call: IncomingCall): WireResponse | Promise<WireResponse> {
    const seq = ++requestCounter;
    const routed = router.route(call.method, call.path, call.headers["content-type"], call.body);
    if (routed === undefined) return documentResponse(call);
    return isBinding(routed) ? invoke(routed, call, seq) : routed;
  }

  return {
    service,
    options,
    bindingFor,
    async handle(call: IncomingCall): Promise<WireResponse> {
      return dispatch(call);
    },
    dispatch,
    budget,
    bodyProgress,
    publicEndpoint,
    cors,
    tooLarge(method, path, contentType, limit): WireResponse {
      const error = clientError(ErrorCodes.BodyTooLarge, `The request body is larger than ${limit} bytes.`, {
        status: 413,
        exceptionType: "System.Web.HttpException",
      });
      return refuse(method, path, contentType, error);
    },
    busy(method, path, contentType): WireResponse {
      const error = new ServiceError(ErrorCodes.ServerBusy, "The server is busy; try again in a moment.", {
        status: 503,
        exceptionType: "System.Web.HttpException",
      });
      const response = refuse(method, path, contentType, error);
      return { ...response, headers: { ...response.headers, "retry-after": "1" } };
    },
    refuse,
    lastResort(error, method, path, contentType): WireResponse {
      log({
        level: "error",
        message: "unexpected error outside the handler",
        requestId: requestIdOf(++requestCounter),
        error,
      });
      return internalErrorResponse(bindingFor(method, path, contentType));
    },
  };
}
