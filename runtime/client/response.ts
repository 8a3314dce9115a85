// The client's side of an answer, from fetch's Response to the text a binding reads: redirects refused, the
// size bounded while reading (after decompression, so a gzip bomb stops at the limit), the bytes decoded in
// the answer's charset. Web-standard APIs only.

import { RedirectError, ResponseFormatError, ResponseTooLargeError } from "../errors.js";
import type { WireResponse } from "../protocol/binding.js";
import type { BindingName } from "../model.js";

/** Who the answer is for, so that errors name the call. */
export interface AnswerContext {
  readonly binding: BindingName;
  readonly operation: string;
  readonly maxResponseBytes: number;
  /** The platform's decoder (ClientPlatform.decodeText). */
  readonly decodeText: (bytes: Uint8Array, contentType: string | undefined, kind: "xml" | "text") => string;
  /** Aborts the call: the caller's signal and the time limit. */
  readonly signal: AbortSignal | undefined;
  /** Closes the connection once the client has stopped reading. */
  readonly abort: () => void;
}

/** The origin of a Location header, resolved against the request's URL; undefined when it has none. */
function locationOrigin(response: Response, requestUrl: string): string | undefined {
  const location = response.headers.get("location");
  if (location === null) return undefined;
  try {
    return new URL(location, requestUrl).origin;
  } catch {
    return undefined;
  }
}

/** The body's bytes, read until the end or until more than `maxResponseBytes` have arrived. */
async function readBytes(response: Response, context: AnswerContext): Promise<Uint8Array> {
  const tooLarge = () =>
    new ResponseTooLargeError(context.maxResponseBytes, context.binding, context.operation);
  // Without a content coding, Content-Length is the decoded size: refuse before reading anything.
  const length = Number(response.headers.get("content-length") ?? NaN);
  if (response.headers.get("content-encoding") === null && length > context.maxResponseBytes) {
    context.abort();
    throw tooLarge();
  }
  // No body (null) reads as no bytes.
  const reader = response.body?.getReader();
  // A fetch that ignores the signal once the headers are in still stops here: cancelling ends the read.
  const stop = () => void reader?.cancel().catch(() => {});
  context.signal?.addEventListener("abort", stop, { once: true });
  const chunks: Uint8Array[] = [];
  let total = 0;
  try {
    while (reader) {
      const { done, value } = await reader.read();
      if (done) break;
      total += value.byteLength;
      if (total > context.maxResponseBytes) {
        stop();
        context.abort();
        throw tooLarge();
      }
      chunks.push(value);
    }
  } finally {
    context.signal?.removeEventListener("abort", stop);
  }
  if (context.signal?.aborted) throw context.signal.reason;
  // One copy of the chunks, by Blob (a bundle then carries no copying loop of its own). Typed by Blob's own
  // constructor, so that the DOM library (BlobPart) and @types/node (BinaryLike) alike accept it.
  return new Uint8Array(
    await new Blob(chunks as unknown as NonNullable<ConstructorParameters<typeof Blob>[0]>).arrayBuffer(),
  );
}

/** Media types whose body is text, not XML: the HTTP bindings' error answers. */
function isPlainText(contentType: string | null): boolean {
  return contentType !== null && contentType.split(";")[0]!.trim().toLowerCase() === "text/plain";
}

/**
 * The answer as a binding reads it. Throws RedirectError, ResponseTooLargeError, ResponseFormatError (bytes
 * not valid in the answer's charset, or a charset we do not read); a failed read rejects with what the
 * stream rejected with, for the caller to map to a TimeoutError or TransportError.
 */
export async function readAnswer(
  response: Response,
  requestUrl: string,
  context: AnswerContext,
): Promise<WireResponse> {
  // A redirect is never followed: fetch would re-send the body, credentials included, to whatever host the
  // answer names (307/308), and the .NET client does not follow redirects for SOAP either. A browser
  // answers redirect: "manual" with an opaque response that hides the status and the target.
  const opaque = response.type === "opaqueredirect";
  if (opaque || (response.status > 299 && response.status < 400)) {
    context.abort();
    throw opaque
      ? new RedirectError(undefined, undefined, context.binding, context.operation)
      : new RedirectError(
          response.status,
          locationOrigin(response, requestUrl),
          context.binding,
          context.operation,
        );
  }
  const bytes = await readBytes(response, context);
  const contentType = response.headers.get("content-type");
  let body: string;
  try {
    body = context.decodeText(bytes, contentType ?? undefined, isPlainText(contentType) ? "text" : "xml");
  } catch (error) {
    // A decoder is a pure function of the bytes: whatever it throws, the answer cannot be read as text.
    const message = `HTTP ${response.status}: the answer cannot be read as text (${(error as Error).message})`;
    throw new ResponseFormatError(message, context.binding, context.operation, { cause: error });
  }
  // Headers iterate their names in lower case (the Fetch standard's sort and combine).
  return {
    status: response.status,
    headers: Object.fromEntries(response.headers as unknown as Iterable<[string, string]>),
    body,
  };
}
